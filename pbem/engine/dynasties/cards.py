"""The Noble Deck of Dynasties (DY-R2) and the card names players type.

Owns: the 52 card names ("Copper Coronation", "Copper 2" .. "Copper 12",
"Copper King", and so on for Silver, Gold, Platinum), their values and
lineages, the sort order used by "lowest"/"highest", and parsing of one card
or a list of cards as typed ("Gold 1", "gold coronation", "g13", "cop 7",
or just "7" / "king" when only one card in the allowed set fits).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pbem.engine.base import RuleError

LINEAGES = ["Copper", "Silver", "Gold", "Platinum"]
VALUE_WORDS = {1: "Coronation", 13: "King"}


def card_name(lineage: str, value: int) -> str:
    return f"{lineage} {VALUE_WORDS.get(value, str(value))}"


DECK = [card_name(lin, v) for lin in LINEAGES for v in range(1, 14)]
_INFO = {card_name(lin, v): (lin, v) for lin in LINEAGES for v in range(1, 14)}


def lineage(card: str) -> str:
    return _INFO[card][0]


def value(card: str) -> int:
    """The card's value for every purpose but the Conclusion (Coronation = 1)."""
    return _INFO[card][1]


def is_coronation(card: str) -> bool:
    return value(card) == 1


def is_king(card: str) -> bool:
    return value(card) == 13


def key(card: str) -> tuple[int, int]:
    """Sort key: value first, then lineage order Copper < Silver < Gold < Platinum."""
    return _KEY[card]


_KEY = {card: (v, LINEAGES.index(lin)) for card, (lin, v) in _INFO.items()}


def ordered(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=_KEY.__getitem__)


def lowest(cards: Iterable[str], n: int = 1) -> list[str]:
    return ordered(cards)[:n]


def highest(cards: Iterable[str], n: int = 1) -> list[str]:
    return ordered(cards)[::-1][:n]


def describe(cards: Iterable[str]) -> str:
    cards = list(cards)
    return ", ".join(cards) if cards else "none"


# ---------------------------------------------------------------- parsing

# a word in any script is a word: "TRIBUTE Copper 2にしません" (I will not) was read as TRIBUTE Copper 2, its Japanese
# dropped unseen (players28); now "にしません" is no card name, refused with its reason
_TOKEN = re.compile(r"[^\W\d_]+\d*|\d+")  # letters with the digits after them, or digits: one reading of a run
_SPLIT = re.compile(r"(?<!\s)\s*+(?:,|\+|;|\band\b|\bthen\b)\s*", re.I)  # a run of spaces tried once: linear


def _lineage_of(word: str) -> str | None:
    found = [lin for lin in LINEAGES if lin.lower().startswith(word)]
    return found[0] if len(found) == 1 else None


def _value_of(word: str) -> int | None:
    if word.isdigit():
        v = int(word)
        return v if 1 <= v <= 13 else None
    if len(word) >= 2 and "coronation".startswith(word):
        return 1
    if "king".startswith(word):
        return 13
    return None


def _pieces(text: str) -> list[tuple[str | None, int | None, str]]:
    """Split typed words into (lineage, value, typed) triples."""
    words = _TOKEN.findall(text.lower())
    out: list[tuple[str | None, int | None, str]] = []
    i = 0
    while i < len(words):
        w = words[i]
        glued = re.fullmatch(r"\A([a-z]+)(\d+)", w)
        if glued:
            out.append((_lineage_of(glued.group(1)) or "?", _value_of(glued.group(2)) or 0, w))
            i += 1
            continue
        lin = _lineage_of(w)
        nxt = words[i + 1] if i + 1 < len(words) else None
        if lin and nxt is not None and _value_of(nxt) is not None:
            out.append((lin, _value_of(nxt), f"{w} {nxt}"))
            i += 2
            continue
        if lin:
            out.append((lin, None, w))
        elif _value_of(w) is not None:
            out.append((None, _value_of(w), w))
        else:
            out.append(("?", None, w))
        i += 1
    return out


def _resolve(piece: tuple[str | None, int | None, str], allowed: Sequence[str], what: str) -> str:
    lin, val, typed = piece
    if lin == "?" or val == 0:
        raise RuleError(
            f'"{typed}" is not a card name (write e.g. "Copper 7", "Gold Coronation", "Silver King")', tuple(allowed)
        )
    found = [c for c in allowed if (lin is None or lineage(c) == lin) and (val is None or value(c) == val)]
    if len(found) == 1:
        return found[0]
    if not found:
        if lin and val:
            raise RuleError(f"{card_name(lin, val)} is not {what}", tuple(allowed))
        raise RuleError(f'"{typed}" names no card that is {what}', tuple(allowed))
    raise RuleError(f'"{typed}" could be any of: {", ".join(found)}; name the lineage and value', tuple(found))


def parse_cards(text: str, allowed: Sequence[str] = DECK, what: str = "a card here") -> list[str]:
    """The cards named in `text` (comma/plus/"then"-separated or just spaced)."""
    out: list[str] = []
    for chunk in _SPLIT.split(text.strip()):
        if chunk.strip():
            out += [_resolve(p, allowed, what) for p in _pieces(chunk)]
    return out


def parse_card(text: str, allowed: Sequence[str] = DECK, what: str = "a card here") -> str:
    cards = parse_cards(text, allowed, what)
    if len(cards) != 1:
        said = f'"{text.strip()}" names {len(cards)}' if text.strip() else "none is named"
        raise RuleError(f"name exactly one card ({said})", tuple(allowed))
    return cards[0]
