"""Mails a player receives per order mail they send, over whole demo games of every kind (issue 23).

Plays ``pbem demo KIND --seed SEED`` for each installed kind (the same seeds before and after a change),
then reads the demo home's record: per player, the mails the outbox sent them, and the order mails they
sent (inbound mail that was not only a command such as STATUS).  Prints JSON: per kind the ratio over all
players (mails received / order mails sent), its worst player, and the mails by purpose.

    python benchmarks/mail_volume.py [--seed 7] [--kinds habsburg,dynasties] [--join]

``--join`` opens each game with its join step (every bot answers its invitation with JOIN, no salt), as a game
made by ``pbem game new`` does: the invitations and the answers to JOIN count too.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


#: `--join`: the demo's game played from its join step (`pbem.cli.demo.run`'s `join_salts`), in a child process.
JOIN_RUN = """
import sys
from pathlib import Path
from pbem import engine as registry
from pbem.cli.demo import run
kind, n, seed, home = sys.argv[1], int(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
eng = registry.get(kind)
r = run(kind, n or max(eng.min_players, min(3, eng.max_players)), seed, home, join_salts={})
sys.exit(0 if r.verified else 1)
"""


def measure(kind: str, seed: str, players: int | None, join: bool = False) -> dict[str, object]:
    import sqlite3

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        cmd = [sys.executable, "-m", "pbem", "demo", kind, "--seed", seed, "--dir", str(home)]
        if players:
            cmd += ["--players", str(players)]
        if join:
            cmd = [sys.executable, "-c", JOIN_RUN, kind, str(players or 0), seed, str(home)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        if done.returncode:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")
        db = next(home.rglob("*.sqlite*"), None) or next(home.rglob("*.db"))
        con = sqlite3.connect(db)
        received: Counter[str] = Counter()
        purposes: Counter[str] = Counter()
        for to, purpose in con.execute("SELECT to_addr, purpose FROM outbox WHERE game_id IS NOT NULL"):
            received[to] += 1
            purposes[purpose] += 1
        orders: Counter[str] = Counter()
        for sender, reason in con.execute("SELECT sender, reason FROM inbound_messages"):
            if reason != "commands only":
                orders[sender] += 1
        con.close()
    players_seen = sorted(set(orders) | set(received))
    ratios = {p: round(received[p] / max(1, orders[p]), 2) for p in players_seen}
    return {
        "ratio": round(sum(received.values()) / max(1, sum(orders.values())), 2),
        "worst_player": max(ratios.values()) if ratios else 0.0,
        "mails_received": sum(received.values()),
        "order_mails_sent": sum(orders.values()),
        "per_player": ratios,
        "by_purpose": dict(sorted(purposes.items())),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", default="7")
    ap.add_argument("--kinds", default="")
    ap.add_argument("--players", type=int, default=0)
    ap.add_argument("--join", action="store_true", help="open each game with its join step")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from pbem import engine as registry

    kinds = [k for k in args.kinds.split(",") if k] or registry.available()
    out = {kind: measure(kind, args.seed, args.players or None, args.join) for kind in kinds}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
