"""HISTORY and `pbem game show --as` read what the reader may see, never the events hidden from them (costs11).

A player's HISTORY (`pbem.app.histories`) and `pbem game show --as` (`pbem.record.recent.shown`) read the latest
events a reader may see newest first, and stepped over every event hidden from the reader in SQL: visibility is
JSON text, which no index reads, so Alice's whole history after 5,000 and 20,000 events only Bob sees took 2.3 and
5.7 ms (costs10).  Each event's readers are now kept in `event_readers` (written with the event; migration 0018
fills it for older records), and `history_rows.latest_seen` reads the latest of everyone's and of each of the
reader's names by its key.

Counted, not timed: the SQLite virtual machine's steps of each answer (`set_progress_handler`), which do not depend
on the machine.  On 4adb736 Alice's whole history, her turn being played and her `game show` took 86, 80 and 228
hundred steps after 1,000 hidden events and 327, 321 and 888 after 4,000; now about 12, 1 and 12 at both sizes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pbem.app import histories
from pbem.record import recent, store
from pbem.record.db import session
from tests.reliability.test_costs8_history import TURN, append, lengthen, reference, said, seen_by
from tests.test_moderator import new_game

HIDDEN = 1_000  # events only Bob sees at n; 4n at 4n
STEP = 100  # SQLite VM instructions a count


def _hide(url: str, events: int, start: int) -> None:
    """`events` events of the turn being played that only Bob sees, after a public one."""
    if start == 0:
        append(url, [("note", "The turn goes on.", "public", {})])
    append(url, [("note", f"Bob's {start + i}.", ["Bob"], {"i": start + i}) for i in range(events)])


def _steps(s: Any, answer: Callable[[], object]) -> int:
    """SQLite's VM steps (in `STEP`s) while `answer` runs on session `s`'s connection."""
    raw = s.connection().connection.driver_connection
    counted = [0]

    def step() -> int:
        counted[0] += 1
        return 0

    raw.set_progress_handler(step, STEP)
    try:
        answer()
    finally:
        raw.set_progress_handler(None, STEP)
    return counted[0]


def _answers(s: Any, loaded: Any) -> dict[str, Callable[[], object]]:
    """Alice's answers: her whole history, the turn being played, turn 1, `pbem game show --as Alice`."""
    alice = next(x for x in loaded.seats if x.player == "Alice")
    return {
        "whole history": lambda: histories.load(s, loaded, alice, ""),
        "the turn being played": lambda: histories.load(s, loaded, alice, "3"),
        "turn 1": lambda: histories.load(s, loaded, alice, "1"),
        "game show --as": lambda: recent.shown(s, loaded, "Alice", 20),
    }


@pytest.fixture(scope="module")
def hidden_steps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, int]]:
    """Each answer's steps after `HIDDEN` and 4 `HIDDEN` events hidden from Alice (two turns played before)."""
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from tests.conftest import Clock

    cfg = config_mod.load(init_home(tmp_path_factory.mktemp("hidden") / "home", address="m@pbem.test", name="M"))
    new_game(cfg, Clock())
    lengthen(cfg.database_url, 2 * TURN)
    counts: dict[str, list[int]] = {}
    for start, events in ((0, HIDDEN), (HIDDEN, 3 * HIDDEN)):
        _hide(cfg.database_url, events, start)
        with session(cfg.database_url) as s:
            for name, answer in _answers(s, store.load(s, store.game_by_name(s, "hh1"))).items():
                counts.setdefault(name, []).append(_steps(s, answer))
    return {name: (n, four) for name, (n, four) in counts.items()}


@pytest.mark.parametrize("answer", ["whole history", "the turn being played", "turn 1", "game show --as"])
def test_an_answer_reads_none_of_the_events_hidden_from_its_reader(
    hidden_steps: dict[str, tuple[int, int]], answer: str
) -> None:
    n, four = hidden_steps[answer]
    assert four <= n * 1.1 + 2, f"{answer}: {n} and {four} hundred SQLite steps after {HIDDEN} and 4x hidden events"


def test_with_hidden_events_each_reader_is_answered_as_the_whole_record_says(home: Any, clock: Any) -> None:
    """Alice, who sees none of the turn being played, and Bob, who sees all of it: the answers are the whole
    record's, the latest `MAX_EVENTS` and each turn, the set-up's events left out of turn 1."""
    new_game(home, clock)
    lengthen(home.database_url, 2 * TURN)
    _hide(home.database_url, histories.MAX_EVENTS + 7, 0)
    with session(home.database_url) as s:
        game = store.game_by_name(s, "hh1")
        loaded = store.load(s, game)
        for player in ("Alice", "Bob"):
            seen, seat = seen_by(s, game, player), next(x for x in loaded.seats if x.player == player)
            for asked in ("", "1", "2", "3", "4"):
                want = reference(seen, "habsburg", asked, player, False, histories.MAX_EVENTS)
                assert said(histories.load(s, loaded, seat, asked)) == want, f"{player} {asked!r}"
