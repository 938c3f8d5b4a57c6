"""A message means the same whether its sender is the last one awaited or not.

Found by trying the product: in Dynasties the last player's two TRIBUTE lines in one message were refused
("2 orders for your Tribute in one message") while anyone else's took the later one, because the first line
revealed the Tributes before the second was read. The generator walks seeded bot games of every kind; at each
simultaneous step (two or more players asked at once) it sends one asked player's message of two of their
legal lines, once while another is still awaited and once after every other asked player answered, and the
two must be accepted or refused alike.
"""

from __future__ import annotations

import random

import pytest

from pbem import engine as registry
from pbem.engine.bots import play
from tests.engine.test_contract import players


def _simultaneous(kind: str, seed: int):
    eng = registry.get(kind)
    pt = play(
        eng,
        players(eng.min_players + 1 if eng.max_players > eng.min_players else eng.min_players),
        f"ao{seed}",
        bot_seed=f"aob{seed}",
    )
    state, _ = eng.setup(list(pt.players), pt.seed, dict(pt.options))
    for who, lines in pt.inputs:
        open_ = [r for r in eng.requests(state) if not r.answered and r.legal]
        if len({r.player for r in open_}) >= 2:
            yield eng, state, open_
        state = (eng.timeout(state) if who == "!deadline" else eng.apply(state, who, lines)).state


@pytest.mark.parametrize("kind", list(registry.KINDS))
@pytest.mark.parametrize("seed", range(3))
def test_two_lines_mean_the_same_first_or_last(kind: str, seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for eng, state, open_ in _simultaneous(kind, seed):
        me = rng.choice(open_)
        if len(me.legal) < 2:
            continue
        message = rng.sample(list(me.legal), 2)
        early = eng.apply(state, me.player, message)
        last = state
        for r in open_:
            if r.player != me.player:
                answered = eng.apply(last, r.player, [r.legal[0]])
                last = answered.state if answered.accepted else last
        if [r for r in eng.requests(last) if not r.answered and r.player != me.player and r in open_]:
            continue  # the others could not all answer with one line: not "last" after all
        late = eng.apply(last, me.player, message)
        assert early.accepted == late.accepted, (
            kind,
            message,
            [(r.line, r.ok, r.reason) for r in early.lines],
            [(r.line, r.ok, r.reason) for r in late.lines],
        )
        checked += 1
    assert checked or kind not in ("dynasties",), "the generator reaches simultaneous steps"


@pytest.mark.parametrize("seed", range(3))
def test_sixteen_thirty_tells_a_shared_step_from_its_phase_as_its_requests_would(seed: int) -> None:
    """`asks.sharing` (cheap, read on every line) names exactly the players the requests list in a step several
    answer, at every moment of bot games."""
    from pbem.engine.sixteen_thirty import asks
    from pbem.engine.sixteen_thirty.shape import typed

    eng = registry.get("sixteen-thirty")
    pt = play(eng, players(4), f"sh{seed}", bot_seed=f"shb{seed}")
    state, _ = eng.setup(list(pt.players), pt.seed, dict(pt.options))
    seen = 0
    for who, lines in pt.inputs:
        reqs = eng.requests(state)
        shared = {r.player for r in reqs} if len({r.player for r in reqs}) >= 2 else set()
        named = set(asks.sharing(typed(state)))
        assert (named if len(named) >= 2 else set()) == shared, (state["phase"], named, shared)
        seen += bool(shared)
        state = (eng.timeout(state) if who == "!deadline" else eng.apply(state, who, lines)).state
    assert seen
