"""Matching what a player typed to card, player and country names; what a player name may be.

Shared by every engine's order grammar: case-insensitive, accent-insensitive
("zoe" finds "Zoë Müller"), whitespace folded, an exact name wins, otherwise a unique prefix (of the whole name, or of each
of its words in turn: "hre" does not match, "holy rom" does) is accepted.  "&" in a name may be typed "&", "and", "+" or
an HTML copy's "&amp;" ("England and Ireland" is "England & Ireland"; `fold`).
Lists of names may be separated by commas, "+" or ";", or just by spaces, in
which case the longest run of words naming one card is taken each time; a "+" (or "and") joining the words of a name
with "&" is read as its "&" ("DISCARD Hedges + Trees + Ditch" is Hedges & Trees and Ditch).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

from pbem.engine.base import RuleError

_SPACE = re.compile(r"\s+")
_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2019": "'"})
_UNDECOMPOSED = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ð": "d", "þ": "th", "æ": "ae", "œ": "oe", "ß": "ss"})


MAX_PLAYER_NAME = 40
_NAME_PUNCT = frozenset(" .'-_\u2019")


@lru_cache(maxsize=4096)  # pure; candidates_for normalises every name of a pool on every call
def norm(text: str) -> str:
    """Lower case, folded whitespace, plain dashes and apostrophes, accents dropped ("Zoë" -> "zoe")."""
    text = _SPACE.sub(" ", text.translate(_DASHES)).strip().lower()
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED))
    return "".join(c for c in text if not unicodedata.combining(c))


_AMP = re.compile(r"&amp;|&|\+")  # no \s* around it: a run of spaces would be scanned once per space


def unescaped(text: str) -> str:
    """`text` with an HTML copy's "&amp;" as the "&" it stands for (before a ";" is read as a separator)."""
    return re.sub("&amp;", "&", text, flags=re.I) if "&" in text else text


@lru_cache(maxsize=4096)
def fold(text: str) -> str:
    """A normalised name or typed text (`norm`) with "&", "+", "&amp;" and the word "and" as one word "&".

    "and" as the first word stays itself: it may begin a name ("and" typed for "Andrea")."""
    if "&" not in text and "+" not in text and " and" not in text:
        return text
    words = _AMP.sub(" & ", text).split()
    return " ".join(words[:1] + ["&" if w == "and" else w for w in words[1:]])


#: Names a player cannot have, each with why: a line or a press address would mean something else.
RESERVED = {
    "all": 'ALL is reserved ("PRESS TO ALL" writes to every player)',
    "end": "END is reserved (END alone on a line ends the orders of a mail)",
    "end press": "END PRESS is reserved (it ends a press message)",
}


def player_name(text: str) -> str:
    """A player name as it will be kept (NFC, spaces folded), or a ValueError quoting `text` intact.

    Letters of any script, digits, spaces, ".", "'", "-" and "_", at most 40 characters, at least one
    letter or digit; not a word of `RESERVED`.
    """
    name = _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()
    bad = sorted({c for c in name if c not in _NAME_PUNCT and unicodedata.category(c)[0] not in "LMN"})
    why = ""
    if not any(c.isalnum() for c in name):
        why = "it needs at least one letter or digit"
    elif bad:
        why = f"it holds {' '.join(repr(c) for c in bad)}; use letters, digits, spaces, '.', \"'\", '-' or '_'"
    elif len(name) > MAX_PLAYER_NAME:
        why = f"it is {len(name)} characters long; at most {MAX_PLAYER_NAME}"
    elif norm(name) in RESERVED:
        why = RESERVED[norm(name)]
    elif mixed := _mixed_word(name):
        why = (
            f'its word "{mixed}" mixes Latin letters with Cyrillic or Greek ones, which orders read as the Latin letters '
            "they look like (a copied name would name someone else, or no one): write each word in one script"
        )
    if why:
        shown = text if len(text) <= 80 else f"{text[:80]}... ({len(text):,} characters)"  # a line, however long
        raise ValueError(f'"{shown}" cannot be a player name: {why}')
    return name


_LETTERS = re.compile(r"[^\W\d_]+")


def _mixed_word(name: str) -> str:
    """The first word of `name` holding both a Latin letter a-z (any case, accents aside) and a Cyrillic or Greek
    letter, or "".  The order reader reads a Cyrillic or Greek look-alike inside a Latin word as the Latin letter
    (`pbem.orders.typed._unmixed`: "P\u0410SS" typed on a keyboard left on Russian), so a seat named "\u0412\u043eb"
    (Cyrillic Ve and o) could not be named in an order: "TARGET \u0412\u043eb" copied from the report was read as
    "TARGET Bob", another seat's name, or no one's (explore35)."""
    for word in _LETTERS.findall(name):  # (str: the pattern is one of str)
        if word.isascii():
            continue
        latin = any("a" <= c <= "z" for c in unicodedata.normalize("NFKD", word.lower()))
        other = any(unicodedata.name(c, "").startswith(("CYRILLIC", "GREEK")) for c in word)
        if latin and other:
            return str(word)
    return ""


