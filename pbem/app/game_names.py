"""Game names, and the file names made from them (pure; issue 12).

A game name is what players type in `[pbem NAME]` and what `pbem export
--all` names files after, so it is kept to lower-case letters, digits and
`-`, starting with a letter, at most 40 characters.  A database written
before this rule may still hold another name: `export_stem` never lets such
a name leave the export folder (`../../x`, `a/b`, `.`, an empty name).

Names as the moderator types them, in every command and its mail form: a game's in any case, a player's by
`player_named` (whole name, unique prefix or first name, case and accents ignored); one that matches nothing is
refused naming the nearest (`nearest`: "did you mean hh1?") (tests/test_names_every_command.py).
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.app.decision import GameError
from pbem.engine.names import candidates_for, fold, norm

if TYPE_CHECKING:
    from pbem.record.store import Former, Loaded

MAX_GAME_NAME = 40
GAME_NAME = re.compile(rf"\A[a-z][a-z0-9-]{{0,{MAX_GAME_NAME - 1}}}")
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
    if path.parent != root or not re.fullmatch(r"\A[A-Za-z0-9_-]+", stem):
        raise ValueError(f"{stem!r} is not a safe file name in {directory}")
    return path


MAX_TYPED = 60  # characters of a mistyped name compared (difflib's cost grows with the product of the lengths)


def nearest(typed: str, names: Sequence[str]) -> list[str]:
    """The names `typed` may have meant (at most 3, nearest first), case and accents ignored: a letter left out,
    one too many, two swapped (`hh2` for hh1, `Alce` for Alice)."""
    folded = {fold(norm(n))[:MAX_TYPED]: n for n in names}
    got = difflib.get_close_matches(fold(norm(typed))[:MAX_TYPED], list(folded), n=3, cutoff=0.6)
    return [folded[g] for g in got]


def _meant(typed: str, names: Sequence[str]) -> str:
    near = nearest(typed, names)
    return f" (did you mean {' or '.join(near)}?)" if near else ""


def unknown_game(name: str, names: Sequence[str]) -> str:
    """Why `name` names no game, with the nearest names there are (`pbem game list` lists them all)."""
    shown = name if len(name) <= MAX_TYPED else name[:MAX_TYPED] + "..."
    return f'no game named "{shown}"{_meant(name, names)}; see pbem game list'


def player_named(typed: str, players: list[str], game: str, former: Sequence[Former] = ()) -> str:
    """The player `typed` names, in every moderator command and its mail form: the whole name, else a unique
    prefix or a unique first name, case and accents ignored as mail reads names ("zoe" for Zoë Müller); else a
    GameError naming the nearest players and listing them all, or, for a name a seat had before a replacement
    (`former`, `pbem.record.store.former_players`), who took that seat and when."""
    if not typed.strip():
        raise GameError(f"name a player of {game}; players: {', '.join(players)}")
    found = candidates_for(typed, players)  # the exact name, else every prefix match
    if len(found) > 1:  # "ben" for Ben Ames beside Benedikt Roth: his whole first name
        found = [p for p in found if norm(p).split(" ")[0] == norm(typed)] or found
    if len(found) == 1:
        return found[0]
    if found:
        raise GameError(f'"{typed}" could be any of: {", ".join(found)}; type more of the name')
    if taken := _taken(typed, former, game):
        raise GameError(f"{taken}; players: {', '.join(players)}")
    shown = typed if len(typed) <= MAX_TYPED else typed[:MAX_TYPED] + "..."
    raise GameError(f"{shown} is not a player of {game}{_meant(typed, players)}; players: {', '.join(players)}")


def _taken(typed: str, former: Sequence[Former], game: str) -> str:
    """Who took the seat of the one former player `typed` names, and when ("" if it names none, or several)."""
    names = candidates_for(typed, list(dict.fromkeys(f[0] for f in former)))
    if len(names) != 1:
        return ""
    old, new, when, now = [f for f in former if f[0] == names[0]][-1]
    later = f" ({now} plays it now)" if now != new else ""
    return f"{new} took {old}'s seat in {game} on {when:%Y-%m-%d}{later}"


def seat_named(loaded: Loaded, typed: str) -> str:
    """`player_named` over a loaded game's players, and the names its seats had (`Loaded.former`)."""
    return player_named(typed, [st.player for st in loaded.seats], loaded.game.name, loaded.former)
