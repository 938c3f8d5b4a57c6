"""The legal order a line set aside as no order was near (pure): one typo off, or its words in another order.

"TRIUTE Silver 7", "NO EVNET", "TRIBUTES Silver 7" and "LOWEST DISCARD-IF-NEEDED" start with no order word, so they
were set aside as chatter and the player was told only that no order was found (or nothing, beside an order that
was read).  `nearest` offers the one legal order such a line is near, so the answer says what to send
(`pbem.app.lines.seeming_told`: "... so write it as: TRIBUTE Silver 7"); never when none is near, nor when two are.

Near: the line and the order, case and spacing aside and a closing full stop or "!" dropped, are one typo apart (a
letter dropped, added, changed, or two side by side swapped), or have the same words in another order.  A line is
looked at only when one of its words is an order word or one typo from one of `WORD` letters or more ("Hi,",
"Thanks", "Alice" never are), and only up to `LONGEST` characters.  Cost: linear in the line times the legal orders
(at most `LEGAL` looked at), each compared once, letter by letter.

`chosen_alone` offers the one legal order whose words after its order word a line says, with the words a sentence
ends with after them ("red from me", "Silver 7 for me this time": VOTE RED, TRIBUTE Silver 7); never for the choice
alone ("Red", "Bob": a signature may be a name the game knows), nor when two orders end so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pbem.orders.extract import AFTER_LAST, negated_zh, phrase_end, without_afterwords
from pbem.orders.typed import cleaned

LONGEST = 120  # characters of a line compared
LEGAL = 400  # legal orders compared with one line at most
WORD = 4  # letters of an order word a typed word may be one typo from ("NO" is one from "SO", "GO", "ON")


def _norm(line: str) -> str:
    return " ".join(line.casefold().rstrip(".! ").split())


def one_off(a: str, b: str) -> bool:
    """Whether `a` and `b` are equal or one typo apart (Damerau: a letter dropped, added, changed, or swapped with
    the next one).  Linear."""
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        if i == len(a) or a[i + 1 :] == b[i + 1 :]:
            return True
        return a[i : i + 2] == b[i : i + 2][::-1] and a[i + 2 :] == b[i + 2 :]
    return a[i:] == b[i + 1 :] if len(a) < len(b) else a[i + 1 :] == b[i:]


def tries(line: str, order_words: Iterable[str]) -> bool:
    """Whether `line` may be an order mistyped: one of its words is an order word, or one typo from one of `WORD`
    letters or more ("PAY" for PLAY)."""
    words = [w.strip(".,!?:;").upper() for w in line[:LONGEST].split()]
    return any(w == ow or (len(ow) >= WORD and one_off(w, ow)) for ow in order_words for w in words)


_NEGATED = re.compile(r"[不别別没沒]")  # Chinese "not", "don't", "no": a line holding one says no to the order


def nearest(line: str, legal: Iterable[str]) -> str:
    """The one legal order `line` is near (see the module docstring), "" when none is, or more than one."""
    if len(line) > LONGEST:
        return ""
    typed = _norm(line)
    words = sorted(typed.split())
    found: list[str] = []
    negated = negated_zh(line, clause=False)  # "不错" (not bad) is no negation
    for k, order in enumerate(legal):
        if k >= LEGAL:
            break
        if negated and not _NEGATED.search(order):
            continue  # "不PASS", "别PASS": a negation is no typo (players27: told "write it as: PASS")
        said = _norm(order)
        if one_off(typed, said) or (len(said) == len(typed) and sorted(said.split()) == words):
            if order not in found:
                found.append(order)
            if len(found) > 1:
                return ""
    return found[0] if found else ""


def names_near(line: str, legal: Iterable[str], names: Iterable[str] = ()) -> str:
    """The one line `line` (a refused order: "DISCARD drumers, flank attack", "EVENT CLAIM Hieress TARGET Dave") is
    near name by name: as many words, each the same (case and spacing aside) or one typo from the other's where both
    have `WORD` letters or more, one word at least mistyped.  Looked for among the `legal` lines, else made by putting
    each mistyped word right from the words of `names` (the names the refusal listed, the legal lines' words), each
    word one typo from exactly one of them; "" when none is that near, or more than one.  The caller checks that the
    engine takes it (players25)."""
    if len(line) > LONGEST:
        return ""
    typed = _norm(line).split()
    found = ""
    known: dict[str, str] = {}
    for k, order in enumerate(legal):
        if k >= LEGAL:
            break
        known.update(_keyed(order))
        if _words_near(typed, _norm(order).split()) and order != found:
            if found:
                return ""
            found = order
    if found:
        return found
    for name in names:
        known.update(_keyed(name))
    return _put_right(line.split(), known)


def _keyed(text: str) -> dict[str, str]:
    """The words of `text`, folded, each to itself as written, without the punctuation that parts names."""
    return {w.rstrip(",.;").casefold(): w.rstrip(",.;") for w in text[:LONGEST].split() if w.rstrip(",.;")}


def _words_near(typed: list[str], said: list[str]) -> bool:
    """Whether the words `typed` are `said`'s, one at least one typo off (each of `WORD` letters or more)."""
    if len(typed) != len(said) or typed == said:
        return False
    return all(a == b or (min(len(a), len(b)) >= WORD and one_off(a, b)) for a, b in zip(typed, said, strict=True))


def _put_right(words: list[str], known: dict[str, str]) -> str:
    """`words` with each word known (folded) written as known, and each of `WORD` letters or more one typo from
    exactly one known word written as that word (any other kept as typed); "" when none was mistyped or one is near
    two."""
    out: list[str] = []
    mistyped = False
    sized: dict[
        int, list[tuple[str, str]]
    ] = {}  # the known words by length: a word is compared with those of one letter more or less
    for k, v in known.items():
        if len(k) >= WORD:
            sized.setdefault(len(k), []).append((k, v))
    for word in words[:LONGEST]:
        core = word.rstrip(",.;")
        tail = word[len(core) :]
        folded = core.casefold()
        if folded in known or len(folded) < WORD:
            out.append(known.get(folded, core) + tail)
            continue
        near = {v for n in (-1, 0, 1) for k, v in sized.get(len(folded) + n, ()) if one_off(folded, k)}
        if len(near) > 1:
            return ""  # near two names: which was meant is the player's to say
        mistyped = mistyped or bool(near)
        out.append((near.pop() if near else core) + tail)
    return " ".join(out) if mistyped else ""


def chosen_alone(line: str, legal: Iterable[str], order_words: Iterable[str]) -> str:
    """The one legal order whose words after its order word are `line` without the words a sentence ends with after
    them ("red from me": VOTE RED), when it ends with such words; "" otherwise, or when two orders end so."""
    bare = _before_afterwords(line)
    if not bare:
        return ""
    said, words = _norm(bare), tuple(order_words)
    found = ""
    for k, order in enumerate(legal):
        if k >= LEGAL:
            break
        if _norm(order[phrase_end(order, words) :]) == said and order != found:
            if found:
                return ""
            found = order
    return found


def _before_afterwords(line: str) -> str:
    """`line` (cleaned as an order line is) without the words a sentence ends with, "" when it ends with none."""
    typed = line.strip()
    if len(typed) >= LONGEST:
        return ""
    typed = cleaned(typed) or typed
    bare = without_afterwords(typed)
    return bare if bare and len(bare) < len(typed.rstrip(" ,.!")) else ""


def ends_said(line: str) -> bool:
    """Whether `line` ends with the words a sentence ends with after an order ("from me", "for me this time"): its
    last word first (most lines set aside end otherwise, "Hi,", "Alice")."""
    last = line[-40:].rsplit(None, 1)[-1:]
    return bool(last) and last[0].lower().rstrip(",.!") in AFTER_LAST and bool(_before_afterwords(line))
