"""Game names, and the file names made from them (pure; issue 12).

A game name is what players type in `[pbem NAME]` and what `pbem export
--all` names files after, so it is kept to lower-case letters, digits and
`-`, starting with a letter, at most 40 characters.  A database written
before this rule may still hold another name: `export_stem` never lets such
a name leave the export folder (`../../x`, `a/b`, `.`, an empty name).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

MAX_GAME_NAME = 40
GAME_NAME = re.compile(rf"[a-z][a-z0-9-]{{0,{MAX_GAME_NAME - 1}}}")
ALLOWED = (
    f"a game name is lower-case letters, digits and '-', starts with a letter and has at most {MAX_GAME_NAME} "
    "characters, for example thirty-7 or hh1"
)


def game_name_problem(name: str) -> str | None:
    """Why `name` cannot name a new game, or None."""
    if GAME_NAME.fullmatch(name):
        return None
    shown = name if len(name) <= 60 else name[:60] + "..."
    return f"{shown!r} cannot be a game name: {ALLOWED}"


def export_stem(name: str, game_id: int) -> str:
    """A file name stem for a game: its name if valid, else a safe stand-in that still shows the id and the name."""
    if GAME_NAME.fullmatch(name):
        return name
    cleaned = re.sub(r"[^a-z0-9-]+", "_", name.lower()).strip("_")[:MAX_GAME_NAME]
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"game-{game_id}-{cleaned}-{digest}" if cleaned else f"game-{game_id}-{digest}"


def inside(directory: Path, stem: str, suffix: str) -> Path:
    """`directory/stem.suffix`, refused (ValueError) if it would not be a file directly in `directory`."""
    root = directory.resolve()
    path = (root / f"{stem}.{suffix}").resolve()
    if path.parent != root or not re.fullmatch(r"[A-Za-z0-9_-]+", stem):
        raise ValueError(f"{stem!r} is not a safe file name in {directory}")
    return path
