"""What `pbem backup` and `pbem backup --check` cost on a large home, and what the outbox.key check adds to a run.

    python benchmarks/backup_check.py [--games 5000] [--reports 2000] [--pg URL]

Builds a home (SQLite; with `--pg URL`, a PostgreSQL record in a new database made on that server and dropped
after) of `--games` running games (copies of one game's rows, `benchmarks/scale.py`) and one game with `--reports`
more sent reports, then times, each in its own process: `pbem backup`, `pbem backup --check` (on PostgreSQL also
`--check --restore-into URL`, which restores the dump into a scratch database and reads it), and in this process
the outbox.key check every poll and changing command makes (`pbem.app.outbox_key.refusal`, median of 200).
The last line printed is a JSON object of the figures.  (The copied games' signing keys are sealed for the name
of the game they copy, so the check names them as keys its key file does not open: it tries each all the same.)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common
from benchmarks.scale import clone_games, grow_history


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.iterdir() if p.is_file())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5000)
    ap.add_argument("--reports", type=int, default=2000)
    ap.add_argument("--pg", default=None, help="a PostgreSQL server's URL whose role may create databases")
    args = ap.parse_args()
    from pbem.app.games import Table, create_game
    from pbem.app.outbox_key import refusal
    from pbem.home.app import Home

    root = Path(tempfile.mkdtemp(prefix="pbem-backup-check-"))
    figures: dict[str, object] = {"games": args.games + 1, "reports": args.reports}
    scratch = None
    try:
        url = None
        if args.pg:
            from pbem.record.db import migrate
            from pbem.record.restore_probe import scratch as make_scratch

            scratch = make_scratch(args.pg, time.monotonic() + 60)
            name = scratch.__enter__()
            from sqlalchemy.engine import make_url

            url = make_url(args.pg).set(database=name).render_as_string(hide_password=False)
            migrate(url)
        cfg = common.make_home(root / "home", url)
        codes = {p: common.code(p) for p in common.PLAYERS}
        players = [(p, common.player_address(p)) for p in common.PLAYERS]
        create_game(
            Home.of(cfg),
            common.KIND,
            "t0",
            players,
            seed="bench-t0",
            table=Table(deadline=timedelta(days=3)),
            codes=codes,
        )
        # this checkout's pbem in every timed process (`python -m pbem` runs from the temporary folder)
        env = dict(os.environ, PBEM_CONFIG=str(cfg.path), PYTHONPATH=str(Path(__file__).resolve().parent.parent))
        common.run_timed(common.pbem_cmd("poll"), env)  # the reports sent, outbox.key's check value kept
        clone_games(cfg, "t0", args.games, "c")
        grow_history(cfg, "t0", 2, args.reports)
        seconds, _ = common.run_timed(common.pbem_cmd("backup", str(root / "b"), "--name", "one"), env)
        figures["backup_s"] = round(seconds, 2)
        figures["backup_bytes"] = _size(root / "b" / "one")
        seconds, out = common.run_timed(common.pbem_cmd("backup", "--check", str(root / "b" / "one")), env, check=False)
        print(out)
        figures["check_s"] = round(seconds, 2)
        if args.pg:
            check = common.pbem_cmd("backup", "--check", str(root / "b" / "one"), "--restore-into", args.pg)
            seconds, out = common.run_timed(check, env, check=False)
            figures["check_restore_into_s"] = round(seconds, 2)
        print(out)
        times = []
        for _ in range(200):
            t0 = time.perf_counter()
            assert refusal(cfg.database_url, cfg.home) is None
            times.append(time.perf_counter() - t0)
        figures["key_check_ms"] = round(statistics.median(times) * 1000, 3)
    finally:
        if scratch is not None:
            from pbem.record.db import engine_for

            engine_for(url or "").dispose()
            scratch.__exit__(None, None, None)
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
