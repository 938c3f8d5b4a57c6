"""The moderator sets how much mail a game's players get by default (issue 23: `pbem game mail NAME MODE`).

Players choose for themselves with WATCH, NORMAL or DIGEST alone on a line (`pbem.app.notify`); a
player's own choice wins over the game's default.  Nothing about the record, the receipts or
`pbem verify` depends on it.
"""

from __future__ import annotations

from datetime import datetime

from pbem.app.decision import GameError
from pbem.app.game_names import unknown_game
from pbem.app.notify import MODES
from pbem.home.app import Home
from pbem.record import modes, store
from pbem.record.db import Unit


def set_default(home: Home, name: str, mode: str, when: datetime) -> tuple[str, bool]:
    """Record `mode` as game `name`'s default; returns it (lower case) and whether it was the default already (then
    nothing is recorded: players26, a repeated `pbem game mail hh1 watch` said the mode again as if it were new).
    GameError for an unknown game or mode."""
    with home.units() as s:
        game = store.game_by_name(s, name)
        if game is None or game.id is None:
            raise GameError(unknown_game(name, store.game_names(s)))
        chosen = choose_default(s, game.id, mode, when)
        s.commit()
    return chosen


def choose_default(s: Unit, game_id: int, mode: str, when: datetime) -> tuple[str, bool]:
    """`set_default` in the caller's transaction (`MAIL watch` in a moderator's mail too): the mode (lower case) and
    whether it was the default already, then not recorded again."""
    mode = mode.lower()
    if mode not in MODES:
        raise GameError(f'"{mode}" is no mail mode; choose one of: {", ".join(MODES)}')
    if modes.mailing(s, game_id).default == mode:
        return mode, True
    modes.set_mode(s, game_id, "", mode, when)
    return mode, False


def said(name: str, mode: str, already: bool) -> str:
    """What `pbem game mail` prints and a moderator's `MAIL` line is answered."""
    if already:
        return f"{name}: players already get {mode} mail by default; nothing changed"
    return f"{name}: players get {mode} mail unless they chose otherwise"
