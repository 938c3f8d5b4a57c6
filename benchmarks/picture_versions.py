"""What each picture version costs: CPU time and PNG bytes a report, drawn afresh (no cache of an earlier drawing).

    python benchmarks/picture_versions.py [--reports [--seeds 3]]

For each kind, a bot game of 4 players (Italian Wars: 2), every player's view at 12 moments; each version's pictures
(`pbem.render.pictures.VERSIONS`) drawn with the drawing caches emptied first.  Prints one line a kind and version.

`--reports`: the whole generator of `tests/picture_bytes.py` instead (each kind at its fewest and most players,
`--seeds` seeds, every reader and the public view at 6 moments): the reports whose pictures in version 2 weigh more
than 1.5 times version 1's, per kind, and the largest ratio (phones2, drawn at twice the layout: 630 of 630;
phones3: 0).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem import engine as registry
from pbem.engine.bots import play
from pbem.render import pictures
from pbem.render.pictures import canvas
from tests.engine.test_contract import moments


def over(seeds: int) -> None:
    from tests import picture_bytes

    counts: dict[str, list[float]] = {}
    for kind, players, seed in picture_bytes.games(seeds):
        found = counts.setdefault(kind, [0, 0, 0.0])
        for old, new in picture_bytes.reports(kind, players, seed, 6):
            found[0] += new > picture_bytes.BOUND * old
            found[1] += 1
            found[2] = max(found[2], new / old)
    for kind, (n, total, worst) in counts.items():
        print(
            f"{kind}: {n:.0f} of {total:.0f} reports over {picture_bytes.BOUND} times version 1's bytes (at most {worst:.2f})"
        )
    print(f"all: {sum(c[0] for c in counts.values()):.0f} of {sum(c[1] for c in counts.values()):.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reports", action="store_true")
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    if args.reports:
        return over(args.seeds)
    for kind in registry.available():
        eng = registry.get(kind)
        pt = play(eng, [f"P{i}" for i in range(min(4, eng.max_players))], "cost", bot_seed="c")
        views = [eng.view(s, p) for s in moments(eng, pt, 12) for p in pt.players]
        for version in sorted(pictures.VERSIONS):
            for cache in (pictures._public, pictures._drawn, canvas.card_tile, canvas._card_p, canvas._stamp_p):
                cache.cache_clear()
            canvas.stamp.cache_clear()
            start, size = time.process_time(), 0
            for view in views:
                size += sum(len(p.png) for p in pictures.board(view, version))
            spent = time.process_time() - start
            print(
                f"{kind} version {version}: {spent / len(views) * 1000:.2f} ms, {size / len(views) / 1024:.1f} KB a report"
            )


if __name__ == "__main__":
    main()
