r"""Sixteen Thirty Something: the order grammar. `parse(st, p, line)` turns one line into
a dict {"verb": ..., ...} or raises RuleError; it checks names, not legality.

Every pattern here reads `names.norm`'s text, whose whitespace is single spaces: a space in a pattern stands where
`\s+` would (the same matches on that text), and a lazy group before it then costs one step a character where
`(.*?)\s+` scanned each run of spaces once per space (tests/reliability/test_costs4_engine_patterns.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pbem.engine import names
from pbem.engine.base import RuleError
from pbem.engine.sixteen_thirty.shape import State
from pbem.engine.sixteen_thirty.tables import COUNTRIES, ISSUES, SPECIALS
from pbem.engine.sixteen_thirty.trade import parse_types

#: A parsed order line: {"verb": ..., and the verb's arguments}.
Order = dict[str, Any]

SPECIAL_ALIASES = {
    "vote": "Vote",
    "unrest": "Unrest",
    "assassin": "Assassin",
    "assasin": "Assassin",
    "military leader": "Military Leader",
    "leader": "Military Leader",
    "military improvement": "Military Improvement",
    "improvement": "Military Improvement",
    "increase army size": "Increase Army Size",
    "increase army": "Increase Army Size",
    "army": "Increase Army Size",
    "increase status": "Increase Status",
    "status": "Increase Status",
}
BARE_SPECIALS = (
    "MILITARY_IMPROVEMENT",
    "INCREASE_ARMY",
    "INCREASE_ARMY_SIZE",
    "INCREASE_STATUS",
    "LEADER",
    "MILITARY_LEADER",
    "UNREST",
    "ASSASSIN",
    "ASSASIN",
)
# The Special cards' names as the hand shows them, written without PLAY ("Military Leader Spain"): set aside as
# chatter before, and the turn went on past the Specials phase without the card (found by the players' testers).
SPECIAL_NAMES = ("MILITARY LEADER", "MILITARY IMPROVEMENT", "INCREASE ARMY", "INCREASE STATUS")
ORDER_WORDS = (
    *("PLACE-START", "START", "REMOVE", "LOSE", "NO TRADE", "TRADE", "PASS TRADE", "NO OFFER", "OFFER", "ACCEPT"),
    *("DECLINE", "SPECIALS DONE", "SPECIALS NONE", "NO SPECIALS", "DONE", "PLAY", "CALL", "PLACE", "VOTE"),
    *("DISCARD", "STANDING", *BARE_SPECIALS, *SPECIAL_NAMES),
)


_SPECIAL_STARTS = tuple(n + " " for n in SPECIAL_NAMES)


def _special_named(up: str) -> bool:
    """A line that starts with a Special card's two-word name (upper case, normalised)."""
    return up in SPECIAL_NAMES or up.startswith(_SPECIAL_STARTS)


VERBS = (
    "PLACE-START, REMOVE, TRADE WANT, NO TRADE, OFFER GIVE, NO OFFER, ACCEPT, DECLINE ALL, PLAY, "
    "SPECIALS DONE, CALL, PLACE, VOTE, LOSE, DISCARD, STANDING"
)


def hand_names(st: State, p: str) -> list[str]:
    return sorted(set(st["hands"][p]))


def cards_from_hand(st: State, p: str, text: str) -> list[str]:
    if names.norm(text) in ("none", "nothing", ""):
        return []
    if not st["hands"][p]:
        raise RuleError("your hand is empty")
    return match_cards(text, hand_names(st, p), "card in your hand")


def match_card(text: str, pool: list[str], what: str) -> str:
    """A card name: unique prefix, or "<country prefix> <value>" ("united 3", "hap 2")."""
    found = names.candidates_for(text, pool)
    words = names.norm(text).split(" ")
    if len(found) != 1 and len(words) > 1 and words[-1].isdigit():
        try:
            c = names.match_one(" ".join(words[:-1]), [*COUNTRIES, "Open"], "country")
        except RuleError:
            c = None
        if c and f"{c} {words[-1]}" in pool:
            return f"{c} {words[-1]}"
    return names.match_one(text, pool, what)


