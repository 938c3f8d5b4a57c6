"""House of Habsburg order language: parse one line, check it against the rules, apply it.

Owns the vocabulary (MELD, EVENT ..., NO EVENT, DISCARD, DISCARD-IF-NEEDED, END and
their aliases), the legal lines offered to the active player and the NMR default.
Rule checks cite HH-R6 (TOP), HH-R8 (targets), HH-R9 (one event), HH-R10 (hand limit).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

from pbem.engine.base import Event, NotAsked, RuleError
from pbem.engine.habsburg import rules
from pbem.engine.habsburg.cards import (
    CLAIM,
    DISASTER,
    HOLDING,
    NAMES,
    PERSON,
    SUCCESSION,
    TYPE,
    TYPE_NAMES,
    VALUE,
    label,
)
from pbem.engine.habsburg.table import Meld, State
from pbem.engine.names import candidates_for, match_many, match_one, norm, split_order

EVENT_WORDS = {"SUCCESSION": SUCCESSION, "DISASTER": DISASTER, "CLAIM": CLAIM, "PERSON": PERSON}
NO_EVENT = {"NO EVENT", "NOEVENT", "NO-EVENT", "PASS", "NONE", "NO EVENTS", "EVENT NONE"}
CLOSING = {"END", "END TURN", "DONE"} | NO_EVENT
ORDER_WORDS = ("MELD", "EVENT", "PLAY", "DISCARD", "DISCARD-IF-NEEDED", *EVENT_WORDS, *sorted(CLOSING))
MELD_ID = re.compile(r"^#?m?-?(\d+)$", re.I)


def cards_in(text: str, pool: list[str], legal: Callable[[], list[str]]) -> list[str]:
    """Cards named in `text` among `pool`; on error a clear reason and the legal lines `legal()` (those
    naming the candidates, when the name was ambiguous).  The lines are made only for a refusal."""
    try:
        return match_many(text, pool, "card")
    except RuleError as err:
        lines = legal()
        for word in [text, *re.split(r"[,+;]", text)]:
            known = candidates_for(word, NAMES)
            if len(known) == 1 and known[0] not in pool:
                raise RuleError(f"{known[0]} is not in your hand", lines) from None
        near = [ln for ln in lines if any(c in ln for c in err.legal)] if "could be" in err.reason else []
        raise RuleError(err.reason, near or lines) from None


def apply_line(st: State, p: str, line: str, ev: list[Event], ctx: dict[str, Any]) -> str:
    """Apply one order line for player p; returns the canonical form or raises RuleError."""
    head, rest = split_order(line)
    whole = norm(line).upper()
    over = st["phase"] == "over"
    if over or rules.active(st) != p or st["turn"] != ctx["turn"]:
        if ctx["turn"] is not None and (whole in CLOSING or head in ("DISCARD", "DISCARD-IF-NEEDED")):
            if whole not in CLOSING and not _names_a_discard(rest):
                raise RuleError(
                    f'"{line.strip()}" names no card, LOWEST or HIGHEST, and your turn already ended earlier in this '
                    "message: nothing more can be done this turn"
                )
            return f"{whole} (nothing more to do: your turn is already over)"
        if over:
            raise RuleError("the game is over")
        if ctx["turn"] is not None:
            raise RuleError(
                "your turn already ended earlier in this message (after the event, or NO EVENT, "
                "with 5 cards or fewer); nothing more can be played this turn"
            )
        raise NotAsked(f"you are not asked anything now; waiting for {rules.active(st)}")
    if head == "DISCARD" and norm(rest).startswith("if needed"):
        head, rest = "DISCARD-IF-NEEDED", re.sub(r"^\s*if\s+needed", "", rest, flags=re.I)
    if whole in NO_EVENT or whole in CLOSING:
        return no_event(st, p, ev, whole)
    if head == "MELD":
        return meld(st, p, rest, ev)
    if head in ("EVENT", "PLAY") or head in EVENT_WORDS:
        return event(st, p, head, rest, ev)
    if head == "DISCARD-IF-NEEDED":
        return standing(st, p, rest, ev)
    if head == "DISCARD":
        if st["phase"] == "play":
            return standing(st, p, rest, ev)
        return discard(st, p, rest, ev)
    raise RuleError(f'"{line.strip()}" is not a House of Habsburg order', legal_lines(st))


def _names_a_discard(rest: str) -> bool:
    """Whether the words after DISCARD (or DISCARD-IF-NEEDED) are a discard's: none, "if needed", LOWEST, HIGHEST,
    or cards of the game.  After the turn ended such a line does nothing and is accepted as so; "Discard Studios
    Inc." (a company's line under the orders) named nothing and was applied as such a no-op (players30)."""
    how = re.sub(r"^\s*if\s+needed\b", "", norm(rest), flags=re.I).strip().upper()
    if how in ("", "LOWEST", "HIGHEST"):
        return True
    try:
        return bool(match_many(how, list(NAMES), "card"))
    except RuleError:
        return False


