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
