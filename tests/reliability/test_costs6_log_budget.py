"""A `[log] file` slow on every line holds a run `WAIT_BUDGET` s in all, not that long a line (costs6).

The log file's writer thread waits `WRITE_WAIT` s (2) for each line and drops the lines after one it did not take
by then (a FIFO no process reads, a hung disk: `test_log_file.py`).  A file that takes every line, each a little
under that (a slow network file system), held the run the time of each line however many there were: a poll of
1,000 messages past its 15 minutes.  Now the run waits `WAIT_BUDGET` s for its lines in all; past it they are
queued without waiting (and written as the file takes them), and stderr says so once.

The file here is a real FIFO whose buffer a reader keeps full, taking one line every `EVERY` s.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from pbem.home import logs
from tests.growth import Stopwatch

EVERY = 0.02  # seconds the reader takes for each line
LINE = 4000  # characters a line (a page of the pipe's buffer: one read lets one line in)
LINES = 30
BUDGET = 0.2


@contextmanager
def slow_fifo(path: Path) -> Iterator[None]:
    """`path` a FIFO whose buffer is full and whose reader takes a page every `EVERY` s."""
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    filler = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        while True:
            os.write(filler, b"x" * 4096)
    except BlockingIOError:
        pass
    os.close(filler)
    stop = threading.Event()

    def read() -> None:
        while not stop.wait(EVERY):
            with suppress(BlockingIOError):
                os.read(reader, 4096)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        os.close(reader)


def test_a_log_file_slow_on_every_line_holds_the_run_its_budget_in_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(logs, "WAIT_BUDGET", BUDGET, raising=False)
    path = tmp_path / "pbem.log"
    with slow_fifo(path):
        handler = logs._LogFile(logs._open_log(path), path, wait=0.3)  # (no line takes that long)
        log = logging.getLogger("pbem.test.costs6.slow-log")
        log.propagate, log.level = False, logging.INFO
        log.addHandler(handler)
        try:
            watch = Stopwatch()
            for i in range(LINES):
                log.info("%d %s", i, "y" * LINE)
            spent = watch.stop()
        finally:
            log.removeHandler(handler)
            handler.close()
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("pbem: note: [log] file")]
    assert said == [
        f"pbem: note: [log] file {path} took {BUDGET:g} s in all for this run's lines (a slow disk or network file "
        "system?): the run goes on, without the lines it could not log"
    ], said
    assert spent < BUDGET + 4 * EVERY + 0.3 < LINES * EVERY, spent  # wall clock: deadline
