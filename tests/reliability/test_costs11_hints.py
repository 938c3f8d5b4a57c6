"""`pbem verify --mail`'s reading of "write it as:" hints costs linear in the mail, whatever a line holds (costs11).

`pbem.trust.hint_markup.offers` (4adb736) counted, for each hint of a line, the rest of the line after it: a line of n hints
(a moderator's HTML part, or a player's line quoted in a note) copied and hashed n rests, n squared: 300 and 1,200
hints on one line 3.5 and 58 ms on 4adb736 (16.7 at 4x).  The offers are now numbered by the pieces between the
hints, the tails of a line's offers shared (`_Offers`), and the checks answer as 4adb736's (kept here) on random
lines of hints, quotes, full stops and spaces.
"""

from __future__ import annotations

import random
from collections import Counter

from pbem.trust import hint_markup
from tests.growth import held_growth

MAX_GROWTH = 6.0  # at 4x the hints: linear 4; a rest copied for each, 16
HINT = hint_markup.SEEMING


def _offers_before(text: str) -> Counter[str]:
    """4adb736's `hint_markup.offers`: the rest of the line copied for each hint."""
    out: Counter[str] = Counter()
    for line in text.split("\n"):
        folded = " ".join(line.split()).casefold()
        start = folded.find(hint_markup._FOLDED)
        while start >= 0:
            rest = folded[start + len(hint_markup._FOLDED) :]
            out[rest.strip().strip('".').strip()] += 1
            start = folded.find(hint_markup._FOLDED, start + 1)
    return out


def _offers(text: str) -> Counter[str]:
    keys = hint_markup._Offers()
    return Counter({keys.text(k): n for k, n in keys.of(text).items()})


def test_a_line_of_many_hints_is_read_once() -> None:
    def work(n: int):
        text = ('"x"' + HINT + " PASS") * n
        page = f"<p>{text}</p><p>{text.replace('PASS', 'VOTE red', 1)}</p>"
        return lambda: (hint_markup._Offers().of(text), hint_markup._Offers().of(hint_markup.as_text(page)))

    two = ('"x"' + HINT + " PASS") * 2
    assert _offers(two) == Counter({"pass": 1, f'pass"x"{HINT.casefold()} pass': 1}) == _offers_before(two)
    # the bytes held at the peak (`held_growth`), not CPU time (a linear reading of 6.5 failed the bound under load,
    # 2026-12-06): 4.2, and 14.1 with `_offers_before` (4adb736's), which kept every rest it copied as a key; its
    # lines executed grow by 3.9, as the copies are made in C
    g = held_growth(work, 100)
    assert g.ratio <= MAX_GROWTH, f"a line of 100 and 400 hints: {g}"


TOKENS = (HINT, HINT[1:], HINT.upper(), '"', ".", " ", "  ", "x", "PASS", '".', "\n", ":")


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 14)))


def test_the_offers_and_what_the_html_offers_more_are_those_read_rest_by_rest() -> None:
    for seed in range(200):
        rng = random.Random(seed)
        html, text = _text(rng), _text(rng)
        if rng.random() < 0.4:  # the same lines, one changed
            text = html.replace(rng.choice(TOKENS), rng.choice(TOKENS), 1)
        assert _offers(html) == _offers_before(html), seed
        keys = hint_markup._Offers()
        extra = keys.of(html) - keys.of(text)
        want = _offers_before(html) - _offers_before(text)
        assert [(keys.text(k), n) for k, n in extra.items()] == list(want.items()), seed
        assert [keys.text(k, 80) for k in extra] == [k[:80] for k in want], seed


def test_the_hints_words_cannot_overlap_themselves() -> None:
    """`_Offers` numbers an offer by where `str.find` finds the hint's words, which holds only while no end of them
    is also their start (a border): then each offer has one list of pieces."""
    words = hint_markup._FOLDED
    assert not [k for k in range(1, len(words)) if words.startswith(words[k:])]
