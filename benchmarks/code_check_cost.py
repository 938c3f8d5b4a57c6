"""What one check of a player's code costs, for each stored form (docs/security.md's table).

    python benchmarks/code_check_cost.py [--keyed 10000] [--pbkdf2 200] [--old 20]

`pbem.trust.codes.check_code` (no cache: every call computes its hash) of the right code against a code hashed
keyed with a fresh home's key file (`hmac_sha256$...`, what new codes get), with PBKDF2 at 10,000 rounds (codes
made until the keyed hash) and at 60,000 (before 2026-12).  CPU time (`time.process_time`) of N checks each,
divided by N.  Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import common  # noqa: F401  (puts the repository on sys.path)

CODE = "K7QX-2MPD"


def per_check(stored: str, n: int) -> float:
    from pbem.trust import codes

    t0 = time.process_time()
    for _ in range(n):
        if not codes.check_code(CODE, stored):
            raise SystemExit("the right code did not check")
    return (time.process_time() - t0) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keyed", type=int, default=10_000, help="checks of the keyed hash")
    ap.add_argument("--pbkdf2", type=int, default=200, help="checks of PBKDF2 at 10,000 rounds")
    ap.add_argument("--old", type=int, default=20, help="checks of PBKDF2 at 60,000 rounds")
    args = ap.parse_args()
    from pbem.trust import codes

    with tempfile.TemporaryDirectory(prefix="pbem-codes-") as home:
        keyed = per_check(codes.hash_code(CODE, home=Path(home)), args.keyed)
    pbkdf2 = per_check(codes.hash_code(CODE, rounds=10_000), args.pbkdf2)
    old = per_check(codes.hash_code(CODE, rounds=60_000), args.old) if args.old else None
    out = {
        "benchmark": "code_check_cost",
        "cpu_per_check_us": {
            "hmac_sha256 (keyed, new codes)": round(keyed * 1e6, 2),
            "pbkdf2_sha256, 10,000 rounds": round(pbkdf2 * 1e6, 1),
            "pbkdf2_sha256, 60,000 rounds": round(old * 1e6, 1) if old is not None else None,
        },
        "checks": {"keyed": args.keyed, "pbkdf2_10000": args.pbkdf2, "pbkdf2_60000": args.old},
        "pbkdf2_10000_over_keyed": round(pbkdf2 / keyed, 1),
        "cpu_of_1000_new_seats_s": {"keyed": round(1000 * keyed, 4), "pbkdf2_10000": round(1000 * pbkdf2, 2)},
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
