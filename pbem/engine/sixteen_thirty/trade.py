"""Sixteen Thirty Something: the trade protocol of ST-R15 (request, one simultaneous
window of offers, accept or decline; the exact cards are known only to the two traders)."""

from __future__ import annotations

from itertools import permutations
from typing import Any

from pbem.engine import names
from pbem.engine.base import Event, RuleError
from pbem.engine.sixteen_thirty.shape import State
from pbem.engine.sixteen_thirty.state import active, cards_text, goto, priv, pub, take_from_hand, trade_of
from pbem.engine.sixteen_thirty.tables import (
    ALL_CARD_NAMES,
    COUNTRIES,
    SPECIALS,
    country_of,
    is_open,
    is_special,
    sort_cards,
)
from pbem.engine.views import kept_order

TYPE_NAMES = ["ANY", "Special", "Open", *COUNTRIES, *SPECIALS, *ALL_CARD_NAMES]
MAX_REVISIONS = 2


def parse_types(text: str) -> list[str]:
    t = text.strip()
    if names.norm(t) in ("", "nothing", "none"):
        return []
    types = names.match_many(t, TYPE_NAMES, "card type")
    if len(types) > 3:
        raise RuleError("at most three cards can change hands each way (ST-R15)")
    return types


def type_of(card: str) -> str:
    """What others learn of a traded card: its country, Open, or the Special card's name."""
    return card if is_special(card) else ("Open" if is_open(card) else country_of(card) or "")


def matches(card: str, typ: str) -> bool:
    if typ == "ANY" or typ == card:
        return True
    if typ == "Special":
        return is_special(card)
    if typ == "Open":
        return is_open(card)
    return typ in COUNTRIES and country_of(card) == typ


def fits(cards: list[str], types: list[str]) -> bool:
    if len(cards) != len(types):
        return False
    return any(all(matches(c, t) for c, t in zip(cards, perm)) for perm in permutations(types))


def find_giving(hand: list[str], types: list[str]) -> list[str] | None:
    """Some cards from `hand` that satisfy `types` one to one (None if impossible)."""

    def rec(i: int, left: list[str]) -> list[str] | None:
        if i == len(types):
            return []
        for c in sort_cards(list(set(left))):
            if matches(c, types[i]):
                rest = list(left)
                rest.remove(c)
                tail = rec(i + 1, rest)
                if tail is not None:
                    return [c, *tail]
        return None

    return rec(0, list(hand))


def revisions_left(st: State) -> int:
    """How many more times the phasing player may revise the trade request this turn (ST-R15)."""
    tr = st.get("trade")
    return MAX_REVISIONS if not tr else MAX_REVISIONS - tr["revisions"]


def types_text(types: list[str]) -> str:
    return ", ".join(types) if types else "NOTHING"


# ---------------------------------------------------------------- orders
def request_trade(st: State, p: str, want: list[str], offer: list[str], ev: list[Event]) -> str:
    tr = st.get("trade") or {"revisions": -1}
    if tr["revisions"] >= MAX_REVISIONS:
        legal = ["DECLINE ALL", *accept_lines(st)] if st["phase"] == "accept" else []
        raise RuleError(
            f"you have already revised your trade request {MAX_REVISIONS} times this turn, the most allowed "
            "(ST-R15)" + ("; accept an offer or decline them all" if legal else "; wait for the offers"),
            legal,
        )
    st["trade"] = {"want": want, "offer": offer, "revisions": tr["revisions"] + 1, "offers": {}}
    line = f"TRADE WANT {types_text(want)}" + (f" OFFER {types_text(offer)}" if offer else "")
    pub(
        ev,
        "trade-request",
        f"{p} wants to trade: {line}. Every other player may make one offer "
        "(OFFER GIVE <cards> FOR <types>, or NO OFFER).",
        player=p,
        want=want,
        offer=offer,
    )
    goto(st, "offers", "trade.offers" if tr["revisions"] < 0 else f"trade{tr['revisions'] + 2}.offers")
    return line


def no_trade(st: State, p: str, ev: list[Event]) -> str:
    pub(ev, "no-trade", f"{p} does not trade this turn.", player=p)
    goto(st, "specials")
    return "NO TRADE"


