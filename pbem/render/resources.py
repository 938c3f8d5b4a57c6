"""Where the files shipped beside the code live: the templates and the migrations.

In a wheel they are package data (`pbem/_templates`, `pbem/_migrations`,
mapped from the top-level `templates/` and `migrations/` folders by
pyproject.toml); in a source checkout they are those folders themselves.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parents[1]


def shipped(packaged: str, source: str) -> Path:
    """The folder `packaged` inside the installed package, else `source` beside it in a checkout."""
    inside = _PKG / packaged
    if inside.is_dir():
        return inside
    return _PKG.parent / source


def templates_dir() -> Path:
    return shipped("_templates", "templates")