def match_cards(text: str, pool: list[str], what: str) -> list[str]:
    if re.search(r"[,+;]", text):
        return [match_card(x, pool, what) for x in re.split(r"[,+;]", text) if x.strip()]
    try:
        return names.match_many(text, pool, what)
    except RuleError:
        groups = re.findall(r"[^\d]++\d*+", names.norm(text))  # words, then a number: one reading of a run
        return [match_card(g.strip(), pool, what) for g in groups if g.strip()]


def country(text: str) -> str:
    return names.match_one(text, COUNTRIES, "country")


def parse(st: State, p: str, line: str) -> Order:
    raw = names.norm(line)
    up = raw.upper()
    word, rest = names.split_order(raw)
    if up.startswith("PLACE-START") or up.startswith("PLACE START") or word == "START":
        body = re.sub(r"^(place-start|place start|start)\s*", "", raw)
        return {"verb": "start", "items": parse_start_items(st, p, body)}
    if up.startswith("NO TRADE") or up in ("TRADE NONE", "PASS TRADE"):
        return {"verb": "notrade"}
    if up in ("NO OFFER", "OFFER NONE", "OFFER NOTHING"):
        return {"verb": "nooffer"}
    if up in ("SPECIALS DONE", "NO SPECIALS", "DONE", "SPECIALS NONE"):
        return {"verb": "done"}
    if word in BARE_SPECIALS or _special_named(up):
        return parse_play(st, raw.replace("_", " "))
    verb = _VERBS.get(word)
    if verb is not None:
        return verb(st, p, word, rest)
    raise RuleError(f'"{line.strip()}" is not a Sixteen Thirty Something order; orders are {VERBS}')


def _remove_or_lose(st: State, p: str, word: str, rest: str) -> Order:
    card, frm = split_from(st, p, rest)
    return {"verb": word.lower(), "card": card, "country": frm}


def _trade(st: State, p: str, word: str, rest: str) -> Order:
    m = re.match(r"^want\s+(.*?)(?:\s+offer\s+(.*))?$", rest)
    if not m:
        raise RuleError("write TRADE WANT <types> [OFFER <types>] or NO TRADE", ["NO TRADE", "TRADE WANT ANY"])
    return {"verb": "trade", "want": parse_types(m.group(1)), "offer": parse_types(m.group(2) or "")}


def _offer(st: State, p: str, word: str, rest: str) -> Order:
    show = bool(re.search(r" show$", rest))
    m = re.match(r"^(?:give )?(.*?) for (.*?)(?: show)?$", rest)
    if not m:
        raise RuleError("write OFFER GIVE <cards> FOR <types> [SHOW] or NO OFFER", ["NO OFFER"])
    return {"verb": "offer", "give": cards_from_hand(st, p, m.group(1)), "for": parse_types(m.group(2)), "show": show}


def _accept(st: State, p: str, word: str, rest: str) -> Order:
    m = re.match(r"^(.*?)(?: giving (.*))?$", rest)
    assert m is not None  # the pattern matches any text
    who = names.match_one(m.group(1), [q for q in st["players"] if q != p], "player")
    return {"verb": "accept", "player": who, "giving": cards_from_hand(st, p, m.group(2) or "")}


def _vote(st: State, p: str, word: str, rest: str) -> Order:
    color = rest.strip().upper()
    if color not in ("RED", "BLUE"):
        raise RuleError("vote RED or BLUE", ["VOTE RED", "VOTE BLUE"])
    return {"verb": "vote", "color": color}


