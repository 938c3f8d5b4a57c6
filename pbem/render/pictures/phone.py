"""Pictures laid out for a phone (picture version 2): drawn at twice the size of a layout 340 px wide.

Version 1 laid each board out 680 px wide with words of 11 to 14 px; a phone 360 px wide shows it 338 px wide,
so its words were 5.5 to 7 CSS px (phones2: every report with a picture, 84 of the 202 mails of
`benchmarks/phone_screen.py`).  Version 2 lays the board out for 340 px (a column of cards, a line of words
under another) and draws it at twice that size: a picture 680 px wide, shown 340 px wide (`width` and `height`
in the HTML are the layout's, half the pixels), whose words are 12 to 15 CSS px on a phone and as sharp as the
screen on a dense one.  `Scaled` is the drawing surface: the same calls as `Canvas`, every coordinate and size
doubled.  Version 1's drawings are kept, unchanged, in each game's module: `pbem verify --mail` draws a mail's
pictures again, and a mail an older pbem drew is compared with version 1's (`pbem.render.pictures.VERSIONS`).
"""

from __future__ import annotations

from typing import Any

from pbem.render.pictures.canvas import INK, PAPER, RGB, Canvas, fit, stamp

SCALE = 2
W = 340  # the layout's width: shown at most this wide, drawn SCALE times as wide
CARD = (14, 13)  # the sizes of a card's first line and of the others
CARD_LINE = 18  # from one line of a card to the next


class _Shapes:
    """`Scaled.draw`: the shapes, their points and widths doubled."""

    def __init__(self, canvas: Canvas) -> None:
        self.c = canvas

    @staticmethod
    def _xy(xy: Any) -> Any:
        if isinstance(xy[0], (tuple, list)):
            return [(x * SCALE, y * SCALE) for x, y in xy]
        return [v * SCALE for v in xy]

    def rectangle(self, xy: Any, fill: RGB | None = None, outline: RGB | None = None, width: int = 1) -> None:
        self.c.draw.rectangle(self._xy(xy), fill=fill, outline=outline, width=width * SCALE)

    def ellipse(self, xy: Any, fill: RGB | None = None, outline: RGB | None = None, width: int = 1) -> None:
        self.c.draw.ellipse(self._xy(xy), fill=fill, outline=outline, width=width * SCALE)

    def line(self, xy: Any, fill: RGB | None = None, width: int = 0) -> None:
        self.c.draw.line(self._xy(xy), fill=fill, width=width * SCALE)


class Scaled:
    """A picture laid out `width` x `height` px and drawn at `SCALE` times that on a `Canvas`."""

    def __init__(self, width: int, height: int) -> None:
        self.canvas = Canvas(width * SCALE, height * SCALE)
        self.width, self.height = width, height
        self.draw = _Shapes(self.canvas)

    def text(self, xy: tuple[float, float], words: str, size: int = 13, fill: RGB = INK, anchor: str = "la") -> None:
        self.canvas.text((xy[0] * SCALE, xy[1] * SCALE), words, size * SCALE, fill, anchor)

    def width_of(self, words: str, size: int = 13) -> float:
        return self.canvas.width_of(words, size * SCALE) / SCALE

    def box(self, xy: tuple[float, float, float, float], fill: RGB, outline: RGB = INK, width: int = 1) -> None:
        x0, y0, x1, y1 = xy
        self.canvas.draw.rounded_rectangle(
            (x0 * SCALE, y0 * SCALE, x1 * SCALE, y1 * SCALE), radius=6 * SCALE, fill=fill, outline=outline,
            width=width * SCALE,
        )  # fmt: skip

    def card(
        self, x: float, y: float, w: float, h: float, lines: list[str], fill: RGB = PAPER, outline: RGB = INK,
        width: int = 1,
    ) -> None:  # fmt: skip
        """A card: a box with its lines, the first one larger, each cut with an ellipsis to fit."""
        self.draw.rectangle((x, y, x + w, y + h), fill=fill, outline=outline, width=width)
        for i, line in enumerate(lines):
            size = CARD[min(i, 1)]
            self.text((x + 6, y + 5 + i * CARD_LINE), fit(self, line, w - 10, size), size)  # type: ignore[arg-type]

    def png(self) -> bytes:
        return self.canvas.png()


def card_height(lines: int) -> int:
    """The height of a card of `lines` lines."""
    return 10 + CARD[0] + (lines - 1) * CARD_LINE + 4


def width_of(words: str, size: int) -> float:
    """The width of `words` at `size` in the layout's pixels (drawn at `SCALE` times `size`)."""
    return stamp(words, size * SCALE)[3] / SCALE


def fits(lines: list[str], w: float) -> bool:
    """Whether every line of a card `w` wide is drawn whole, without an ellipsis."""
    return all(width_of(line, CARD[min(i, 1)]) <= w - 10 for i, line in enumerate(lines))


def cards(c: Scaled | None, x0: float, y0: float, width: float, found: list[dict[str, Any]]) -> float:
    """The cards in order, two to a row (each half of `width`), a card whose words would be cut alone on a row of
    its own, the whole width; each row as high as its tallest card's lines.  Drawn when `c` is given; returns the
    y under them."""
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
                c.card(x, y, w, h, card["lines"], fill, outline, line)
        y += h + 8
    return y
