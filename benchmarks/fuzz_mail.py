"""Fuzzed mail at any size: one `pbem poll` over N mutated mails between two valid orders.

    python benchmarks/fuzz_mail.py [--mails 100000] [--seed 12]

Runs the fuzzer of `tests/reliability/test_fuzz_mail.py` (same mutations,
same checks: exit 0, no traceback, inbox emptied, every message recorded,
both valid orders applied) and prints one JSON document: the time to parse
the mutants alone (in process), the time of the poll, the outcomes, internal
errors, and the database size.  It raises (exit 1) if a promise is broken.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.mail.inbound.message import parse
from tests.reliability.fuzz_mail import mutants
from tests.reliability.test_fuzz_mail import run


def parse_seconds(n: int, seed: int) -> tuple[float, int]:
    """Seconds to parse n mutants in process, and how many were read with a problem."""
    took, problems = 0.0, 0
    for raw in mutants(n, seed):
        t = time.perf_counter()
        msg = parse(raw, "moderator@pbem.test")
        took += time.perf_counter() - t
        problems += msg.problem is not None
    return took, problems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mails", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args()
    parsed, problems = parse_seconds(args.mails, args.seed)
    with tempfile.TemporaryDirectory(prefix="pbem-fuzz-") as tmp:
        got = run(Path(tmp) / "home", args.mails, args.seed)
    got.update(
        benchmark="fuzz_mail",
        parse_s=round(parsed, 2),
        parse_ms_per_mail=round(parsed / max(args.mails, 1) * 1000, 3),
        read_with_problem=problems,
        poll_s=round(got["poll_s"], 1),
        made_s=round(got["made_s"], 1),
        db_growth_mib=round(got.pop("db_growth_bytes") / 2**20, 1),
        mail_mib=round(got.pop("mail_bytes") / 2**20, 1),
        crashes=0,
        valid_orders_applied=2,
    )
    print(json.dumps(got, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
