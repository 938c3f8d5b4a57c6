"""Sixteen Thirty Something: applying one message. Each line is parsed, classified as
an answer to the current step ("now"), an order for a later phase of the sender's own
turn (kept on file and used when that phase comes, if still legal), or rejected."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.engine.base import Event, NotAsked, Outcome, Request, RuleError, apply_lines
from pbem.engine.sixteen_thirty import specials, trade, votes
from pbem.engine.sixteen_thirty.asks import every_legal_line, requests, sharing
from pbem.engine.sixteen_thirty.parse import Order, parse, quick_verb
from pbem.engine.sixteen_thirty.shape import State, typed
from pbem.engine.sixteen_thirty.state import (
    active,
    draw,
    goto,
    lazy_draft,
    lose_of,
    priv,
    pub,
    remove_card,
    take_from_hand,
    vote_of,
    voters,
)
from pbem.engine.sixteen_thirty.tables import ALL_CARD_NAMES, HAND_LIMIT, country_of, is_open, is_special, sort_cards
from pbem.engine.sixteen_thirty.turn import advance, goto_call, removal_options, start_required

RANK = {
    "remove": 1,
    "trade": 2,
    "notrade": 2,
    "accept": 3,
    "decline": 3,
    "play": 4,
    "done": 4,
    "call": 5,
    "vote": 5,
    "discard": 6,
}


def position(st: State) -> float:
    """Where the phasing player is in the sequence of their turn (see RANK)."""
    ph = st["phase"]
    fixed = {"remove": 1, "trade": 2, "offers": 2.5, "accept": 3, "specials": 4, "discard": 6}
    if ph in fixed:
        return fixed[ph]
    if ph == "call":
        return 4.5 if st["call_origin"] == "card" else 5
    if st["vote"] is not None:
        return 3.9 if vote_of(st)["origin"] == "card" else 5.5
    return 3.9  # losing a card to Unrest


def asked_now(st: State, p: str, verb: str) -> bool:
    ph, on_turn = st["phase"], st["active"]
    if ph == "start":
        return verb == "start"
    if ph == "offers":
        return (p != on_turn and verb in ("offer", "nooffer")) or (p == on_turn and verb == "trade")
    if ph == "place":
        return (verb == "place" and p != vote_of(st)["caller"]) or verb == "vote"
    if ph == "ballot":
        return verb == "vote" and p in voters(st, vote_of(st)["country"])
    if ph == "lose":
        return verb == "lose" and p in lose_of(st)["who"]
    if p != on_turn:
        return False
    allowed = {
        "remove": ("remove",),
        "trade": ("trade", "notrade"),
        "accept": ("accept", "decline", "trade"),
        "specials": ("play", "done"),
        "call": ("call",),
        "discard": ("discard",),
    }
    return verb in allowed.get(ph, ())


def classify(st: State, p: str, order: Order) -> str:
    verb = order["verb"]
    if verb == "standing" or asked_now(st, p, verb):
        return "now"
    if p == st["active"] and verb in RANK:
        if RANK[verb] > position(st):
            return "skip" if st["phase"] in ("trade", "specials") else "later"
        raise RuleError("that phase of your turn is over", tuple(legal_for(st, p)))
    if not any(r.player == p and not r.answered for r in requests_of(st)):
        waiting = sorted({r.player for r in requests_of(st) if not r.answered})
        raise NotAsked(f"you are not asked anything now; waiting for {', '.join(waiting) or 'nobody'}")
    raise NotAsked("that order is not an answer to what you are asked now", tuple(legal_for(st, p)))


def requests_of(st: State) -> list[Request]:
    return requests(st)


def legal_for(st: State, p: str) -> list[str]:
    """Every legal line for p now (a rejection lists them all; the acknowledgement counts what it cuts)."""
    return every_legal_line(st, p)


def implied_skip(st: State, p: str, ev: list[Event]) -> str:
    if st["phase"] == "trade":
        return trade.no_trade(st, p, ev)
    pub(ev, "specials-done", f"{p} plays no more Special cards.", player=p)
    goto_call(st, ev)
    return "SPECIALS DONE"


def execute(st: State, p: str, o: Order, ev: list[Event]) -> str:
    run = _EXECUTE.get(o["verb"])
    if run is None:
        raise RuleError("unknown order")
    return run(st, p, o, ev)


def _specials_done(st: State, p: str, o: Order, ev: list[Event]) -> str:
    pub(ev, "specials-done", f"{p} plays no more Special cards.", player=p)
    goto_call(st, ev)
    return "SPECIALS DONE"


def _vote(st: State, p: str, o: Order, ev: list[Event]) -> str:
    if st["phase"] == "place":
        return votes.record_early(st, p, o["color"], [x for x in legal_for(st, p) if not x.startswith("VOTE")])
    return votes.record_ballot(st, p, o["color"])


#: What each verb of a parsed order does (the order, with its verb's arguments, is checked there).
_EXECUTE: dict[str, Callable[[State, str, Order, list[Event]], str]] = {
    "standing": lambda st, p, o, ev: set_standing(st, p, o),
    "start": lambda st, p, o, ev: record_start(st, p, o["items"]),
    "remove": lambda st, p, o, ev: do_remove(st, p, o, ev),
    "trade": lambda st, p, o, ev: trade.request_trade(st, p, o["want"], o["offer"], ev),
    "notrade": lambda st, p, o, ev: trade.no_trade(st, p, ev),
    "offer": lambda st, p, o, ev: trade.record_offer(st, p, o["give"], o["for"], o.get("show", False)),
    "nooffer": lambda st, p, o, ev: trade.record_no_offer(st, p),
    "accept": lambda st, p, o, ev: trade.accept(st, p, o["player"], o["giving"], ev),
    "decline": lambda st, p, o, ev: trade.decline(st, p, ev),
    "play": lambda st, p, o, ev: specials.play(st, p, o["card"], o["arg"], ev),
    "done": _specials_done,
    "call": lambda st, p, o, ev: votes.call_vote(st, p, o["country"], o["issue"], o["target"], o["cards"], ev),
    "place": lambda st, p, o, ev: votes.record_place(st, p, o["cards"]),
    "vote": _vote,
    "lose": lambda st, p, o, ev: votes.record_lose(st, p, o["card"]),
    "discard": lambda st, p, o, ev: do_discard(st, p, o["cards"], ev),
}


def record_start(st: State, p: str, items: list[tuple[str, str | None]]) -> str:
    """ST-R8: the starting placement, held secretly until every player has placed."""
    need = start_required(st["hands"][p])
    if len(items) != need:
        raise RuleError(f"place exactly {need} Influence cards (ST-R8)", tuple(legal_for(st, p)))
    if any(is_special(c) for c, _ in items):
        raise RuleError("only Influence cards can be placed")
    plan: dict[str, list[str]] = {}
    for c, _ in items:
        home = country_of(c)  # None only for Open cards (specials were refused above)
        if home is not None:
            plan.setdefault(home, []).append(c)
    for c, on in items:
        if is_open(c):
            target = on or (next(iter(plan)) if len(plan) == 1 else None)
            if target is None or target not in plan:
                raise RuleError(f"write {c} ON <country> naming one of your starting named piles")
            plan[target].append(c)
    hand = list(st["hands"][p])
    take_from_hand(st, p, [c for c, _ in items])
    st["hands"][p] = hand
    st["answers"][p] = [[c, sort_cards(cards)] for c, cards in plan.items()]
    shown = ", ".join(x if not is_open(x) else f"{x} ON {c}" for c, cards in plan.items() for x in sort_cards(cards))
    return f"PLACE-START {shown or 'NONE'} (secret until every player has placed)"


def do_remove(st: State, p: str, o: Order, ev: list[Event]) -> str:
    opts = removal_options(st, p)
    match = [(c, x) for c, x in opts if x == o["card"] and (o["country"] in (None, c))]
    if len(match) != 1:
        why = "say which pile with FROM <country>" if len(match) > 1 else "that card cannot be removed (ST-R13, ST-R17)"
        raise RuleError(why, tuple(legal_for(st, p)))
    c, x = match[0]
    remove_card(st, p, c, x, ev, "Phase 1 removal")
    draw(st, p, 4, ev)
    goto(st, "trade")
    return f"REMOVE {x}" + (f" FROM {c}" if x.startswith("Open ") else "")


def do_discard(st: State, p: str, cards: list[str], ev: list[Event]) -> str:
    excess = len(st["hands"][p]) - HAND_LIMIT
    if not cards or len(cards) > excess:
        raise RuleError(
            f"discard between 1 and {excess} cards (hand limit {HAND_LIMIT}, ST-R16)", tuple(legal_for(st, p))
        )
    take_from_hand(st, p, cards)
    st["discard"].extend(cards)
    pub(
        ev,
        "discard",
        f"{p} discards {len(cards)} card(s) to the hand limit: {', '.join(cards)}.",
        player=p,
        cards=cards,
    )
    return f"DISCARD {', '.join(cards)}"


def set_standing(st: State, p: str, o: Order) -> str:
    s, what = st["standing"][p], o["what"]
    if what == "place_none":
        s["place_none"], s["except"] = True, o["except"]
        return "STANDING PLACE NONE" + (f" EXCEPT {', '.join(o['except'])}" if o["except"] else "")
    if what == "place_ask":
        s["place_none"], s["except"] = False, []
        return "STANDING PLACE ASK"
    if what in ("offer_none", "offer_ask"):
        s["offer_none"] = what == "offer_none"
        return f"STANDING OFFER {'NONE' if s['offer_none'] else 'ASK'}"
    if what == "vote":
        c, issue, color = o["rule"]
        s["votes"] = [r for r in s["votes"] if r[:2] != [c, issue]] + [[c, issue, color]]
        return f"STANDING VOTE {c} {issue} {color}"
    if what == "vote clear":
        s["votes"] = []
        return "STANDING VOTE CLEAR"
    st["standing"][p] = {"place_none": False, "except": [], "votes": [], "offer_none": False}
    return "STANDING CLEAR"


def standing_on_file(st: State, p: str) -> list[str]:
    """`p`'s orders kept for later: pre-submitted for later in their turn, and their standing orders."""
    s = st["standing"][p]
    out = list(st["queue"][p])
    if s["place_none"]:
        out.append("STANDING PLACE NONE" + (f" EXCEPT {', '.join(s['except'])}" if s["except"] else ""))
    if s["offer_none"]:
        out.append("STANDING OFFER NONE")
    return out + [f"STANDING VOTE {c} {i} {col}" for c, i, col in s["votes"]]


