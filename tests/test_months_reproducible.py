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


def _run(folder: Path, seed: str, pg: str | None = None) -> tuple[dict, list[dict], list[bytes]]:
    from benchmarks import months

    old = os.environ.get("XDG_STATE_HOME")
    rows: list[dict] = []
    args = months.options(
        ["--days", "2", "--running", "2", "--every", "480-720", "--seed", seed, "--home", str(folder)]
        + (["--pg", pg] if pg else [])
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
    return months.same(pg or f"sqlite:///{base / 'home' / 'pbem.db'}"), figures, mails


class Runs:
    """The SQLite run of each seed in `FOLDER/SEED/one`, made once for the module's tests (one xdist group: one
    worker); the other run of a comparison goes beside it (`beside`), its path as long (the home's path is in its
    pbem.toml, whose bytes are a figure)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.made: dict[str, tuple[dict, list[dict], list[bytes]]] = {}

    def __call__(self, seed: str) -> tuple[dict, list[dict], list[bytes]]:
        if seed not in self.made:
            self.made[seed] = _run(self.folder / seed / "one", seed)
        return self.made[seed]

    def beside(self, seed: str, name: str) -> Path:
        return self.folder / seed / name


@pytest.fixture(scope="module")
def on_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return Runs(tmp_path_factory.mktemp("months"))


@pytest.mark.xdist_group("months")
@pytest.mark.parametrize("seed", SEEDS)
def test_two_months_runs_of_one_seed_write_the_same_record(seed: str, on_sqlite: Runs) -> None:
    one = on_sqlite(seed)
    two = _run(on_sqlite.beside(seed, "two"), seed)
    assert one[1] == two[1] and one[1][-1]["mails_read"] > 0, (one[1], two[1])
    differ = sorted(t for t in one[0] if one[0][t] != two[0].get(t))
    assert differ == [], differ
    assert one[2] == two[2]


#: The figures of a weekly line that are the database's own, not the home's: its bytes, backups of it, and the files naming
#: its URL (pbem.toml, the machine's mark).
BACKEND = ("pg", "db_bytes", "wal_bytes", "backups_bytes", "other_home_bytes", "machine_marks_bytes")


def _plain(value: object) -> object:
    """A value as SQLite hands it back through `months.same` (PostgreSQL gives datetimes in UTC and booleans)."""
    from datetime import UTC, datetime

    if isinstance(value, datetime):
        naive = value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
        return naive.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(value, bool):
        return int(value)
    return bytes(value) if isinstance(value, memoryview) else value


@pytest.mark.postgres
@pytest.mark.xdist_group("months")
def test_a_months_run_on_postgresql_writes_what_it_writes_on_sqlite(on_sqlite: Runs) -> None:
    """months4: `benchmarks/months.py --pg` had not been run since months2.  Two days of one seed on PostgreSQL
    (the half-way downgrade to 0017 and upgrade to the newest included) send the same mails, byte for byte, and
    write the same record, row for row, as on SQLite; the figures differ only in the database's own bytes.  A 28-day
    run of 3 games on PostgreSQL (`python benchmarks/months.py --pg URL --days 28 --running 3 --seed pg1`) ended
    without an error: 1,243 polls in 346 s at a load of 9, an idle poll 73 ms, one that reads a mail 575 ms."""
    from tests import pg

    url, why = pg.server()
    if url is None:
        pytest.skip(why)
    one = on_sqlite(SEEDS[0])
    with pg.run_database(url) as db:
        two = _run(on_sqlite.beside(SEEDS[0], "pg"), SEEDS[0], db)
    rows = [[{k: v for k, v in r.items() if k not in BACKEND} for r in run[1]] for run in (one, two)]
    apart = [{k: (a.get(k), b.get(k)) for k in a.keys() | b.keys() if a.get(k) != b.get(k)} for a, b in zip(*rows)]
    assert len(rows[0]) == len(rows[1]) and not any(apart), apart
    plain = [
        {t: sorted(tuple(_plain(v) for v in row) for row in rows) for t, rows in run[0].items()} for run in (one, two)
    ]
    differ = sorted(t for t in set(plain[0]) | set(plain[1]) if plain[0].get(t) != plain[1].get(t))
    assert differ == [], differ
    assert one[2] == two[2]
