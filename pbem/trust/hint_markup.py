"""`pbem verify --mail`: a "write it as:" hint in an answer's HTML part, in whatever markup, must be one its text gives.

An answer that read a line as no order notes it ('"I vote red" was not read as an order: an order line starts with
its order word, so write it as: VOTE red'), in its text and, as a paragraph starting `<p>&#34;`, in its HTML part;
once the seed is out the order each offers must be pbem's reading (`pbem.trust.refused.hinted_notes`, tenth round).
A hint in other markup (`&quot;`, a literal quote, a `<div>`, a `<p class>`, a letter escaped, a tag inside a word)
was not read as one, so the HTML part alone, which most mail programs show, could offer another order (fairness11).
pbem writes each hint in both parts, so here the HTML part is read as text (tags and entities undone, spaces
collapsed, case folded) and each order its hints offer must be one the text part's hints offer, as often; the text
part's are checked against pbem's reading.  Pure; linear in the mail: the bytes are read once without parsing, and
the part is decoded only when they may hold the hint's words.
"""

from __future__ import annotations

import html
import re
from collections import Counter

from pbem.trust import told

SEEMING = " was not read as an order: an order line starts with its order word, so write it as:"
_FOLDED = SEEMING.casefold()
#: A tag that starts a line when the part is read as text (a paragraph, a break, a cell ...); others are dropped.
_BLOCK = re.compile(r"<(?:/?(?:p|div|br|li|tr|td|th|pre|h[1-6]|section|blockquote|table|ul|ol|dd|dt))\b[^<>]*>", re.I)
_TAG = re.compile(r"<[^<>]*>")


def as_text(page: str) -> str:
    """An HTML part's words as its reader sees them: a line per block (a line break in the source is a space),
    inline tags dropped, entities undone."""
    return html.unescape(_TAG.sub("", _BLOCK.sub("\n", page.replace("\r", " ").replace("\n", " "))))


def offers(text: str) -> Counter[str]:
    """The order each hint of `text` offers (the rest of its line after the hint's words, spaces collapsed, case
    folded, quotes and a full stop around it dropped), counted."""
    out: Counter[str] = Counter()
    for line in text.split("\n"):
        folded = " ".join(line.split()).casefold()
        start = folded.find(_FOLDED)
        while start >= 0:
            rest = folded[start + len(_FOLDED) :]
            out[rest.strip().strip('".').strip()] += 1
            start = folded.find(_FOLDED, start + 1)
    return out


def may_hint(raw: bytes) -> bool:
    """Whether the mail's parts may say the hint's words (its bytes with quoted-printable undone, read as text): a
    part in another encoding or charset always may (`told.readable`)."""
    low = told.readable(raw)
    return low is None or _FOLDED in " ".join(as_text(low.decode("utf-8", "replace")).split())


def untrue(raw: bytes, text: str) -> str:
    """How the hints of the mail `raw`'s HTML part differ from those of its text part `text` ("" when each order
    one offers is one the text offers, as often)."""
    if not may_hint(raw):
        return ""
    extra = offers(as_text(told.html(raw))) - offers(text)
    if not extra:
        return ""
    said = next(iter(extra))
    return (
        f'in its HTML part offers "write it as: {said[:80]}" where its text part does not: pbem writes each hint in '
        "both parts, so this one is not pbem's (in markup its check of hints does not read)"
    )
