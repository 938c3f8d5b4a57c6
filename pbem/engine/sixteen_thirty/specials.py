"""Sixteen Thirty Something: the seven Special cards (ST-R14, caps ST-R7, ST-R11 for
the Vote card, ST-R13 for Unrest and Assassin), played one at a time, at most two a turn."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from pbem.engine.base import Event, RuleError
from pbem.engine.sixteen_thirty.parse import Order
from pbem.engine.sixteen_thirty.shape import State
from pbem.engine.sixteen_thirty.state import (
    goto,
    influence,
    own_removal_options,
    pile,
    piles,
    pub,
    remove_card,
    take_from_hand,
)
from pbem.engine.sixteen_thirty.tables import CAP, COUNTRIES, SPECIALS, Raised, sort_cards
from pbem.engine.sixteen_thirty.votes import callable_countries, open_lose, start_loss

# what each card raises and its cap (ST-R7)
RAISES: dict[str, Raised] = {
    "Military Improvement": "ability",
    "Increase Army Size": "army",
    "Increase Status": "status",
}
COUNTER: dict[str, Literal["leader", "unrest"]] = {"Military Leader": "leader", "Unrest": "unrest"}


def country_targets(st: State, card: str) -> list[str]:
    if card in RAISES:
        key = RAISES[card]
        return [c for c in COUNTRIES if st["countries"][c][key] < CAP[key]]
    if card in COUNTER:
        return [c for c in COUNTRIES if not st["countries"][c][COUNTER[card]]]
    return []


def assassin_targets(st: State, p: str) -> list[tuple[str, str, str]]:
    """(player, country, card) that p's Assassin may remove: any card of any pile, except that on
    p's own pile the last named card cannot go while an Open card remains (ST-R13)."""
    out = []
    for q in st["players"]:
        for c, pl in piles(st, q):
            cards = own_removal_options(pl) if q == p else sort_cards(list(set(pl["cards"])))
            for x in sort_cards(cards):
                out.append((q, c, x))
    return out


def assassin_line(q: str, c: str, x: str) -> str:
    return f"PLAY Assassin {q} {x} FROM {c}" if x.startswith("Open ") else f"PLAY Assassin {q} {x}"


def special_lines(st: State, p: str) -> list[str]:
    """Every legal PLAY line for p now (one per target)."""
    return list(_special_lines(st, p))


def has_special_line(st: State, p: str) -> bool:
    """True if p has a legal PLAY line now (`special_lines` is not empty), found without listing them all."""
    return next(_special_lines(st, p), None) is not None


def _special_lines(st: State, p: str) -> Iterator[str]:
    for card in SPECIALS:
        if card not in st["hands"][p]:
            continue
        if card == "Vote":
            if callable_countries(st, p):
                yield "PLAY Vote"
        elif card == "Assassin":
            yield from (assassin_line(*t) for t in assassin_targets(st, p))
        else:
            yield from (f"PLAY {card} {c}" for c in country_targets(st, card))


def play(st: State, p: str, card: str, arg: Order, ev: list[Event]) -> str:
    if st["specials_played"] >= 2:
        raise RuleError("you have already played two Special cards this turn", ["SPECIALS DONE"])
    if card not in st["hands"][p]:
        raise RuleError(f"you do not hold a {card} card", [*special_lines(st, p), "SPECIALS DONE"])
    if card == "Vote":
        return play_vote(st, p, ev)
    if card == "Assassin":
        return play_assassin(st, p, arg["player"], arg["country"], arg["card"], ev)
    c = arg["country"]
    if c not in country_targets(st, card):
        raise RuleError(
            f"{card} cannot be played on {c} now (ST-R7 caps, ST-R14 one counter per country)",
            [f"PLAY {card} {t}" for t in country_targets(st, card)],
        )
    spend(st, p, card)
    k = st["countries"][c]
    if card in RAISES:
        key = RAISES[card]
        k[key] += 1
        label = {"ability": "Military Ability", "army": "Army Size", "status": "Status"}[key]
        pub(ev, "special", f"{p} plays {card}: the {label} of {c} rises to {k[key]}.", player=p, card=card, country=c)
    elif card == "Military Leader":
        k["leader"] = True
        pub(
            ev,
            "special",
            f"{p} plays Military Leader: {c} has a leader (+2 in combat) this turn.",
            player=p,
            card=card,
            country=c,
        )
    else:
        play_unrest(st, p, c, ev)
    return f"PLAY {card} {c}"


def spend(st: State, p: str, card: str) -> None:
    take_from_hand(st, p, [card])
    st["discard"].append(card)
    st["specials_played"] += 1


def play_vote(st: State, p: str, ev: list[Event]) -> str:
    if not callable_countries(st, p):
        raise RuleError("you have no pile and no Influence card to call a vote with (ST-R11)", ["SPECIALS DONE"])
    spend(st, p, "Vote")
    st["call_origin"] = "card"
    goto(st, "call", f"vote{st['votes_called'] + 1}.call")
    pub(ev, "special", f"{p} plays a Vote card and will call an extra vote.", player=p, card="Vote")
    return "PLAY Vote"


def play_unrest(st: State, p: str, c: str, ev: list[Event]) -> None:
    st["countries"][c]["unrest"] = True
    infl = {q: influence(st, q, c) for q in st["players"]}
    top = max(infl.values())
    hit = [q for q in st["players"] if top > 0 and infl[q] == top]
    pub(
        ev,
        "special",
        f"{p} plays Unrest in {c}: "
        + (
            f"{', '.join(hit)} (highest influence {top}) {'is' if len(hit) == 1 else 'are'} hit."
            if hit
            else "nobody has influence there."
        ),
        player=p,
        card="Unrest",
        country=c,
        hit=hit,
    )
    choose = []
    for q in hit:
        pl = pile(st, q, c)
        if not pl["desc"]:
            pl["desc"] = True
            pub(ev, "descendant", f"Unrest: {q}'s {c} pile turns descendant.", player=q, country=c, reason="unrest")
        else:
            choose += start_loss(st, q, c, ev, "Unrest with a descendant pile")
    open_lose(st, choose, c, "unrest", f"unrest{st['specials_played']}.lose", ev)


def play_assassin(st: State, p: str, q: str, c: str, x: str, ev: list[Event]) -> str:
    pl = pile(st, q, c) if q in st["players"] else None
    legal = [assassin_line(*t) for t in assassin_targets(st, p)]
    if not pl or x not in pl["cards"]:
        raise RuleError(f"{q} has no {x} in a {c} pile", legal)
    if q == p and x not in own_removal_options(pl):
        raise RuleError(
            f"on your own {c} pile an Assassin must take an Open card first: the last named card "
            "cannot be removed while an Open card remains (ST-R13)",
            legal,
        )
    spend(st, p, "Assassin")
    pub(ev, "special", f"{p} plays Assassin on {q}'s {c} pile.", player=p, card="Assassin", target=q, country=c)
    remove_card(st, q, c, x, ev, "Assassin")
    return assassin_line(q, c, x)
