"""Hypothesis properties over seeded Dynasties bot games: gold and cards conserved, no negative
treasury, no view/request/event of one player shows another's hand or unrevealed tribute, the winners
hold the most gold, and the whole-gambit bot's messages are accepted.  The generic properties (games
end for every player count, replay, the default-only path, the secrecy scramble) are in test_contract.py."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as S

from pbem.engine import get
from pbem.engine.bots import play
from pbem.engine.dynasties import cards as C
from pbem.engine.dynasties.bot import message
from pbem.engine.rng import Rng, init_state

E = get("dynasties")
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
SETTINGS = settings(max_examples=25, deadline=None)
PATTERNS = {c: re.compile(re.escape(c) + r"(?!\d)") for c in C.DECK}


def mentions(text: str, cards) -> list[str]:
    return [c for c in cards if PATTERNS[c].search(text)]


def check_invariants(st: dict) -> None:
    n = len(st["players"])
    assert sum(st["treasury"].values()) + st["stakes"] + st["removed"] == 50 * n
    assert min(st["treasury"].values()) >= 0 and st["stakes"] >= 0
    places = (
        st["deck"]
        + st["grave"]
        + st["zone"]
        + [c for p in st["players"] for c in st["hands"][p]]
        + [c for p in st["players"] for c in st["families"][p]]
    )
    assert sorted(places) == sorted(C.DECK)
    json.dumps(st)


def secrets_of(st: dict, player: str) -> list[str]:
    """Cards only `player` may know: their hand (which holds any tribute not yet revealed)."""
    return list(st["hands"][player])


def check_no_leaks(st: dict, events) -> None:
    for p in st["players"]:
        others = [c for q in st["players"] if q != p for c in secrets_of(st, q)]
        pending = [c for q, c in st["tributes"].items() if q != p]  # still unrevealed after this input
        v = E.view(st, p)
        public = {k: x for k, x in v["data"].items() if k not in ("hand", "on_file")}
        shown = json.dumps(public) + json.dumps([s for s in v["sections"] if not s["private"]])
        assert not mentions(shown, others + pending)
        for r in E.requests(st):
            if r.player == p:
                assert not mentions(json.dumps(r.__dict__, default=list), others)
        for e in events:
            if e.visible_to(p) and e.kind != "tributes":
                assert not mentions(e.text + json.dumps(e.data), pending), e
            if isinstance(e.visibility, tuple):  # private facts go to their owner alone
                assert len(e.visibility) == 1 and e.data.get("player", e.visibility[0]) == e.visibility[0], e
    pub = E.view(st, None)
    assert "hand" not in pub["data"] and not any(s["private"] for s in pub["sections"])


@SETTINGS
@given(seed=S.integers(0, 10**6), n=S.integers(2, 6))
def test_gold_cards_and_treasuries_hold_at_every_input(seed: int, n: int) -> None:
    def on_input(pt, out):
        check_invariants(pt.state)
        check_no_leaks(pt.state, out.events)

    state, events = E.setup(NAMES[:n], f"p{seed}", {})
    check_invariants(state)
    check_no_leaks(state, events)
    pt = play(E, NAMES[:n], f"p{seed}", bot_seed=f"b{seed}", on_input=on_input)
    assert E.result(pt.state) is not None


@settings(max_examples=10, deadline=None)
@given(seed=S.integers(0, 10**6), n=S.integers(2, 6), legacy=S.integers(0, 20))
def test_gold_holds_on_the_deadline_path_and_the_winners_hold_the_most(seed: int, n: int, legacy: int) -> None:
    pt = play(
        E,
        NAMES[:n],
        f"r{seed}",
        bot_seed=f"rb{seed}",
        options={"legacy": legacy},
        timeout_every=5,
        on_input=lambda p, o: check_invariants(p.state),
    )
    res = E.result(pt.state)
    assert res.winners and all(res.scores[w] == max(res.scores.values()) for w in res.winners)
    over = [e for e in pt.events if e.kind == "game-over"]
    assert len(over) == 1 and over[0].data["winners"] == list(res.winners)


@settings(max_examples=10, deadline=None)
@given(seed=S.integers(0, 10**6), n=S.integers(2, 6))
def test_whole_gambit_bot_messages_are_accepted_and_scores_events_follow_each_gambit(seed: int, n: int) -> None:
    state, events = E.setup(NAMES[:n], f"w{seed}", {})
    rng = Rng(init_state(f"wb{seed}"))
    while E.result(state) is None:
        req = next(r for r in E.requests(state) if not r.answered)
        out = E.apply(state, req.player, message(E.view(state, req.player), req, rng))
        assert out.accepted, out.lines
        check_invariants(out.state)
        state = out.state
        events += out.events
    scores = [e for e in events if e.kind == "scores"]
    assert [e.data["gambit"] for e in scores] == list(range(1, state["gambit"] + 1))
    assert all(set(e.data) >= {"scores", "stakes", "gambit"} and e.visibility == "public" for e in scores)
