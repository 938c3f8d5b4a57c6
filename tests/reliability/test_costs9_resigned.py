"""A seat that resigned makes no later mail read more of the record (costs9).

What the reports of a decision read is loaded before it is written (`pbem.record.recent.read`): the events since the
oldest last report among the players it may report to.  A player who resigned by mail gets no more turn reports, so
their last report stayed where they resigned, and every later mail with orders or STATUS of that game read and
decoded every event since.  Now `read` leaves them out, and a report the decision writes them after all (their STATUS,
the game's end, `pbem game resend`) reads the events it lacks then, once (`pbem.app.finish.Unread`,
`pbem.record.recent.widen`).

The generator: a House of Habsburg game where Bob resigned, then n (and 4n) decisions of the game's flow, each with
`EVENTS` public events and a turn report to every player (Bob's is left out, as for every turn).  The events the
next mail's read loads, and the lines of Python it executes (`tests.growth.step_growth`).  On f9ddea7 it loaded 300
and 1200 rows (`EVENTS` n and 4n) and its CPU grew 3.2 times (3.3 ms to 10.5 ms); now it loads none at either size
(the same 3,056 lines).  Bob's STATUS answer and his final report still tell every event since he resigned.
"""

from __future__ import annotations

import pytest

from pbem.app import resend, views
from pbem.app.decision import Control, Decision, Events, Input, Report
from pbem.app.finish import Unread, finish
from pbem.app.reporting import Look
from pbem.app.settle import settle
from pbem.engine.base import PUBLIC, Event, Outcome
from pbem.home.app import Home
from pbem.record import recent, store
from tests.conftest import body_of, deliver, order_mail, sent_mail, signed
from tests.growth import step_growth
from tests.test_moderator import new_game, run_poll

N = 3  # decisions of the game's flow after the resignation, at n; 4n at 4n
EVENTS = 100  # public events in each
MAX_GROWTH = 2.5  # CPU at 4n over n: reading every event since the resignation is 4 (3.5 read on f9ddea7)
BOB = "Bob <bob@players.test>"


def _note(i: int, k: int) -> str:
    return f"Moderator's note {i}.{k}."


def _game(cfg, clock, name: str, n: int) -> str:
    """Game `name` where Bob resigned, then `n` decisions of news, each reported to every player (finish leaves out
    Bob's, as for every turn report)."""
    home = Home.of(cfg)
    new_game(cfg, clock, name=name)
    clock.advance(minutes=1)
    with home.units() as s:
        settle(
            s,
            home.policy,
            Decision(game=name, effects=[Control("resign", "Bob")]),
            clock.now,
            store.load(s, _g(s, name)),
        )
        s.commit()
    for i in range(n):
        clock.advance(minutes=1)
        with home.units() as s:
            loaded = store.load(s, _g(s, name))
            recent.read(s, loaded, [(p, None) for p in views.players(loaded)])
            news = Events(tuple(Event("note", _note(i, k), PUBLIC) for k in range(EVENTS)))
            d = Decision(game=name, effects=[news, *(Report(p) for p in views.players(loaded))])
            settle(s, home.policy, d, clock.now, loaded)
            s.commit()
    return name


def _g(s, name: str):
    game = store.game_by_name(s, name)
    assert game is not None
    return game


def _read(cfg, name: str) -> store.Loaded:
    """What the load step of a mail with orders reads (`pbem.app.load.load_facts`)."""
    with Home.of(cfg).units() as s:
        loaded = store.load(s, _g(s, name))
        recent.read(s, loaded, [(p, None) for p in views.players(loaded)])
        return loaded


@pytest.fixture
def played(home, clock) -> dict[int, str]:
    return {N: _game(home, clock, "hh1", N), 4 * N: _game(home, clock, "hh4", 4 * N)}


@pytest.fixture
def left(home, clock) -> str:
    """The game of n decisions after Bob resigned, its turn reports sent."""
    name = _game(home, clock, "hh1", N)
    run_poll(home, clock)
    return name


def test_a_resigned_seat_adds_nothing_to_what_the_next_mail_reads(home, played) -> None:
    rows = {k: len(_read(home, name).recent.events) for k, name in played.items()}
    assert rows == {N: 0, 4 * N: 0}, f"events read by the next mail after n and 4n decisions: {rows}"
    # lines of Python executed (`tests.growth.step_growth`), not CPU time (a constant cost of 1 to 3 ms against a
    # bound of 2.5: the timer's noise under load): 1.00, and 3.54 with the resigned seat not left out (`recent.left`
    # answering nobody, as on f9ddea7).  Read once before, so that the statement cache is as warm for n as for 4n.
    _read(home, played[N])
    g = step_growth(lambda k: lambda: _read(home, played[k]), N)
    assert g.ratio <= MAX_GROWTH, f"the next mail's read: {g}"


@pytest.mark.parametrize("how", ["STATUS", "pbem game resend"])
def test_the_resigned_players_status_answer_or_resend_still_tells_every_event_since_they_left(
    home, clock, left: str, how: str
) -> None:
    seen: set[str] = set()
    sent_mail(home, seen)  # the turn reports so far
    if how == "STATUS":
        deliver(home, order_mail(BOB, left, signed("Bob", "STATUS")))
    else:
        resend.resend(Home.of(home), left, "Bob", clock.now)
    run_poll(home, clock)
    (answer,) = sent_mail(home, seen)
    assert answer["To"].addresses[0].addr_spec == "bob@players.test"
    told = body_of(answer)
    missing = [(i, k) for i in range(N) for k in range(EVENTS) if _note(i, k) not in told]
    assert not missing, f"{len(missing)} of the events since Bob resigned are not in his {how}"


def test_the_games_end_tells_the_resigned_player_every_event_since_they_left(home, clock, left: str) -> None:
    """The final report goes to a player who resigned too: it reads the events the load step left out, once."""
    name = left
    seen: set[str] = set()
    sent_mail(home, seen)  # the turn reports so far
    loaded = _read(home, name)
    assert loaded.recent is not None and loaded.recent.after == loaded.event_seq, "nothing read for Bob"
    over = {**loaded.state, "phase": "over", "winners": ["Alice"]}
    end = Input("deadline", "Alice", (), Outcome(over, [Event("note", "The game ends.", PUBLIC)], []))
    d = Decision(game=name, effects=[end, *(Report(p) for p in views.players(loaded))])
    with pytest.raises(Unread):  # never written from events loaded too late
        finish(d, loaded, Look(b"k", "pbem.test", "Moderator", clock.now))
    with Home.of(home).units() as s:
        loaded = store.load(s, _g(s, name))
        recent.read(s, loaded, [(p, None) for p in views.players(loaded)])
        settle(s, Home.of(home).policy, d, clock.now, loaded)
        s.commit()
    run_poll(home, clock)
    (final,) = [m for m in sent_mail(home, seen) if m["To"].addresses[0].addr_spec == "bob@players.test"]
    told = body_of(final)
    assert "The game ends." in told and "Alice wins" in told, told
    missing = [(i, k) for i in range(N) for k in range(EVENTS) if _note(i, k) not in told]
    assert not missing, f"{len(missing)} of the events since Bob resigned are not in his final report"
