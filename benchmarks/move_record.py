"""What `pbem move-record URL` costs: a home's SQLite record copied into an empty PostgreSQL database (walk11).

    python benchmarks/move_record.py --pg URL [--games 1000]      # a home of N games (copies of one's rows)
    python benchmarks/move_record.py --pg URL --home DIR          # a copy of a real home (say months.py's DIR/home)

URL is a PostgreSQL server whose role may create databases: the move goes into a new database made there and
dropped after.  `--home DIR` copies DIR to a temporary folder first (the home given is never changed).  Times, each
in its own process: `pbem move-record URL --edit-config`, then `pbem poll` on the moved home.  The last line printed
is a JSON object of the figures (games, rows, the SQLite file's bytes, seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common
from benchmarks.scale import clone_games


def _built(root: Path, games: int) -> Path:
    """A home of `games` games: one made and polled, the rest copies of its rows."""
    from pbem.app.games import Table, create_game
    from pbem.home.app import Home

    cfg = common.make_home(root / "home")
    players = [(p, common.player_address(p)) for p in common.PLAYERS]
    codes = {p: common.code(p) for p in common.PLAYERS}
    create_game(
        Home.of(cfg), common.KIND, "t0", players, seed="bench-t0", table=Table(deadline=timedelta(days=3)), codes=codes
    )
    env = dict(os.environ, PBEM_CONFIG=str(cfg.path), PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    common.run_timed(common.pbem_cmd("poll"), env)
    if games > 1:
        clone_games(cfg, "t0", games - 1, "c")
    return cfg.path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pg", required=True, help="a PostgreSQL server's URL whose role may create databases")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--home", default=None, help="a home folder to copy and move instead of building one")
    args = ap.parse_args()
    from sqlalchemy.engine import make_url

    from pbem.record.restore_probe import scratch as make_scratch

    root = Path(tempfile.mkdtemp(prefix="pbem-move-record-"))
    scratch = make_scratch(args.pg, time.monotonic() + 60)
    name = scratch.__enter__()
    try:
        url = make_url(args.pg).set(database=name).render_as_string(hide_password=False)
        if args.home:
            path = Path(shutil.copytree(args.home, root / "home", symlinks=True)) / "pbem.toml"
        else:
            path = _built(root, args.games)
        env = dict(os.environ, PBEM_CONFIG=str(path), PYTHONPATH=str(Path(__file__).resolve().parent.parent))
        figures: dict[str, object] = {"sqlite_bytes": (path.parent / "pbem.db").stat().st_size}
        seconds, out = common.run_timed(common.pbem_cmd("move-record", url, "--edit-config"), env)
        first = out.splitlines()[0]
        print(first)
        found = re.search(r"\(([\d,]+) rows in (\d+) tables, ([\d,]+) games?\)", first)
        if found:
            figures |= {"rows": int(found[1].replace(",", "")), "games": int(found[3].replace(",", ""))}
        figures["move_s"] = round(seconds, 2)
        seconds, out = common.run_timed(common.pbem_cmd("poll"), env)
        print(out.splitlines()[-1] if out else "")
        figures["first_poll_s"] = round(seconds, 2)
        print(json.dumps(figures))
    finally:
        from pbem.record.db import engine_for

        engine_for.cache_clear()
        scratch.__exit__(None, None, None)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
