"""What each picture version costs: CPU time and PNG bytes a report, drawn afresh (no cache of an earlier drawing).

    python benchmarks/picture_versions.py

For each kind, a bot game of 4 players (Italian Wars: 2), every player's view at 12 moments; each version's pictures
(`pbem.render.pictures.VERSIONS`) drawn with the drawing caches emptied first.  Prints one line a kind and version.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem import engine as registry
from pbem.engine.bots import play
from pbem.render import pictures
from pbem.render.pictures import canvas
from tests.engine.test_contract import moments


def main() -> None:
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
