"""Dynasties: Raising the Family, one Noble at a time (DY-R3, DY-R4, DY-R5, DY-R11, DY-R12, DY-R15..R17).

Owns the Turn in progress (st["turn"]: number, seat order from the leader,
position, plays, tied players), automatic plays from play lists, activation,
the four lineage powers, coronations, Pureblood and Conclave (which may pause
for the owner's choice of Tribute Zone cards) and the end of each Turn.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from pbem.engine.base import PUBLIC, Event
from pbem.engine.dynasties import cards as C
from pbem.engine.dynasties.table import Events, State, bury, draw, pay, seat_from, take_stakes, turn_of

TURNS = 3


@dataclass(frozen=True)
class Ended:
    """The last Turn of Raising the Family is over: `rules` concludes the gambit (DY-R18)."""

    leader: str
    stuck: bool


def start_turn(st: State, ev: Events, leader: str, number: int, tied: list[str]) -> Ended | None:
    """Start a Turn and play on (see `continue_play`)."""
    st["phase"] = "play"
    st["turn"] = {"n": number, "order": seat_from(st, leader), "pos": 0, "plays": [], "tied": tied}
    label = f"Turn {number}" + (" (tie-break)" if tied else "")
    ev.append(
        Event(
            "turn",
            f"{label} of gambit {st['gambit']}: {leader} leads.",
            PUBLIC,
            {"gambit": st["gambit"], "turn": number, "leader": leader},
        )
    )
    return continue_play(st, ev)


def continue_play(st: State, ev: Events) -> Ended | None:
    """Play on until someone must be asked, a conclave choice is pending, or the turn ends;
    `Ended` when the last Turn is over (the caller concludes the gambit)."""
    t = turn_of(st)
    while t["pos"] < len(t["order"]):
        p = t["order"][t["pos"]]
        if not st["hands"][p]:
            ev.append(
                Event("skip", f"{p} has no Noble in hand and is skipped this Turn (DY-R12).", PUBLIC, {"player": p})
            )
            t["pos"] += 1
            continue
        plan = st["plans"][p]
        if plan and plan[0] in st["hands"][p]:
            if not play_card(st, ev, p, plan.pop(0), planned=True):
                return None
            continue
        if plan:
            ev.append(
                Event(
                    "plan",
                    f"Your planned {plan[0]} is no longer in your hand; you are asked to play.",
                    (p,),
                    {"player": p, "card": plan[0]},
                )
            )
            plan.pop(0)
        st["phase"] = "play"
        return None
    return end_turn(st, ev)


def waiting_player(st: State) -> str:
    t = turn_of(st)
    p: str = t["order"][t["pos"]]
    return p


def play_card(st: State, ev: Events, p: str, card: str, planned: bool = False) -> bool:
    """Play `card` into p's Family; False if a conclave choice now waits on p."""
    t = turn_of(st)
    st["hands"][p].remove(card)
    st["families"][p].append(card)
    active = not t["plays"] or C.value(card) <= C.value(t["plays"][-1][1])
    t["plays"].append([p, card])
    t["pos"] += 1
    how = " from the play list" if planned else ""
    ev.append(
        Event(
            "play",
            f"{p} plays {card}{how}" + ("; its power activates." if active else "; no power."),
            PUBLIC,
            {"player": p, "card": card, "active": active, "turn": t["n"]},
        )
    )
    if C.is_coronation(card):
        crown(st, ev, p, card)
    if active:
        power(st, ev, p, card)
    pureblood(st, ev, p)
    return conclave(st, ev, p)


def crown(st: State, ev: Events, p: str, card: str) -> None:
    """DY-R5b: kings die, the lineage becomes the Current Dynasty."""
    for q in st["players"]:
        kings = [c for c in st["families"][q] if C.is_king(c)]
        for k in kings:
            st["families"][q].remove(k)
        bury(st, kings)
        if kings:
            ev.append(
                Event(
                    "kings",
                    f"{p}'s {card} removes {C.describe(kings)} from {q}'s Family to the Graveyard.",
                    PUBLIC,
                    {"player": q, "cards": kings},
                )
            )
    st["dynasty"], st["dynasty_card"] = C.lineage(card), card
    st["crowned"].append(card)
    ev.append(Event("dynasty", f"{C.lineage(card)} is now the Current Dynasty.", PUBLIC, {"dynasty": C.lineage(card)}))


