"""Italian Wars properties over seeded random bot games (Hypothesis).

Cards are conserved, hands and plans stay private, victory follows IW-R13,
and every legal line and default is accepted.  The generic properties (games
end, replay, the default-only path, the secrecy scramble) are in
test_contract.py.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.engine import bots
from pbem.engine.base import MODERATOR, PUBLIC
from pbem.engine.italian_wars import ENGINE as E
from pbem.engine.italian_wars.cards import NAMES

PLAYERS = ["Ann", "Ben"]
seeds = st.integers(min_value=0, max_value=10**9)


def places(state: dict) -> list[str]:
    out = state["deck"] + state["discard"]
    for p in state["players"]:
        out += state["hands"][p] + state["field"][p]
    return out


def check_no_leaks(state: dict) -> None:
    for p in PLAYERS:
        q = next(x for x in PLAYERS if x != p)
        v = E.view(state, p)
        if state["step"] == "discard":
            assert sorted(v["data"]["your_hand"]) == sorted(state["hands"][p])
            shown = [ln.rsplit(" (", 1)[0] for s in v["sections"] if s["title"] == "Your hand" for ln in s["lines"]]
            assert shown == state["hands"][p]
            for req in E.requests(state):
                if req.player == p:
                    named = [ln.split(" ", 1)[1] for ln in req.legal if ln != "DISCARD NONE"]
                    assert set(named) <= set(state["hands"][p])
                    assert not set(named) & set(state["hands"][q])
        else:
            assert v["data"]["your_hand"] == []
        assert v["data"]["your_plan"] == state["plans"].get(p)
        assert "plans" not in repr(v["data"]) and "pending" not in repr(v["data"])
    pub = E.view(state, None)
    assert not any(k.startswith("your_") for k in pub["data"])
    assert not any(s["private"] for s in pub["sections"])


def on_input(pt, out) -> None:
    assert sorted(places(pt.state)) == sorted(NAMES)
    check_no_leaks(pt.state)
    for e in out.events:
        if isinstance(e.visibility, tuple):
            assert e.visibility == (e.data["player"],)
        if e.visibility == PUBLIC and e.kind in ("draw", "discard", "replace", "hand", "leader-ask"):
            assert not any(name in e.text for name in NAMES)
        if e.kind in ("deck-order", "discard-private"):
            assert e.visibility == MODERATOR


@settings(max_examples=30, deadline=None)
@given(seed=seeds, bot=seeds)
def test_cards_conserved_no_leaks_and_game_ends(seed: int, bot: int) -> None:
    pt = bots.play(E, PLAYERS, f"g{seed}", bot_seed=f"b{bot}", on_input=on_input, max_inputs=2000)
    res = E.result(pt.state)
    assert res is not None and len(res.winners) == 1
    w = res.winners[0]
    assert pt.state["won"][w] >= 8 or pt.state["streak"][w] >= 3
    scores = [e for e in pt.events if e.kind == "scores"]
    assert len(scores) == pt.state["hand"] and scores[-1].data["scores"] == res.scores
    over = [e for e in pt.events if e.kind == "game-over"]
    assert len(over) == 1 and over[0].data["winners"] == [w]


@settings(max_examples=10, deadline=None)
@given(seed=seeds, fixed=st.booleans())
def test_cards_conserved_on_the_deadline_path_with_either_sides_option(seed: int, fixed: bool) -> None:
    opts = {"sides": "fixed"} if fixed else {}
    pt = bots.play(E, PLAYERS, f"n{seed}", options=opts, timeout_every=5, on_input=on_input, max_inputs=2000)
    assert E.result(pt.state) is not None
    assert fixed is False or pt.state["sides"] == {"Ann": "French", "Ben": "Spanish"}


def test_every_legal_line_is_accepted_and_defaults_too() -> None:
    for i in range(5):
        pt = bots.play(E, PLAYERS, f"l{i}")
        state, _ = E.setup(PLAYERS, f"l{i}", {})
        for who, lines in pt.inputs:
            for req in E.requests(state):
                for line in list(req.legal) + list(req.default):
                    assert E.apply(state, req.player, [line]).accepted, line
            state = E.apply(state, who, lines).state
