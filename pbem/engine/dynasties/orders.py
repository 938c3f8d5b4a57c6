"""Dynasties orders: what each player is asked now, and applying their order lines.

Owns the order vocabulary (TRIBUTE, PLAY / PLAYS play lists, CONCLAVE TAKE,
DISCARD), the requests with legal lines and NMR defaults (docs/rulings.md), the
standing orders (play lists, conclave preferences) and the hand-over to
rules.py when a step has all its answers.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from pbem.engine.base import PUBLIC, Event, NotAsked, Request, RuleError
from pbem.engine.dynasties import cards as C
from pbem.engine.dynasties import rules as R
from pbem.engine.dynasties.table import State, turn_of
from pbem.engine.names import split_order

VERBS = {
    "TRIBUTE": "tribute",
    "TRIB": "tribute",
    "PLAY": "play",
    "PLAYS": "play",
    "CONCLAVE": "conclave",
    "TAKE": "conclave",
    "DISCARD": "discard",
    "DROP": "discard",
}

SYNTAX = {
    "tribute": (
        "TRIBUTE <card>",
        "PLAYS <card>, <card>, <card>   (optional play list for this gambit's turns)",
        "CONCLAVE TAKE HIGHEST | NONE | <card>[, <card>]   (standing conclave choice)",
    ),
    "play": (
        "PLAY <card>",
        "PLAYS <card>, <card>, ...   (this play, then the next ones in order)",
        "PLAY <card> THEN <card> THEN <card>",
    ),
    "conclave": ("CONCLAVE TAKE NONE", "CONCLAVE TAKE <card>", "CONCLAVE TAKE <card>, <card>", "CONCLAVE TAKE HIGHEST"),
    "discard": ("DISCARD <card>[, <card> ...]   (exactly the number asked)",),
}


def step_id(st: State, p: str) -> str:
    g, ph = st["gambit"], st["phase"]
    if ph in ("tribute", "discard"):
        return f"g{g}.{ph}"
    return f"g{g}.t{turn_of(st)['n']}.{ph}.{p}"


def asked(st: State) -> list[str]:
    ph = st["phase"]
    if ph == "tribute":
        return list(st["asked"])
    if ph == "play":
        return [R.waiting_player(st)]
    if ph == "conclave":
        return [st["conclave_for"]]
    if ph == "discard":
        return [p for p in st["players"] if p in st["need_discard"]]
    return []


def legal_lines(st: State, p: str) -> list[str]:
    if p not in asked(st):
        return []
    ph, hand = st["phase"], C.ordered(st["hands"][p])
    if ph == "tribute":
        return [f"TRIBUTE {c}" for c in hand]
    if ph == "play":
        return [f"PLAY {c}" for c in hand]
    if ph == "conclave":
        return ["CONCLAVE TAKE NONE"] + [f"CONCLAVE TAKE {c}" for c in C.ordered(st["zone"])]
    n = st["need_discard"][p]
    return ["DISCARD " + ", ".join(combo) for combo in itertools.islice(itertools.combinations(hand, n), 40)]


def default_lines(st: State, p: str) -> list[str]:
    ph, hand = st["phase"], st["hands"][p]
    if ph == "tribute":
        return [f"TRIBUTE {C.lowest(hand)[0]}"]
    if ph == "play":
        return [f"PLAY {C.lowest(hand)[0]}"]
    if ph == "conclave":
        return ["CONCLAVE TAKE " + (", ".join(C.highest(st["zone"], 2)) or "NONE")]
    return ["DISCARD " + ", ".join(C.lowest(hand, st["need_discard"][p]))]


def prompt(st: State, p: str) -> str:
    ph = st["phase"]
    if ph == "tribute":
        return (
            f"Gambit {st['gambit']}: choose your secret Tribute (revealed when all are in); you may add a play "
            "list for the three Turns and a standing conclave choice."
        )
    if ph == "play":
        t = turn_of(st)
        last = f"; the last Noble played this Turn is {t['plays'][-1][1]}" if t["plays"] else "; you lead this Turn"
        return f"Gambit {st['gambit']}, Turn {t['n']}: play a Noble into your Family{last}."
    if ph == "conclave":
        return "Your Family holds a Conclave: take up to two cards from the Tribute Zone into your hand."
    return f"You hold more than six Nobles: discard {st['need_discard'][p]} to the Graveyard."


def on_file(st: State, p: str) -> tuple[str, ...]:
    out = []
    if p in st["tributes"]:
        out.append(f"TRIBUTE {st['tributes'][p]}")
    if p in st["discards"]:
        out.append("DISCARD " + ", ".join(st["discards"][p]))
    return (*out, *standing_on_file(st, p))


def standing_on_file(st: State, p: str) -> tuple[str, ...]:
    """`p`'s standing orders: the play list for the Turns and the conclave choice (DY-R10)."""
    out = ["PLAYS " + ", ".join(st["plans"][p])] if st["plans"][p] else []
    pref = st["conclave_pref"][p]
    return (*out, pref_line(pref)) if pref else tuple(out)


