"""A `password_command` (or `token_command`) that never finishes cannot hold pbem, nor outlive its run.

The command is a real shell whose `sleep` is a process of its own, as a `gpg` waiting for a passphrase would be:
the run gets one line naming the key and the timeout when it passes, and no process the command started is left.
`subprocess.run` killed the shell alone: its `sleep` lived on, one more at every cron run (found by this test).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from pbem.mail.transports.credentials import CredentialError, run_command
from tests.growth import Stopwatch

TIMEOUT = 0.5


def _alive(pid: int) -> bool:
    """Is process `pid` still running (a zombie counts as gone)?"""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize(
    "script",
    [
        "sh -c 'echo $$ > {pid}; exec sleep 30'; echo secret",  # the shell waits for its child
        "sleep 30 & echo $! > {pid}; wait; echo secret",  # a child in the background
        "echo $$ > {pid}; exec sleep 30",  # the command itself sleeps
    ],
)
def test_a_command_that_never_finishes_ends_at_its_timeout_with_all_it_started(tmp_path: Path, script: str) -> None:
    pid_file = tmp_path / "pid"
    watch = Stopwatch()
    with pytest.raises(CredentialError) as err:
        run_command(["sh", "-c", script.format(pid=pid_file)], "[imap] password_command", timeout=TIMEOUT)
    waited = watch.stop()
    assert str(err.value) == f"[imap] password_command: 'sh' did not finish within {TIMEOUT:.0f} s"
    assert waited < TIMEOUT + 5, waited  # wall clock: deadline
    sleeper = int(pid_file.read_text())
    gone_by = time.monotonic() + 5
    while _alive(sleeper) and time.monotonic() < gone_by:  # killed at once; reaped by init a moment later
        time.sleep(0.05)
    alive = _alive(sleeper)
    if alive:
        os.kill(sleeper, signal.SIGKILL)  # not left behind by this test either
    assert not alive, "a process the command started outlived the run"


def test_a_command_that_finishes_in_time_still_gives_its_first_line(tmp_path: Path) -> None:
    assert run_command(["sh", "-c", "sleep 0.1; echo ' s3cret '; echo more"], "k", timeout=5) == " s3cret "