#: How each order word's line is read (after the fixed phrases such as NO TRADE, which come first).
_VERBS: dict[str, Callable[[State, str, str, str], Order]] = {
    "REMOVE": _remove_or_lose,
    "LOSE": _remove_or_lose,
    "TRADE": _trade,
    "OFFER": _offer,
    "ACCEPT": _accept,
    "DECLINE": lambda st, p, word, rest: {"verb": "decline"},
    "PLAY": lambda st, p, word, rest: parse_play(st, rest),
    "CALL": lambda st, p, word, rest: parse_call(st, p, rest),
    "PLACE": lambda st, p, word, rest: {"verb": "place", "cards": cards_from_hand(st, p, rest)},
    "VOTE": _vote,
    "DISCARD": lambda st, p, word, rest: {"verb": "discard", "cards": cards_from_hand(st, p, rest)},
    "STANDING": lambda st, p, word, rest: parse_standing(rest),
}


def split_from(st: State, p: str, rest: str) -> tuple[str, str | None]:
    return pile_card(st, p, rest, "card on your display")


def pile_card(st: State, q: str, text: str, what: str) -> tuple[str, str | None]:
    """A card on q's display: "<card> [FROM <country>]" or "<country> <card>" (the pile first)."""
    m = re.match(r"^(.*?) from (.*)$", text)
    text, frm = (m.group(1), country(m.group(2))) if m else (text, None)
    pool = sorted({x for pl in st["displays"][q].values() for x in pl["cards"]}) or ["(no cards on display)"]
    try:
        return match_card(text, pool, what), frm
    except RuleError as err:
        words = names.norm(text).split(" ")
        for i in range(1, len(words)):
            if names.candidates_for(" ".join(words[:i]), COUNTRIES) and frm is None:
                try:
                    return match_card(" ".join(words[i:]), pool, what), country(" ".join(words[:i]))
                except RuleError:
                    continue
        raise err


def parse_start_items(st: State, p: str, body: str) -> list[tuple[str, str | None]]:
    if "," not in body and ";" not in body and "+" not in body and " on " not in f" {body} ":
        return [(c, None) for c in cards_from_hand(st, p, body)]
    out: list[tuple[str, str | None]] = []
    for piece in re.split(r"[,;+]", body):
        if not piece.strip():
            continue
        m = re.match(r"^(.*?) on (.*)$", piece.strip())
        card_text, on = (m.group(1), country(m.group(2))) if m else (piece, None)
        out.append((match_card(card_text, hand_names(st, p), "card in your hand"), on))
    return out


def parse_play(st: State, rest: str) -> Order:
    words = names.norm(rest.replace("_", " ")).split(" ")
    for n in range(min(3, len(words)), 0, -1):
        found = names.candidates_for(" ".join(words[:n]), list(SPECIAL_ALIASES))
        cards = sorted({SPECIAL_ALIASES[f] for f in found})
        if len(cards) == 1:
            return play_args(st, cards[0], " ".join(words[n:]))
    said = f'"{rest.strip()}" does not name' if rest.strip() else "no card is named: name"
    raise RuleError(f"{said} a Special card", [f"PLAY {s}" for s in SPECIALS])


def split_player(st: State, text: str) -> list[str]:
    """'<player> <rest>' where the player's name may have several words ("Zoë Müller Spain 1")."""
    words = text.split(" ")
    for n in range(len(words) - 1, 1, -1):
        if len(names.candidates_for(" ".join(words[:n]), st["players"])) == 1:
            return [" ".join(words[:n]), " ".join(words[n:])]
    return text.split(" ", 1)


def play_args(st: State, card: str, arg: str) -> Order:
    if card == "Vote":
        return {"verb": "play", "card": card, "arg": {}}
    if card == "Assassin":
        parts = split_player(st, arg)
        if len(parts) < 2:
            raise RuleError("write PLAY Assassin <player> <card> [FROM <country>]")
        q = names.match_one(parts[0], st["players"], "player")
        x, frm = pile_card(st, q, parts[1], f"card on {q}'s display")
        if frm is None:
            where = [c for c, pl in st["displays"][q].items() if x in pl["cards"]]
            if len(where) != 1:
                raise RuleError(f"say which pile: PLAY Assassin {q} {x} FROM <country>")
            frm = where[0]
        return {"verb": "play", "card": card, "arg": {"player": q, "card": x, "country": frm}}
    if not arg.strip():
        raise RuleError(f"name the country: PLAY {card} <country>")
    return {"verb": "play", "card": card, "arg": {"country": country(arg)}}


