"""Italian Wars order language: one line -> a change to a draft state (owns parsing).

Orders (case-insensitive, card names by unique prefix):
``DISCARD <cards>|NONE``, ``LEADER-PREF <leaders>|NONE``,
``NEGATE-PLAN <own> > <target>; ...|NONE``, ``LEADER <card>``,
``NEGATE <own card> [>] <target card>``, ``PASS``.  Each handler raises
`RuleError` with the legal lines when the order is wrong or not asked now.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.engine.base import Event, NotAsked, RuleError
from pbem.engine.italian_wars.cards import BY_NAME, LEADERS, NAMES, NEGATORS, matches
from pbem.engine.italian_wars.negation import advance, do_negate, do_pass, legal_negations
from pbem.engine.italian_wars.rules import field_leaders, max_discard
from pbem.engine.italian_wars.table import State, negation
from pbem.engine.names import candidates_for, fold, match_many, match_one, norm, split_order, unescaped

ALIASES = {
    "DISCARD": "DISCARD",
    "DISC": "DISCARD",
    "DROP": "DISCARD",
    "LEADER-PREF": "LEADER-PREF",
    "LEADERPREF": "LEADER-PREF",
    "LEADER-PREFS": "LEADER-PREF",
    "PREF": "LEADER-PREF",
    "PREFER": "LEADER-PREF",
    "LEADER": "LEADER",
    "KEEP": "LEADER",
    "NEGATE": "NEGATE",
    "NEG": "NEGATE",
    "NEGATE-PLAN": "NEGATE-PLAN",
    "NEGATEPLAN": "NEGATE-PLAN",
    "PLAN": "NEGATE-PLAN",
    "PASS": "PASS",
}
NONE_WORDS = ("none", "nothing", "0", "-", "no")


def legal_lines(state: State, player: str) -> list[str]:
    """The complete order lines `player` could send for the current step."""
    step = state["step"]
    if step == "discard":
        return ["DISCARD NONE"] + [f"DISCARD {c}" for c in state["hands"][player]]
    if step == "leader" and player in state["leader_ask"]:
        return [f"LEADER {c}" for c in field_leaders(state, player)]
    if step == "negate" and negation(state)["turn"] == player:
        return ["PASS"] + [f"NEGATE {o} > {t}" for o, t in legal_negations(state, player)]
    return []


def standing_on_file(state: State, player: str) -> list[str]:
    """`player`'s standing orders of this hand: the Leader to keep and the negation plan."""
    out = []
    prefs = state["prefs"].get(player)
    if prefs:
        out.append(f"LEADER-PREF {', '.join(prefs)}")
    plan = state["plans"].get(player)
    if plan is not None:
        out.append("NEGATE-PLAN " + ("; ".join(f"{o} > {t}" for o, t in plan) or "NONE"))
    return out


def awaited(state: State) -> list[str]:
    """The players whose answer the current step still needs (the requests not answered)."""
    if state["step"] == "discard":
        return [p for p in state["players"] if p not in state["pending"]]
    if state["step"] == "leader":
        return [p for p in state["leader_ask"] if p not in state["leader_pick"]]
    if state["step"] == "negate":
        return [str(negation(state)["turn"])]
    return []


def waiting_for(state: State) -> str:
    if state["step"] == "over":
        return "nobody (the game is over)"
    return ", ".join(awaited(state)) or "nobody"


def not_asked(state: State, player: str, hint: str = "") -> NotAsked:
    """The refusal of an order that answers nothing `player` is asked (worded again by the moderator from the
    requests of the state the message met: `pbem.engine.base.NotAsked`)."""
    if player in awaited(state):
        return NotAsked("that is not an answer to what you are asked now", legal_lines(state, player), hint)
    return NotAsked(f"you are not asked anything now; waiting for {waiting_for(state)}", (), hint)


def apply_line(state: State, player: str, line: str, events: list[Event]) -> str:
    """Apply one order line to the draft; returns its canonical form."""
    word, rest = split_order(line)
    verb = ALIASES.get(word)
    if state["step"] == "over":
        raise RuleError("the game is over; no orders are taken")
    if verb is None:
        raise RuleError(
            f'"{word}" is not an Italian Wars order (DISCARD, LEADER-PREF, LEADER, NEGATE, NEGATE-PLAN, PASS)',
            legal_lines(state, player),
        )
    handler = {
        "DISCARD": _discard,
        "LEADER-PREF": _leader_pref,
        "LEADER": _leader,
        "NEGATE": _negate,
        "NEGATE-PLAN": _plan,
        "PASS": _pass,
    }[verb]
    return handler(state, player, rest.strip(), events)


def _is_none(text: str) -> bool:
    return norm(text) in NONE_WORDS


def _discard(state: State, player: str, rest: str, events: list[Event]) -> str:
    if state["step"] != "discard":
        raise not_asked(state, player, f"the discard step of hand {state['hand']} is over")
    legal = legal_lines(state, player)
    if not rest:
        raise RuleError("say which cards to discard, or DISCARD NONE", legal)
    cards = [] if _is_none(rest) else _match_cards(rest, state["hands"][player], legal)
    if len(set(cards)) != len(cards):
        raise RuleError("a card is named twice", legal)
    limit = max_discard(state, player)
    if len(cards) > limit:
        raise RuleError(f"you may discard at most {limit} cards this hand (you named {len(cards)})", legal)
    state["pending"][player] = cards
    return f"DISCARD {', '.join(cards) or 'NONE'}"


