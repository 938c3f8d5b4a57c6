"""A poll under a file size limit (`ulimit -f`, RLIMIT_FSIZE) says so in one line (walk10, walk9's leftover).

The system refuses a write past the limit with EFBIG ("File too large"), which SQLite reports as "disk I/O error":
the poll ended exit 3 with "the database could not be used: disk I/O error" and nothing more, and a moderator
looked for a failing disk.  Now the line names the limit, in bytes, and what to do (`pbem.record.db.unusable`),
as a full disk's line says to free space.

Generator: walk9's home (a Habsburg game just made, its mails queued, a player's PASS in the inbox) polled by
`pbem poll` run with the process's file size limit (its soft limit, given back after) each of LIMITS in turn.  Required: no traceback; exit 0
with the run's summary, or exit 3 with one line naming `ulimit -f` and the limit; then a poll without the limit
reads the PASS once in all (accepted once, never twice, never rejected).  On b1f92b21 4 of the 5 limits failed
(exit 3, "disk I/O error" alone; 1 of 1 in the README's command); 0 now.
"""

from __future__ import annotations

import resource
import shutil
from pathlib import Path

from typer.testing import CliRunner

from pbem.cli import app
from tests.sizes import FULL
from tests.test_walk9_damage import _files, made  # noqa: F401  (the fixture)

LIMITS = (4_096, 16_384, 65_536, 131_072, 4_194_304) if FULL else (16_384,)


def _poll(home: Path, limit: int | None) -> tuple[int, str]:
    """`pbem poll` in this process, its file size limit (the soft one, given back after) `limit` bytes."""
    was = resource.getrlimit(resource.RLIMIT_FSIZE)
    if limit is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, was[1]))
    try:
        got = CliRunner().invoke(app, ["--config", str(home / "pbem.toml"), "poll"])
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, was)
    said = got.output
    if got.exception is not None and not isinstance(got.exception, SystemExit):
        said += f"\nTraceback: {type(got.exception).__name__}: {got.exception}"
    return got.exit_code, said


def test_a_poll_past_the_file_size_limit_names_it_and_loses_nothing(made: Path, tmp_path: Path) -> None:  # noqa: F811
    wrong = []
    for limit in LIMITS:
        home = tmp_path / f"l{limit}"
        shutil.copytree(made, home)
        code, said = _poll(home, limit)
        why = []
        if "Traceback" in said:
            why.append("a traceback")
        if code == 3 and not ("ulimit -f" in said and f"{limit:,} bytes" in said):
            why.append("exit 3 without the limit named")
        elif code == 0 and "read 1 message" not in said:
            why.append("exit 0 without the run's summary")
        elif code not in (0, 3):
            why.append(f"exit {code}")
        first = said
        code, said = _poll(home, None)
        if code != 0 or "Traceback" in said or _files(home, "rejected"):
            why.append(f"the next poll without the limit: exit {code}")
        if ("1 accepted" in first) == ("1 accepted" in said):
            why.append("the PASS accepted twice or never")
        if why:
            wrong.append(f"limit {limit:,}: {', '.join(why)}: {first.strip()[-300:]}")
    assert wrong == [], f"{len(wrong)} of {len(LIMITS)} limits:\n" + "\n".join(wrong)
