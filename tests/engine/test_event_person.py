"""An event more than one player reads never says "you": whom would it mean?

Found by reading the Italian Wars demo's mail: Bob's report said "Alice's Rearguard cannot be used (LOST card,
but you did not lose the last hand)", the reason written for Alice's own view put in a public event. The
generator plays seeded bot games of every kind and reads every event shown to more than one player.
"""

from __future__ import annotations

import re

import pytest

from pbem import engine as registry
from pbem.engine.base import MODERATOR, PUBLIC
from pbem.engine.bots import play
from tests.engine.test_contract import players

_YOU = re.compile(r"\b(you|your|yours|yourself)\b", re.IGNORECASE)


@pytest.mark.parametrize("kind", list(registry.KINDS))
@pytest.mark.parametrize("seed", range(4))
def test_no_event_read_by_several_players_says_you(kind: str, seed: int) -> None:
    eng = registry.get(kind)
    n = eng.min_players + 1 if eng.max_players > eng.min_players else eng.min_players
    pt = play(eng, players(n), f"person{seed}", bot_seed=f"personb{seed}")
    state, events = eng.setup(list(pt.players), pt.seed, dict(pt.options))
    for who, lines in pt.inputs:
        out = eng.timeout(state) if who == "!deadline" else eng.apply(state, who, lines)
        state, events = out.state, events + out.events
    shared = [e for e in events if e.visibility in (PUBLIC, MODERATOR) or len(e.visibility) > 1]
    assert shared
    said = [e.text for e in shared if _YOU.search(e.text)]
    assert not said, f"{len(said)} events read by several players say 'you', e.g. {said[0]!r}"