def _match_cards(text: str, hand: list[str], legal: list[str]) -> list[str]:
    try:
        return match_many(text, hand, "card in your hand")
    except RuleError as err:
        raise RuleError(err.reason, legal) from None


def _leader_pref(state: State, player: str, rest: str, events: list[Event]) -> str:
    if state["step"] != "discard":
        raise not_asked(state, player, "LEADER-PREF is a standing order sent during the discard step")
    if not rest:
        raise RuleError(
            "list Leaders in order of preference, or LEADER-PREF NONE", [f"LEADER-PREF {c}" for c in LEADERS]
        )
    prefs = [] if _is_none(rest) else match_many(rest, LEADERS, "Leader")
    state["prefs"][player] = prefs or None
    return f"LEADER-PREF {', '.join(prefs) or 'NONE'}"


def _leader(state: State, player: str, rest: str, events: list[Event]) -> str:
    if state["step"] == "discard":
        return _leader_pref(state, player, rest, events)
    if state["step"] != "leader" or player not in state["leader_ask"]:
        raise not_asked(state, player)
    legal = legal_lines(state, player)
    try:
        card = match_one(rest, field_leaders(state, player), "Leader you deployed")
    except RuleError as err:
        raise RuleError(err.reason, legal) from None
    state["leader_pick"][player] = card
    return f"LEADER {card}"


def _targets(own: str) -> list[str]:
    cls = BY_NAME[own]["negate"]
    return [n for n in NAMES if matches(cls, n)]


def parse_pair(text: str, owns: list[str], targets: Callable[[str], list[str]]) -> list[str]:
    """ "own > target" or "own target": the one [own, target] pair meant."""
    if ">" in text:
        left, right = text.split(">", 1)
        own = match_one(left, owns, "Negate card")
        return [own, match_one(right, targets(own), "target card")]
    words = fold(norm(text)).split(" ")  # "+", "and", "&" as one word "&": a name's "&", or between the two names
    found = []
    for k in range(1, len(words)):
        if words[k - 1] == "&":
            continue  # a name is not cut at its "&"
        mine = candidates_for(" ".join(words[:k]), owns)
        if len(mine) == 1:
            rest = words[k + 1 :] if words[k] == "&" else words[k:]  # "Lie Prone + Falcons + Sakers"
            tgt = candidates_for(" ".join(rest), targets(mine[0]))
            if len(tgt) == 1 and [mine[0], tgt[0]] not in found:
                found.append([mine[0], tgt[0]])
    if len(found) == 1:
        return found[0]
    if found:
        raise RuleError(f'"{text}" can be read several ways; put ">" between your card and the target')
    if not text.strip():
        raise RuleError("no card is named: write <own Negate card> > <target card>")
    raise RuleError(f'cannot read "{text}" as <own Negate card> > <target card>')


def _plan(state: State, player: str, rest: str, events: list[Event]) -> str:
    if state["step"] not in ("discard", "leader", "negate"):
        raise not_asked(state, player)
    if not rest:
        raise RuleError("give items like NEGATE-PLAN Resist Cavalry > French Horsemen; ... or NEGATE-PLAN NONE")
    items = [i for item in unescaped(rest).split(";") for i in _items(item)]  # "&amp;" copied from HTML: one name
    plan = [] if _is_none(rest) else [parse_pair(item, NEGATORS, _targets) for item in items if item.strip()]
    state["plans"][player] = plan
    if state["step"] == "negate":
        advance(state, events)
    return "NEGATE-PLAN " + ("; ".join(f"{o} > {t}" for o, t in plan) or "NONE")


def _items(item: str) -> list[str]:
    """The plan items of one ";" piece: "A > B, C > D" (a list written with commas, as people write lists) is two
    when every comma piece holds one ">"; anything else is one item (refused with its reason if it cannot be read)."""
    pieces = item.split(",")
    if item.count(">") > 1 and all(p.count(">") == 1 for p in pieces):
        return pieces
    return [item]


def _my_turn(state: State, player: str) -> None:
    if state["step"] != "negate" or negation(state)["turn"] != player:
        raise not_asked(state, player)


def _negate(state: State, player: str, rest: str, events: list[Event]) -> str:
    _my_turn(state, player)
    pairs = legal_negations(state, player)
    legal = legal_lines(state, player)
    owns = list(dict.fromkeys(o for o, _ in pairs))
    if not owns:
        raise RuleError("none of your remaining cards has an unused Negate effect with a target", legal)
    try:
        own, target = parse_pair(rest, owns, lambda o: [t for oo, t in pairs if oo == o])
    except RuleError as err:
        raise RuleError(err.reason, legal) from None
    do_negate(state, player, own, target, events)
    advance(state, events)
    return f"NEGATE {own} > {target}"


def _pass(state: State, player: str, rest: str, events: list[Event]) -> str:
    _my_turn(state, player)
    if rest:
        raise RuleError("PASS takes nothing after it", legal_lines(state, player))
    do_pass(state, player, events)
    advance(state, events)
    return "PASS"
