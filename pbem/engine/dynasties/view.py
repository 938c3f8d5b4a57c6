"""What one Dynasties player (or the public) may know (docs/rulings.md).

Public: Treasuries, Stakes, Legacy, gold removed from play, Tribute Zone,
Current Dynasty, every Family with values, lineages and bonuses, hand sizes,
deck size, and who still owes a Tribute or discard.  Never the Graveyard's
contents (DY-R21), never another player's hand, tribute, play list or discard.
Private: your hand and everything you have on file.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.dynasties import cards as C
from pbem.engine.dynasties import ending, raising
from pbem.engine.dynasties import orders as O
from pbem.engine.dynasties.table import State, hand_sizes, turn_of
from pbem.engine.views import Named, Section, View, lines, make_view, seated, table
from pbem.engine.words import count


def turn_label(st: State) -> str:
    ph, g = st["phase"], st["gambit"]
    if ph == "over":
        return f"Game over after gambit {g}"
    if ph == "tribute":
        return f"Gambit {g}, Tributes"
    if ph == "discard":
        return f"Gambit {g}, Draw & Retirement discards"
    t = turn_of(st)["n"]
    if ph == "conclave":
        return f"Gambit {g}, Turn {t}, {st['conclave_for']} chooses Conclave cards"
    return f"Gambit {g}, Turn {t}, {raising.waiting_player(st)} to play"


def card_note(st: State, card: str) -> str:
    if C.is_coronation(card):
        return f"{card} (11)"
    bonus = C.lineage(card) == st["dynasty"]
    return f"{card} ({C.value(card) + 3 if bonus else C.value(card)}{' incl. +3' if bonus else ''})"


def public_data(st: State) -> dict[str, Any]:
    return {
        "gambit": st["gambit"],
        "phase": st["phase"],
        "treasury": seated(st["treasury"], st["players"]),
        "stakes": st["stakes"],
        "removed": st["removed"],
        "legacy": st["legacy"],
        "dynasty": st["dynasty"],
        "tribute_zone": list(st["zone"]),
        "families": {p: list(st["families"][p]) for p in st["players"]},
        "family_totals": {p: ending.family_total(st, p) for p in st["players"]},
        "hand_sizes": hand_sizes(st),
        "deck_size": len(st["deck"]),
        "first_player": st["first"],
        "turn_plays": [list(x) for x in st["turn"]["plays"]] if st["turn"] else [],
        "waiting_for": O.asked(st),
        "tributes_in": [p for p in st["players"] if p in st["tributes"]],
        "discards_in": [p for p in st["players"] if p in st["discards"]],
    }


def public_sections(st: State) -> list[Section]:
    rows = [
        [
            p,
            st["treasury"][p],
            len(st["hands"][p]),
            ", ".join(card_note(st, c) for c in st["families"][p]) or "-",
            ending.family_total(st, p),
        ]
        for p in st["players"]
    ]
    text = [
        f"Stakes: {st['stakes']} Gold. Legacy: {st['legacy']}. Gold removed from play: {st['removed']}.",
        f"Current Dynasty: {st['dynasty'] or 'none'}.",
        f"Tribute Zone: {C.describe(st['zone'])}.",
        f"Noble Deck: {count(len(st['deck']), 'card')} (the Graveyard is never listed, DY-R21).",
        f"First Player this gambit: {st['first'] or 'not yet known'}.",
    ]
    if st["turn"] and st["turn"]["plays"]:
        text.append("Played this Turn: " + "; ".join(f"{p} {c}" for p, c in st["turn"]["plays"]) + ".")
    waiting = O.asked(st)
    if waiting:
        text.append("Waiting for: " + ", ".join(waiting) + ".")
    return [
        table("Treasuries and Families", ["Player", "Gold", "Hand", "Family (value)", "Family total"], rows),
        lines("The table", text),
    ]


def private_sections(st: State, p: str) -> list[Section]:
    hand = C.ordered(st["hands"][p])
    out = [lines("Your hand", [", ".join(hand) if hand else "(empty)"], private=True)]
    filed = list(O.on_file(st, p))
    if filed:
        out.append(lines("Your orders on file", filed, private=True))
    return out


def view(engine: Named, st: State, player: str | None) -> View:
    data = public_data(st)
    sections = public_sections(st)
    if player is not None and player in st["players"]:
        data["hand"] = C.ordered(st["hands"][player])
        data["on_file"] = list(O.on_file(st, player))
        sections += private_sections(st, player)
    if st["result"]:
        data["winners"] = list(st["result"]["winners"])
        data["legacy_share"] = st["result"]["legacy_share"]
    return make_view(
        engine, st["players"], player, turn=turn_label(st), over=st["phase"] == "over", sections=sections, data=data
    )
