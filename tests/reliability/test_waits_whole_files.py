"""A file pbem writes is written whole or not at all (`pbem.record.files.write_whole`), whatever stops the write.

A command stopped at its deadline (`pbem.cli.deadline`), killed, or refused more disk ends between two writes.
Here the write is really refused part-way: the command runs with a file size limit (RLIMIT_FSIZE, SIGXFSZ
ignored: a write past it fails with EFBIG after the bytes below it are written, as on a disk that fills), while
this test keeps the database open so that the command's reads of it write nothing.  `pbem export -o FILE` over an
earlier export truncated it and left the first 4,000 bytes of the new one (and a traceback); the home's key file
made by a run stopped after the file's creation was empty or cut, and every later command refused the home as
"holds no key" (both found by this file).  Now the earlier file is left as it was, no temporary file is left
beside it, the export says so in one line (exit 3), and the key file is made by the next run.
"""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability import forkserver

LIMIT = 4_000  # bytes a write may reach in any file: less than an HTML export of a new game
OLD = "the export of yesterday\n"


def _limited(limit: int):
    def start() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of the signal's death
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return start


def _run(args: list[str], cwd: Path, limit: int = LIMIT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=60, preexec_fn=_limited(limit)
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with one game (made once: the tests only export it)."""
    tmp_path = tmp_path_factory.mktemp("whole-files")
    assert forkserver.pbem(["init", str(tmp_path / "home"), "--address", "games@example.test"]).returncode == 0
    cfg = tmp_path / "home" / "pbem.toml"
    players = ["--player", "Ann <ann@example.test>", "--player", "Ben <ben@example.test>"]
    made = forkserver.pbem(["--config", cfg, "game", "new", "italian-wars", "--name", "iw1", "--no-join", *players])
    assert made.returncode == 0, made.stderr
    return cfg


def test_an_export_stopped_part_way_leaves_the_earlier_file_as_it_was(home: Path) -> None:
    """(`--moderator` writes through `private.write`, the same `write_whole` with mode 0600.)"""
    out = home.parent / "iw1.html"
    out.write_text(OLD)
    held = sqlite3.connect(home.parent / "pbem.db")  # its -wal and -shm stay: the export only reads them
    try:
        held.execute("SELECT count(*) FROM sqlite_master").fetchall()
        args = ["--config", str(home), "export", "iw1", "--format", "html", "-o", str(out)]
        r = _run([sys.executable, "-m", "pbem", *args], home.parent)
    finally:
        held.close()
    assert out.read_text() == OLD, out.read_text()[:200]
    assert [p.name for p in home.parent.iterdir() if p.name.startswith(".iw1.html")] == []
    assert r.returncode == 3 and r.stderr.count("\n") == 1, (r.returncode, r.stderr[-1500:])
    assert r.stderr.startswith(f"pbem: {out} could not be written: File too large; a file there is left as it was"), (
        r.stderr
    )


def test_a_key_file_stopped_part_way_is_made_by_the_next_run(tmp_path: Path) -> None:
    make = (
        "import sys; from pathlib import Path; from pbem.record import sealing; sealing.wrapping_key(Path(sys.argv[1]))"
    )
    key = tmp_path / "game-keys.secret"
    first = _run([sys.executable, "-c", make, str(tmp_path)], tmp_path, limit=10)
    assert first.returncode != 0 and "File too large" in first.stderr, first.stderr[-1500:]
    assert not key.exists(), key.read_bytes()  # cut at 10 bytes: refused by every later command
    assert [p.name for p in tmp_path.iterdir()] == []
    second = _run([sys.executable, "-c", make, str(tmp_path)], tmp_path, limit=1 << 20)
    assert second.returncode == 0, second.stderr[-1500:]
    assert len(key.read_text().strip()) == 64 and oct(key.stat().st_mode & 0o777) == "0o600"


def test_an_export_to_a_path_that_cannot_be_a_file_is_refused_in_one_line(home: Path) -> None:
    """`-o` into a folder that does not exist, or naming a folder: a FileNotFoundError or IsADirectoryError
    traceback before (found by this file); now one line, exit 2, as a command refused as given."""
    from typer.testing import CliRunner

    from pbem.cli import app

    for out, why in ((home.parent / "no" / "iw1.json", "No such file or directory"), (home.parent, "Is a directory")):
        r = CliRunner().invoke(app, ["--config", str(home), "export", "iw1", "-o", str(out)])
        assert r.exit_code == 2 and "Traceback" not in r.output, (r.exit_code, r.output)
        assert f"pbem: {out} could not be written: {why}; a file there is left as it was" in r.output, r.output
