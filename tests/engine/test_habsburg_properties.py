"""House of Habsburg properties over seeded random bot games (Hypothesis).

Cards are conserved, no view, event or request names another player's card,
scores events follow HH-R2, defaults never meld, and a stolen card is told to
thief and victim only.  The generic properties (games end, replay, the
default-only path, the secrecy scramble) are in test_contract.py.
"""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st_

from pbem.engine.bots import Playthrough, play
from pbem.engine.habsburg import ENGINE
from pbem.engine.habsburg.cards import NAMES, VALUE

NAMES_RE = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(NAMES, key=len, reverse=True)) + r")\b")
SEATS = ["Alice", "Bob", "Carol", "Dave", "Eve", "Fay"]
games = st_.tuples(st_.integers(3, 6), st_.integers(0, 10**6))


def leaked(obj, secret: set[str]) -> set[str]:
    """The card names of `secret` mentioned anywhere in a JSON-able object (longest name wins: 'Grand Duke' is not
    'Duke').  The regex finds only names that occur in the text, so a text holding none of `secret` even as a
    substring is not searched: the same answer, and most texts skip the 90-name alternation (`findall` was 5.7 CPU s
    of this test's 12.8)."""
    text = json.dumps(obj)
    if not any(c in text for c in secret):
        return set()
    return set(NAMES_RE.findall(text)) & secret


def where(state: dict) -> list[str]:
    cards = list(state["deck"]) + list(state["discard"])
    cards += [c for p in state["players"] for c in state["hands"][p]]
    cards += [m[k] for m in state["melds"] for k in ("person", "holding", "claim")]
    return cards


def others_hands(state: dict, p: str | None) -> set[str]:
    return {c for q in state["players"] if q != p for c in state["hands"][q]}


def check_no_leak(pt: Playthrough, out) -> None:
    state = pt.state
    if state["phase"] == "over":
        return
    for p in state["players"] + [None]:
        secret = others_hands(state, p)
        assert not leaked(ENGINE.view(state, p), secret), (p, "view")
        for ev in out.events:
            if ev.visible_to(p) and ev.kind != "stolen":
                assert not leaked([ev.text, ev.data], secret), (p, ev)
    for req in ENGINE.requests(state):
        secret = others_hands(state, req.player)
        assert not leaked([req.prompt, req.legal, req.default], secret), req


def check_cards(pt: Playthrough, out) -> None:
    cards = where(pt.state)
    assert len(cards) == 90 and sorted(cards) == sorted(NAMES)
    assert json.loads(json.dumps(pt.state)) == pt.state


def check_all(pt: Playthrough, out) -> None:
    check_cards(pt, out)
    check_no_leak(pt, out)
    for ev in out.events:
        if ev.kind == "scores":
            sc = ev.data
            assert set(sc["scores"]) == set(pt.state["players"])
            for p in pt.state["players"]:
                assert sc["scores"][p] == sc["tokens"][p] + sc["holdings"][p]


def players_for(n: int) -> list[str]:
    return SEATS[:n]


@settings(max_examples=30, deadline=None)
@given(games)
def test_cards_conserved_no_leaks_and_game_ends(game) -> None:
    n, seed = game
    pt = play(ENGINE, players_for(n), f"p{seed}", bot_seed=f"b{seed}", on_input=check_all, max_inputs=2000)
    res = ENGINE.result(pt.state)
    assert res is not None and res.winners
    assert pt.state["deck"] == []
    assert [e.kind for e in pt.events].count("game-over") == 1
    final = res.scores
    for p in pt.state["players"]:
        held = sum(VALUE[m["holding"]] for m in pt.state["melds"] if m["owner"] == p)
        assert final[p] == pt.state["tokens"][p] + held


@settings(max_examples=5, deadline=None)
@given(games)
def test_defaults_keep_the_cards_and_never_meld(game) -> None:
    n, seed = game
    pt = play(ENGINE, players_for(n), f"d{seed}", bot_seed="x", timeout_every=1, on_input=check_cards)
    assert not pt.state["melds"]


@settings(max_examples=20, deadline=None)
@given(games)
def test_stolen_card_is_told_to_thief_and_victim_only(game) -> None:
    n, seed = game
    pt = play(ENGINE, players_for(n), f"s{seed}", bot_seed=f"sb{seed}")
    for ev in pt.events:
        if ev.kind == "stolen":
            assert set(ev.visibility) == {ev.data["player"], ev.data["victim"]}
        if ev.kind in ("shuffle",):
            assert ev.visibility == "moderator"
