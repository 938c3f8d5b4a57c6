"""Clock sanity (issue 26): a poll whose clock is behind the latest time the record has seen does nothing,
exits 3 and says why in one line; a clock far ahead is run but reported.  Over Maildir, `pbem poll` in its
own process.  (The machine's clock is not moved: the record's latest time is moved the other way.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pbem.app import clock, games
from pbem.home.app import Home
from tests.conftest import CODES
from tests.reliability import killpoints as kp
from tests.reliability.test_faults import _count, assert_ok, assert_one_line_failure

PLAYERS = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("Carol", "carol@example.test")]


def _status(n: int) -> bytes:
    return (
        f"From: alice@example.test\nTo: moderator@pbem.test\nSubject: [pbem g1] status\n"
        f"Message-ID: <clock-{n}@example.test>\n\nSTATUS\n"
    ).encode()


def _set_latest(cfg, when: datetime) -> None:
    """Move the record's newest run start (the `last-run` poll mark) to `when`, and the home's own mark of its last
    poll with it, as a poll at `when` would have left both (`pbem.app.clock.mark_home`)."""
    import sqlite3

    from pbem.app.clock import HOME_MARK, machine_mark_file

    (cfg.home / HOME_MARK).write_text(when.isoformat() + "\n")
    if (machine := machine_mark_file(cfg.home)) is not None and machine.exists():
        machine.write_text(when.isoformat() + "\n")

    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    try:
        assert con.execute("UPDATE poll_marks SET value = ? WHERE name = 'last-run'", (when.isoformat(),)).rowcount == 1
        con.commit()
    finally:
        con.close()


def test_a_clock_behind_the_record_refuses_to_run_and_a_jump_ahead_is_reported(tmp_path) -> None:
    cfg = kp.make_home(tmp_path / "home")
    games.create_game(Home.of(cfg), "habsburg", "g1", PLAYERS, seed="clock", codes=CODES)
    kp.deliver_in_order(cfg, [_status(1)])
    assert_ok(kp.run_poll(cfg))
    assert clock.latest(cfg.database_url) is not None

    _set_latest(cfg, datetime.now(UTC) + timedelta(days=7))  # as if this machine's clock fell a week behind
    before = _count(cfg, "SELECT count(*) FROM outbox"), _count(cfg, "SELECT count(*) FROM events")
    kp.deliver_in_order(cfg, [_status(2)])
    line = assert_one_line_failure(kp.run_poll(cfg))
    assert "behind the latest time this record has seen" in line and "fix the machine's clock" in line, line
    assert kp.inbox_count(cfg) == 1, "the mail waits for a clock that is right"
    assert (_count(cfg, "SELECT count(*) FROM outbox"), _count(cfg, "SELECT count(*) FROM events")) == before

    _set_latest(cfg, datetime.now(UTC) - timedelta(days=7))  # a week since the last poll: run, and say so
    r = kp.run_poll(cfg)
    assert_ok(r)
    assert "ahead of the last poll" in r.stderr, r.stderr[-2000:]
    assert kp.inbox_count(cfg) == 0
    assert clock.latest(cfg.database_url) > datetime.now(UTC) - timedelta(minutes=5)


def test_the_server_clock_finding_holds_until_a_new_mail_clears_it_and_maildir_reads_none(tmp_path, caplog) -> None:
    """`pbem.app.arrivals.held` over a real record, its evidence given as the IMAP inbox gives it (the Dovecot
    runs are tests/mail/test_clock_ahead.py); then a Maildir home whose clock is 2 h ahead: as on 271d97f."""
    from types import SimpleNamespace

    from pbem.app import arrivals
    from pbem.app.cron import run_poll
    from pbem.app.poll import PollSummary
    from pbem.mail.transports.seam import Arrivals
    from pbem.record import marks

    cfg = kp.make_home(tmp_path / "home")
    home = Home.of(cfg)
    now = datetime(2026, 3, 1, 12, tzinfo=UTC)

    def held(since: int | None, *arrived: datetime, at: datetime = now) -> bool:
        box = SimpleNamespace(arrivals=Arrivals(since, now - timedelta(minutes=5)))
        for uid, when in enumerate(arrived, start=7):
            box.arrivals.saw(uid, when)
        return arrivals.held(home, box, at, PollSummary())

    alerts = "SELECT count(*) FROM outbox WHERE purpose = 'alert'"
    assert not held(7, now - timedelta(minutes=12)), "7 min before the run began: within the margin"
    assert held(7, now - timedelta(hours=3), now - timedelta(hours=2)), "the newest new arrival: 1 h 55 min"
    assert marks.recall(cfg.database_url, marks.CLOCK_AHEAD) == str(115 * 60) and _count(cfg, alerts) == 1
    assert held(None) and held(99, now - timedelta(hours=5)), "no new mail: the finding stands"
    assert held(7, now - timedelta(hours=2)) and _count(cfg, alerts) == 1, "told once"
    assert not held(7, now - timedelta(hours=2), now - timedelta(minutes=1)), "a new mail in time clears it"
    assert not held(None) and marks.recall(cfg.database_url, marks.CLOCK_AHEAD) == ""
    assert "no longer put this clock ahead" in caplog.text
    assert not held(7, now + timedelta(hours=1)) and "later than this clock" in caplog.text, "behind: logged"
    cfg.server_clock_margin = timedelta(0)
    assert not held(7, now - timedelta(days=1)), '"0m" turns the check off'
    assert not arrivals.held(home, SimpleNamespace(), now, PollSummary()), "Maildir: no arrival dates"

    cfg.server_clock_margin, cfg.default_deadline = timedelta(minutes=10), timedelta(hours=1)
    real = datetime.now(UTC)
    games.create_game(Home.of(cfg), "habsburg", "g2", PLAYERS, seed="ahead", codes=CODES, clock=lambda: real)
    assert run_poll(cfg, clock=lambda: real + timedelta(minutes=30)).summary is not None
    kp.deliver_in_order(cfg, [_status(3)])
    run = run_poll(cfg, clock=lambda: real + timedelta(hours=2))
    assert run.summary is not None and run.summary.deadlines == 1, "Maildir: its files carry this clock, not news"
    assert marks.recall(cfg.database_url, marks.IMAP_SINCE) is None


def test_generated_offsets_the_finding_is_never_more_than_the_clock_is_ahead(tmp_path) -> None:
    """Generated: this clock `d` off the server's (behind to 5 h ahead), a mail arriving `delay` after the last run
    began (by the server's clock), earlier mail copied back with old dates.  The finding (`pbem.app.arrivals`) holds
    exactly when the newest new arrival shows more than the margin, never says the clock is further ahead than it is
    (the bound is sound), and never holds a clock within the margin of the server's."""
    import random
    from types import SimpleNamespace

    from pbem.app import arrivals
    from pbem.app.poll import PollSummary
    from pbem.mail.transports.seam import Arrivals
    from pbem.record import marks

    cfg = kp.make_home(tmp_path / "home")
    home, rnd, margin = Home.of(cfg), random.Random(26), cfg.server_clock_margin
    held_count = 0
    for case in range(80):
        marks.remember(cfg.database_url, marks.CLOCK_AHEAD, "")
        real = datetime(2026, 3, 1, tzinfo=UTC) + timedelta(minutes=rnd.randrange(100_000))
        d = timedelta(minutes=rnd.choice([-180, -11, -1, 0, 3, 9, 11, 30, 120, 300]) + rnd.random())
        delay = timedelta(minutes=rnd.choice([0, 1, 5, 20, 90]), seconds=rnd.randrange(60))
        box = SimpleNamespace(arrivals=Arrivals(since=50, reference=real + d))  # the last run began at real + d
        box.arrivals.saw(40, real - timedelta(days=2))  # in the inbox before: not new
        if rnd.random() < 0.3:
            box.arrivals.saw(51, real - timedelta(days=rnd.randrange(1, 30)))  # copied back: an old date, a new UID
        box.arrivals.saw(52, real + delay)
        summary = PollSummary()
        held = arrivals.held(home, box, real + delay + d + timedelta(minutes=1), summary)
        assert held == (d - delay > margin), (case, d, delay)
        if held:
            held_count += 1
            found = timedelta(seconds=int(marks.recall(cfg.database_url, marks.CLOCK_AHEAD) or 0))
            assert margin < found <= d, (case, d, delay, found)
        assert held or not summary.told, (case, summary.told)
    assert held_count == 24, held_count  # of 80 held; 271d97f, reading no arrival date, held none
