"""How many cases a generator test runs: a sample in the README's test command, the whole size promised in `.ci/run`.

The README's command (`python3 -m pytest`, 2 workers) has a budget of 600 s and had reached 556-563 s.  The largest
generators (the hostile corpora, the mail fuzzer, secrecy at scale) run the first part of their seeded cases there:
each generator is seeded, so the sample is the first cases of the whole run, the same every time.  `.ci/run` runs
every one of them at its whole size after the command, in a step of its own (`PBEM_FULL_SIZE=1`); the step's time
is in docs/development.md, and the whole `.ci/run` stays within its 15 minutes.
"""

from __future__ import annotations

import os

FULL = os.environ.get("PBEM_FULL_SIZE", "0") != "0"


def size(full: int, sample: int) -> int:
    """`full` under PBEM_FULL_SIZE=1 (`.ci/run`'s step), else `sample` (the README's command)."""
    return full if FULL else sample
