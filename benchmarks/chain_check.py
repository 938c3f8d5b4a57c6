"""What reading every game's hash chain costs `pbem backup`, `pbem backup --check` and `pbem check` (costs27).

    python benchmarks/chain_check.py [--games 1000 4000]

For each size, a home of N games (one made and polled, the rest copies of its rows: `benchmarks.scale.clone_games`),
then, each in its own process: `pbem backup DIR`, `pbem backup --check DIR`, `pbem check` (its mail checks fail:
the home's servers are not there; the record's line is the one read).  The CPU seconds of each child (user + system,
`resource.RUSAGE_CHILDREN`), its wall seconds, and the last line printed is a JSON object of the figures: the cost a
game is the difference between two sizes over the games added (linear: the same at every pair).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common
from benchmarks.move_record import _built


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """(CPU seconds, wall seconds, exit status, last line) of `cmd` run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir(), check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
    chain = next((ln for ln in lines if "hash chain" in ln or "the record" in ln), lines[-1] if lines else "")
    return cpu, wall, done.returncode, chain


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, nargs="+", default=[1000, 4000])
    args = ap.parse_args()
    figures: dict[str, dict[str, object]] = {}
    for n in args.games:
        root = Path(tempfile.mkdtemp(prefix="pbem-chain-check-"))
        try:
            path = _built(root, n)
            env = dict(os.environ, PBEM_CONFIG=str(path), PYTHONPATH=str(Path(__file__).resolve().parent.parent))
            row: dict[str, object] = {"sqlite_bytes": (path.parent / "pbem.db").stat().st_size}
            for name, cmd in (
                ("backup", common.pbem_cmd("backup", str(root / "b"), "--name", "one")),
                ("backup --check", common.pbem_cmd("backup", "--check", str(root / "b" / "one"))),
                ("check", common.pbem_cmd("check")),
            ):
                cpu, wall, code, line = _timed(cmd, env)
                row[name] = {"cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "exit": code}
                print(f"{n} games: pbem {name}: {cpu:.2f} CPU s, {wall:.2f} s, exit {code}: {line[:160]}", flush=True)
            figures[str(n)] = row
        finally:
            shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