def no_event(st: State, p: str, ev: list[Event], whole: str) -> str:
    """NO EVENT / PASS / END: close the Event Phase (or the turn)."""
    if st["phase"] == "discard":
        excess = len(st["hands"][p]) - rules.HAND_LIMIT
        raise RuleError(f"your hand has {excess} card(s) over the limit of 5: discard first (HH-R10)", legal_lines(st))
    ev.append(Event("no-event", f"{p} plays no event.", "public", {"player": p}))
    rules.enter_end_phase(st, ev)
    return "NO EVENT" if whole in NO_EVENT else f"NO EVENT (from {whole})"


def meld(st: State, p: str, rest: str, ev: list[Event]) -> str:
    """MELD <Person> <Holding|TOP> <Claim> (HH-R1, HH-R6); cards may be named in any order."""
    if st["phase"] != "play":
        raise RuleError("the Meld Phase is over for this turn (HH-R9)", legal_lines(st))
    top = rules.top_holding(st)
    pool = st["hands"][p] + ([top, "TOP"] if top else [])
    if not rest.strip():
        raise RuleError("name a Person, a Holding (or TOP) and a Claim", meld_lines(st))
    if "TOP" in norm(rest).upper().split() and not top:
        raise RuleError("the top card of the discard pile is not a Holding (HH-R6)", meld_lines(st))
    named = [str(top) if c == "TOP" else c for c in cards_in(rest, pool, lambda: meld_lines(st))]
    kinds = sorted(TYPE[c] for c in named)
    if len(named) != 3 or kinds != sorted([PERSON, HOLDING, CLAIM]) or len(set(named)) != 3:
        raise RuleError(
            "a meld is exactly 1 Person, 1 Holding (or TOP) and 1 Claim card; you named "
            + (", ".join(label(c) for c in named) or "nothing"),
            meld_lines(st),
        )
    person, holding, claim = (next(c for c in named if TYPE[c] == t) for t in (PERSON, HOLDING, CLAIM))
    mid = rules.make_meld(st, p, person, holding, claim, ev)
    src = " (TOP)" if holding == top and holding not in st["hands"][p] else ""
    return f"MELD {person} {holding}{src} {claim} -> {mid}, +{VALUE[person]} token{'s' if VALUE[person] != 1 else ''}"


def split_target(rest: str) -> tuple[str, str | None]:
    """'<card> TARGET <rest>' -> (card, rest); without TARGET the target part is None."""
    m = re.search(r"(?<!\s)\s++target\s+", rest, re.I)  # from a run's start: linear in a run of spaces
    if m:
        return rest[: m.start()], rest[m.end() :]
    return rest, None


