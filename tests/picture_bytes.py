"""What a report's pictures weigh in each picture version: the reports of seeded bot games, each version's PNG bytes.

The generator behind `tests/test_pictures_versions.py`'s byte bound and `benchmarks/picture_versions.py --reports`:
every kind at its fewest and most players, bot games by seed, every reader's view (the public one too) at `count`
moments; for each report its pictures' bytes in version 1 and in version 2 (`pbem.render.pictures.board`).  A
report is over when version 2's bytes pass `BOUND` times version 1's: a picture laid out for phones is sent in every
report, and its bytes are base64-encoded, stored and mailed (phones3's goal, issue 27: at most 1.5 times).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbem import engine as registry
from pbem.engine.bots import play
from pbem.render import pictures
from tests.engine.test_contract import moments

BOUND = 1.5


def reports(kind: str, players: int, seed: int, count: int) -> Iterator[tuple[int, int]]:
    """(version 1's bytes, version 2's bytes) of each report with a picture of one seeded game of `kind`."""
    eng = registry.get(kind)
    pt = play(eng, [f"Player{i}" for i in range(players)], f"bytes{seed}", bot_seed=f"bytes-bots{seed}")
    for state in moments(eng, pt, count):
        for reader in [None, *pt.players]:
            view = eng.view(state, reader)
            old, new = (sum(len(p.png) for p in pictures.board(view, v)) for v in (1, 2))
            if old:
                yield old, new


def games(seeds: int) -> Iterator[tuple[str, int, int]]:
    """(kind, players, seed) of the whole generator: every kind at its fewest and most players, `seeds` seeds."""
    for kind in registry.available():
        eng = registry.get(kind)
        for players in sorted({eng.min_players, eng.max_players}):
            for seed in range(seeds):
                yield kind, players, seed
