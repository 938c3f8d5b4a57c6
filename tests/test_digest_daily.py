"""DIGEST sends at most one mail a day of its own (issue 23, `pbem.app.digests`): from the poll, when
the player's last report is a day old and something new happened, on SQLite and Maildirs with a
moved clock; and the idle check wakes for it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pbem.app import idle
from pbem.app.digests import due
from pbem.engine.base import PUBLIC, Event
from pbem.home.app import Home
from pbem.record import marks
from tests.conftest import CODES, deliver, order_mail, sent_mail
from tests.test_moderator import PLAYERS, address_of, asked, new_game, run_poll

T0 = datetime(2026, 12, 1, 12, tzinfo=UTC)
MOVE = Event("move", "Alice moved.", PUBLIC)
SECRET = Event("hand", "Bob drew a card.", ("Bob",))


def test_due_needs_a_day_since_the_last_report_and_something_new_the_player_may_see() -> None:
    last = {"Alice": T0, "Bob": T0 - timedelta(days=2)}
    seqs = {"Alice": 5, "Bob": 5}
    assert due(["Alice", "Bob"], last, seqs, [(6, MOVE)], T0 + timedelta(hours=23)) == (["Bob"], T0 + timedelta(days=1))
    assert due(["Alice", "Bob"], last, seqs, [(6, MOVE)], T0 + timedelta(days=1)) == (["Alice", "Bob"], None)
    assert due(["Alice", "Bob"], last, seqs, [(5, MOVE)], T0 + timedelta(days=3)) == ([], None)  # seen already
    assert due(["Alice"], last, seqs, [(6, SECRET)], T0 + timedelta(days=3)) == ([], None)  # not hers to see
    assert due(["Carol"], last, seqs, [(6, MOVE)], T0 + timedelta(days=3)) == ([], None)  # never had a report


def _reports_to(cfg, seen, address):
    return [m for m in sent_mail(cfg, seen) if m["To"].addresses[0].addr_spec == address]


def test_a_digest_player_gets_one_mail_a_day_of_their_own_only_when_something_happened(home, clock) -> None:
    name = new_game(home, clock)
    run_poll(home, clock)
    seen: set = set()
    sent_mail(home, seen)
    reqs, _ = asked(home, name)
    mover = reqs[0].player
    for p in (p for p, _ in PLAYERS if p != mover):
        deliver(home, order_mail(address_of(p), name, f"CODE {CODES[p]}\nDIGEST"))
    run_poll(home, clock)
    sent_mail(home, seen)
    clock.advance(hours=1)
    deliver(home, order_mail(address_of(mover), name, f"CODE {CODES[mover]}\n{reqs[0].legal[0]}"))
    run_poll(home, clock)
    after, _ = asked(home, name)
    quiet = next(p for p, _ in PLAYERS if p != mover and p not in {r.player for r in after})
    addr = address_of(quiet)
    assert _reports_to(home, seen, addr) == [], "the move is folded for a DIGEST player not asked"
    started = clock() - timedelta(hours=1)  # the quiet player's last report: the first one
    assert not marks.digest_due(home.database_url, started + timedelta(hours=23, minutes=59))
    assert marks.digest_due(home.database_url, started + timedelta(days=1))
    assert idle.nothing_to_do(Home.of(home), started + timedelta(hours=23, minutes=59))
    assert not idle.nothing_to_do(Home.of(home), started + timedelta(days=1)), "an idle cron run wakes for the digest"

    clock.advance(hours=22)
    run_poll(home, clock)
    assert _reports_to(home, seen, addr) == [], "not yet a day"
    clock.advance(hours=1, minutes=1)
    run_poll(home, clock)
    digest = _reports_to(home, seen, addr)
    assert len(digest) == 1 and "What happened since your last report" in digest[0].get_body(("plain",)).get_content()
    assert mover in digest[0].get_body(("plain",)).get_content()
    run_poll(home, clock)
    clock.advance(hours=12)
    run_poll(home, clock)
    assert _reports_to(home, seen, addr) == [], "at most one a day, and nothing new happened since"
    assert not marks.digest_due(home.database_url, clock() + timedelta(days=5))