def parse_call(st: State, p: str, rest: str) -> Order:
    m = re.match(r"^(.*?)(?: place (.*))?$", rest)
    assert m is not None  # the pattern matches any text
    head, cards = m.group(1), cards_from_hand(st, p, m.group(2) or "")
    im = re.match(r"^(.*?) (align|switch|rearm|war)\b ?(.*)$", head)
    if not im:
        c = country(head)
        from pbem.engine.sixteen_thirty.votes import legal_issues

        legal = legal_issues(st, c)
        if len(legal) != 1:
            raise RuleError(f"name the issue: CALL {c} SWITCH|WAR <target>|REARM")
        issue, target = legal[0]
        return {"verb": "call", "country": c, "issue": issue, "target": target, "cards": cards}
    c, issue = country(im.group(1)), im.group(2).upper()
    target = country(im.group(3)) if issue == "WAR" else None
    if issue == "WAR" and not im.group(3).strip():
        raise RuleError("name the country to attack: CALL <country> WAR <target>")
    if issue != "WAR" and im.group(3).strip():
        raise RuleError(f"{issue} takes no target")
    return {"verb": "call", "country": c, "issue": issue, "target": target, "cards": cards}


def parse_standing(rest: str) -> Order:
    words = rest.upper().split()
    if words[:2] == ["PLACE", "NONE"]:
        exc = []
        if len(words) > 2:
            m = re.match(r"^place\s+none\s+except\s+(.*)$", rest, re.I)
            if not m:
                raise RuleError("write STANDING PLACE NONE [EXCEPT <countries>]")
            exc = [country(x) for x in re.split(r"[,;+]", m.group(1)) if x.strip()]
        return {"verb": "standing", "what": "place_none", "except": exc}
    if words == ["PLACE", "ASK"]:
        return {"verb": "standing", "what": "place_ask"}
    if words == ["OFFER", "NONE"]:
        return {"verb": "standing", "what": "offer_none"}
    if words == ["OFFER", "ASK"]:
        return {"verb": "standing", "what": "offer_ask"}
    if words in (["CLEAR"], ["VOTE", "CLEAR"]):
        return {"verb": "standing", "what": " ".join(words).lower()}
    if len(words) >= 4 and words[0] == "VOTE" and words[-1] in ("RED", "BLUE") and words[-2] in [*ISSUES, "ANY"]:
        ctext = " ".join(rest.split()[1:-2])
        c = "ANY" if ctext.upper() == "ANY" else country(ctext)
        return {"verb": "standing", "what": "vote", "rule": [c, words[-2], words[-1]]}
    raise RuleError(
        "standing orders are STANDING PLACE NONE [EXCEPT <countries>], STANDING PLACE ASK, "
        "STANDING VOTE <country|ANY> <issue|ANY> RED|BLUE, STANDING VOTE CLEAR, "
        "STANDING OFFER NONE, STANDING OFFER ASK, STANDING CLEAR"
    )


def quick_verb(line: str) -> str | None:
    """The verb of a line without checking its arguments (for orders kept for later)."""
    raw = names.norm(line)
    up = raw.upper()
    word = up.split(" ", 1)[0] if up else ""
    if up.startswith("NO TRADE") or up in ("TRADE NONE", "PASS TRADE"):
        return "notrade"
    if up in ("SPECIALS DONE", "NO SPECIALS", "DONE", "SPECIALS NONE"):
        return "done"
    if word in BARE_SPECIALS or _special_named(up):
        return "play"
    return QUICK_VERBS.get(word)


QUICK_VERBS = {
    "REMOVE": "remove",
    "TRADE": "trade",
    "ACCEPT": "accept",
    "DECLINE": "decline",
    "PLAY": "play",
    "CALL": "call",
    "VOTE": "vote",
    "DISCARD": "discard",
}