def event(st: State, p: str, head: str, rest: str, ev: list[Event]) -> str:
    """EVENT [TYPE] <card> [TARGET] [<player>] [<meld-id>] (HH-R8, HH-R9)."""
    if st["phase"] != "play":
        raise RuleError("you already had your Event Phase this turn (HH-R9)", legal_lines(st))
    want = EVENT_WORDS.get(head)
    if want is None:
        first, more = split_order(rest)
        if first in EVENT_WORDS:
            want, rest = EVENT_WORDS[first], more
    card_text, target = split_target(rest)
    hand = st["hands"][p]
    if target is None:
        card_text, target = guess_split(rest, hand)
    cards = cards_in(card_text, hand, lambda: event_lines(st))
    if len(cards) != 1:
        raise RuleError("name exactly one card for the event", event_lines(st))
    card = cards[0]
    kind = TYPE[card]
    if kind == HOLDING:
        raise RuleError(f"{card} is a Holding card and can never be an Event (HH-R9)", event_lines(st))
    if want and want != kind:
        raise RuleError(f"{card} is a {TYPE_NAMES[kind]} card, not a {TYPE_NAMES[want]} card", event_lines(st))
    if kind == PERSON:
        if target.strip():
            raise RuleError("a Person event has no target", event_lines(st))
        rules.person_event(st, p, card, ev)
        canon = f"EVENT PERSON {card}"
    elif kind == CLAIM:
        victim = claim_victim(st, p, card, target)
        rules.claim_steal(st, p, card, victim, ev)
        canon = f"EVENT CLAIM {card} TARGET {victim}"
    else:
        m = meld_target(st, p, card, target)
        owner = m["owner"]
        (rules.succession if kind == SUCCESSION else rules.disaster)(st, p, card, m["id"], ev)
        canon = f"EVENT {TYPE_NAMES[kind].upper()} {card} TARGET {owner} {m['id']}"
    rules.enter_end_phase(st, ev)
    return canon


def guess_split(rest: str, hand: list[str]) -> tuple[str, str]:
    """Without TARGET: the longest leading run of words naming one card (in hand if possible) is the card."""
    words = rest.split()
    for pool in (hand, NAMES):
        for k in range(len(words), 0, -1):
            if len(candidates_for(" ".join(words[:k]), pool)) == 1:
                return " ".join(words[:k]), " ".join(words[k:])
    return rest, ""


def claim_victim(st: State, p: str, card: str, target: str) -> str:
    """The target player of a Claim event: another player with cards (HH-R8)."""
    if not target.strip():
        raise RuleError(
            f"a Claim event needs a target player: EVENT CLAIM {card} TARGET <player>", event_lines(st, card)
        )
    victim = match_one(target, st["players"], "player")
    if victim == p:
        raise RuleError("the target must be another player (HH-R8)", event_lines(st, card))
    if not st["hands"][victim]:
        raise RuleError(f"{victim} has no cards in hand to steal (HH-R8)", event_lines(st, card))
    return victim


def meld_target(st: State, p: str, card: str, target: str) -> Meld:
    """The target meld of a Succession / Disaster event, checked under HH-R8."""
    words = target.split()
    if not words or not MELD_ID.match(words[-1]):
        raise RuleError(
            f"name the target meld by its id, e.g. EVENT {TYPE_NAMES[TYPE[card]].upper()} {card} TARGET <player> M3",
            event_lines(st, card),
        )
    found = MELD_ID.match(words[-1])
    assert found is not None  # words[-1] was checked against MELD_ID above
    m = rules.meld_by_id(st, "M" + found.group(1))
    if len(words) > 1:
        named = match_one(" ".join(words[:-1]), st["players"], "player")
        if named != m["owner"]:
            raise RuleError(f"meld {m['id']} belongs to {m['owner']}, not {named}", event_lines(st, card))
    if m["owner"] == p:
        raise RuleError(
            f"meld {m['id']} is your own; the target must be another player's meld (HH-R8)", event_lines(st, card)
        )
    key: Literal["claim", "person"] = "claim" if TYPE[card] == SUCCESSION else "person"
    what = key.title()
    if VALUE[m[key]] > VALUE[card]:
        raise RuleError(
            f"meld {m['id']}'s {what} {label(m[key])} is higher than {label(card)} (HH-R8)", event_lines(st, card)
        )
    return m


def standing(st: State, p: str, rest: str, ev: list[Event]) -> str:
    """DISCARD-IF-NEEDED LOWEST|HIGHEST|<cards>: a conditional End-Phase discard (HH-R7, HH-R10)."""
    how = norm(rest).upper()
    if how in ("LOWEST", "HIGHEST"):
        st["standing"] = how
    elif not how:
        raise RuleError("say LOWEST, HIGHEST or list cards in the order to discard them", standing_lines(st))
    else:
        st["standing"] = cards_in(rest, st["hands"][p], lambda: standing_lines(st))
    kept = st["standing"]
    shown = kept if isinstance(kept, str) else ", ".join(kept or [])
    if st["phase"] == "discard":
        rules.enter_end_phase(st, ev)
        return f"DISCARD-IF-NEEDED {shown} (applied now)"
    return f"DISCARD-IF-NEEDED {shown} (used in your End Phase if your hand is above 5)"