def pref_line(pref: dict[str, Any]) -> str:
    if pref["mode"] == "cards":
        return "CONCLAVE TAKE " + ", ".join(pref["cards"])
    return "CONCLAVE TAKE " + str(pref["mode"]).upper()


def requests(st: State) -> list[Request]:
    out = []
    for p in asked(st):
        done = (st["phase"] == "tribute" and p in st["tributes"]) or (st["phase"] == "discard" and p in st["discards"])
        out.append(
            Request(
                p,
                step_id(st, p),
                prompt(st, p),
                tuple(legal_lines(st, p)),
                SYNTAX[st["phase"]],
                tuple(default_lines(st, p)),
                done,
                on_file(st, p) if done else (),
            )
        )
    return out


# ---------------------------------------------------------------- applying one line


def apply_line(st: State, ev: list[Event], p: str, line: str) -> str:
    """Apply one order line; returns the canonical understood text or raises RuleError."""
    if st["phase"] == "over":
        raise RuleError("the game is over; no more orders are taken")
    verb, rest = split_order(line)
    kind = VERBS.get(verb)
    if kind is None:
        raise RuleError(
            f'"{verb.lower()}" is not a Dynasties order (TRIBUTE, PLAY, PLAYS, CONCLAVE TAKE, DISCARD)',
            legal_lines(st, p),
        )
    return {"tribute": tribute, "play": play, "conclave": conclave, "discard": discard}[kind](st, ev, p, rest)


def not_asked(st: State, p: str) -> NotAsked:
    """The refusal of an order that answers nothing `p` is asked (worded again by the moderator from the
    requests of the state the message met: `pbem.engine.base.NotAsked`)."""
    who = asked(st)
    standing = "you may still send PLAYS and CONCLAVE TAKE as standing orders" if p in st["players"] else ""
    if p in who:
        return NotAsked(f"that is not what you are asked now: {prompt(st, p)}", legal_lines(st, p), standing)
    return NotAsked(
        f"you are not asked anything now; waiting for {', '.join(who) or 'nobody'}"
        + (f" ({standing})" if standing else ""),
        legal_lines(st, p),
        standing,
    )


def tribute(st: State, ev: list[Event], p: str, rest: str) -> str:
    if st["phase"] != "tribute" or p not in st["asked"]:
        raise (
            not_asked(st, p)
            if st["phase"] != "tribute"
            else RuleError("you hold no Noble, so you give no Tribute this gambit (DY-R10)")
        )
    hand = C.ordered(st["hands"][p])
    card = C.parse_card(rest, hand, "in your hand")
    revised = p in st["tributes"]
    st["tributes"][p] = card
    ev.append(
        Event(
            "tribute-ack",
            f"Your Tribute {card} is on file (secret until every Tribute is in).",
            (p,),
            {"player": p, "card": card},
        )
    )
    if not revised:
        ev.append(
            Event(
                "tribute-in",
                f"{p} has given a Tribute ({len(st['tributes'])} of {len(st['asked'])} in).",
                PUBLIC,
                {"player": p},
            )
        )
    note = " (replaces your earlier Tribute)" if revised else ""
    if card in st["plans"][p]:
        st["plans"][p].remove(card)
        note += f"; {card} is dropped from your play list"
    if len(st["tributes"]) == len(st["asked"]):  # revealed once the whole message is read (`finish_tributes`)
        return f"TRIBUTE {card}{note}; all Tributes are in and are revealed"
    return f"TRIBUTE {card}{note} (held secretly until all Tributes are in)"


def finish_tributes(st: State, ev: list[Event]) -> None:
    """Reveal the Tributes once a message gave the last one, after all its lines: a second TRIBUTE in the same
    message replaces the first whether or not its sender was the last awaited (found by trying the product: the
    last player's two TRIBUTE lines were refused, anyone else's took the later one)."""
    if st["phase"] == "tribute" and st["asked"] and len(st["tributes"]) == len(st["asked"]):
        R.resolve_tribute(st, ev)


