"""Pictures laid out for a phone (picture version 2): each board laid out and drawn 340 px wide.

Version 1 laid each board out 680 px wide with words of 11 to 14 px; a phone 360 px wide shows it 338 px wide,
so its words were 5.5 to 7 CSS px (phones2: every report with a picture, 84 of the 202 mails of
`benchmarks/phone_screen.py`).  Version 2 lays the board out for 340 px (a column of cards two to a row, a line
of words under another) and draws it at that size on the palette `Canvas`, words of 12 to 14 px: a phone shows
them at 12 to 14 CSS px, and a screen of two or three device pixels to the CSS pixel enlarges the picture as it
does any picture in a mail (Open Sans carries TrueType hints, which FreeType applies as it draws).

Drawn at twice the size (branch phones2) its words were as sharp as such a screen, but a report's picture was 2 to
2.7 times the PNG bytes of version 1 and a reply cost 1.26 times the instructions (four times the pixels to stamp,
deflate and send); at one and a half times, Habsburg's pictures were 2.4 times version 1's bytes.  At its layout's
size a report's picture weighs 0.7 to 1.2 times version 1's and a reply costs 0.98 times main's instructions
(phones3: docs/performance.md).  Version 1's drawings are kept, unchanged, in each game's
module: `pbem verify --mail` draws a mail's pictures again, and a mail an older pbem drew is compared with version
1's (`pbem.render.pictures.VERSIONS`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pbem.render.pictures.canvas import INK, PAPER, Canvas, Look, stamp

W = 340  # the layout's width: the picture's, shown at most this wide
FITS_KEPT = 1024  # cards whose `fits` answer is kept (a game's deck is about 100 cards, at 2 widths)
LOOK: Look = (14, 13, 18)  # a card's first line's size, the others' size, from one line to the next


def card_height(lines: int) -> int:
    """The height of a card of `lines` lines."""
    return 10 + LOOK[0] + (lines - 1) * LOOK[2] + 4


def width_of(words: str, size: int) -> float:
    """The width of `words` at `size` (the font's advance)."""
    return stamp(words, size)[3]


def fits(lines: list[str], w: float) -> bool:
    """Whether every line of a card `w` wide is drawn whole, without an ellipsis."""
    return _fits(tuple(lines), w)


@lru_cache(maxsize=FITS_KEPT)
def _fits(lines: tuple[str, ...], w: float) -> bool:
    """`fits`, its answer kept for the card and width: a game's cards are few (House of Habsburg's deck, a melds'
    three), and every picture laid each one out again, twice (its height, then its drawing): 15.8 cards a reply
    of `poll_throughput.py`'s, two words' widths each, read from the word stamps' cache under its lock (perf33)."""
    return all(width_of(line, LOOK[1] if i else LOOK[0]) <= w - 10 for i, line in enumerate(lines))


def cards(c: Canvas | None, x0: float, y0: float, width: float, found: list[dict[str, Any]]) -> float:
    """The cards in order, two to a row (each half of `width`), a card whose words would be cut alone on a row of
    its own, the whole width; each row as high as its tallest card's lines.  Drawn when `c` is given (each card
    pasted from its tile, `Canvas.card`); returns the y under them."""
    half = (width - 8) / 2
    rows: list[list[dict[str, Any]]] = []
    for card in found:
        wide = not fits(card["lines"], half)
        if wide or not rows or len(rows[-1]) == 2 or rows[-1][0]["wide"]:
            rows.append([])
        rows[-1].append({**card, "wide": wide})
    y = y0
    for row in rows:
        h = card_height(max(len(card["lines"]) for card in row))
        for i, card in enumerate(row):
            w = width if card["wide"] else half
            if c is not None:
                x = x0 + i * (half + 8)
                fill, outline, line = card.get("fill", PAPER), card.get("outline", INK), card.get("width", 1)
                c.card(x, y, w, h, card["lines"], fill, outline, line, LOOK)
        y += h + 8
    return y
