"""CPU seconds of the pass that measures an export before it is parsed (`pbem.trust.canonical.measured`), on texts
of some 64 MiB: the seeded Sixteen Thirty export repeated, and hostile shapes (costs23).

    python3 benchmarks/measured.py

On 90a53973 (one step of Python a character): 2.34, 5.33, 1.89, 1.26 and 6.83 s for the first five.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.trust import canonical

MiB = 1 << 20


def main() -> None:
    from tests.test_history_golden import seeded_export

    one = json.dumps(seeded_export("sixteen-thirty"), indent=1)
    copies = 60 * MiB // len(one)
    shapes = {
        f"the export x{copies}": "[" + ",".join([one] * copies) + "]",
        "{},": "[" + "{}," * (21 * MiB) + "{}]",
        '"ab",': "[" + '"ab",' * (13 * MiB) + "1]",
        'one string of \\"[': '["' + '\\"[' * (21 * MiB) + '"]',
        "nested 32 million deep": "[" * (32 * MiB) + "]" * (32 * MiB),
        'a string left open, of \\"[': '["' + '\\"[' * (21 * MiB),
    }
    for name, text in shapes.items():
        t = time.process_time()
        got = canonical.measured(text)
        print(f"{name:28} {len(text) / MiB:5.1f} MiB {time.process_time() - t:6.2f} s  {got}", flush=True)


if __name__ == "__main__":
    main()
