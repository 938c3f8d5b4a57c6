"""What chaining the record costs a poll: the same bot-played games by mail, with and without hashing.

    python benchmarks/chain_cost.py [--kind habsburg] [--rounds 3]

Each round plays the same seeded demo game twice through the real pipeline
(Maildir in, parse, apply, append, reports queued and sent): once as shipped,
once with the chain's hashing replaced by a no-op (`pbem.trust.chain.link`
returning the previous hash, and no head lookup).  Alternating the two in the
same process cancels most of the machine's noise.  Also reported: the time
spent inside the chain's own functions in the shipped runs, as a share of the
run, which does not depend on noise at all.  Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import common  # noqa: F401  (puts the repository on sys.path)


def run_once(kind: str, seed: str, hashing: bool) -> dict[str, float]:
    from pbem.cli import demo
    from pbem.record import store
    from pbem.trust import chain

    spent = [0.0]
    originals = (chain.link, store.chain_head)

    def timed_link(previous: str, entry: dict) -> str:
        t0 = time.perf_counter()
        try:
            return originals[0](previous, entry)
        finally:
            spent[0] += time.perf_counter() - t0

    def timed_head(s, game) -> str:
        t0 = time.perf_counter()
        try:
            return originals[1](s, game)
        finally:
            spent[0] += time.perf_counter() - t0

    chain.link = timed_link if hashing else (lambda previous, entry: previous)
    store.chain_head = timed_head if hashing else (lambda s, game: game.seed_commitment)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            r = demo.run(kind, 3, seed, Path(tmp) / "home", bot_seed="bench")
            total = time.perf_counter() - t0
    finally:
        chain.link, store.chain_head = originals
    return {"seconds": total, "chain_seconds": spent[0], "messages": r.messages_in, "verified": r.verified}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", default="habsburg")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", default="chain-bench")
    args = ap.parse_args()
    on, off = [], []
    for _ in range(args.rounds):
        off.append(run_once(args.kind, args.seed, hashing=False))
        on.append(run_once(args.kind, args.seed, hashing=True))
    t_on = statistics.median(r["seconds"] for r in on)
    t_off = statistics.median(r["seconds"] for r in off)
    share = statistics.median(r["chain_seconds"] / r["seconds"] for r in on)
    print(
        json.dumps(
            {
                "kind": args.kind,
                "rounds": args.rounds,
                "messages_per_game": on[0]["messages"],
                "verified": all(r["verified"] for r in on),
                "seconds_chain_on_median": round(t_on, 3),
                "seconds_chain_off_median": round(t_off, 3),
                "messages_per_second_on": round(on[0]["messages"] / t_on, 1),
                "messages_per_second_off": round(off[0]["messages"] / t_off, 1),
                "slowdown_percent": round((t_on / t_off - 1) * 100, 2),
                "chain_functions_share_percent": round(share * 100, 2),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
