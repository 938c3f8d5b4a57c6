"""Golden order cases: order lines in, accepted/rejected lines and events out.

Each file ``tests/golden/orders/<kind>/<name>.txt`` reads::

    # comments
    players: Alice, Bob, Carol
    seed: golden-1
    options: {"legacy": 10}        (optional, JSON)
    bots: 12                       (optional: first play 12 bot inputs, bot seed "golden")
    before: Alice: MELD Otto Spain King   (optional, repeatable, must be accepted)
    as: Alice                      (or "asked": the first player with an open request)
    --- orders
    <order lines as the player wrote them>
    --- expected
    <what the engine answered, rendered by render_outcome>

Run with PBEM_UPDATE_GOLDEN=1 to rewrite the expected sections after a
deliberate change, then review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pbem import engine as registry
from pbem.engine.base import Outcome
from pbem.engine.bots import choose
from pbem.engine.rng import Rng, init_state

ROOT = Path(__file__).resolve().parent.parent / "golden" / "orders"
CASES = sorted(ROOT.glob("*/*.txt"))


def render_outcome(out: Outcome) -> str:
    lines = []
    for r in out.lines:
        if r.ok:
            lines.append(f"OK       {r.line}" + (f"  =>  {r.understood}" if r.understood else ""))
        else:
            lines.append(f"REJECTED {r.line}")
            lines.append(f"  why:   {r.reason}")
            if r.legal:
                lines.append(f"  legal: {' | '.join(r.legal[:12])}" + (" | ..." if len(r.legal) > 12 else ""))
    lines.append(f"accepted: {'yes' if out.accepted else 'no'}")
    for e in out.events:
        vis = e.visibility if isinstance(e.visibility, str) else ",".join(e.visibility)
        lines.append(f"event [{vis}] {e.text}")
    return "\n".join(lines) + "\n"


def parse_case(text: str) -> tuple[dict, list[str], str]:
    head, rest = text.split("--- orders\n", 1)
    orders, expected = rest.split("--- expected\n", 1) if "--- expected\n" in rest else (rest, "")
    meta: dict = {"before": []}
    for raw in head.splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        key, _, value = raw.partition(":")
        key, value = key.strip(), value.strip()
        if key == "before":
            who, _, line = value.partition(":")
            meta["before"].append((who.strip(), line.strip()))
        else:
            meta[key] = value
    return meta, orders.splitlines(), expected


def run_case(path: Path) -> tuple[str, str]:
    kind = path.parent.name
    eng = registry.get(kind)
    meta, orders, expected = parse_case(path.read_text())
    players = [p.strip() for p in meta["players"].split(",")]
    options = json.loads(meta.get("options", "{}"))
    state, _ = eng.setup(players, meta["seed"], options)
    rng = Rng(init_state("golden"))
    for _ in range(int(meta.get("bots", "0"))):
        reqs = [r for r in eng.requests(state) if not r.answered]
        req = reqs[rng.below(len(reqs))]
        out = eng.apply(state, req.player, choose(req, rng))
        assert out.accepted, out.lines
        state = out.state
    for who, line in meta["before"]:
        out = eng.apply(state, who, [line])
        assert out.accepted, (line, out.lines)
        state = out.state
    who = meta["as"]
    if who == "asked":
        who = next(r for r in eng.requests(state) if not r.answered).player
    out = eng.apply(state, who, [ln for ln in orders if ln.strip()])
    return render_outcome(out), expected


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_golden_order_case(path: Path) -> None:
    if path.parent.name not in registry.available():
        pytest.skip(f"engine {path.parent.name} not installed")
    got, expected = run_case(path)
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        text = path.read_text()
        head = text.split("--- expected\n", 1)[0]
        path.write_text(head + "--- expected\n" + got)
        return
    assert got == expected
