"""Idle cron run: `pbem poll` with nothing to do vs importing what it must import.

    python benchmarks/idle_poll.py [--runs 15] [--games 5] [--importtime FILE]

Both commands run --runs times, interleaved (so that load from elsewhere hits
both alike); the medians and their ratio are printed (goal: ratio <= 1.1).
The home has --games running games (nothing due) and an empty Maildir inbox.
With --importtime FILE, one more `pbem poll` runs under `python -X importtime`
and the slowest imports (cumulative) are listed, to show what to make lazy.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import common

BASELINE = [sys.executable, "-c", "import typer, sqlmodel, jinja2, imapclient"]


def importtime(cmd: list[str], env: dict) -> list[tuple[int, str]]:
    res = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, env=env)
    rows = []
    for line in res.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(2)), len(m.group(3)) // 2, m.group(4)))
    top = [(us, name) for us, depth, name in rows if depth <= 2]
    return sorted(top, reverse=True)[:25]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--importtime", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pbem-idle-") as tmp:
        cfg = common.make_home(Path(tmp) / "home")
        common.create_games(cfg, args.games)
        env = dict(os.environ, PBEM_CONFIG=str(cfg.path))
        poll = common.pbem_cmd("poll")
        common.run_timed(poll, env)  # sends the first reports; afterwards there is nothing to do
        _, line = common.run_timed(poll, env)
        assert ("read 0 messages" in line and "sent 0 mails" in line) or line.startswith("nothing to do"), line
        pbem_times, base_times = [], []
        for _ in range(args.runs):
            base_times.append(common.run_timed(BASELINE, env)[0])
            pbem_times.append(common.run_timed(poll, env)[0])
        bare = [common.run_timed([sys.executable, "-c", "pass"], env)[0] for _ in range(max(3, args.runs // 3))]
        doc = {
            "benchmark": "idle_poll",
            "runs": args.runs,
            "games": args.games,
            "pbem_poll_median_s": round(common.median(pbem_times), 4),
            "baseline_import_median_s": round(common.median(base_times), 4),
            "python_startup_median_s": round(common.median(bare), 4),
            "ratio": common.ratio(common.median(pbem_times), common.median(base_times)),
            "goal": 1.1,
            "baseline": " ".join(BASELINE[1:]),
        }
        if args.importtime:
            top = importtime(poll, env)
            args.importtime.write_text("\n".join(f"{us / 1000:8.1f} ms  {name}" for us, name in top) + "\n")
            doc["slowest_imports_ms"] = {name: round(us / 1000, 1) for us, name in top[:12]}
        common.emit(doc)


if __name__ == "__main__":
    main()
