"""Italian Wars battle-phase negation (IW-R11, IW-R8): owns ``state["neg"]``.

A coin decides who acts first every hand.  Players alternate; one action is
one Negate effect (own unused card -> one opponent card of the stated class)
or a pass.  A player with no legal negation passes automatically; a player
with a pre-submitted plan has it carried out one item per action (illegal
items skipped, pass once it is used up).  Negation ends after two passes in a
row or when neither player has a legal negation; then the hand is scored.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import PUBLIC, Event
from pbem.engine.italian_wars.cards import BY_NAME, CLASS_NAMES, matches
from pbem.engine.italian_wars.rules import discard_from_field, other, score_hand
from pbem.engine.italian_wars.table import State, negation
from pbem.engine.rng import Rng


def legal_negations(state: State, player: str) -> list[list[str]]:
    """Every [own card, target card] pair `player` may use now."""
    used = state["neg"]["used"] if state["neg"] else []
    foe = other(state, player)
    pairs = []
    for own in state["field"][player]:
        cls = BY_NAME[own]["negate"]
        if not cls or own in used:
            continue
        pairs += [[own, t] for t in state["field"][foe] if matches(cls, t)]
    return pairs


def start_negation(state: State, events: list[Event]) -> None:
    """Coin flip for the first actor (IW-R11), then run whatever needs no decision."""
    log: list[dict[str, Any]] = []
    flip = Rng(state["rng"], log).coin()
    first = state["players"][flip]
    state["step"] = "negate"
    state["neg"] = {"turn": first, "passes": 0, "used": [], "actions": 0}
    for p in state["players"]:
        shown = ", ".join(state["field"][p]) or "nothing"
        events.append(
            Event(
                "deployed",
                f"{p} ({state['sides'][p]}) deploys: {shown}.",
                PUBLIC,
                {"player": p, "cards": list(state["field"][p])},
            )
        )
    events.append(
        Event(
            "coin",
            f"Coin flip: {first} acts first in the negation step.",
            PUBLIC,
            {"coin": flip, "first": first, "rng": log},
        )
    )
    advance(state, events)


def advance(state: State, events: list[Event]) -> None:
    """Carry out automatic actions until a player must decide or negation ends."""
    neg = negation(state)
    while True:
        if neg["passes"] >= 2:
            return finish(state, "two passes in a row", events)
        if not any(legal_negations(state, p) for p in state["players"]):
            return finish(state, "no legal negation is left", events)
        p = neg["turn"]
        legal = legal_negations(state, p)
        if not legal:
            do_pass(state, p, events, "has no legal negation and passes automatically")
            continue
        plan = state["plans"].get(p)
        if plan is None:
            return None
        run_plan_item(state, p, plan, legal, events)


def run_plan_item(state: State, player: str, plan: list[Any], legal: list[Any], events: list[Event]) -> None:
    """IW-R11: the next legal item of the player's plan, skipping illegal ones; pass when used up."""
    while plan:
        item = plan.pop(0)
        if item in legal:
            do_negate(state, player, item[0], item[1], events, "by plan")
            return
        events.append(
            Event(
                "plan-skip",
                f"Your plan item {item[0]} > {item[1]} is not legal now and was skipped.",
                (player,),
                {"player": player, "item": item},
            )
        )
    do_pass(state, player, events, "passes (negation plan used up)")


def do_negate(state: State, player: str, own: str, target: str, events: list[Event], how: str = "") -> None:
    foe = other(state, player)
    neg = negation(state)
    discard_from_field(state, foe, target)
    neg["used"].append(own)
    neg["passes"] = 0
    neg["turn"] = foe
    neg["actions"] += 1
    cls = CLASS_NAMES[BY_NAME[own]["negate"]]
    note = f" ({how})" if how else ""
    events.append(
        Event(
            "negate",
            f"{player} uses {own} (Negate {cls}) on {foe}'s {target}{note}: {target} is "
            "discarded with its bonus and any Negate effect.",
            PUBLIC,
            {"player": player, "card": own, "target": target, "target_owner": foe},
        )
    )


def do_pass(state: State, player: str, events: list[Event], text: str = "passes") -> None:
    neg = negation(state)
    neg["passes"] += 1
    neg["turn"] = other(state, player)
    neg["actions"] += 1
    events.append(Event("pass", f"{player} {text}.", PUBLIC, {"player": player}))


def finish(state: State, why: str, events: list[Event]) -> None:
    events.append(Event("negation-end", f"Negation ends: {why}.", PUBLIC, {"reason": why}))
    state["neg"] = None
    score_hand(state, events)
