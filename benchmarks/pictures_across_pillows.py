"""Do other Pillow releases draw the board pictures with the same pixels?  (`pbem verify --mail` needs it.)

    python benchmarks/pictures_across_pillows.py [--pillow 11.0.0 --pillow 12.0.0 ...]

`pbem verify --mail` draws every picture of a report again from the replayed view and compares the DECODED pixels
with the mail's (`pbem/trust/pictured.py`): a player who checks with a Pillow (and the FreeType it bundles) that
draws a letter one shade apart would be told the moderator forged an honest picture.  pyproject.toml therefore
allows only the Pillow releases this script found to draw as the release pbem is developed with.

For each Pillow release asked for, a virtual environment is made (`--system-site-packages`: pbem's other
dependencies are the running interpreter's) with that release installed over it, and the pictures of seeded bot
games of every title are drawn there (both picture versions, `pbem.render.pictures.VERSIONS`), for names Open Sans covers (accented Latin, Greek, Cyrillic, an emoji) and
for Chinese, Japanese and Korean names (the CJK font); each title's decoded RGBA pixels are hashed.  Prints JSON:
per release, its FreeType and each title's digest, and `same` (every release's digests equal to the first's).
Exit 1 when they differ.  Needs the package index (pip); about 20 s a release.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import subprocess
import sys
import tempfile
from importlib import import_module
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES = {
    "covered": ["Zoë Núñez 🎲", "Σοφία", "Жанна", "Müller"],
    "cjk": ["田中", "김민수", "Łukasz-山田", "Müller"],
}
DEFAULT = ["11.0.0", "12.0.0", "13.0.0"]


def digests() -> dict[str, object]:
    """Each title's pixels hashed, for both sets of names, drawn in this process (its Pillow)."""
    sys.path.insert(0, str(ROOT))
    from PIL import Image, __version__, features

    from pbem import engine as registry
    from pbem.engine.bots import play
    from pbem.render.pictures import MODULES

    out: dict[str, object] = {"pillow": __version__, "freetype": features.version("freetype2")}
    for label, names in NAMES.items():
        for kind in sorted(MODULES):
            mod, eng = import_module(MODULES[kind]), registry.get(kind)
            players = names[: eng.max_players]
            pt = play(eng, players, "pic", bot_seed="pic-bot", timeout_every=9)
            state = eng.setup(list(pt.players), pt.seed, dict(pt.options))[0]
            digest, pictures = hashlib.sha256(), 0
            marks = {0, len(pt.inputs) // 2, len(pt.inputs)}
            for i, (who, lines) in enumerate([("", []), *pt.inputs]):
                if i:
                    state = (eng.timeout(state) if who == "!deadline" else eng.apply(state, who, lines)).state
                if i not in marks:
                    continue
                for reader in [None, *pt.players]:
                    view = eng.view(state, reader)
                    drawn = [mod.draw_public(mod.public_key(view))] if hasattr(mod, "draw_public") else []
                    drawn += [d for d in [mod.draw(view)] if d is not None]
                    # picture version 2 (laid out and drawn 340 px wide, its words 12 to 14 px)
                    drawn += [mod.draw_public_phone(mod.public_key(view))] if hasattr(mod, "draw_public") else []
                    drawn += [d for d in [mod.draw_phone(view)] if d is not None]
                    for canvas, _alt in drawn:
                        image = Image.open(io.BytesIO(canvas.png())).convert("RGBA")
                        digest.update(repr(image.size).encode() + image.tobytes())
                        pictures += 1
            out[f"{label}/{kind}"] = f"{digest.hexdigest()[:16]} ({pictures} pictures)"
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pillow", action="append", help=f"a Pillow release (default: {', '.join(DEFAULT)})")
    parser.add_argument("--digests", action="store_true", help=argparse.SUPPRESS)  # one release's, in its venv
    args = parser.parse_args()
    if args.digests:
        print(json.dumps(digests()))
        return 0
    results = []
    with tempfile.TemporaryDirectory(prefix="pbem-pillows-") as tmp:
        for release in args.pillow or DEFAULT:
            env = Path(tmp) / release
            subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(env)], check=True)
            subprocess.run(
                [str(env / "bin" / "python"), "-m", "pip", "install", "-q", f"pillow=={release}"],
                check=True,
            )
            done = subprocess.run(
                [str(env / "bin" / "python"), __file__, "--digests"], check=True, capture_output=True, text=True
            )
            results.append(json.loads(done.stdout))
    keys = [k for k in results[0] if "/" in k]
    same = all(all(r[k] == results[0][k] for k in keys) for r in results)
    print(json.dumps({"releases": results, "same": same}, indent=1, ensure_ascii=False))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
