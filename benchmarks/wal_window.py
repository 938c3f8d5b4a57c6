"""Disk writes of a poll with SQLite's default log window against pbem's (`pbem.record.db.WAL_PAGES`).

    python benchmarks/wal_window.py [--messages 600] [--games 200] [--rounds 2]

Builds a home as `instructions.py` does (House of Habsburg games, their first reports sent, replies that
quote them), then, alternated for `--rounds` rounds, one in-process poll of all the replies (Maildir, SQLite)
per window, each in its own process on a copy of the home: the bytes the process wrote to disk (getrusage's
`ru_oublock`), its CPU, and the poll thread's committing stage per reply.  Prints JSON with the medians
and the ratio of the bytes written, pbem's window over SQLite's.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

SQLITE_DEFAULT = 1000  # pages: SQLite's own wal_autocheckpoint


def poll(where: Path, pages: int) -> dict[str, float]:
    """One in-process poll of every saved reply on a copy of the saved home, with a log window of `pages`."""
    from pbem.app.cron import run_poll
    from pbem.home import config as config_mod
    from pbem.record import db

    db.WAL_PAGES = pages  # read when each connection is opened
    mails = [p.read_bytes() for p in sorted((where / "mails").iterdir())]
    with tempfile.TemporaryDirectory(prefix="pbem-wal-") as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(where / "home", home)
        cfg = config_mod.load(home / "pbem.toml")
        common.fill_maildir(cfg, mails)
        before, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        run = run_poll(cfg)
        after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - t0
    assert run.summary is not None and run.summary.accepted == len(mails), run.summary or run.skipped
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "written_mib": round((after.ru_oublock - before.ru_oublock) * 512 / 2**20, 1),
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "committing_ms_per_reply": round(1000 * run.summary.timings["cpu_committing"] / len(mails), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=600)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--poll", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--pages", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.poll:
        print(json.dumps(poll(args.poll, args.pages)))
        return
    import instructions

    from pbem.record.db import WAL_PAGES

    windows = {"sqlite_default": SQLITE_DEFAULT, "pbem": WAL_PAGES}
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in windows}
    with tempfile.TemporaryDirectory(prefix="pbem-wal-") as tmp:
        where = Path(tmp) / "saved"
        where.mkdir()
        instructions.build(where, args.messages, args.games, "reply")
        for r in range(args.rounds):
            order = list(windows.items())
            for name, pages in order if r % 2 == 0 else order[::-1]:
                cmd = [sys.executable, __file__, "--poll", str(where), "--pages", str(pages)]
                out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=tmp)
                runs[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
                print(f"round {r + 1} {name} ({pages} pages): {runs[name][-1]}", file=sys.stderr, flush=True)
    med = {k: {f: statistics.median(x[f] for x in v) for f in v[0]} for k, v in runs.items()}
    common.emit(
        {
            "benchmark": "wal_window",
            "messages": args.messages,
            "games": args.games,
            "windows_pages": windows,
            "runs": runs,
            "medians": med,
            "written_pbem_over_default": common.ratio(med["pbem"]["written_mib"], med["sqlite_default"]["written_mib"]),
        }
    )


if __name__ == "__main__":
    main()