def run_queue(st: State, ev: list[Event]) -> bool:
    """Use the phasing player's first pre-submitted order if its phase has come."""
    p = active(st)
    q = st["queue"][p]
    line = q[0]
    try:
        o = parse(st, p, line)
        kind = classify(st, p, o)
        if kind == "later":
            return False
        q.pop(0)
        if kind == "skip":
            implied_skip(st, p, ev)
            q.insert(0, line)
            return True
        text = execute(st, p, o, ev)
        priv(ev, p, "pre-order", f"Your pre-submitted order was used: {text}.", player=p, order=text)
    except RuleError as err:
        if q and q[0] == line:
            q.pop(0)
        priv(
            ev,
            p,
            "pre-order-dropped",
            f'Your pre-submitted order "{line}" was dropped: {err.reason}.',
            player=p,
            order=line,
            reason=err.reason,
        )
    return True


def check_shape(st: State, p: str, line: str) -> None:
    """An order kept for a later phase is checked for its grammar and card names now (not for
    legality: the hand and the board may change before its phase comes). Lines naming cards on
    the displays (REMOVE, Assassin) are checked when used."""
    probe: State = {**st, "hands": {**st["hands"], p: list(ALL_CARD_NAMES)}}
    try:
        parse(probe, p, line)
    except RuleError as err:
        if quick_verb(line) == "remove" or "ASSAS" in line.upper():
            return
        raise RuleError(f"{err.reason} (in an order kept for a later phase)", err.legal) from None


