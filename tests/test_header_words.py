"""`pbem.mail.inbound.words.decoded` reads a header as the standard library does, in linear time.

A header of real mail (at most `SHORT` characters and `WORDS_AT_ONCE` words) goes to the standard library;
a longer one is read in one pass (`_linear`) by the same rules.  Generated headers of encoded words (Base64
and Q, one charset as a client writes them, or several, some failing), plain words and white space: the
one-pass reading gives the standard library's text wherever the standard library joins no two charsets
(where it does, it puts a space between them that the one pass does not).
"""

from __future__ import annotations

import base64
import quopri
from email.header import decode_header, make_header

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.inbound.words import SHORT, WORDS_AT_ONCE, _linear, decoded
from tests.growth import Window


def stdlib(value: str) -> str:
    try:
        return str(make_header(decode_header(value)))
    except Exception:  # as `decoded` reads a header whose charset fails: the text as written
        return value


TEXT = st.text(alphabet="abz XY-:éö日本", min_size=1, max_size=10)


@st.composite
def encoded_word(draw: st.DrawFn, charsets: st.SearchStrategy[str]) -> str:
    charset = draw(charsets)
    raw = draw(TEXT).encode("utf-8")
    if draw(st.booleans()):
        return f"=?{charset}?B?{base64.b64encode(raw).decode()}?="
    q = quopri.encodestring(raw, header=True).decode().replace("?", "=3F").replace("\n", "")
    return f"=?{charset}?q?{q}?="


UTF8 = st.sampled_from(["utf-8", "UTF-8"])
SPACE = st.sampled_from([" ", "  ", "\t"])


@given(st.lists(encoded_word(UTF8), min_size=1, max_size=3 * WORDS_AT_ONCE), SPACE)
@settings(max_examples=60, deadline=None)
def test_a_run_of_words_reads_as_the_standard_library_reads_it(words: list[str], space: str) -> None:
    value = "Re: " + space.join(words)
    assert _linear(value) == stdlib(value)
    assert decoded(value) == stdlib(value)


@given(st.lists(st.one_of(encoded_word(UTF8), st.text(alphabet="abc XYZ-,.", min_size=1, max_size=6)), max_size=40))
@settings(max_examples=150, deadline=None)
def test_words_and_text_read_as_the_standard_library_reads_them(parts: list[str]) -> None:
    value = " ".join(parts)
    assert _linear(value) == stdlib(value)


@given(st.lists(encoded_word(st.sampled_from(["utf-8", "iso-8859-1", "no-such-charset", "us-ascii"])), max_size=20))
@settings(max_examples=100, deadline=None)
def test_any_charset_is_read_without_raising(words: list[str]) -> None:
    assert isinstance(_linear(" ".join(words)), str)


def test_a_long_header_is_read_in_time_linear_in_its_length() -> None:
    def spent(n: int) -> float:
        value = " ".join(["=?utf-8?b?w6k=?="] * n) + " =?u?q?," * n
        t = Window()
        decoded(value)
        return t.close().cpu

    # Eight times the words: linear is 8, quadratic 64.  One charset: its run is joined once (joining it word
    # by word copied it again for each word: 21 times the time for 8 times the words).
    assert len(" =?u?q?," * 100) > SHORT / 4
    # The large size is read again only if its first reading is over the bound (`tests.growth.least`'s `within`):
    # a busy machine only ever adds time, so a first reading within it is the least's bound too (1.1 of the test's
    # 2.5 CPU s went to a second reading that could not change the outcome).
    small = min(spent(40_000) for _ in range(2))
    large = spent(320_000)
    if large / max(small, 1e-3) >= 12:
        large = min(large, spent(320_000))
    assert large / max(small, 1e-3) < 12, (small, large)
