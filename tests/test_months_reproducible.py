"""Two runs of `benchmarks/months.py` with one seed write the same record and the same figures (months3).

The bots read the `sent` Maildir in the order its files were written, and their names come from the machine's
clock; the players' codes, the bots' Message-IDs, a bounce's MIME boundary and the home's Message-ID key were drawn
from the machine, not the seed: two runs of one seed differed in every Message-ID, every mail read and every
hash of the games' chains (9 of the record's tables on c83d8ea7, in a 10-day run of 2 games: `diff` of
`benchmarks.months.same` of each).  Now the bots read the mail in the order pbem queued it, and everything is
drawn from the seed but what `months.UNSEEDED` names (the sealed signing keys, the keyed code hashes, the home's
own id and the times its secrets and marks were written).

The generator is the benchmark itself, one run per seed; the suite runs one short run twice (a game of each kind
the benchmark plays, 2 simulated days, a poll every 8 to 12 hours: the first reports, replies, the deadline, the half-way downgrade).  `PBEM_MONTHS_SEEDS=N` runs
seeds 0 to N-1 so.  On c83d8ea7 every seed differs (the record and the mail bytes); none now.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SEEDS = [f"repro-{i}" for i in range(int(os.environ.get("PBEM_MONTHS_SEEDS", "0")))] or ["repro-0"]


def _run(folder: Path, seed: str) -> tuple[dict, list[dict], list[bytes]]:
    from benchmarks import months

    old = os.environ.get("XDG_STATE_HOME")
    rows: list[dict] = []
    args = months.options(
        ["--days", "2", "--running", "2", "--every", "480-720", "--seed", seed, "--home", str(folder)]
    )
    try:
        base = months.simulate(args, rows.append)
    finally:
        if old is None:
            os.environ.pop("XDG_STATE_HOME", None)
        else:
            os.environ["XDG_STATE_HOME"] = old
    figures = [{k: v for k, v in r.items() if k not in months.TIMED} for r in rows]
    sent = base / "home" / "mail" / "sent"
    mails = sorted(p.read_bytes() for sub in ("cur", "new") for p in (sent / sub).iterdir())
    return months.same(f"sqlite:///{base / 'home' / 'pbem.db'}"), figures, mails


@pytest.mark.parametrize("seed", SEEDS)
def test_two_months_runs_of_one_seed_write_the_same_record(tmp_path: Path, seed: str) -> None:
    one, two = _run(tmp_path / "one", seed), _run(tmp_path / "two", seed)
    assert one[1] == two[1] and one[1][-1]["mails_read"] > 0, (one[1], two[1])
    differ = sorted(t for t in one[0] if one[0][t] != two[0].get(t))
    assert differ == [], differ
    assert one[2] == two[2]
