"""A clock ahead by less than `[games] outage_after`, told by the IMAP server's arrival dates (`pbem.app.arrivals`).

Over the suite's real Dovecot; only pbem's clock is moved (`run_poll(clock=...)`), Dovecot's stays right, so the
INTERNALDATE of a message delivered between two polls is the real time.  Found by the first test on 271d97f: with
pbem's clock 2 h ahead, a deadline 1 h away (by the real time) was applied by the next poll.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from pbem.app.cron import run_poll
from pbem.record import store
from pbem.record.db import session
from tests.mail.conftest import MODERATOR
from tests.mail.test_e2e import World

pytestmark = pytest.mark.dovecot


@pytest.fixture
def world(debian_servers, tmp_path, monkeypatch) -> Iterator[World]:
    w = World(debian_servers, tmp_path, monkeypatch)
    w.cfg.default_deadline = timedelta(hours=1)
    with w.readers:
        yield w


def _arrives(w: World, n: int) -> None:
    """A mail lands in the moderator's inbox now (IMAP APPEND: Dovecot stamps its own time on it)."""
    raw = (
        f"From: stranger{n}@example.test\nTo: {MODERATOR}\nSubject: hello\nMessage-ID: <ahead-{n}@example.test>\n\nhi\n"
    )
    w.servers.deliver(MODERATOR, raw.encode())


def _poll(w: World, at: datetime, trust: bool = False):
    run = run_poll(w.cfg, clock=lambda: at, trust_clock=trust)
    assert run.summary is not None, run.skipped
    return run.summary


def _deadline_open(w: World) -> bool:
    """The first step's deadline (an hour after the game began, by the server's clock) is still the game's."""
    with session(w.cfg.database_url) as s:
        g = store.game_by_name(s, "g1")
        dl = store.current_deadline(s, g.id)
        return dl is not None and store.aware(dl.due_at) == store.aware(g.created_at) + timedelta(hours=1)


def _start(w: World, ahead: timedelta) -> datetime:
    """A game whose 1 h deadline was set by a right clock; a first poll with pbem's clock `ahead`."""
    real = datetime.now(UTC).replace(microsecond=0)
    w.clock.now = real
    w.new_game("italian-wars", 2)
    assert _poll(w, real + ahead).deadlines == 0  # (its reports: the next run's reference is this run's start)
    return real


def _told(w: World) -> list[bytes]:
    import sqlite3

    con = sqlite3.connect(w.cfg.database_url.removeprefix("sqlite:///"))
    try:
        rows = con.execute("SELECT raw FROM outbox JOIN outbox_mail USING (id) WHERE purpose = 'alert'").fetchall()
    finally:
        con.close()
    return [bytes(r[0]) for r in rows if b"ahead of the mail server" in bytes(r[0])]


def test_a_clock_two_hours_ahead_applies_no_deadline_early(world: World, caplog) -> None:
    real = _start(world, timedelta(minutes=30))
    _arrives(world, 1)
    summary = _poll(world, real + timedelta(hours=2))  # pbem reads 2 h ahead; the deadline is an hour away
    assert summary.deadlines == 0, "a deadline an hour away (by the server's clock) was applied"
    assert _deadline_open(world) and any("ahead of the mail server's" in n for n in summary.told), summary.told
    told = _told(world)
    assert len(told) == 1 and b"Fix this machine's clock" in told[0], "the moderator is told, in the same run"

    summary = _poll(world, real + timedelta(hours=2, minutes=5))  # no new mail: the finding stands
    assert summary.deadlines == 0 and _deadline_open(world) and len(_told(world)) == 1, "told once"

    # the clock put right: the record's newer times are forgotten, nothing is held, and nothing was due yet
    run = run_poll(world.cfg, clock=lambda: datetime.now(UTC), trust_clock=True)  # idle, or reads the alert mail
    assert run.summary is None or not (run.summary.deadlines or run.summary.told), run.summary
    _arrives(world, 2)
    caplog.clear()
    summary = _poll(world, datetime.now(UTC) + timedelta(minutes=1))
    assert not summary.told and "ahead of the mail server" not in caplog.text
    assert len(_told(world)) == 1


def test_a_clock_two_minutes_ahead_changes_nothing(world: World) -> None:
    real = _start(world, timedelta(minutes=2))
    _arrives(world, 1)
    summary = _poll(world, real + timedelta(hours=1, minutes=2))  # within the margin: due, and applied
    assert summary.deadlines == 1 and not summary.told and not _told(world)


def test_a_clock_behind_is_logged_and_nothing_else_changes(world: World, caplog) -> None:
    real = _start(world, -timedelta(hours=1))
    _arrives(world, 1)
    summary = _poll(world, real - timedelta(minutes=50))
    assert summary.deadlines == 0 and not summary.told and not _told(world)
    assert "later than this clock" in caplog.text and "behind the server's" in caplog.text


def test_another_uidvalidity_is_no_evidence(world: World) -> None:
    from pbem.record import marks

    real = _start(world, timedelta(minutes=30))
    held = marks.recall(world.cfg.database_url, marks.IMAP_SINCE)
    assert held is not None and held.endswith(f"@{real + timedelta(minutes=30):%Y-%m-%dT%H:%M:%S}+00:00"), held
    marks.remember(world.cfg.database_url, marks.IMAP_SINCE, "1" + held)  # as if the folder was made again
    _arrives(world, 1)
    summary = _poll(world, real + timedelta(hours=2))
    assert summary.deadlines == 1 and not summary.told, "UIDs of another UIDVALIDITY say nothing: as on 271d97f"
