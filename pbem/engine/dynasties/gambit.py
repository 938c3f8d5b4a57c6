"""Dynasties: set-up and the start of each gambit (DY-R1, DY-R2, DY-R6..R10).

Owns the state shape, the deal, Enquire Prospects (DY-R7) and the Tribute's
resolution with its tie rules (DY-R9, DY-R10).  What follows the Tribute (the
Turns of Raising the Family) is started here and its end handed back to
`rules`, which owns the transitions between the parts of a gambit.

State phases: "tribute" (simultaneous), "play" (one player, the one at
st["turn"]["pos"]), "conclave" (st["conclave_for"]), "discard"
(simultaneous, st["need_discard"]), "over".
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import MODERATOR, PUBLIC, Event
from pbem.engine.dynasties import cards as C
from pbem.engine.dynasties.raising import Ended, start_turn
from pbem.engine.dynasties.table import Events, State, draw, hand_sizes, pay, seat_from, top_card
from pbem.engine.rng import Rng, init_state

START_GOLD = 50


def setup(players: list[str], seed: str, legacy: int) -> tuple[State, Events]:
    rng = init_state(seed)
    seat_log: list[dict[str, Any]] = []
    deck_log: list[dict[str, Any]] = []
    seats = list(players)
    Rng(rng, seat_log).shuffle(seats)
    deck = list(C.DECK)
    Rng(rng, deck_log).shuffle(deck)
    st: State = {
        "rng": rng,
        "legacy": legacy,
        "players": seats,
        "treasury": {p: START_GOLD for p in seats},
        "stakes": 0,
        "removed": 0,
        "deck": deck,
        "grave": [],
        "hands": {p: [] for p in seats},
        "families": {p: [] for p in seats},
        "zone": [],
        "crown": None,
        "dynasty": None,
        "dynasty_card": None,
        "gambit": 0,
        "first": None,
        "phase": "tribute",
        "tributes": {},
        "asked": [],
        "turn": None,
        "plans": {p: [] for p in seats},
        "conclave_pref": {p: None for p in seats},
        "discards": {},
        "need_discard": {},
        "winner_of_stakes": None,
        "broke": False,
        "result": None,
    }
    ev: Events = [
        Event(
            "seating",
            f"Seating order (drawn at random): {', '.join(seats)}.",
            PUBLIC,
            {"players": list(seats), "legacy": legacy, "rng": seat_log},
        ),
        Event("shuffle", "Noble Deck order: " + ", ".join(deck), MODERATOR, {"deck": list(deck), "rng": deck_log}),
    ]
    for p in seats:
        draw(st, ev, p, 4, "deal")
    ev.append(Event("deal", "Each player is dealt four Nobles.", PUBLIC, {"hand_sizes": hand_sizes(st)}))
    return st, ev


# ---------------------------------------------------------------- gambit start


def start_gambit(st: State, ev: Events) -> Ended | None:
    """Enquire, then ask for Tributes (resolved at once if nobody holds a card); see `start_turn`."""
    st["gambit"] += 1
    g = st["gambit"]
    ev.append(Event("gambit", f"Gambit {g} begins. Stakes: {st['stakes']} Gold.", PUBLIC, {"gambit": g}))
    if g > 1:
        enquire(st, ev)
    st["phase"], st["tributes"] = "tribute", {}
    st["asked"] = [p for p in st["players"] if st["hands"][p]]
    st["conclaved"], st["purebloods"], st["crowned"] = [], [], []
    if not st["asked"]:
        return resolve_tribute(st, ev)
    return None


def enquire(st: State, ev: Events) -> None:
    """DY-R7: every player under four cards flips, pays the flip and draws up to four."""
    for p in seat_from(st, st["first"]):
        if len(st["hands"][p]) >= 4:
            continue
        card = top_card(st, ev)
        if card is None:
            continue
        ev.append(Event("enquire", f"{p} enquires prospects and flips {card}.", PUBLIC, {"player": p, "card": card}))
        pay(st, ev, p, C.value(card), None, f"enquiring prospects, flipped {card}")
        st["hands"][p].append(card)
        draw(st, ev, p, 4 - len(st["hands"][p]), "enquiring prospects")
        ev.append(
            Event(
                "enquire-draw",
                f"{p} takes {card} and now holds {len(st['hands'][p])} Nobles.",
                PUBLIC,
                {"player": p, "hand_size": len(st["hands"][p])},
            )
        )


# ---------------------------------------------------------------- tribute


def resolve_tribute(st: State, ev: Events) -> Ended | None:
    """DY-R9/R10: reveal together, everyone pays H, First Player by the unique-value rule."""
    trib = {p: st["tributes"][p] for p in st["players"] if p in st["tributes"]}
    for p, card in trib.items():
        st["hands"][p].remove(card)
        st["zone"].append(card)
    vals = {p: C.value(c) for p, c in trib.items()}
    high = max(vals.values(), default=0)
    shown = "; ".join(f"{p}: {c}" for p, c in trib.items()) or "none"
    ev.append(
        Event(
            "tributes", f"Tributes revealed: {shown}. Highest value {high}.", PUBLIC, {"tributes": trib, "high": high}
        )
    )
    log: list[dict[str, Any]] = []
    first, how = first_player(st, vals, high, log)
    st["first"] = first
    for p in st["players"]:
        if high:
            pay(st, ev, p, high, None, f"tribute, highest value {high}")
    ev.append(
        Event(
            "first-player",
            f"{first} is First Player for gambit {st['gambit']} ({how}).",
            PUBLIC,
            {"player": first, "how": how, "gambit": st["gambit"], "rng": log},
        )
    )
    st["tributes"], st["asked"] = {}, []
    return start_turn(st, ev, first, 1, [])


def first_player(
    st: State, vals: dict[str, int], high: int, log: list[dict[str, Any]] | None = None
) -> tuple[str, str]:
    """DY-R9: the highest value given by exactly one player; else the next tied-at-H seat (random in gambit 1)."""
    counts: dict[int, int] = {}
    for v in vals.values():
        counts[v] = counts.get(v, 0) + 1
    unique = sorted((v for v, n in counts.items() if n == 1), reverse=True)
    if unique:
        return next(p for p, v in vals.items() if v == unique[0]), f"highest unique Tribute value {unique[0]}"
    tied = [p for p, v in vals.items() if v == high] or list(st["players"])
    if st["first"] is None:
        return tied[Rng(st["rng"], log).below(len(tied))], "no unique Tribute value; drawn at random among the highest"
    nxt = next(p for p in seat_from(st, st["first"], skip_self=True) if p in tied)
    return nxt, "no unique Tribute value; next highest in seat order"
