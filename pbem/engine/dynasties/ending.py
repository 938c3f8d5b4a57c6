"""Dynasties: Conclusion, Into the Grave, Draw & Retirement and the end (DY-R5c/d, DY-R13, DY-R14,
DY-R18..R20, DY-R8).

Owns Family totals, the award or split of the Stakes, tie Turns, clearing
the gambit's play lists, burying Families and Tributes except the latest
Coronation, the draw order and the six-card limit, the per-gambit "scores"
event, and the final result with the Legacy.
"""

from __future__ import annotations

from pbem.engine.base import PUBLIC, Event
from pbem.engine.dynasties import cards as C
from pbem.engine.dynasties.table import Events, State, bury, draw, seat_from, take_stakes

HAND_LIMIT = 6


def family_total(st: State, p: str) -> int:
    """DY-R5c, DY-R14: Coronation 11, +3 per Noble of the Current Dynasty (not the Coronation)."""
    total = 0
    for c in st["families"][p]:
        if C.is_coronation(c):
            total += 11
        else:
            total += C.value(c) + (3 if C.lineage(c) == st["dynasty"] else 0)
    return total


def conclusion(st: State, ev: Events, stuck: bool) -> list[str] | bool:
    """DY-R18..R19 after the last Turn: the players tied for the top family total, who raise
    again (unless `stuck`); else the gambit is settled and True if the next gambit starts now."""
    totals = {p: family_total(st, p) for p in st["players"]}
    top = max(totals.values())
    tied = [p for p in st["players"] if totals[p] == top]
    shown = "; ".join(f"{p} {totals[p]}" for p in st["players"])
    ev.append(
        Event(
            "conclusion",
            f"Family totals: {shown}" + (f" (Current Dynasty: {st['dynasty']})." if st["dynasty"] else "."),
            PUBLIC,
            {"totals": totals, "dynasty": st["dynasty"]},
        )
    )
    if len(tied) > 1 and not stuck:
        ev.append(
            Event(
                "tie",
                f"{' and '.join(tied)} tie at {top}: another Turn of Raising the Family (DY-R18).",
                PUBLIC,
                {"tied": tied},
            )
        )
        return tied
    award(st, ev, tied)
    st["broke"] = any(st["treasury"][p] == 0 for p in st["players"])
    into_grave(st, ev)
    plans_clear(st)
    ev.append(
        Event(
            "scores",
            f"After gambit {st['gambit']}: "
            + "; ".join(f"{p} {st['treasury'][p]}" for p in st["players"])
            + f"; Stakes {st['stakes']}.",
            PUBLIC,
            {"scores": dict(st["treasury"]), "stakes": st["stakes"], "gambit": st["gambit"], "turn": st["gambit"]},
        )
    )
    if st["broke"]:
        finish(st, ev)
        return False
    return draw_and_retire(st, ev)


def award(st: State, ev: Events, tied: list[str]) -> None:
    stakes = st["stakes"]
    if len(tied) == 1:
        st["winner_of_stakes"] = tied[0]
        take_stakes(st, ev, tied[0], stakes, "winning the Stakes with the highest Family")
        return
    share = stakes // len(tied)
    st["winner_of_stakes"] = None
    ev.append(
        Event(
            "split",
            f"Nobody can play a tie-break Turn: {', '.join(tied)} split the Stakes, {share} Gold "
            f"each; {stakes - share * len(tied)} Gold stays in the Stakes (DY-R18).",
            PUBLIC,
            {"tied": tied, "share": share},
        )
    )
    for p in tied:
        take_stakes(st, ev, p, share, "share of split Stakes")


def plans_clear(st: State) -> None:
    for p in st["players"]:
        st["plans"][p] = []
        pref = st["conclave_pref"][p]
        if pref and pref["mode"] == "cards":
            st["conclave_pref"][p] = None


def into_grave(st: State, ev: Events) -> None:
    """All Families and Tributes to the Graveyard, except the latest Coronation (DY-R5d)."""
    keep = st["crowned"][-1] if st["crowned"] else st["crown"]
    gone = [c for p in st["players"] for c in st["families"][p]] + list(st["zone"])
    if keep in gone:
        gone.remove(keep)
    for p in st["players"]:
        st["families"][p] = []
    bury(st, gone)
    st["zone"] = [keep] if keep else []
    st["crown"] = keep
    st["turn"] = None
    text = f"Into the Grave: {len(gone)} Nobles go to the Graveyard"
    ev.append(
        Event(
            "grave",
            text + (f"; {keep} stays in the Tribute Zone." if keep else "."),
            PUBLIC,
            {"buried": len(gone), "crown": keep},
        )
    )


def draw_and_retire(st: State, ev: Events) -> bool:
    """DY-R19: most cards first (ties: Stakes winner, then seats from them); limit six.
    True if nobody is over the limit, so the next gambit starts now."""
    base = st["winner_of_stakes"] or st["first"]
    order = sorted(seat_from(st, base), key=lambda p: -len(st["hands"][p]))
    for p in order:
        got = draw(st, ev, p, 1, "Draw & Retirement")
        ev.append(Event("retire-draw", f"{p} draws {len(got)} Noble (Draw & Retirement).", PUBLIC, {"player": p}))
    st["need_discard"] = {
        p: len(st["hands"][p]) - HAND_LIMIT for p in st["players"] if len(st["hands"][p]) > HAND_LIMIT
    }
    st["discards"] = {}
    if st["need_discard"]:
        st["phase"] = "discard"
        return False
    return True


def resolve_discards(st: State, ev: Events) -> None:
    for p in st["players"]:
        if p in st["discards"]:
            cards = st["discards"][p]
            for c in cards:
                st["hands"][p].remove(c)
            bury(st, cards)
            ev.append(
                Event(
                    "discard",
                    f"{p} discards {len(cards)} Noble(s) to the Graveyard, keeping six.",
                    PUBLIC,
                    {"player": p, "count": len(cards)},
                )
            )
            ev.append(
                Event("discard-own", f"You discard {C.describe(cards)}.", (p,), {"player": p, "cards": list(cards)})
            )
    st["need_discard"], st["discards"] = {}, {}


def finish(st: State, ev: Events) -> None:
    """DY-R20: Stakes left are removed from play; most Gold wins and shares the Legacy (DY-R8)."""
    if st["stakes"]:
        ev.append(
            Event(
                "removed",
                f"{st['stakes']} Gold left in the Stakes is removed from play.",
                PUBLIC,
                {"removed": st["stakes"]},
            )
        )
    st["removed"] += st["stakes"]
    st["stakes"] = 0
    st["phase"] = "over"
    for p in st["players"]:
        ev.append(
            Event(
                "reveal",
                f"{p}'s hand at the end: {C.describe(C.ordered(st['hands'][p]))}.",
                PUBLIC,
                {"player": p, "hand": C.ordered(st["hands"][p])},
            )
        )
    top = max(st["treasury"].values())
    winners = [p for p in st["players"] if st["treasury"][p] == top]
    share = f"{st['legacy'] / len(winners):.2f}".rstrip("0").rstrip(".")
    st["result"] = {"winners": winners, "legacy_share": share}
    ev.append(
        Event(
            "game-over",
            f"Game over after gambit {st['gambit']}: {' and '.join(winners)} win"
            f"{'s' if len(winners) == 1 else ''} with {top} Gold and the Legacy of {st['legacy']}"
            + (f" ({share} each)." if len(winners) > 1 else "."),
            PUBLIC,
            {"scores": dict(st["treasury"]), "winners": winners, "legacy": st["legacy"], "legacy_share": share},
        )
    )
