"""Rendering what people read: the Jinja2 templates pbem ships, and where they live."""
