"""House of Habsburg views: what one player (or the public) may know (HH-R11; docs/rulings.md).

Public: seats, tokens, hand sizes, melds with ids and cards, scores so far, the
whole discard pile (top first), the deck count.  Private: your own hand and
your own standing discard order.  No other hand's contents ever appear.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.habsburg import rules
from pbem.engine.habsburg.cards import TYPE, VALUE, label, type_name
from pbem.engine.habsburg.orders import standing_on_file
from pbem.engine.habsburg.table import State
from pbem.engine.views import Named, Section, View, keyed, lines, make_view, seated, table
from pbem.engine.words import count


def turn_label(st: State) -> str:
    if st["phase"] == "over":
        return f"Game over after turn {st['turn']}; winner: {' and '.join(st['winners'] or [])}"
    step = "to discard down to 5" if st["phase"] == "discard" else "to play"
    return f"Turn {st['turn']}, {rules.active(st)} {step}"


def players_block(st: State) -> Section:
    sc = rules.scores(st)
    rows = []
    for i, p in enumerate(st["players"]):
        mine = [m["id"] for m in st["melds"] if m["owner"] == p]
        mark = "*" if st["phase"] != "over" and rules.active(st) == p else ""
        rows.append(
            [
                i + 1,
                p + mark,
                st["tokens"][p],
                rules.holdings(st, p),
                sc[p],
                len(st["hands"][p]),
                ", ".join(mine) or "-",
            ]
        )
    return table("Players (* = to play)", ["Seat", "Player", "Tokens", "Holdings", "Score", "Hand", "Melds"], rows)


def melds_block(st: State) -> Section:
    rows = [[m["id"], m["owner"], label(m["person"]), label(m["holding"]), label(m["claim"])] for m in st["melds"]]
    if not rows:
        return lines("Melds", ["No melds on the table yet."])
    return table("Melds (target them by id, e.g. M3)", ["Id", "Owner", "Person (P)", "Holding (H)", "Claim (C)"], rows)


def table_block(st: State) -> Section:
    pile = list(reversed(st["discard"]))
    top = rules.top_holding(st)
    out = [
        f"Deck: {count(len(st['deck']), 'card')} left.",
        "Discard pile (top first): " + (", ".join(label(c) for c in pile) or "empty") + ".",
        f"TOP (usable in a meld): {label(top)}." if top else "TOP: the top card is not a Holding.",
    ]
    if not st["deck"] and st["phase"] != "over":
        out.append(
            f"Turns in a row without a meld or event since the deck ran out: {st['idle']} "
            f"(the game ends at {len(st['players'])}, HH-R5)."
        )
    return lines("Table", out)


def hand_block(st: State, p: str) -> Section:
    rows = [[c, type_name(c), VALUE[c]] for c in st["hands"][p]]
    if rows:
        return table("Your hand", ["Card", "Type", "Value"], rows, private=True)
    return lines("Your hand", ["Your hand is empty."], private=True)


def public_data(st: State) -> dict[str, Any]:
    return {
        "seats": list(st["players"]),
        "tokens": seated(st["tokens"], st["players"]),
        "hand_sizes": {p: len(st["hands"][p]) for p in st["players"]},
        "holdings": {p: rules.holdings(st, p) for p in st["players"]},
        "scores": rules.scores(st),
        "melds": [keyed(m) for m in st["melds"]],
        "discard_top_first": list(reversed(st["discard"])),
        "deck": len(st["deck"]),
        "turn": st["turn"],
        "phase": st["phase"],
        "idle_turns": st["idle"],
        "active": None if st["phase"] == "over" else rules.active(st),
        "winners": st["winners"],
    }


def view(engine: Named, st: State, player: str | None) -> View:
    sections = [players_block(st), melds_block(st), table_block(st)]
    data = public_data(st)
    if player is not None and player in st["players"]:
        sections.append(hand_block(st, player))
        data["hand"] = [{"card": c, "type": TYPE[c], "value": VALUE[c]} for c in st["hands"][player]]
        if kept := standing_on_file(st, player):
            sections.append(lines("Your standing orders", kept, private=True))
    return make_view(
        engine, st["players"], player, turn=turn_label(st), over=st["phase"] == "over", sections=sections, data=data
    )
