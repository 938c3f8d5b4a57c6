"""Exporting histories: one game in one format, or every game in every format."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from sqlmodel import col, select

from ..config import Config
from ..record import store
from ..record.db import session
from ..record.models import Game
from .decision import GameError


def export_game(cfg: Config, name: str, fmt: str, as_player: str | None = None, public: bool = False) -> str:
    """The history of game `name` as `fmt`; only what `as_player` (or every player, `public`) may know."""
    from ..export import build, render

    with session(cfg.database_url) as s:
        game = store.game_by_name(s, name)
        if game is None:
            raise GameError(f'no game named "{name}"; see pbem game list')
        players = json.loads(game.players_json)
        if as_player and as_player not in players:
            raise GameError(f"{as_player} is not a player of {name}; players: {', '.join(players)}")
        doc = build(s, game, as_player=as_player, public=public)
    return render(doc, fmt)


def game_names(cfg: Config) -> list[str]:
    with session(cfg.database_url) as s:
        return list(s.exec(select(Game.name).order_by(col(Game.id))).all())


def export_all(
    cfg: Config, directory: Path, public: bool = False, progress: Callable[[str], None] | None = None
) -> tuple[int, int]:
    """Every game in every export format, as DIR/NAME.SUFFIX.  Returns (files written, games)."""
    from ..export import FORMATS, build, render

    directory.mkdir(parents=True, exist_ok=True)
    written = games = 0
    with session(cfg.database_url) as s:
        for game in s.exec(select(Game).order_by(col(Game.id))).all():
            doc = build(s, game, public=public)
            for fmt, suffix in FORMATS.items():
                (directory / f"{game.name}.{suffix}").write_text(render(doc, fmt), encoding="utf-8")
                written += 1
            games += 1
            if progress:
                progress(game.name)
    return written, games
