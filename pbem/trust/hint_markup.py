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


def _strip(s: str) -> str:
    return s.strip().strip('".').strip()


class _Offers:
    """The offers of the parts of one mail, each as a number: equal numbers, equal offers.  An offer is the rest of
    its line, so a line of k hints offered k rests, each copied and hashed: a line of n hints cost n squared (300
    and 1,200 hints, 3.5 and 58 ms, costs11).  Here an offer is the list of the pieces between the hint's words that
    follow it, kept as cells (a piece, the number of the list after it), so that the offers of one line share
    their tails and each piece is hashed a few times.  The pieces are where `str.find` finds the hint's words from
    the left, which cannot overlap: equal offers, equal lists."""

    def __init__(self) -> None:
        self.cells: list[tuple[str, int]] = []
        self.numbers: dict[tuple[str, int], int] = {}

    def cell(self, piece: str, rest: int) -> int:
        """The number of the list `piece` then the list numbered `rest` (-1: none)."""
        key = (piece, rest)
        found = self.numbers.get(key)
        if found is None:
            found = self.numbers[key] = len(self.cells)
            self.cells.append(key)
        return found

    def text(self, number: int, most: int | None = None) -> str:
        """The offer numbered `number` (its first `most` characters)."""
        parts: list[str] = []
        size = 0
        while number >= 0 and (most is None or size < most):
            piece, number = self.cells[number]
            parts += [piece, _FOLDED] if number >= 0 else [piece]
            size += len(piece) + len(_FOLDED)
        return "".join(parts)[:most]

    def of(self, text: str) -> Counter[int]:
        """The order each hint of `text` offers (the rest of its line after the hint's words, spaces collapsed, case
        folded, quotes and a full stop around it dropped), numbered, counted."""
        out: Counter[int] = Counter()
        for line in text.split("\n"):
            folded = " ".join(line.split()).casefold()
            starts: list[int] = []
            start = folded.find(_FOLDED)
            while start >= 0:
                starts.append(start)
                start = folded.find(_FOLDED, start + 1)
            if starts:
                out.update(self._line(folded, starts))
        return out

    def _line(self, folded: str, starts: list[int]) -> list[int]:
        """The numbers of the offers of a line whose hints start at `starts`."""
        f = len(_FOLDED)
        pieces = [folded[x + f : y] for x, y in zip(starts, [*starts[1:], len(folded)], strict=True)]
        last = len(pieces) - 1
        end = (_FOLDED + pieces[last]).rstrip().rstrip('".').rstrip()[f:]  # the line's end, as each offer ends
        tails = [-1] * (last + 2)  # tails[j]: pieces[j], the hint's words, ..., `end`
        tails[last] = self.cell(end, -1)
        for j in range(last - 1, 0, -1):
            tails[j] = self.cell(pieces[j], tails[j + 1])
        out = []
        for j in range(last):
            head = (pieces[j] + _FOLDED).lstrip().lstrip('".').lstrip()
            if len(head) >= f:  # the piece before the next hint's words, stripped
                out.append(self.cell(head[:-f], tails[j + 1]))
            else:  # the piece stripped away with the space before the next hint's words: they start the offer
                after = pieces[j + 1] if j + 1 < last else end
                out.append(self.cell(_FOLDED[1:] + after, tails[j + 2] if j + 1 < last else -1))
        out.append(self.cell(_strip(pieces[last]), -1))
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
    keys = _Offers()
    extra = keys.of(as_text(told.html(raw))) - keys.of(text)
    if not extra:
        return ""
    said = keys.text(next(iter(extra)), 80)
    return (
        f'in its HTML part offers "write it as: {said}" where its text part does not: pbem writes each hint in '
        "both parts, so this one is not pbem's (in markup its check of hints does not read)"
    )
