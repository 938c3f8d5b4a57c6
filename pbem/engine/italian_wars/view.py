"""Italian Wars views (owns what each player may see, docs/rulings.md).

Public: sides, hands won, streaks, previous winner, deck and discard counts,
the deployed cards of both sides with their current Forces (after the
reveal), the last hand's result.  Private: your own hand and your own
standing orders during the Tactics phase.  Never the other player's hand,
discards or plan.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.italian_wars.cards import BY_NAME, describe
from pbem.engine.italian_wars.orders import standing_on_file
from pbem.engine.italian_wars.rules import arithmetic, card_forces, unusable_reason
from pbem.engine.italian_wars.table import State, negation
from pbem.engine.views import Named, Section, View, lines, ordered, seated, table
from pbem.engine.views import make_view as view_of
from pbem.engine.words import count


def turn_label(state: State) -> str:
    n, step = state["hand"], state["step"]
    if step == "over":
        return f"Game over after hand {n}: {state['winner']} wins"
    if step == "discard":
        return f"Hand {n}, Tactics: both players discard"
    if step == "leader":
        return f"Hand {n}, Deployment: {' and '.join(state['leader_ask'])} to choose a Leader"
    return f"Hand {n}, Negation: {negation(state)['turn']} to act"


def _public_sections(state: State) -> list[Section]:
    rows = [[p, state["sides"][p], state["won"][p], state["streak"][p]] for p in state["players"]]
    secs = [
        table("Battle", ["Player", "Side", "Hands won", "Streak"], rows),
        lines(
            "Hand",
            [
                turn_label(state) + ".",
                f"Previous hand winner: {state['prev_winner'] or 'none'}.",
                f"Deck: {count(len(state['deck']), 'card')}; discard pile: {count(len(state['discard']), 'card')}.",
                "Victory: 8 hands won in total, or 3 hands in a row.",
            ],
        ),
    ]
    if state["step"] in ("leader", "negate"):
        forces = card_forces(state)
        used = state["neg"]["used"] if state["neg"] else []
        frows = [
            [p, r["card"], BY_NAME[r["card"]]["type"], arithmetic(r), r["force"], "used" if r["card"] in used else ""]
            for p in state["players"]
            for r in forces[p]
        ]
        secs.append(table("Deployed cards", ["Player", "Card", "Type", "Arithmetic", "Force", "Negate"], frows))
    last = state["last"]
    if last:
        res = f"{last['winner']} won" if last["winner"] else "tied"
        text = [
            f"Hand {last['hand']}: {res}; totals "
            + ", ".join(f"{p} {last['totals'][p]}" for p in state["players"])
            + "."
        ]
        text += [f"{p}: " + "; ".join(arithmetic(r) for r in last["forces"][p]) for p in state["players"]]
        secs.append(lines("Last hand", text))
    return secs


def _private_sections(state: State, player: str) -> list[Section]:
    secs = []
    if state["step"] == "discard":
        marks = usable_marks(state, player)
        secs.append(
            lines(
                "Your hand",
                [
                    describe(c) + (f" - NOT usable: {marks[c]}" if marks[c] else " - usable")
                    for c in state["hands"][player]
                ],
                private=True,
            )
        )
    orders = []
    if player in state["pending"]:
        orders.append(f"DISCARD {', '.join(state['pending'][player]) or 'NONE'}")
    orders += standing_on_file(state, player)
    if orders:
        secs.append(lines("Your orders on file", orders, private=True))
    return secs


#: What the card codes in "Swiss Square (8 IK, ...)" and "(7 T, WON)" mean (the rulebook's card list notation).
LEGEND = [
    "The number is the card's Force; F after it = French only, S = Spanish only.",
    "Types: A Artillery, C Cavalry, D Defenses, L Leader, T Tactics, X Morale;"
    " I Infantry with K Shock (IK: pikes), M Missile (IM: shot) or T Tactics (IT).",
    "WON: usable only by the winner of the previous hand; LOST: only by its loser.",
    "Negate a class: the card removes one enemy card of that class before Force is added up.",
]


def usable_marks(state: State, player: str) -> dict[str, str]:
    """Each card in `player`'s hand -> why it could not be deployed in the coming battle (IW-R6), "" if usable."""
    return {
        c: next((r for r in (unusable_reason(state, player, c, check) for check in range(3)) if r), "")
        for c in state["hands"][player]
    }


def _data(state: State, player: str | None) -> dict[str, Any]:
    revealed = state["step"] in ("leader", "negate")
    data: dict[str, Any] = {
        "hand": state["hand"],
        "step": state["step"],
        "sides": seated(state["sides"], state["players"]),
        "hands_won": seated(state["won"], state["players"]),
        "streaks": seated(state["streak"], state["players"]),
        "prev_winner": state["prev_winner"],
        "deck": len(state["deck"]),
        "discard": len(state["discard"]),
        "hand_sizes": {p: len(state["hands"][p]) for p in state["players"]},
        "deployed": card_forces(state) if revealed else None,
        "negation": ({"turn": state["neg"]["turn"], "used": list(state["neg"]["used"])} if state["neg"] else None),
        "last": ordered(state["last"], state["players"]),
        "winner": state["winner"],
    }
    if player is not None:
        data["your_hand"] = list(state["hands"][player]) if state["step"] == "discard" else []
        data["your_unusable"] = (
            {c: r for c, r in usable_marks(state, player).items() if r} if state["step"] == "discard" else {}
        )
        data["your_discard"] = state["pending"].get(player)
        data["your_leader_pref"] = state["prefs"].get(player)
        data["your_plan"] = state["plans"].get(player)
    return data


def make_view(engine: Named, state: State, player: str | None) -> View:
    secs = _public_sections(state)
    if player is not None:
        secs += _private_sections(state, player)
    secs.append(lines("Card codes", LEGEND))
    return view_of(
        engine,
        state["players"],
        player,
        turn=turn_label(state),
        over=state["over"],
        sections=secs,
        data=_data(state, player),
    )
