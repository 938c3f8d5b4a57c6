"""Memory: peak RSS of a large `pbem poll` vs a small one (Maildir transport, SQLite record).

    python benchmarks/memory.py [--small 100] [--large 10000] [--games 200]

Each poll runs as its own `pbem poll` process on a fresh home holding --games
games whose first reports are already sent; the peak resident set size of the
process (from wait4) is compared (goal: large/small <= 1.2).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

import common


def peak_rss_poll(cfg) -> tuple[int, float, str]:
    """(peak RSS in KiB, seconds, summary line) of one `pbem poll` process."""
    env = dict(os.environ, PBEM_CONFIG=str(cfg.path))
    t0 = time.perf_counter()
    proc = subprocess.Popen(common.pbem_cmd("poll"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = proc.stdout.read().decode()
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"pbem poll failed: {err[-2000:]}")
    return usage.ru_maxrss, dt, out.strip()


def prepared(tmp: Path, label: str, games: int, messages: int):
    cfg = common.make_home(tmp / label)
    names = common.create_games(cfg, games)
    env = dict(os.environ, PBEM_CONFIG=str(cfg.path))
    common.run_timed(common.pbem_cmd("poll"), env)  # first reports out of the way
    common.fill_maildir(cfg, common.order_mails(names, messages))
    return cfg


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", type=int, default=100)
    ap.add_argument("--large", type=int, default=10_000)
    ap.add_argument("--games", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pbem-mem-") as tmp:
        runs = {}
        for label, n in (("small", args.small), ("large", args.large)):
            cfg = prepared(Path(tmp), label, args.games, n)
            rss, dt, line = peak_rss_poll(cfg)
            assert f"read {n} messages: {n} accepted" in line, line
            runs[label] = {
                "messages": n,
                "peak_rss_mib": round(rss / 1024, 1),
                "seconds": round(dt, 2),
                "messages_per_second": round(n / dt, 1),
                "summary": line,
            }
        common.emit(
            {
                "benchmark": "memory",
                "games": args.games,
                **runs,
                "ratio": common.ratio(runs["large"]["peak_rss_mib"], runs["small"]["peak_rss_mib"]),
                "goal": 1.2,
            }
        )


if __name__ == "__main__":
    main()
