"""Exporting histories: one game in one format, or every game in every registered format.

By default an export holds what every player knows (the public record); `as_player`
gives what one player knows, `moderator` the complete record (its files are named
NAME-moderator.SUFFIX).  `export_all` never writes outside its folder, whatever a
game's name holds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pbem.app.decision import GameError
from pbem.app.game_names import export_stem, inside, player_named, unknown_game
from pbem.home.app import Home
from pbem.record import files, listing, private, store


def export_game(home: Home, name: str, fmt: str, as_player: str | None = None, moderator: bool = False) -> str:
    """The history of game `name` as `fmt`: public, or what `as_player` may know, or the moderator's record."""
    from pbem.history.export import build
    from pbem.history.formats import render

    with home.units() as s:
        game = store.game_by_name(s, name)
        if game is None:
            raise GameError(unknown_game(name, store.game_names(s)))
        assert game.id is not None
        players = [st.player for st in store.current_seats(s, game.id)]
        former = store.former_players(s, game.id) if as_player else ()
        as_player = player_named(as_player, players, game.name, former) if as_player else as_player
        doc = build(s, game, as_player=as_player, public=not (as_player or moderator))
    return render(doc, fmt)


def game_names(home: Home) -> list[str]:
    with home.units() as s:
        return listing.game_names(s)


def export_all(
    home: Home, directory: Path, moderator: bool = False, progress: Callable[[str], None] | None = None
) -> tuple[int, int]:
    """Every game in every export format, as DIR/NAME.SUFFIX (DIR/NAME-moderator.SUFFIX).  Returns (files, games)."""
    from pbem.history.export import build
    from pbem.history.formats import FORMATS, render

    directory.mkdir(parents=True, exist_ok=True)
    written = games = 0
    with home.units() as s:
        for game in listing.all_games(s):
            doc = build(s, game, public=not moderator)
            stem = export_stem(game.name, game.id or 0) + ("-moderator" if moderator else "")
            for fmt, spec in FORMATS.items():
                path = inside(directory, stem, spec.suffix)  # never outside
                if moderator:
                    private.write(path, render(doc, fmt))  # the whole record, seed and hands: the moderator's only
                else:
                    files.write_whole(path, render(doc, fmt))  # whole or not at all (pbem.cli.deadline)
                written += 1
            games += 1
            if progress:
                progress(game.name)
    return written, games
