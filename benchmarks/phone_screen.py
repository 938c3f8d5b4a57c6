"""Every failure class of mail on a 360 x 740 phone, counted over the whole generator of tests/phone_screen.py.

    python benchmarks/phone_screen.py [--seeds 3] [--kinds habsburg,dynasties] [--show 3]

Plays each kind's bot games at 3 and 6 players (Italian Wars: 2) for each seed, writes their first report, a turn
report, a report asking nothing, a refusal, a reminder and the final report, opens each in headless Chromium at
360 x 740 (light and dark) and prints, per class, how many mails fail it and the first few.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.phone_screen import mails, measure


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--kinds", default="")
    ap.add_argument("--show", type=int, default=3)
    args = ap.parse_args()
    found = mails([f"s{i}" for i in range(args.seeds)], [k for k in args.kinds.split(",") if k] or None)
    with tempfile.TemporaryDirectory() as tmp:
        problems = measure(found, Path(tmp))
    print(json.dumps({"mails": len(found), "failing": {c: len(p) for c, p in problems.items()}}, indent=1))
    for cls, items in problems.items():
        for item in items[: args.show]:
            print(f"{cls}: {item}")


if __name__ == "__main__":
    main()
