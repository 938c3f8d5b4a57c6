"""`pbem.orders.own_mail._words` (a byte table for ASCII, whitespace tokens otherwise) finds exactly the words
the regex `\\w+` finds in the case-folded text: on generated text, and on every character of Unicode between
ASCII words."""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.orders.own_mail import _words

WORD = re.compile(r"\w+")
MIXED = st.lists(st.sampled_from(["a", "Z", "_", "0", "ß", "İ", "ǅ", "\u0300", "\ufb01", "\u0661", "\u00b2", "\u00bd", " ", "\t", "\n",
                                  "\u00a0", "\u2028", "\u3000", ".", "\u2014", "\u201c", "\u00e9", "\x00", "\x1c"]), max_size=40)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), MIXED.map("".join)))
def test_words_are_the_regexs_words_of_the_case_folded_text(text: str) -> None:
    assert _words(text) == WORD.findall(text.casefold())


def test_every_character_of_unicode_splits_or_joins_words_as_the_regex_does() -> None:
    chars = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]
    for i in range(0, len(chars), 512):
        text = "x".join(chars[i : i + 512]) + " ab-c_d e"
        assert _words(text) == WORD.findall(text.casefold()), i
