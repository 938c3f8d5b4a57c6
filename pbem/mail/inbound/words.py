"""RFC 2047 encoded words of a header decoded in time linear in the header (pure).

`str(make_header(decode_header(value)))` is what pbem reads a header as, but the standard library's loop
takes its words off the front of a list one by one and deletes the spaces between them one by one, and its
word pattern (`email.header.ecre`, `.*?\\?=`) reads to the end of the line from every `=?` that never ends:
its cost grows with the square of the header (a 1.8 MB Subject of 100,000 encoded words took 11.5 s).
`decoded` gives a short header (at most `SHORT` characters and `WORDS_AT_ONCE` words) to the standard library,
so the headers of real mail read exactly as before, and reads a longer one in one pass with the same rules:
each word decoded on its own, white space between two words dropped, adjacent words of one charset joined
before they are decoded, a word whose charset fails kept as written; a word labelled with an unknown charset,
ASCII or Latin-1 is read as `pbem.orders.charsets.text_of` reads a body so labelled.  A word's encoded text holds no `?` and
no white space (RFC 2047), which keeps each try of the pattern to the next `?` or space.
"""

from __future__ import annotations

import re
from email.header import decode_header, make_header

from pbem.orders.charsets import decodable, meant

SHORT = 2_000
WORDS_AT_ONCE = 64
_WORD = re.compile(r"=\?([^?\s]*)\?([qQbB])\?([^?\s]*)\?=")


def _stdlib(value: str) -> str:
    """`value` as the standard library reads it, or as it stands where a charset fails."""
    try:
        return str(make_header(_meant(decode_header(value))))
    except Exception:  # a failing charset, a broken word: the text as written
        return value


def _meant(chunks: list[tuple[bytes | str, str | None]]) -> list[tuple[bytes | str, str | None]]:
    """`decode_header`'s chunks with each mislabelled word as its writer meant it (`charsets.meant`, explore35), and
    adjacent chunks that now share a charset joined, as `decode_header` joins them (`make_header` spaces them)."""
    out: list[tuple[bytes | str, str | None]] = []
    for raw, cs in chunks:
        if cs is not None and isinstance(raw, bytes):
            raw, cs = meant(raw, cs)
        last = out[-1] if out else None
        if (
            last is not None
            and cs is not None
            and last[1] == cs
            and isinstance(last[0], bytes)
            and isinstance(raw, bytes)
        ):
            out[-1] = (last[0] + raw, cs)
        else:
            out.append((raw, cs))
    return out


def _word(text: str) -> tuple[bytes, str] | None:
    """One encoded word's bytes and charset, or None if it cannot be decoded."""
    try:
        ((raw, charset),) = decode_header(text)
    except Exception:
        return None
    if not isinstance(raw, bytes) or not charset or decodable(charset) != charset:  # (a slow codec: kept as written)
        return None
    return raw, charset


def _linear(value: str) -> str:
    out: list[str] = []
    pending: tuple[list[bytes], str] | None = None  # adjacent words of one charset, joined once before decoding

    def flush() -> None:
        nonlocal pending
        if pending is not None:
            out.append(_stdlib_chunk(b"".join(pending[0]), pending[1]))
            pending = None

    pos, after_word = 0, False
    for m in _WORD.finditer(value):
        between = value[pos : m.start()]
        if between and not (after_word and between.isspace()):
            flush()
            out.append(between if out or pending else between.lstrip())
        word = _word(m.group(0))
        if word is None:
            flush()
            out.append(m.group(0))
        elif pending is not None and pending[1] == word[1]:
            pending[0].append(word[0])
        else:
            flush()
            pending = ([word[0]], word[1])
        pos, after_word = m.end(), True
    flush()
    out.append(value[pos:])
    return "".join(out)


def _stdlib_chunk(raw: bytes, charset: str) -> str:
    try:
        return str(make_header([meant(raw, charset)]))
    except Exception:
        return raw.decode("latin-1")


def decoded(value: str) -> str:
    """`value` with its encoded words decoded, as `str(make_header(decode_header(value)))` reads it."""
    if "=?" not in value:  # no encoded word: the standard library returns the text as it is
        return value
    if len(value) <= SHORT and value.count("=?") <= WORDS_AT_ONCE:
        return _stdlib(value)
    return _linear(value)
