"""`pbem.mail.inbound.words.decoded` reads a header as the standard library does, in linear time.

Generated headers of encoded words (Base64 and Q, several charsets, broken ones), plain words and white
space: up to `WORDS_AT_ONCE` encoded words the text is the standard library's exactly, and so is any longer
run whose words are separated by white space only (a seam falls where the standard library drops the white
space anyway); with text between every word, only the seams may differ.
"""

from __future__ import annotations

import base64
import quopri
from email.header import decode_header, make_header

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.inbound.words import WORDS_AT_ONCE, cuts, decoded


def stdlib(value: str) -> str:
    try:
        return str(make_header(decode_header(value)))
    except Exception:  # as `decoded` reads a piece whose charset fails: the text as written
        return value


CHARSETS = st.sampled_from(["utf-8", "UTF-8", "iso-8859-1", "us-ascii", "koi8-r", "no-such-charset"])
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)


@st.composite
def encoded_word(
    draw: st.DrawFn, charsets: st.SearchStrategy[str] = CHARSETS, text: st.SearchStrategy[str] = TEXT
) -> str:
    charset = draw(charsets)
    raw = draw(text).encode("utf-8")
    if draw(st.booleans()):
        return f"=?{charset}?B?{base64.b64encode(raw).decode()}?="
    q = quopri.encodestring(raw, header=True).decode().replace("?", "=3F").replace("\n", "")
    return f"=?{charset}?q?{q}?="


PLAIN = st.text(alphabet="abc XYZ-:;,.", min_size=1, max_size=8)
SPACE = st.sampled_from([" ", "  ", "\t", ""])


@given(st.lists(st.one_of(encoded_word(), PLAIN, SPACE), max_size=WORDS_AT_ONCE))
@settings(max_examples=150, deadline=None)
def test_up_to_a_piece_of_words_the_text_is_the_standard_librarys(parts: list[str]) -> None:
    value = "".join(parts)
    assert cuts(value) == []
    assert decoded(value) == stdlib(value)


@given(
    st.lists(
        encoded_word(st.sampled_from(["utf-8", "UTF-8"]), st.text(alphabet="abz éö日本-", min_size=1, max_size=8)),
        min_size=WORDS_AT_ONCE + 1,
        max_size=2 * WORDS_AT_ONCE + 8,
    ),
    SPACE,
)
@settings(max_examples=20, deadline=None)
def test_a_long_run_of_words_between_white_space_reads_as_the_standard_library_reads_it(
    words: list[str], space: str
) -> None:
    """One charset, as a client writes a long subject (words of other charsets side by side get a space
    between them from the standard library, which a seam does not add)."""
    value = space.join(words)
    assert cuts(value), "a run this long is decoded in pieces"
    assert decoded(value) == stdlib(value)


def test_text_between_every_word_is_cut_after_twice_a_piece() -> None:
    value = " x ".join(["=?utf-8?q?a?="] * (5 * WORDS_AT_ONCE))
    at = cuts(value)
    assert len(at) == 2 and all(value[:a].endswith("?=") for a in at)
    assert decoded(value).replace(" ", "").replace("x", "") == "a" * (5 * WORDS_AT_ONCE)
