"""The sweep measures pbem, not the inputs it builds (costs26; `tests/reliability/sweep24.py`).

costs25 read a Subject of 204,800 words at 39.1 MB held (x1024) and asked whether that was the sweep's own mail
builder (`EmailMessage` folding the Subject: 35.7 s).  It was not: `measure` builds each input (`case.make`) before
the window it reads opens (`steps` counts the lines of the run it returns, `held` its peak in a child forked after
the build), and the bytes were pbem's own: the redacted copy's Subject folded again by `email.header.Header` (9.4
bytes a character of it), the parser's `StringIO` and the rest that `tests.reliability.mailbytes26` counts (fixed
there).  This test holds the window to that: a case whose input is 8 MB built and a run that only reads its length
reads a few hundred lines and under 64 KiB at every size; the builder's cost would show as 8 MB at each.  Cost: 0.1 s.
"""

from __future__ import annotations

from pathlib import Path

from tests.reliability import sweep24


def test_the_input_a_case_builds_is_outside_the_measured_window(tmp_path: Path) -> None:
    def make(folder: Path, k: int) -> sweep24.Run:
        built = bytes(8 * 1024 * 1024) + b"x" * k  # (an input as large as a mail at twice the player's cap)
        return lambda: len(built)

    case = sweep24.Case("poll", "an input built outside the window", 1, make, "none")
    got = sweep24.measure(case, tmp_path)
    assert max(got.held) < 64 * 1024, got.held
    assert max(got.lines) < 1_000, got.lines
    assert not got.flags, str(got)