def standing_on_file(st: State, p: str) -> list[str]:
    """`p`'s DISCARD-IF-NEEDED on file: kept for the End Phase of their own turn (HH-R7)."""
    if st["standing"] is None or st["phase"] == "over" or rules.active(st) != p:
        return []
    how = st["standing"] if isinstance(st["standing"], str) else ", ".join(st["standing"])
    return [f"DISCARD-IF-NEEDED {how}"]


def discard(st: State, p: str, rest: str, ev: list[Event]) -> str:
    """DISCARD <cards in order> | LOWEST | HIGHEST in the End Phase (HH-R7, HH-R10)."""
    hand = st["hands"][p]
    excess = len(hand) - rules.HAND_LIMIT
    how = norm(rest).upper()
    if how in ("LOWEST", "HIGHEST"):
        cards = rules.auto_discard(hand, how, excess)
    elif not how:
        raise RuleError(f"name the {excess} card(s) to discard", discard_lines(st))
    else:
        cards = cards_in(rest, hand, lambda: discard_lines(st))
    if len(set(cards)) != len(cards):
        raise RuleError("a card is named twice", discard_lines(st))
    done = rules.discard(st, p, cards, ev)
    if len(st["hands"][p]) <= rules.HAND_LIMIT:
        rules.end_turn(st, ev)
        extra = [c for c in cards if c not in done]
        return f"DISCARD {', '.join(done)}" + (f" (kept {', '.join(extra)}: limit reached)" if extra else "")
    return f"DISCARD {', '.join(done)} ({len(st['hands'][p]) - rules.HAND_LIMIT} more to discard)"


def meld_lines(st: State) -> list[str]:
    p = rules.active(st)
    return [f"MELD {a} {h} {c}" for a, h, c in rules.meld_options(st, p)]


def event_lines(st: State, only: str | None = None) -> list[str]:
    """Every legal single event now (for one card if `only`), plus NO EVENT."""
    p = rules.active(st)
    out = []
    for card in st["hands"][p]:
        if only and card != only:
            continue
        kind = TYPE[card]
        if kind == PERSON:
            out.append(f"EVENT PERSON {card}")
        elif kind == CLAIM:
            out += [f"EVENT CLAIM {card} TARGET {q}" for q in rules.claim_targets(st, p)]
        elif kind in (SUCCESSION, DISASTER):
            word = TYPE_NAMES[kind].upper()
            out += [f"EVENT {word} {card} TARGET {m['owner']} {m['id']}" for m in rules.meld_targets(st, p, card)]
    return [*out, "NO EVENT"]


def discard_lines(st: State) -> list[str]:
    p = rules.active(st)
    return [f"DISCARD {c}" for c in st["hands"][p]] + ["DISCARD LOWEST", "DISCARD HIGHEST"]


def standing_lines(st: State) -> list[str]:
    p = rules.active(st)
    return ["DISCARD-IF-NEEDED LOWEST", "DISCARD-IF-NEEDED HIGHEST"] + [
        f"DISCARD-IF-NEEDED {c}" for c in st["hands"][p]
    ]


def legal_lines(st: State) -> list[str]:
    """What the active player could send now, one complete line each."""
    if st["phase"] == "over":
        return []
    if st["phase"] == "discard":
        return discard_lines(st)
    extra = ["DISCARD-IF-NEEDED LOWEST"] if st["standing"] is None else []
    return meld_lines(st) + event_lines(st) + extra


def default_lines(st: State) -> list[str]:
    """NMR: no meld, no event, discard down to 5 keeping the highest-valued cards."""
    if st["phase"] == "discard":
        return ["DISCARD LOWEST"]
    return (["DISCARD-IF-NEEDED LOWEST"] if st["standing"] is None else []) + ["NO EVENT"]
