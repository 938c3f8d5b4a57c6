"""A receipt counted from nothing reads the events its reader may see, never those hidden from them (costs12).

`reader_view.visible_record` counts a reader's entries when no snapshot keeps their count (a row written before, a
newcomer, a process that never loaded the game).  It matched every event of the game with LIKE on its visibility
JSON, which no index reads, so Alice's count after 1,000 and 4,000 events only Bob sees took 245 and 965 hundred
SQLite VM steps on 271d97f (the test counts after 500 and 2,000).  Each event's readers are in `event_readers` (costs11, migration 0018): the count and
the newest event Alice may see are now read by its key, 5 hundred steps at both sizes (Bob's, who sees them all,
45 and 166: the answer's size).

Counted, not timed: SQLite's VM steps (`set_progress_handler`), which do not depend on the machine.  The answers
themselves are checked against the whole record by `tests/test_reader_view_counts.py`.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from pbem.record import reader_view, store
from pbem.record.db import session
from tests.reliability.test_costs8_history import TURN, lengthen
from tests.reliability.test_costs11_history import _hide, _steps
from tests.test_moderator import new_game

HIDDEN = 500  # events only Bob sees at n; 4n at 4n


@pytest.fixture(scope="module")
def counted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[int, tuple[int, str]]]]:
    """Alice's and Bob's (steps, receipt) counted from nothing after `HIDDEN` and 4 `HIDDEN` events only Bob sees."""
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from tests.conftest import Clock

    cfg = config_mod.load(init_home(tmp_path_factory.mktemp("readers") / "home", address="m@pbem.test", name="M"))
    new_game(cfg, Clock())
    lengthen(cfg.database_url, 2 * TURN)
    out: dict[str, list[tuple[int, tuple[int, str]]]] = {"Alice": [], "Bob": []}
    for start, events in ((0, HIDDEN), (HIDDEN, 3 * HIDDEN)):
        _hide(cfg.database_url, events, start)
        with session(cfg.database_url) as s:
            game = store.game_by_name(s, "hh1")
            assert game is not None and game.id is not None
            for player, got in out.items():
                reader_view.forget()  # a new process: nothing counted yet
                answer: list[tuple[int, str]] = []
                steps = _steps(s, partial(_count, s, game.id, player, answer))
                got.append((steps, answer[0]))
    reader_view.forget()
    return out


def _count(s: Any, game_id: int, player: str, into: list[tuple[int, str]]) -> None:
    into.append(reader_view.visible_record(s, game_id, player, "c"))


def test_a_count_from_nothing_reads_none_of_the_events_hidden_from_its_reader(
    counted: dict[str, list[tuple[int, tuple[int, str]]]],
) -> None:
    (n, at_n), (four, at_four) = counted["Alice"]
    assert at_n == at_four, "Alice sees none of the hidden events: her receipt stays"
    assert four <= n * 1.1 + 2, f"{n} and {four} hundred SQLite steps after {HIDDEN} and 4x hidden events"


def test_the_reader_who_sees_them_counts_them(counted: dict[str, list[tuple[int, tuple[int, str]]]]) -> None:
    (_, (bob_n, _)), (_, (bob_four, _)) = counted["Bob"]
    assert bob_four - bob_n == 3 * HIDDEN
