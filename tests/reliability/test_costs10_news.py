"""Events with no input of their own no longer make every later mail of the step count them again (costs10).

Every load of a game (`pbem.record.store.load`, the first thing each mail about it does) takes each player's
receipt count from the game's newest snapshot and brings it up to the game's newest event
(`pbem.record.reader_view.cached`): it read every event since the snapshot.  Only an input makes a snapshot, so
the moderator's `pbem game say` broadcasts, press relayed between players and notices piled up until the next
input, and each mail of that step read them all: a step of n such events cost n squared rows.  Now the writer of
such events (`store.append_news`) brings the snapshot's counts up to them, so a load reads none.

The generator: n (and 4n) `pbem game say` broadcasts through the use case, then a press between two players (an
event only they may see), then the load of the next mail.  On ba1be06 the load read 9 + n + 1 and 9 + 4n + 1 rows
(the set-up's events, the says, the press); now none at either size, and every player's receipt count and head
are what counting the record afresh gives (`reader_view.visible_record`).
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.app import say
from pbem.app.decision import Decision, Events
from pbem.app.settle import settle
from pbem.engine.base import Event
from pbem.home.app import Home
from pbem.record import reader_view, store
from tests.test_moderator import new_game

N = 4  # says at n; 4n at 4n


def _game(cfg, clock, name: str, n: int) -> None:
    """Game `name` with `n` says of the moderator, then a press from Alice to Bob, and no input since the deal."""
    new_game(cfg, clock, name=name)
    for i in range(n):
        clock.advance(minutes=1)
        say.say(Home.of(cfg), name, f"Word {i} from the moderator.", clock.now)
    home = Home.of(cfg)
    with home.units() as s:
        loaded = store.load(s, _g(s, name))
        press = Events((Event("press", "Alice to Bob: meet me in Vienna.", ("Alice", "Bob")),))
        settle(s, home.policy, Decision(game=name, effects=[press]), clock.now, loaded)
        s.commit()


def _g(s, name: str):
    game = store.game_by_name(s, name)
    assert game is not None
    return game


@pytest.fixture
def counted(monkeypatch) -> dict[str, int]:
    """The event rows `reader_view.cached` reads."""
    rows = {"read": 0}
    fetch = reader_view.fetch

    def counting(conn: Any, stmt: Any, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        out = fetch(conn, stmt, params)
        if stmt is reader_view._Q_EVENTS_SINCE:
            rows["read"] += len(out)
        return out

    monkeypatch.setattr(reader_view, "fetch", counting)
    return rows


def test_a_load_after_n_says_and_a_press_counts_none_of_them_again(home, clock, counted) -> None:
    read: dict[int, int] = {}
    for n, name in ((N, "hh1"), (4 * N, "hh4")):
        _game(home, clock, name, n)
        counted["read"] = 0
        with Home.of(home).units() as s:
            loaded = store.load(s, _g(s, name))
            read[n] = counted["read"]
            assert loaded.readers, "the snapshot keeps every player's count"
            reader_view.forget()  # counted afresh from the record, as a process that kept no count does
            fresh = {
                p: reader_view.visible_record(s, loaded.game.id, p, loaded.game.seed_commitment) for p in loaded.readers
            }
        assert loaded.readers == fresh, f"receipts after {n} says and a press: {loaded.readers} against {fresh}"
    assert read == {N: 0, 4 * N: 0}, f"event rows the next mail's load read after n and 4n says and a press: {read}"
