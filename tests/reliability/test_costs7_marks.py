"""A poll mark another process holds a lease on is waited for a bounded time, never read as no mark (costs7).

The marks of a home's last poll kept outside its database (`.pbem-last-run` in the home, and this machine's mark of
the home in the user's state folder) are what tells a database restored from a backup (`pbem.app.clock.restored`).
A mark another process holds a write lease on (a backup tool copying the state folder, a Samba oplock, an NFS
delegation) fails the poll's non-blocking open with EAGAIN: it was read as no mark, so the whole home restored
while the lease was held passed the check and the poll played on from the backup's time.  Now the open is tried
again for `clock.MARK_WAIT` seconds (a holder told to let go does so, and the mark is read), then the run stops,
exit 3, naming the mark (the kernel breaks a lease within its lease-break-time, so the next run reads it).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pbem.app import clock as clocks
from pbem.app.cron import run_poll
from pbem.mail.transports.seam import TransportError
from tests.growth import Stopwatch
from tests.reliability.test_log_file import leased

WAIT = 0.3


def test_a_leased_mark_is_not_read_as_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clocks, "MARK_WAIT", WAIT, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    (home / clocks.HOME_MARK).write_text("2026-12-05T10:00:00+00:00\n")
    with leased(home / clocks.HOME_MARK) as told:
        watch = Stopwatch()
        with pytest.raises(
            getattr(clocks, "MarkHeld", OSError), match=r"held by another process \(a lease\) .* within 0.3 s"
        ):
            clocks.marks(home)
        assert told  # the holder was told to let go
        spent = watch.stop()
        assert watch.wall >= WAIT and spent < WAIT + 1.5, spent  # wall clock: deadline
    with leased(home / clocks.HOME_MARK, let_go=True):  # a holder that lets go: the mark is read
        assert [m.when.hour for m in clocks.marks(home)] == [10]


def test_a_poll_stops_on_a_leased_mark_and_the_next_one_refuses_the_restored_database(
    home: object, clock: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_restored_database import _copy

    monkeypatch.setattr(clocks, "MARK_WAIT", WAIT, raising=False)
    cfg = home
    run_poll(cfg, clock=clock)  # type: ignore[arg-type]
    db = cfg.database_url.removeprefix("sqlite:///")  # type: ignore[attr-defined]
    _copy(db, db + ".backup")
    clock.advance(minutes=11)  # type: ignore[attr-defined]
    run_poll(cfg, clock=clock)  # type: ignore[arg-type]  # (the marks written again: 10 minutes passed)
    _copy(db + ".backup", db)  # restored
    clock.advance(minutes=5)  # type: ignore[attr-defined]
    machine = clocks.machine_mark_file(cfg.home)  # type: ignore[attr-defined]
    assert machine is not None and machine.is_file()
    with (
        leased(cfg.home / clocks.HOME_MARK),  # type: ignore[attr-defined]
        leased(machine),
        pytest.raises(TransportError, match=r"^the poll mark .* is held by another process"),
    ):
        run_poll(cfg, clock=clock)  # type: ignore[arg-type]  # (on 21a928b: both read as none, played on)
    with pytest.raises(TransportError, match=r"^the database is older than this home"):
        run_poll(cfg, clock=clock)  # type: ignore[arg-type]


def test_a_state_folder_that_stops_answering_stops_the_run_at_the_marks_deadline_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """This machine's mark is in the user's state folder, which may be on a network file system the home is not on:
    one that stopped answering held the poll until `poll_deadline` and the watchdog's grace (15 minutes by default),
    the line not naming the mark.  Its read and write are now waited for `MARK_DEADLINE` seconds, in a thread: the
    read stops the run naming the mark, the write is told and the poll goes on (as a folder it may not write)."""
    from datetime import UTC, datetime

    from pbem.record import files

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(clocks, "MARK_DEADLINE", WAIT, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    machine = clocks.machine_mark_file(home)
    assert machine is not None
    clocks.mark_home(home, datetime(2026, 12, 5, 10, tzinfo=UTC), [])
    assert machine.is_file()
    read, write = files.read_at_most, files.write_whole

    def hung(what: object) -> bool:
        if str(what).startswith(str(machine.parent)):
            time.sleep(3 * WAIT + 1.0)  # (a folder that answers late: on 21a928b the run waited for it)
            return True
        return False

    monkeypatch.setattr(files, "read_at_most", lambda p, *a, **k: (hung(p), read(p, *a, **k))[1])
    monkeypatch.setattr(files, "write_whole", lambda p, *a, **k: (hung(p), write(p, *a, **k))[1])
    watch = Stopwatch()
    with pytest.raises(getattr(clocks, "MarkHeld", OSError), match=r"did not answer within 0.3 s"):
        clocks.marks(home)
    clocks.mark_home(home, datetime(2026, 12, 5, 11, tzinfo=UTC), [])  # told, and the poll goes on
    assert watch.stop() < 2 * WAIT + 0.8  # wall clock: deadline (a read and a write)
    assert "did not answer within 0.3 s" in caplog.text and "not written" in caplog.text
