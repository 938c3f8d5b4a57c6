"""Rounds of email per game turn (Sixteen Thirty) and per gambit (Dynasties), from bot games.

A round is one time the moderator had to ask for an answer that was not
already on file (a simultaneous step asked of several players counts once).
The bots send whole-turn messages and standing orders, as the handbooks
describe.  Prints JSON.

    python benchmarks/rounds.py [--games 20] [--seed note]
"""

from __future__ import annotations

import argparse
import json
import statistics


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", default="note")
    args = ap.parse_args()
    from pbem.engine.dynasties.bot import rounds_per_gambit
    from pbem.engine.sixteen_thirty.bot import rounds_per_turn

    out = {}
    for label, fn, counts in (
        ("sixteen-thirty rounds per game turn", rounds_per_turn, (3, 6)),
        ("dynasties rounds per gambit", rounds_per_gambit, (3, 6)),
    ):
        for n in counts:
            r = fn(n, args.games, args.seed)
            out[f"{label}, {n} players"] = {
                "median": statistics.median(r),
                "mean": round(statistics.mean(r), 2),
                "max": max(r),
                "samples": len(r),
                "games": args.games,
            }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
