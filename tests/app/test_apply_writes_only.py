"""`apply` only writes (issue 22): every statement it sends to a real SQLite record is an INSERT or an UPDATE.

Whatever a decision needs beyond itself was read before it is written: the game and its chain head by
the load step, what its reports read by `apply.prepare`.  The statements are counted with SQLAlchemy's
`before_cursor_execute` event on the home's engine, on the calling thread only (the mail sender's
thread reads the outbox meanwhile, as it should), while a game is played through every kind of
decision: a new game (dealt and with a join step), order mail accepted and refused, STATUS, a
reminder, a deadline, and every moderator command.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event

from pbem.app import apply as applying
from pbem.app import control, games
from pbem.app.deadlines import run_deadlines
from pbem.app.games import Table
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import engine_for, session
from tests.conftest import CODES, deliver, order_mail, signed
from tests.test_moderator import asked, run_poll

DUO = [("Ann", "ann@players.test"), ("Ben", "ben@players.test")]


class Statements:
    """The statements the calling thread sent while inside `apply`, by their first word."""

    def __init__(self) -> None:
        self.words: Counter[str] = Counter()
        self.selects: list[str] = []
        self.calls = 0
        self._inside: set[int] = set()

    def seen(self, conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        if threading.get_ident() in self._inside:
            word = statement.lstrip().split(None, 1)[0].upper()
            self.words[word] += 1
            if word in ("SELECT", "WITH") or "SELECT" in statement.upper():
                self.selects.append(statement)

    def counting(self, real: Any) -> Any:
        def counted(*args: Any, **kw: Any) -> Any:
            me = threading.get_ident()
            self.calls += 1
            self._inside.add(me)
            try:
                return real(*args, **kw)
            finally:
                self._inside.discard(me)

        return counted


@pytest.fixture
def statements(home, monkeypatch: pytest.MonkeyPatch) -> Iterator[Statements]:
    found = Statements()
    engine = engine_for(home.database_url)
    event.listen(engine, "before_cursor_execute", found.seen)
    counted = found.counting(applying.apply)
    monkeypatch.setattr("pbem.app.settle.apply", counted)  # every shell writes through `settle`
    try:
        yield found
    finally:
        event.remove(engine, "before_cursor_execute", found.seen)


def test_the_counter_sees_a_select_made_inside_apply(home, statements: Statements, clock) -> None:
    """The check itself: a SELECT sent from inside a counted call is seen (else the tests below prove nothing)."""
    games.create_game(Home.of(home), "italian-wars", "iw0", DUO, seed="counter", clock=clock, codes=CODES)

    def reads(*_: Any) -> None:
        with session(home.database_url) as s:
            store.chain_head(s, store.game_by_name(s, "iw0"))

    statements.counting(reads)()
    assert statements.selects, "a SELECT inside a counted call is counted"


def test_the_counter_sees_the_precompiled_look_ups_too(home, statements: Statements, clock) -> None:
    """`db.fetch` runs its SELECTs on the driver connection, past SQLAlchemy's execution: the counter sees them
    all the same (the engine's listeners are told), and only inside the counted call."""
    games.create_game(Home.of(home), "italian-wars", "iw0", DUO, seed="counter", clock=clock, codes=CODES)
    with session(home.database_url) as s:
        s.connection()  # the transaction begun outside the counted call

        def reads(*_: Any) -> None:
            store.game_by_name(s, "iw0")  # one precompiled SELECT (`db.fetch`)

        statements.counting(lambda: None)()
        assert not statements.selects
        statements.counting(reads)()
    assert len(statements.selects) == 1 and "FROM games" in statements.selects[0]


def test_apply_issues_no_select_for_any_decision(home, statements: Statements, clock) -> None:
    games.create_game(Home.of(home), "italian-wars", "iw1", DUO, seed="writes-only", clock=clock, codes=CODES)
    run_poll(home, clock)
    requests, _ = asked(home, "iw1")
    player = requests[0].player
    addr = dict(DUO)[player]
    deliver(home, order_mail(addr, "iw1", signed(player, requests[0].legal[0])))  # accepted: ack and reports
    deliver(home, order_mail(addr, "iw1", "CODE WRONG-0000\n" + requests[0].legal[0]))  # refused: wrong code
    deliver(home, order_mail(addr, "iw1", signed(player, "STATUS")))  # a report on request
    deliver(home, order_mail("stranger@elsewhere.test", "iw1", "hello"))  # ignored, recorded
    summary = run_poll(home, clock)
    assert summary.read == 4 and summary.accepted >= 2 and summary.rejected >= 1

    clock.advance(hours=30)  # past the middle of the 48-hour step: a reminder
    assert run_deadlines(Home.of(home), clock())[1] >= 1
    clock.advance(hours=30)  # past the deadline: the defaults
    assert run_deadlines(Home.of(home), clock())[0] == 1

    when = clock()
    control.extend(Home.of(home), "iw1", timedelta(hours=2), when)
    control.pause(Home.of(home), "iw1", when)
    control.resume(Home.of(home), "iw1", when)
    control.new_player_code(Home.of(home), "iw1", "Ann", when, code="ANEW-1234")
    control.replace(Home.of(home), "iw1", "Ben", ("Dave", "dave@players.test"), when, code=CODES["Dave"])
    control.abandon(Home.of(home), "iw1", when)

    games.create_game(
        Home.of(home), "italian-wars", "iw2", DUO, seed="joining", clock=clock, codes=CODES, table=Table(join=True)
    )
    control.start(Home.of(home), "iw2", clock())

    assert statements.calls >= 14, f"every decision was written through apply ({statements.calls} calls)"
    assert statements.words["INSERT"] > 0 and statements.words["UPDATE"] > 0, statements.words
    assert statements.selects == [], f"apply read the record: {statements.selects}"