def _play_list(rest: str) -> str:
    return re.sub(r"(?i)^\s*list\b", "", rest)


def play(st: State, ev: list[Event], p: str, rest: str) -> str:
    if st["phase"] == "over" or p not in st["players"]:
        raise not_asked(st, p)
    hand = C.ordered(st["hands"][p])
    legal = [f"PLAY {c}" for c in hand] if (st["phase"] == "play" and R.waiting_player(st) == p) else []
    try:
        plan = C.parse_cards(_play_list(rest), hand, "in your hand")
    except RuleError as e:
        raise RuleError(e.reason, legal or e.legal) from None
    if not plan:
        raise RuleError("name the Noble(s) to play, e.g. PLAY Copper 7 or PLAYS Copper 7, Gold 3, Silver 12", legal)
    if len(set(plan)) != len(plan):
        raise RuleError("a play list may name each card only once", legal)
    if st["tributes"].get(p) in plan:
        raise RuleError(f"{st['tributes'][p]} is your Tribute on file; it cannot also be played", legal)
    if legal:
        if len(plan) > 1:
            st["plans"][p] = plan[1:]
        elif plan[0] in st["plans"][p]:
            st["plans"][p].remove(plan[0])
        R.play_card(st, ev, p, plan[0])
        if st["phase"] == "play":
            R.continue_play(st, ev)
        later = f"; then {', '.join(plan[1:])} in later Turns (if still in hand)" if plan[1:] else ""
        return f"PLAY {plan[0]}{later}"
    st["plans"][p] = plan
    ev.append(
        Event("plan-ack", f"Your play list is on file: {', '.join(plan)}.", (p,), {"player": p, "cards": list(plan)})
    )
    return f"PLAYS {', '.join(plan)} (kept: each is played when your play is due, if still in your hand)"


def conclave(st: State, ev: list[Event], p: str, rest: str) -> str:
    rest = re.sub(r"(?i)^\s*take\b", "", rest).strip()
    word = rest.lower()
    mine = st["phase"] == "conclave" and st["conclave_for"] == p
    if word in ("highest", "best", "high"):
        pref: dict[str, Any] = {"mode": "highest", "cards": []}
    elif word in ("", "none", "nothing", "pass"):
        pref = {"mode": "none", "cards": []}
    else:
        allowed = C.ordered(st["zone"]) if mine else C.DECK
        try:
            chosen = C.parse_cards(rest, allowed, "in the Tribute Zone" if mine else "a card")
        except RuleError as e:
            raise RuleError(e.reason, legal_lines(st, p) if mine else e.legal) from None
        if len(chosen) > 2 or len(set(chosen)) != len(chosen):
            raise RuleError("a Conclave takes at most two different cards", legal_lines(st, p))
        pref = {"mode": "cards", "cards": chosen}
    if not mine:
        st["conclave_pref"][p] = pref
        return pref_line(pref) + " (kept as your standing conclave choice)"
    choice = R.conclave_choice(pref, st["zone"]) or []
    R.take_from_zone(st, ev, p, choice)
    R.continue_play(st, ev)
    return "CONCLAVE TAKE " + (", ".join(choice) or "NONE")


def discard(st: State, ev: list[Event], p: str, rest: str) -> str:
    if st["phase"] != "discard" or p not in st["need_discard"]:
        raise not_asked(st, p)
    n, hand = st["need_discard"][p], C.ordered(st["hands"][p])
    legal = legal_lines(st, p)
    try:
        chosen = C.parse_cards(rest, hand, "in your hand")
    except RuleError as e:
        raise RuleError(e.reason, legal) from None
    if len(chosen) != n or len(set(chosen)) != n:
        raise RuleError(f"discard exactly {n} different card(s) from your hand (you named {len(chosen)})", legal)
    revised = p in st["discards"]
    st["discards"][p] = chosen
    ev.append(
        Event(
            "discard-ack",
            f"Your discard of {C.describe(chosen)} is on file.",
            (p,),
            {"player": p, "cards": list(chosen)},
        )
    )
    if len(st["discards"]) == len(st["need_discard"]):
        R.resolve_discards(st, ev)
        return f"DISCARD {', '.join(chosen)}; all discards are in"
    return f"DISCARD {', '.join(chosen)}" + (" (replaces your earlier discard)" if revised else " (on file)")
