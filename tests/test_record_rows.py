"""The record hands out frozen rows (issue 22): plain data with exactly the tables' columns, that no session
tracks and no use case can change behind the record's back."""

from __future__ import annotations

import dataclasses

import pytest

from pbem.app import games
from pbem.home.app import Home
from pbem.record import listing, models, rows, store
from pbem.record.db import session
from tests.conftest import CODES

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
KINDS = ("Game", "Seat", "OrderInput", "GameEvent", "Deadline")


@pytest.mark.parametrize("kind", KINDS)
def test_each_row_has_exactly_its_tables_columns(kind: str) -> None:
    columns = {c.name for c in getattr(models, kind).__table__.columns}
    assert {f.name for f in dataclasses.fields(getattr(rows, kind))} == columns


def test_what_a_loaded_game_holds_is_frozen_plain_data(home, clock) -> None:
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="rows", clock=clock, codes=CODES)
    with session(home.database_url) as s:
        game = store.game_by_name(s, "hh1")
        assert game is not None and game.id is not None
        loaded = store.load(s, game)
        held = [
            loaded.game,
            *loaded.seats,
            store.current_deadline(s, game.id),
            *store.events_for(s, game.id),
            *listing.all_games(s),
            store.game_by_id(s, game.id),
        ]
        assert store.inputs(s, game.id) == []  # nothing played yet: the set-up is events only
    assert len(held) > 6
    for row in held:
        assert type(row) in {getattr(rows, k) for k in KINDS}, type(row)
        with pytest.raises(dataclasses.FrozenInstanceError):
            row.created_at = None  # type: ignore[misc, union-attr]
