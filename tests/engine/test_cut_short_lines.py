"""An order cut short before the name it needs ("ACCEPT!", "ACCEPT", "TARGET") is refused with a reason that
says a name is missing, never with one that quotes an empty name: Sixteen Thirty answered "Accept!" with
'"" is not a player you can name here' (found by the players' tester, replies4).

Generator: over the states the bots reach in every kind, every legal line of the player asked is cut after each of
its words, with nothing, "!" or "." after it, and applied; every refusal says why, and none quotes an empty or blank name (what would be accepted is added
to the refusal by pbem/engine/offers.py, tested apart)."""

from __future__ import annotations

import re

import pytest

from pbem import engine as registry
from pbem.engine.bots import choose
from pbem.engine.rng import Rng, init_state
from tests.app.plain import loaded

STEPS = 40
EMPTY_QUOTE = re.compile(r'"\s*"')


def _cut(line: str) -> list[str]:
    words = line.split()
    return [" ".join(words[:n]) + end for n in range(1, len(words)) for end in ("", "!", ".")]


@pytest.mark.parametrize("kind", registry.available())
def test_an_order_cut_short_says_what_is_missing(kind: str) -> None:
    eng = registry.get(kind)
    players = ("Alice", "Bob", "Carol")[: max(eng.min_players, 2)]
    state = loaded(kind, players).state
    rng = Rng(init_state(f"cut-{kind}"))
    tried = refused = 0
    for _ in range(STEPS):
        reqs = [r for r in eng.requests(state) if not r.answered]
        if not reqs or eng.result(state):
            break
        for req in reqs:
            for short in dict.fromkeys(s for legal in req.legal[:6] for s in _cut(legal)):
                tried += 1
                for r in eng.apply(state, req.player, [short]).lines:
                    if not r.ok:
                        refused += 1
                        assert r.reason and not EMPTY_QUOTE.search(r.reason), (kind, short, r.reason)
        req = reqs[rng.below(len(reqs))]
        state = eng.apply(state, req.player, choose(req, rng)).state
    assert tried and refused, (kind, tried, refused)
