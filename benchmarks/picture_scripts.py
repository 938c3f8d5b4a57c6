"""The board picture's cost for Thai and Devanagari names against Latin ones (pictures4), and the box count.

    python3 benchmarks/picture_scripts.py

Prints JSON: the CPU time of the first Thai and the first Devanagari word of a process (the font opened and its `cmap`
read), then, for a seeded House of Habsburg game of Latin names and one of Thai and Devanagari names, the CPU
time a view of drawing every picture of 20 views (best of 5), with the caches cleared and warm.  Then the
generator of tests/test_pictures_scripts.py at 40 names a script: the names with a letter drawn as a box.
"""

from __future__ import annotations

import json
import random
import sys
import time
from importlib import import_module
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.render.pictures import MODULES, fonts
from pbem.render.pictures.canvas import stamp
from tests.engine.test_contract import moments
from tests.test_pictures_cjk import _game, _pngs
from tests.test_pictures_scripts import BLOCKS, NAMES, _boxed, _names


def main() -> None:
    out: dict[str, object] = {}
    fonts._opensans_letters()
    stamp("Zoë", 13)
    for word in ("ปิ่น", "सिंह"):
        start = time.process_time()
        stamp(word, 13)
        out[f"first word {word}, ms"] = round(1000 * (time.process_time() - start), 1)
    mod = import_module(MODULES["habsburg"])
    for names in (["Anna", "Łukasz", "Zoë", "Müller"], NAMES):
        eng, pt = _game("habsburg", names)
        views = [eng.view(s, r) for s in moments(eng, pt, 4) for r in [None, *pt.players]][:20]
        cold, warm = [], []
        for _ in range(5):
            stamp.cache_clear()
            a = time.process_time()
            for v in views:
                _pngs(mod, v)
            b = time.process_time()
            for v in views:
                _pngs(mod, v)
            c = time.process_time()
            cold.append((b - a) / len(views))
            warm.append((c - b) / len(views))
        out[", ".join(names)] = {"ms a view, cold": round(1000 * min(cold), 2), "warm": round(1000 * min(warm), 2)}
    rnd = random.Random("pictures4")
    boxed = {script: sum(bool(_boxed(n)) for n in _names(script, rnd, 40)) for script in BLOCKS}
    out["names boxed"] = f"{sum(boxed.values())} of {40 * len(BLOCKS)}"
    out["boxed by script, of 40"] = boxed
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
