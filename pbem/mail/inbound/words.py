"""RFC 2047 encoded words of a header decoded in time linear in the header (pure).

`str(make_header(decode_header(value)))` is what pbem reads a header as, but the standard library's loop
takes its words off the front of a list one by one and deletes the spaces between them one by one: its cost
grows with the square of the number of words (a 1.8 MB Subject of 100,000 encoded words took 11.5 s to read,
and a From of them longer still: the address parser's own loop is quadratic the same way).  `decoded` cuts a
long run into pieces of at most `WORDS_AT_ONCE` words and decodes each with the standard library, so a header
of up to that many words reads exactly as before and a longer one costs its length.

A piece ends right after an encoded word that another one follows with only white space between them (the
next piece starts with that white space, which the standard library drops there as it drops it between two
words, so the pieces join without a seam); in a run with text between every word, after
`2 * WORDS_AT_ONCE` words, after any word (the text up to the next word starts the next piece, its leading
white space dropped).  Decoding word by word differs from the standard library's only in what it joins
across a seam: a character split between two words, a space between two charsets.
"""

from __future__ import annotations

import re
from email.header import decode_header, make_header

WORDS_AT_ONCE = 64
# `email.header.ecre` without its groups: an encoded word as the standard library finds it
_ENCODED = re.compile(r"=\?[^?]*?\?[qQbB]\?.*?\?=", re.MULTILINE)


def _one(piece: str) -> str:
    """One piece as the standard library reads it, or as it stands where a charset fails."""
    try:
        return str(make_header(decode_header(piece)))
    except Exception:  # an unknown or failing charset, a broken word: the text as written
        return piece


def cuts(value: str) -> list[int]:
    """Where `decoded` cuts `value`: the offsets the pieces after the first start at."""
    out: list[int] = []
    since, last_end = 0, -1
    for m in _ENCODED.finditer(value):
        since += 1
        adjacent = last_end >= 0 and not value[last_end : m.start()].strip()
        if since > WORDS_AT_ONCE and (adjacent or since > 2 * WORDS_AT_ONCE):
            out.append(last_end)
            since = 1
        last_end = m.end()
    return out


def decoded(value: str) -> str:
    """`value` with its encoded words decoded, as `str(make_header(decode_header(value)))` reads it."""
    if "=?" not in value:  # no encoded word: the standard library returns the text as it is
        return value
    at = cuts(value)
    if not at:
        return _one(value)
    bounds = zip([0, *at], [*at, len(value)])
    return "".join(_one(value[a:b]) for a, b in bounds)