def power(st: State, ev: Events, p: str, card: str) -> None:
    """DY-R3: the four lineage powers."""
    lin, why = C.lineage(card), f"{card}'s power"
    if lin == "Copper":
        take_stakes(st, ev, p, 2, f"{why} (Coin of the Realm)")
    elif lin == "Silver":
        got = draw(st, ev, p, 1, f"{why} (Courtiers)")
        ev.append(
            Event(
                "courtiers", f"{p} draws {len(got)} Noble ({why}, Courtiers).", PUBLIC, {"player": p, "count": len(got)}
            )
        )
    elif lin == "Gold":
        for q in seat_from(st, p, skip_self=True)[:-1]:
            pay(st, ev, q, 1, None, f"{p}'s {why} (Royal Levy)")
    else:
        mine = st["treasury"][p]
        richer = [q for q in seat_from(st, p, skip_self=True)[:-1] if st["treasury"][q] > mine]
        for q in richer:
            pay(st, ev, q, 1, p, f"{p}'s {why} (Precedence)")
        if not richer:
            ev.append(
                Event("precedence", f"{p}'s {why} (Precedence): nobody has more Gold than {p}.", PUBLIC, {"player": p})
            )


def pureblood(st: State, ev: Events, p: str) -> None:
    """DY-R17: three of one lineage -> every other player pays the median value."""
    if p in st["purebloods"]:
        return
    fam = st["families"][p]
    for lin in C.LINEAGES:
        same = [c for c in fam if C.lineage(c) == lin]
        if len(same) >= 3:
            st["purebloods"].append(p)
            mid = sorted(C.value(c) for c in same[:3])[1]
            ev.append(
                Event(
                    "pureblood",
                    f"{p}'s Family is Pureblood {lin} ({C.describe(same[:3])}): each other player pays {mid} Gold.",
                    PUBLIC,
                    {"player": p, "lineage": lin, "median": mid},
                )
            )
            for q in seat_from(st, p, skip_self=True)[:-1]:
                pay(st, ev, q, mid, p, f"{p}'s Pureblood {lin}")
            return


def conclave(st: State, ev: Events, p: str) -> bool:
    """DY-R16: three equal values -> take that Gold, then choose 0-2 Tribute Zone cards."""
    if p in st["conclaved"]:
        return True
    fam = st["families"][p]
    counts = Counter(C.value(c) for c in fam)
    vals = [v for v in range(1, 14) if counts[v] >= 3]
    if not vals:
        return True
    v = vals[0]
    st["conclaved"].append(p)
    ev.append(Event("conclave", f"{p}'s Family holds a Conclave of {v}s.", PUBLIC, {"player": p, "value": v}))
    take_stakes(st, ev, p, v, f"Conclave of {v}s")
    if not st["zone"]:
        return True
    choice = standing_conclave(st, p)
    if choice is None:
        st["phase"], st["conclave_for"] = "conclave", p
        return False
    take_from_zone(st, ev, p, choice)
    return True


def standing_conclave(st: State, p: str) -> list[str] | None:
    return conclave_choice(st["conclave_pref"][p], st["zone"])


def conclave_choice(pref: dict[str, Any] | None, zone: list[str]) -> list[str] | None:
    """The cards a Conclave preference takes from `zone` (None: no preference, or its cards are gone)."""
    if pref is None:
        return None
    if pref["mode"] == "highest":
        return C.highest(zone, 2)
    if pref["mode"] == "none":
        return []
    return pref["cards"] if all(c in zone for c in pref["cards"]) else None


def take_from_zone(st: State, ev: Events, p: str, chosen: list[str]) -> None:
    for c in chosen:
        st["zone"].remove(c)
        st["hands"][p].append(c)
        if c == st["crown"]:
            st["crown"] = None
        if c == st["dynasty_card"]:
            st["dynasty"], st["dynasty_card"] = None, None
            ev.append(Event("dynasty", f"{p} takes {c}: there is no Current Dynasty now.", PUBLIC, {"dynasty": None}))
    ev.append(
        Event(
            "conclave-take",
            f"{p} takes {C.describe(chosen)} from the Tribute Zone into hand.",
            PUBLIC,
            {"player": p, "cards": list(chosen)},
        )
    )
    st["phase"] = "play"


def end_turn(st: State, ev: Events) -> Ended | None:
    t = turn_of(st)
    plays = t["plays"]
    leader = t["order"][0]
    if plays:
        top = max(C.value(c) for _, c in plays)
        leader = next(p for p, c in plays if C.value(c) == top)
    if t["n"] < TURNS:
        return start_turn(st, ev, leader, t["n"] + 1, [])
    return Ended(leader, bool(t["tied"]) and not plays)
