"""Engine speed: complete bot-played games per second for each kind, in process, no mail.

    python benchmarks/engine_speed.py [--games 20] [--kinds habsburg,dynasties]

For each kind: games per second over --games seeded bot games (pbem.engine.bots.play),
inputs per game, and the median (and 95th percentile) time of one `apply` call.
"""

from __future__ import annotations

import argparse
import statistics
import time

import common  # puts the repository on sys.path


class Timed:
    """The engine with its `apply` timed; everything else passes through."""

    def __init__(self, engine) -> None:
        self._engine = engine
        self.times: list[float] = []

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def apply(self, *args, **kw):
        t0 = time.perf_counter()
        try:
            return self._engine.apply(*args, **kw)
        finally:
            self.times.append(time.perf_counter() - t0)


def main() -> None:
    from pbem import engine as registry
    from pbem.engine.bots import play

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--kinds", default=",".join(registry.available()))
    args = ap.parse_args()
    out = {"benchmark": "engine_speed", "games_per_kind": args.games, "kinds": {}}
    for kind in args.kinds.split(","):
        eng = registry.get(kind)
        n = max(eng.min_players, min(3, eng.max_players))
        players = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"][:n]
        timed = Timed(eng)
        inputs = 0
        t0 = time.perf_counter()
        for g in range(args.games):
            pt = play(timed, players, seed=f"speed-{kind}-{g}", bot_seed=f"bots-{g}")
            inputs += len(pt.inputs)
        dt = time.perf_counter() - t0
        times = sorted(timed.times)
        out["kinds"][kind] = {
            "players": n,
            "games_per_second": round(args.games / dt, 2),
            "seconds": round(dt, 3),
            "inputs_per_game": round(inputs / args.games, 1),
            "median_apply_ms": round(statistics.median(times) * 1000, 3),
            "p95_apply_ms": round(times[int(len(times) * 0.95)] * 1000, 3),
        }
    common.emit(out)


if __name__ == "__main__":
    main()
