"""The logs of a home run from cron for months are bounded (months1).

`benchmarks/months.py` runs a home for 182 simulated days (a poll every 5 to 60 minutes, games starting and
ending): the database and the Maildir folders grow with the mail handled (the record, README "A home after
months"), but two files grew with time alone, and without bound, while the number of running games stayed the same:

* `[log] file` (`pbem.log`): every run appended, nothing ever shortened it.  Now a run that opens it past
  `pbem.home.logs.KEEP_BYTES` (8 MiB) renames it to FILE.1 (replacing the older one) and writes a new FILE.
* `cron.log`, where `cron/pbem-poll` appends what each run prints: a run with nothing to do prints one line
  ("nothing to do: ..."), 288 a day, about 5.5 MB a year before the first game.  Now the wrapper starts it
  anew past 8 MiB (`PBEM_CRON_LOG_BYTES`), the older kept as cron.log.1.

The generator: seeded sequences of runs, each writing a drawn number of lines of drawn lengths (a run with
nothing to do, a busy poll, a backup's notes), against a small cap.  Every sequence must keep FILE and FILE.1
each under the cap and one run's lines, and keep the newest lines.  Of `CASES` (20) sequences, all 20 fail on
8080c21 (the file reaches 6 to 13 times the cap) and none now; `PBEM_LOG_CASES=200` runs 200 (none fails).  Cost: about
0.3 s for the two tests (`python3 -m pytest tests/test_log_bounds.py --durations=5 -n 0`).
"""

from __future__ import annotations

import logging
import os
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.home import logs

ROOT = Path(__file__).resolve().parent.parent
WRAPPER = ROOT / "cron" / "pbem-poll"
CASES = int(os.environ.get("PBEM_LOG_CASES", "8"))
CAP = 4096


@pytest.fixture
def pbem_logger() -> Iterator[None]:
    """The `pbem` logger as it was before the test (the test sets its handlers as each run does)."""
    root = logging.getLogger("pbem")
    saved = (list(root.handlers), root.level, root.propagate)
    yield
    logs.setup("INFO", None, stderr=False)  # the test's file handler closed
    root.handlers[:], root.level, root.propagate = saved[0], saved[1], saved[2]


def _runs(seed: int) -> list[list[str]]:
    """A sequence of runs, each the lines it logs: most say little, some are busy."""
    rng = random.Random(seed)
    out = []
    for r in range(rng.randint(40, 80)):
        n = rng.choice([1, 1, 1, 2, 5, rng.randint(10, 40)])
        out.append([f"run {r} line {i} " + "x" * rng.randint(0, 120) for i in range(n)])
    return out


@pytest.mark.parametrize("seed", range(CASES))
def test_the_log_file_of_many_runs_stays_bounded(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pbem_logger: None
) -> None:
    monkeypatch.setattr(logs, "KEEP_BYTES", CAP, raising=False)  # (8080c21 has no such bound: the file grows)
    path = tmp_path / "pbem.log"
    runs = _runs(seed)
    most = max(sum(len(line) + 80 for line in run) for run in runs)  # a run's lines with their time and level
    for run in runs:
        logs.setup("INFO", path, stderr=False)  # each cron run opens the file anew
        for line in run:
            logging.getLogger("pbem.poll").info(line)
        logs.setup("INFO", None, stderr=False)  # the run ends: its lines written, the file closed
    older = path.with_name("pbem.log.1")
    sizes = path.stat().st_size, older.stat().st_size if older.exists() else 0
    assert max(sizes) <= CAP + most, (seed, sizes, CAP + most)
    newest = path.read_text().splitlines()
    assert newest and newest[-1].endswith(runs[-1][-1]), newest[-1:]  # nothing of the last run lost


def test_the_cron_wrapper_starts_cron_log_anew(tmp_path: Path) -> None:
    """40 runs with nothing to do through `cron/pbem-poll`, cron.log capped at 1,000 bytes: it and cron.log.1
    each stay under the cap and a line (on 8080c21 cron.log holds all 40 lines, 2,000 bytes)."""
    home = tmp_path / "home"
    home.mkdir()
    shim = tmp_path / "pbem"  # a pbem with nothing to do, as the idle poll prints it
    shim.write_text("#!/bin/sh\necho 'nothing to do: no new mail, nothing queued or due'\n")
    shim.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "PBEM": str(shim), "PBEM_CRON_LOG_BYTES": "1000"}
    for _ in range(40):
        r = subprocess.run(["/bin/sh", str(WRAPPER), str(home / "pbem.toml")], env=env, capture_output=True, timeout=60)
        assert r.returncode == 0, r.stderr
    log, older = home / "cron.log", home / "cron.log.1"
    assert log.stat().st_size <= 1000 + 51 and older.exists() and older.stat().st_size <= 1000 + 51
    assert log.read_text().endswith("nothing to do: no new mail, nothing queued or due\n")


def test_a_line_logged_after_a_command_closed_its_stderr_goes_to_the_stderr_of_its_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process running several commands in turn (tests by `CliRunner`, which lends each command a stderr and
    closes it): the handler made by `setup` wrote later lines to the closed stream, each a "Logging error"
    traceback (the last CI run's log held one for `create_game` after a command)."""
    import io
    import logging
    import sys

    from pbem.home import logs

    lent = io.StringIO()
    monkeypatch.setattr(sys, "stderr", lent)
    logs.setup()
    logging.getLogger("pbem.test").info("during")
    lent.close()
    now = io.StringIO()
    monkeypatch.setattr(sys, "stderr", now)
    errors: list[BaseException | None] = []
    monkeypatch.setattr(logging.Handler, "handleError", lambda self, record: errors.append(sys.exc_info()[1]))
    logging.getLogger("pbem.test").info("after")
    assert not errors
    assert now.getvalue().endswith("pbem.test: after\n")
