"""A moderator's home: its configuration (`pbem.toml`), logging, and the objects built from them."""
