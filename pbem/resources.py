"""Where the shipped templates and migrations live.

In a wheel they are package data (`pbem/_templates`, `pbem/_migrations`,
mapped from the top-level `templates/` and `migrations/` folders by
pyproject.toml); in a source checkout they are those folders themselves.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def _find(packaged: str, source: str) -> Path:
    inside = _PKG / packaged
    if inside.is_dir():
        return inside
    return _PKG.parent / source


def templates_dir() -> Path:
    return _find("_templates", "templates")


def migrations_dir() -> Path:
    return _find("_migrations", "migrations")