class Message:
    """One message's lines for `apply_lines`: a line may be kept for a later phase of the sender's turn,
    and the orders kept from an earlier message stay on file unless this one keeps new ones."""

    def __init__(self, p: str) -> None:
        self.p = p
        self.queued_now = False
        self.was_active = False
        self.held: list[str] = []

    def draft(self, st0: dict[str, Any]) -> dict[str, Any]:
        st = lazy_draft(typed(st0))
        self.was_active = self.p == st["active"]
        self.held, st["queue"][self.p] = st["queue"][self.p], []
        return st

    def line(self, state: dict[str, Any], p: str, ln: str, ev: list[Event]) -> str:
        st = typed(state)
        if st["over"]:
            raise RuleError("the game is over")
        qv = quick_verb(ln)
        if self.was_active and p != st["active"] and qv in RANK:
            return f"{ln.strip()} (not needed: your turn had ended)"
        if (
            p == st["active"]
            and qv in RANK
            and not asked_now(st, p, qv)
            and (self.queued_now or RANK[qv] > position(st))
            and st["phase"] not in ("trade", "specials")
        ):
            check_shape(st, p, ln)
            kind, o = "later", {"verb": qv}
        else:
            o = parse(st, p, ln)
            kind = "later" if self.queued_now and o["verb"] != "standing" else classify(st, p, o)
        while kind == "skip":
            implied_skip(st, p, ev)
            advance(st, ev)
            kind = classify(st, p, o)
        if kind == "later":
            st["queue"][p].append(ln.strip())
            self.queued_now = True
            return f"{ln.strip()} (kept until that phase of your turn)"
        shared = _shared_step(st, p)
        text = execute(st, p, o, ev)
        if not shared:
            advance(st, ev)
        # A step several players answer (the starting placement, a vote's placements and ballots) resolves
        # once the whole message is read (`finish`): the sender's later lines then mean the same whether or not
        # they were the last awaited (tests/engine/test_arrival_order.py).
        return text

    def finish(self, state: dict[str, Any], p: str, ev: list[Event]) -> None:
        st = typed(state)
        if not self.queued_now:
            st["queue"][p] = self.held  # orders kept from an earlier message stay on file
        if st["over"] is False:
            advance(st, ev, run_queue)


def _shared_step(st: State, p: str) -> bool:
    """Whether `p` is asked now in a step other players answer too (answered already or not)."""
    who = sharing(st)
    return p in who and len(set(who)) >= 2


def apply(st0: dict[str, Any], p: str, lines: list[str]) -> Outcome:
    m = Message(p)
    return apply_lines(st0, p, lines, m.line, draft=m.draft, finish=m.finish)
