"""pbem: a play-by-email moderator for hidden-information card and board games."""

__version__ = "0.3.0"
