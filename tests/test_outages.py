"""The outage rule (issue 28): when pbem did not run for longer than `[games] outage_after`, the deadlines
and reminders that fell inside the gap move later by the gap before anything is applied.

Played on the embedded defaults (real SQLite, real Maildirs) through `run_poll`, the path cron takes,
with a moved clock: every run records when it ran (idle runs too), so only a real gap counts.
"""

from __future__ import annotations

import json
from datetime import timedelta
from email import message_from_bytes
from email.header import decode_header, make_header

from pbem.app import games
from pbem.app.cron import run_poll
from pbem.app.outages import fell_inside, gap_of
from pbem.history.export import build, verify
from pbem.home.app import Home
from pbem.record import due, store
from pbem.record.db import session
from tests.conftest import CODES

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]


def _sent(cfg) -> list[tuple[str, str, str]]:
    """(to, subject, text) of every mail in the sent Maildir, oldest first."""
    out = []
    for sub in ("new", "cur"):
        for p in sorted((cfg.maildir_path / "sent" / sub).iterdir()):
            m = message_from_bytes(p.read_bytes())
            part = next(x for x in m.walk() if x.get_content_type() == "text/plain")
            text = part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8")
            out.append((m["To"], str(make_header(decode_header(m["Subject"]))), text))
    return out


def _deadline(cfg, name):
    with session(cfg.database_url) as s:
        g = store.game_by_name(s, name)
        return store.aware(store.current_deadline(s, g.id).due_at), len(store.events_for(s, g.id))


def test_a_deadline_inside_an_outage_moves_by_the_gap_and_everyone_is_told(home, clock) -> None:
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="outage", clock=clock, codes=CODES)
    first = run_poll(home, clock=clock)  # sends the first reports
    assert first.summary is not None and first.summary.sent == 3
    due_at, events = _deadline(home, "hh1")
    assert due_at == clock.now + home.default_deadline

    # Cron kept running (idle runs record themselves): a long quiet stretch is no outage.
    for _ in range(10):
        clock.advance(hours=2)
        run_poll(home, clock=clock)
    assert _deadline(home, "hh1")[0] == due_at

    # Then pbem stops for 40 hours; the deadline falls inside the gap.
    last = clock.now
    clock.advance(hours=40)
    assert clock.now > due_at > last
    run = run_poll(home, clock=clock)
    assert run.summary is not None and run.summary.deadlines == 0, "nothing is defaulted for the outage's sake"
    moved, after = _deadline(home, "hh1")
    assert moved == due_at + timedelta(hours=40)
    mails = _sent(home)
    told = [m for m in mails if "Your deadline moves to" in m[1]]
    assert sorted(m[0] for m in told) == sorted(a for _, a in PLAYERS)
    assert all(f"{moved:%Y-%m-%d %H:%M} UTC" in m[2] for m in told)
    alerts = [m for m in mails if m[0] == home.moderator_address and "did not run for 40 hours" in m[1]]
    assert len(alerts) == 1 and "hh1: from" in alerts[0][2]

    # The move is in the record as a public moderator event, and verify replays the game.
    with session(home.database_url) as s:
        g = store.game_by_name(s, "hh1")
        evs = [store.event_of(r) for r in store.events_for(s, g.id)]
        doc = json.loads(json.dumps(build(s, g)))
    outage = [e for e in evs if e.kind == "moderator" and e.data.get("action") == "outage"]
    assert len(outage) == 1 and outage[0].visibility == "public" and after == events + 1
    assert outage[0].data["deadline"].startswith(f"{moved:%Y-%m-%dT%H:%M}")
    assert verify(doc, partial=True).ok, verify(doc, partial=True).problem

    # The next run, an hour later, is no outage; the moved deadline applies when it comes.
    clock.advance(hours=1)
    run_poll(home, clock=clock)
    assert _deadline(home, "hh1")[0] == moved
    applied = 0
    while clock.now < moved + timedelta(hours=1):  # a run an hour: no gap, and the moved deadline applies
        clock.advance(hours=1)
        r = run_poll(home, clock=clock)
        applied += r.summary.deadlines if r.summary else 0
    assert applied == 1
    assert len([m for m in _sent(home) if m[0] == home.moderator_address]) == 1, "one outage, one alert"


def test_the_outage_rule_can_be_turned_off_and_a_gap_without_deadlines_moves_nothing(home, clock) -> None:
    assert gap_of(None, clock.now, timedelta(hours=6)) is None
    assert gap_of(clock.now - timedelta(hours=5), clock.now, timedelta(hours=6)) is None
    assert gap_of(clock.now - timedelta(hours=7), clock.now, timedelta(hours=6)) == timedelta(hours=7)
    assert gap_of(clock.now - timedelta(hours=70), clock.now, timedelta(0)) is None, "0 turns the rule off"
    assert gap_of(clock.now + timedelta(hours=9), clock.now, timedelta(hours=6)) is None, "a clock that went back"

    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="outage", clock=clock, codes=CODES)
    run_poll(home, clock=clock)
    due_at, _ = _deadline(home, "hh1")
    clock.advance(hours=8)  # an outage, but the deadline (48 h) and its reminders lie beyond it
    run_poll(home, clock=clock)
    assert _deadline(home, "hh1")[0] == due_at
    alerts = [m for m in _sent(home) if m[0] == home.moderator_address]
    assert len(alerts) == 1 and "nothing was moved" in alerts[0][2]


def test_a_reminder_inside_the_gap_counts_too() -> None:
    from datetime import UTC, datetime

    opened = datetime(2026, 1, 1, tzinfo=UTC)
    row = due.DueRow(1, 1, "reminder", opened, opened, opened + timedelta(hours=48))
    reminders = [timedelta(hours=24), timedelta(hours=2)]
    # the 2 h reminder (46 h after opening) falls in (45 h, 47 h]; the deadline does not
    assert fell_inside(row, opened + timedelta(hours=45), opened + timedelta(hours=47), reminders)
    assert not fell_inside(row, opened + timedelta(hours=1), opened + timedelta(hours=20), reminders)