def record_offer(st: State, p: str, give: list[str], want: list[str], show: bool = False) -> str:
    probe = list(st["hands"][p])
    take_from_hand(st, p, give)
    st["hands"][p] = probe
    if len(give) > 3:
        raise RuleError("at most three cards can change hands each way (ST-R15)")
    if not give and not want:
        raise RuleError("at least one card must change hands", ["NO OFFER"])
    st["answers"][p] = {"give": list(give), "for": list(want), "show": show}
    gives = cards_text(give) if give else "NOTHING"
    shown = " SHOW" if show else ""
    return f"OFFER GIVE {gives} FOR {types_text(want)}{shown} (secret until every offer is in)"


def shown(o: dict[str, Any]) -> list[str]:
    """What everyone learns of an offer's cards: exact cards with SHOW, else their types."""
    return list(o["give"]) if o.get("show") else [type_of(c) for c in o["give"]]


def record_no_offer(st: State, p: str) -> str:
    st["answers"][p] = None
    return "NO OFFER"


def asked(st: State) -> list[str]:
    return [q for q in st["players"] if q != st["active"]]


def reveal_offers(st: State, ev: list[Event]) -> None:
    p = active(st)
    offers = {q: st["answers"].get(q) for q in asked(st)}
    trade_of(st)["offers"] = {q: o for q, o in offers.items() if o}
    parts = []
    for q, o in offers.items():
        if o:
            gtypes = shown(o)
            parts.append(
                f"{q} gives {len(o['give'])} ({types_text(gtypes)}) for {len(o['for'])} ({types_text(o['for'])})"
            )
        else:
            parts.append(f"{q} no offer")
    pub(
        ev,
        "offers",
        f"Offers to {p}: {'; '.join(parts)}.",
        player=p,
        offers={q: ({"give": shown(o), "for": o["for"]} if o else None) for q, o in offers.items()},
    )
    if trade_of(st)["offers"]:
        goto(st, "accept", "trade.accept")
    else:
        goto(st, "specials")


def accept_lines(st: State) -> list[str]:
    p = active(st)
    out = []
    offers = trade_of(st)["offers"]
    for q in list(offers) if kept_order() else sorted(offers):  # by name: the order the record loads them in
        o = offers[q]
        giving = find_giving(st["hands"][p], o["for"])
        if giving is not None:
            out.append(f"ACCEPT {q} GIVING {cards_text(giving) if giving else 'NOTHING'}")
    return out


def accept(st: State, p: str, q: str, giving: list[str], ev: list[Event]) -> str:
    o = trade_of(st)["offers"].get(q)
    if not o:
        raise RuleError(f"{q} made no offer", [*accept_lines(st), "DECLINE ALL"])
    if not fits(giving, o["for"]):
        raise RuleError(
            f"{q} asked for {types_text(o['for'])}; your cards must match those types one for one",
            [*accept_lines(st), "DECLINE ALL"],
        )
    take_from_hand(st, p, giving)
    take_from_hand(st, q, o["give"])
    st["hands"][p] = sort_cards(st["hands"][p] + o["give"])
    st["hands"][q] = sort_cards(st["hands"][q] + giving)
    mine = types_text([type_of(c) for c in giving])
    pub(
        ev,
        "trade",
        f"{p} and {q} trade: {p} gives {len(giving)} card(s) ({mine}), "
        f"{q} gives {len(o['give'])} ({types_text([type_of(c) for c in o['give']])}).",
        players=[p, q],
        counts=[len(giving), len(o["give"])],
        types={p: [type_of(c) for c in giving], q: [type_of(c) for c in o["give"]]},
    )
    priv(
        ev,
        [p, q],
        "trade-cards",
        f"Trade: {p} gave {cards_text(giving)}; {q} gave {cards_text(o['give'])}.",
        gave={p: list(giving), q: list(o["give"])},
    )
    goto(st, "specials")
    return f"ACCEPT {q} GIVING {cards_text(giving) if giving else 'NOTHING'}"


def decline(st: State, p: str, ev: list[Event]) -> str:
    pub(ev, "trade-declined", f"{p} declines every offer.", player=p)
    goto(st, "specials")
    return "DECLINE ALL"