def candidates_for(typed: str, names: Iterable[str]) -> list[str]:
    """Names matching `typed`: the exact one if any, else every prefix match."""
    return _candidates(fold(norm(typed)), _pool(names))


#: One name of a pool: the name, its normal form (`fold`ed) and that form's words.
Entry = tuple[str, str, tuple[str, ...]]


def _pool(names: Iterable[str]) -> tuple[Entry, ...]:
    """The distinct names, each with its normal form and that form's words."""
    return _pool_of(tuple(names))


@lru_cache(maxsize=2048)  # pure; the same hands, piles and fixed lists are matched again on every order
def _pool_of(names: tuple[str, ...]) -> tuple[Entry, ...]:
    return tuple(_entry(n) for n in dict.fromkeys(names))


@lru_cache(maxsize=4096)
def _entry(name: str) -> Entry:
    nn = fold(norm(name))
    return name, nn, tuple(nn.split(" "))


@lru_cache(maxsize=2048)
def _sized_pool(names: tuple[str, ...]) -> tuple[tuple[Entry, ...], int]:
    """`_pool` and the most words of one of its names (0 for none)."""
    pool = _pool_of(names)
    return pool, max((len(nw) for _, _, nw in pool), default=0)


def _candidates(t: str, pool: tuple[Entry, ...]) -> list[str]:
    """`candidates_for` with `t` and the names already normalised and folded (`_pool`)."""
    if not t:
        return []
    exact = [n for n, nn, _ in pool if nn == t]
    if exact:
        return exact[:1]
    tw = t.split(" ")
    return [
        n
        for n, nn, nw in pool
        if nn.startswith(t) or (len(tw) <= len(nw) and all(b.startswith(a) for a, b in zip(tw, nw)))
    ]


def match_one(typed: str, names: Sequence[str], what: str = "name") -> str:
    """The one name `typed` stands for, or a RuleError listing the choices."""
    found = candidates_for(typed, names)
    if len(found) == 1:
        return found[0]
    legal = tuple(dict.fromkeys(names))
    if not found and not fold(norm(typed)):  # "ACCEPT!", "ACCEPT" alone: nothing named ('"" is not a player' before)
        raise RuleError(f"no {what} is named: name one", legal)
    if not found:
        raise RuleError(f'"{typed.strip()}" is not a {what} you can name here', legal)
    raise RuleError(f'"{typed.strip()}" could be any of: {", ".join(found)}; type more of the {what}', tuple(found))


def match_many(typed: str, names: Sequence[str], what: str = "card") -> list[str]:
    """Several names from one string.

    With separators (``,`` ``;``) each piece is matched on its own.
    Without, words are consumed greedily: at each point the longest run of
    words that names exactly one candidate is taken; a "+" (or "&", "and")
    is the "&" of a name where the run names one ("Hedges + Trees"), else
    it separates two names ("Ditch + Parapet").  A run is never longer
    than the longest name (a typed run with more words is no prefix of any
    name), so the cost is linear in the words typed (issue 26; it was cubic).
    """
    text = unescaped(typed).strip()
    if not text:
        return []
    if re.search(r"[,;]", text):
        pieces = [piece for piece in re.split(r"[,;]", text) if piece.strip()]
        return [
            n
            for piece in pieces
            for n in (_run(piece, names, what) if "+" in piece else [match_one(piece, names, what)])
        ]
    return _run(text, names, what)


def _run(text: str, names: Sequence[str], what: str) -> list[str]:
    """Names typed one after another, with spaces or "+" (or "&", "and") between them (see `match_many`)."""
    words = fold(norm(text)).split(" ")
    pool, longest = _sized_pool(tuple(names))  # no run longer than `longest` words can name one
    out: list[str] = []
    i = 0
    while i < len(words):
        if out and words[i] == "&":  # "+", "&" or "and" between two names
            i += 1
            continue
        chosen: tuple[int, str] | None = None
        for j in range(min(len(words), i + longest), i, -1):
            if words[j - 1] == "&":  # a name is not cut at its "&": "Hedges &" is a separator after "Hedges"
                continue
            found = _candidates(" ".join(words[i:j]), pool)
            if len(found) == 1:
                chosen = (j, found[0])
                break
        if chosen is None:
            # Report the error on the shortest run that starts here.
            match_one(words[i], names, what)
            raise RuleError(f'cannot tell which {what} "{" ".join(words[i:])}" names', tuple(dict.fromkeys(names)))
        i, name = chosen
        out.append(name)
    return out


def split_order(line: str) -> tuple[str, str]:
    """The first word of an order (upper case) and the rest of the line."""
    parts = line.strip().split(None, 1)
    if not parts:
        return "", ""
    return parts[0].upper(), parts[1] if len(parts) > 1 else ""
