"""What a report's receipt costs late in a long game against early in it (`pbem.record.reader_view`).

    python benchmarks/receipt_cost.py [--inputs 3000] [--reports 300]

A receipt ("Record #n") counts the entries of the record its reader may see.  One game on a real SQLite home
is grown to `--inputs` orders with about 1.5 events each (random visibilities, hashed as a chain, as
`tests/test_reader_view_counts.py` grows them); at 10 inputs and at `--inputs`, `--reports` times in turn one
more input is appended and the three players' receipts are read, as a decision's reports read them: with the
count carried on from each reader's last one (what pbem does), and counted from nothing.  Prints JSON: the
microseconds per receipt and the late/early ratio of each (goal for the carried-on count: at most 1.1).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import common  # puts the repository on sys.path (the record's test generator is reused)


def main() -> None:
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.record import reader_view
    from pbem.record.db import session
    from tests import test_reader_view_counts as rv

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=3000)
    ap.add_argument("--reports", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pbem-receipts-") as tmp:
        cfg = config_mod.load(init_home(Path(tmp) / "home", address="moderator@bench.test", name="Bench"))
        gid, commitment = rv._game(cfg, "long")
        with session(cfg.database_url) as s:
            s.execute(rv.text("DELETE FROM events WHERE game_id = :g"), {"g": gid})
            s.commit()
        record = rv.Record(gid, random.Random(3), "bench")

        def grow(to: int) -> None:
            with session(cfg.database_url) as s:
                while record.order_seq < to:
                    record.batch(s, 1)
                s.commit()

        def timed(carried: bool) -> float:
            spent = 0.0
            for _ in range(args.reports):
                grow(record.order_seq + 1)
                with session(cfg.database_url) as s:
                    if not carried:
                        reader_view.forget()
                    t0 = time.perf_counter()
                    rv.counts(s, gid, commitment)
                    spent += time.perf_counter() - t0
            return spent / (args.reports * len(rv.NAMES)) * 1e6

        out: dict[str, dict[str, float]] = {}
        grow(10)
        early = {"carried": timed(True), "from_nothing": timed(False)}
        grow(args.inputs)
        late = {"carried": timed(True), "from_nothing": timed(False)}
        for k in early:
            out[k] = {
                "early_us": round(early[k], 1),
                "late_us": round(late[k], 1),
                "late_over_early": round(late[k] / early[k], 2),
            }
    common.emit({"benchmark": "receipt_cost", "inputs": args.inputs, "reports": args.reports, "receipts": out})


if __name__ == "__main__":
    main()
