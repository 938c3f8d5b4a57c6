"""Drawing helpers shared by the board pictures (Pillow): fonts, colours that never carry meaning alone, cards.

The font is Open Sans, and Noto Sans CJK for the letters it lacks (`fonts.py`), each shipped as a Python package,
never a system font, so a picture has the
same pixels on every machine that has the same Pillow and FreeType (its PNG bytes, `png_of`, may differ by CPU: deflate may
choose other, equally valid bytes).  Colours come in pairs with a word or a pattern: a faction
is its colour *and* its name, a usable card is green *and* ticked.
"""

from __future__ import annotations

import struct
import threading
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import lru_cache
from types import ModuleType
from typing import Any, Generic, ParamSpec, TypeVar

from PIL import Image, ImageChops, ImageDraw

from pbem.render.pictures.fonts import font, mixed, runs

_deflater: ModuleType = zlib  # a platform without isal's wheel: zlib, slower, the same pictures
_LEVEL = 3
try:  # ISA-L's deflate: the same zlib stream format at a sixth of zlib's time for a picture (see `png_of`)
    from isal import isal_zlib

    _deflater, _LEVEL = isal_zlib, 2
except ImportError:  # pragma: no cover
    pass

RGB = tuple[int, int, int]
INK = (27, 27, 27)
PAPER = (255, 255, 255)
MUTED = (96, 96, 96)
LINE = (150, 150, 150)
RED = (192, 57, 43)
RED_TINT = (248, 218, 214)
BLUE = (36, 99, 176)
BLUE_TINT = (214, 228, 247)
GREY_TINT = (236, 236, 236)
GOLD = (181, 137, 0)
GREEN = (30, 130, 76)
GREEN_TINT = (216, 240, 225)

MIB = 1 << 20
#: How a card sets its lines: the first line's size, the others' size, and from one line to the next (px).
Look = tuple[int, int, int]
LOOK: Look = (13, 12, 15)  # picture version 1's cards (version 2's: `phone.LOOK`)
P = ParamSpec("P")
R = TypeVar("R")


def image_bytes(value: object) -> int:
    """The pixel bytes `value` holds: an image, or a tuple of images and plain values (None: nothing)."""
    if isinstance(value, Image.Image):
        return value.width * value.height * len(value.getbands())
    if isinstance(value, tuple):
        return sum(image_bytes(v) for v in value)
    return 0


_KEYWORDS = object()  # in a key made with keyword arguments only


class Tiles(Generic[P, R]):
    """`fn`'s results kept, least recently used dropped first, while the pixels they hold fit `budget` bytes.

    The tiles live in Pillow's C memory, where an entry count says little about their size (0.5 to 30 KB each).
    Left unbounded, a poll of 10,000 order mails kept 1,849 word stamps (9 MiB) and 1,734 palette stamps
    (17 MiB): status lines such as "Carol: score 7, tokens 3, holdings 4, 1 cards in hand" rarely repeat, and
    caches counted in entries grew a long poll's peak memory with the number of messages (benchmarks/memory.py).
    Names and labels, which do repeat, stay: the least recently used go first."""

    def __init__(self, fn: Callable[P, R], budget: int) -> None:
        self.fn, self.budget, self.held = fn, budget, 0
        self.kept: OrderedDict[Hashable, tuple[R, int]] = OrderedDict()
        self.lock = threading.Lock()  # as lru_cache: safe to share between threads (the drawing runs outside it)
        self.__doc__, self.__wrapped__ = fn.__doc__, fn

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        # positional arguments (every call the pictures make) are their own key: sorting no keywords cost a
        # microsecond of each of a picture's 17 calls; keywords are kept behind a marker no positional key holds
        key: Hashable = args if not kwargs else (_KEYWORDS, args, tuple(sorted(kwargs.items())))
        with self.lock:
            hit = self.kept.get(key)
            if hit is not None:
                self.kept.move_to_end(key)
                return hit[0]
        value = self.fn(*args, **kwargs)
        size = image_bytes(value) + 200  # and the entry itself, so that tiles of nothing are bounded too
        with self.lock:
            if size <= self.budget and key not in self.kept:
                self.kept[key] = (value, size)
                self.held += size
                while self.held > self.budget:
                    _, (_, dropped) = self.kept.popitem(last=False)
                    self.held -= dropped
        return value

    def cache_clear(self) -> None:
        with self.lock:
            self.kept.clear()
            self.held = 0


def tiles(budget: int) -> Callable[[Callable[P, R]], Tiles[P, R]]:
    """`@tiles(budget)`: `Tiles` as a decorator."""
    return lambda fn: Tiles(fn, budget)


class RgbCanvas:
    """A white picture to draw on, in RGB; `png()` gives its bytes (deterministic for the same drawing).  The
    reference drawing: `Canvas` draws the same pixels on the palette directly and falls back to this."""

    def __init__(self, width: int, height: int) -> None:
        self.image = Image.new("RGB", (width, height), PAPER)
        self.draw = ImageDraw.Draw(self.image)
        self.width, self.height = width, height

    def text(self, xy: tuple[float, float], words: str, size: int = 13, fill: RGB = INK, anchor: str = "la") -> None:
        """`words` at `xy` ("la": left/top of the ascender, "ra": right): rendered once per (words, size) and
        stamped from the cache, since laying out text was half the cost of a picture and names repeat."""
        mask, dx, dy, width = stamp(words, size)
        x = xy[0] - (width if anchor.startswith("r") else 0) + dx
        self.image.paste(fill, (round(x), round(xy[1]) + dy), mask)

    def width_of(self, words: str, size: int = 13) -> float:
        return stamp(words, size)[3]

    def box(self, xy: tuple[float, float, float, float], fill: RGB, outline: RGB = INK, width: int = 1) -> None:
        self.draw.rounded_rectangle(xy, radius=6, fill=fill, outline=outline, width=width)

    def card(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        lines: list[str],
        fill: RGB = PAPER,
        outline: RGB = INK,
        width: int = 1,
        look: Look = LOOK,
    ) -> None:
        """A card: a box with up to three lines of text, the first one larger (square corners: a rounded
        rectangle costs ten times as much to draw, and a hand has many cards), its lines set as `look` says.

        A card at whole pixels is pasted from `card_tile`, drawn once per look (the same pixels: its box covers
        all of the tile and its words lie inside it, so nothing under it shows through either way)."""
        at = (int(x), int(y))
        if at == (x, y) and at[0] >= 0 and at[1] >= 0 and int(w) == w and int(h) == h:
            tile = card_tile(int(w), int(h), tuple(lines), fill, outline, width, look)
            if tile is not None:
                self.image.paste(tile, at)
                return
        self._card(x, y, w, h, lines, fill, outline, width, look)

    def _card(
        self, x: float, y: float, w: float, h: float, lines: Any, fill: RGB, outline: RGB, width: int, look: Look = LOOK
    ) -> list[tuple[int, int, int, int]]:
        """Draw a card; returns the boxes its words were stamped in."""
        self.draw.rectangle((x, y, x + w, y + h), fill=fill, outline=outline, width=width)
        boxes = []
        for i, line in enumerate(lines):
            size = look[1] if i else look[0]
            words = fit(self, line, w - 10, size)
            mask, dx, dy, _ = stamp(words, size)
            self.text((x + 6, y + 5 + i * look[2]), words, size)
            left, top = round(x + 6 + dx), round(y + 5 + i * look[2]) + dy
            boxes.append((left, top, left + mask.width, top + mask.height))
        return boxes

    def png(self) -> bytes:
        # mapped onto one fixed palette (`palette()`): a third of the bytes of RGB, and a tenth of the time of an
        # adaptive quantization, which was the largest cost of a picture
        return png_of(self.image.quantize(palette=palette(), dither=Image.Dither.NONE))


_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


_IEND = _chunk(b"IEND", b"")


def png_of(image: Image.Image) -> bytes:
    """A palette picture (mode "P") as PNG: IHDR, its palette, one IDAT, IEND.

    Written here rather than by Pillow's encoder, which was the largest cost of a report's picture (0.6 ms of
    a 0.9 ms picture, a third of it before any compression): the rows go unfiltered (filter type 0: a palette
    picture gains nothing from PNG's filters) into one deflate call, ISA-L's (`isal`, level 2: 0.07 ms for a
    680 x 300 picture against 0.4 ms for zlib's fastest level, and a smaller file than Pillow's level 3).  Any
    PNG reader decodes it (tests/test_pictures.py reads every kind's pictures back with Pillow, pixel for
    pixel).  The bytes are a function of the pixels on one machine; another CPU may make other, equally valid
    deflate bytes (zlib's own accelerated builds do too)."""
    assert image.mode == "P", image.mode
    w, h = image.size
    data = _filtered(image)
    return b"".join(
        (
            _SIGNATURE,
            _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0)),  # 8 bits, palette, deflate, no interlace
            _plte(bytes(image.getpalette() or b"")),
            _chunk(b"IDAT", _deflater.compress(data, _LEVEL)),
            _IEND,
        )
    )


def _filtered(image: Image.Image) -> bytes | bytearray:
    """The rows as PNG wants them, each after its filter byte 0 ("none").  Pillow's raw encoder writes rows of
    a wider stride with a zero after each: one zero before that, the last one left off, is the same bytes, without
    the framed copy of the picture that pasting it one column to the right made (two passes over its pixels)."""
    w, h = image.size
    rows = _raw(image, w + 1)
    if len(rows) == (w + 1) * h and rows[w :: w + 1] == bytes(h):
        out = bytearray(b"\0")
        out += memoryview(rows)[:-1]
        return out
    framed = Image.new("P", (w + 1, h), 0)  # a Pillow whose encoder ignored the stride: a column of zeros pasted
    framed.paste(image, (1, 0))
    return framed.tobytes()


def _raw(image: Image.Image, stride: int) -> bytes:
    """`image.tobytes("raw", (mode, stride))` asked of Pillow's encoder in one piece: `tobytes` takes it in
    pieces of 64 KB and joins them, a copy of the picture (0.15 M instructions of a report's picture)."""
    image.load()
    encoder = Image._getencoder(image.mode, "raw", (image.mode, stride))
    encoder.setimage(image.im, (0, 0, *image.size))
    pieces = []
    while True:
        _, status, data = encoder.encode(max(1, stride * image.height))
        pieces.append(data)
        if status:
            break
    if status < 0:  # pragma: no cover - Pillow's raw encoder fails only out of memory
        raise RuntimeError(f"encoder error {status}")
    return b"".join(pieces)  # the one piece itself, not a copy


@lru_cache(maxsize=8)
def _plte(rgb: bytes) -> bytes:
    return _chunk(b"PLTE", rgb)


#: Never drawn (not in the palette): a tile still showing it after its box is drawn is not covered by the box.
_UNDRAWN = (255, 0, 254)


@tiles(2 * MIB)  # RGB tiles, 20-30 KB each: the cards of a few games (the palette canvas keeps its own)
def card_tile(
    w: int, h: int, lines: tuple[str, ...], fill: RGB, outline: RGB, width: int, look: Look = LOOK
) -> Image.Image | None:
    """The pixels of a card drawn at (0, 0) (`Canvas.card`), or None where pasting them could differ from
    drawing the card in place: a pixel of its tile left undrawn by its box, or words reaching outside it."""
    tile = RgbCanvas(w + 1, h + 1)
    tile.image.paste(_UNDRAWN, (0, 0, w + 1, h + 1))
    boxes = tile._card(0, 0, w, h, list(lines), fill, outline, width, look)
    inside = all(x0 >= 0 and y0 >= 0 and x1 <= w + 1 and y1 <= h + 1 for x0, y0, x1, y1 in boxes)
    if not inside or _shows(tile.image, _UNDRAWN):
        return None
    return tile.image


def _shows(image: Image.Image, colour: RGB) -> bool:
    """Whether any pixel of the RGB `image` is `colour`: the greatest of its bands' distances from the colour's
    is 0 somewhere.  Passes in C: `getcolors`, which this replaced, filled a hash table of 65,536 colours for each
    tile (3 M instructions a card drawn, 15% of the instructions of a report's pictures)."""
    r, g, b = ImageChops.difference(image, Image.new("RGB", image.size, colour)).split()
    return ImageChops.lighter(ImageChops.lighter(r, g), b).getextrema()[0] == 0


#: Extra fills some games use (Dynasties' metals), so that the palette holds them exactly.
EXTRA_FILLS = [(240, 214, 196), (228, 230, 234), (250, 236, 184), (222, 236, 236)]


@lru_cache(maxsize=1)
def palette() -> Image.Image:
    """Every colour drawn, and the antialiasing steps of each ink over each fill (at most 256 entries)."""
    inks = [INK, MUTED, LINE, RED, BLUE, GOLD, GREEN]
    fills = [PAPER, RED_TINT, BLUE_TINT, GREY_TINT, GREEN_TINT, *EXTRA_FILLS]
    colours: list[tuple[int, ...]] = list(dict.fromkeys([*inks, *fills]))
    for ink in inks:
        for fill in fills:
            for k in (1, 2, 3):
                colours.append(tuple(round(f + (i - f) * k / 4) for i, f in zip(ink, fill)))
    colours = list(dict.fromkeys(colours))
    assert len(colours) <= 256
    flat = [v for c in colours for v in c] + [0, 0, 0] * (256 - len(colours))
    image = Image.new("P", (1, 1))
    image.putpalette(flat)
    return image


@tiles(MIB)  # masks of 0.5-6 KB: names and labels repeat, status lines with numbers rarely do
def stamp(words: str, size: int) -> tuple[Image.Image, int, int, float]:
    """`words` in the font of `size` as an antialiased mask, its offset from the anchor, and its advance.

    The mask is the one `ImageDraw.text` pastes at that offset (`getmask2`), laid out by FreeType once: measuring
    its box first (`getbbox`) and drawing it on a mask of that size gave the same pixels for a third more of
    FreeType's work (tests/test_pictures.py compares the two ways).  Words holding a letter Open Sans lacks are
    drawn in runs of Open Sans and the CJK font (`fonts.mixed`); the others exactly as before."""
    parts = runs(words)
    if parts is not None:
        return mixed(parts, size)
    f = font(size)
    drawn, (left, top) = f.getmask2(words, "L", anchor="la")
    w, h = drawn.size
    mask = Image.Image()._new(drawn) if w and h else Image.new("L", (max(1, w), max(1, h)), 0)
    return mask, int(left), int(top), float(f.getlength(words))


def fit(c: RgbCanvas | Canvas, words: str, width: float, size: int) -> str:
    """`words` cut with an ellipsis to fit `width` pixels."""
    if c.width_of(words, size) <= width:
        return words
    while words and c.width_of(words + "…", size) > width:
        words = words[:-1]
    return words + "…"


def card_rows(
    c: RgbCanvas | Canvas | None,
    x0: float,
    y0: float,
    width: float,
    cards: list[dict[str, Any]],
    w: int = 120,
    h: int = 50,
) -> float:
    """Lay `cards` (each {"lines": [...], "fill": colour, optional "outline", "width"}) out in rows that wrap
    at `width`; draw them when `c` is given.  Returns the y under the last row."""
    per_row = max(1, int((width + 8) // (w + 8)))
    rows = (len(cards) + per_row - 1) // per_row
    for i, card in enumerate(cards):
        x = x0 + (i % per_row) * (w + 8)
        y = y0 + (i // per_row) * (h + 8)
        if c is not None:
            c.card(x, y, w, h, card["lines"], card.get("fill", PAPER), card.get("outline", INK), card.get("width", 1))
    return y0 + rows * (h + 8)


# --- Drawing on the palette directly --------------------------------------------------------------------------
#
# `RgbCanvas.png` maps every pixel to the fixed palette at the end (`quantize`, a pure function of the pixel's
# colour).  `Canvas` gives the same bytes without the RGB picture: a shape's pixels get its colour's index at once,
# and words stamped on a background of one known colour get, pixel by pixel, the index of the blend that pasting
# them in RGB would give (`_stamp_p`: that blend drawn and mapped once per words, size, ink and background).  It
# knows a pixel's colour only while that colour is one drawn whole (paper, a fill, an ink): the blended pixels of
# words are marked in `dirty`.  Words over a dirty pixel, a mixed background or the canvas edge, or a colour whose
# index another colour shares, cannot be done this way: the canvas then draws everything again in RGB (`_fall`),
# from the operations it kept, and goes on in RGB.


@lru_cache(maxsize=256)
def index_of(colour: tuple[int, ...]) -> int:
    """The palette index `quantize` maps `colour` to."""
    one = Image.new("RGB", (1, 1), colour).quantize(palette=palette(), dither=Image.Dither.NONE)
    value = one.getpixel((0, 0))
    assert isinstance(value, int)
    return value


@lru_cache(maxsize=1)
def _palette_bytes() -> bytes:
    return bytes(palette().getpalette() or [])


_KNOWN: dict[int, RGB] = {}  # index -> the one whole colour drawn with it


def _known(colour: RGB) -> int | None:
    """`colour`'s index if no other colour drawn whole shares it (else None: this picture is drawn in RGB)."""
    i = index_of(colour)
    if _KNOWN.setdefault(i, colour) != colour:
        return None
    return i


#: a mask's value -> 255 where it blends (neither 0 nor 255), else 0
_BLENDS = [255 if 0 < a < 255 else 0 for a in range(256)]


def _blended(mask: Image.Image) -> Image.Image:
    """The pixels of `mask` that blend their ink with what is under it (255), as `mask.point(_BLENDS)` gives
    them without rounding the table's 256 whole numbers again in Python on each call (0.2 M instructions)."""
    return mask._new(mask.im.point(_BLENDS, None))


@tiles(2 * MIB)  # a P tile and a mask per words, ink and background, twice the bytes of their stamp
def _stamp_p(words: str, size: int, fill: RGB, background: RGB) -> tuple[Image.Image, Image.Image]:
    """`words` pasted in `fill` on `background`, as palette indices, and the mask of their blended pixels."""
    mask = stamp(words, size)[0]
    rgb = Image.new("RGB", mask.size, background)
    rgb.paste(fill, (0, 0), mask)
    blended = _blended(mask)
    return rgb.quantize(palette=palette(), dither=Image.Dither.NONE), blended


@tiles(2 * MIB)  # a P tile and a mask per card look, 10-15 KB each
def _card_p(
    w: int, h: int, lines: tuple[str, ...], fill: RGB, outline: RGB, width: int, look: Look = LOOK
) -> tuple[Image.Image, Image.Image] | None:
    """`card_tile` as palette indices, and the mask of its blended pixels (None: no tile, or unknown colours)."""
    tile = card_tile(w, h, lines, fill, outline, width, look)
    if tile is None or None in (_known(fill), _known(outline), _known(INK)):
        return None
    blended = Image.new("L", tile.size, 0)
    for i, line in enumerate(lines):
        size = look[1] if i else look[0]
        words = fit(RgbCanvas(1, 1), line, w - 10, size)
        mask, dx, dy, _ = stamp(words, size)
        blended.paste(255, (6 + dx, 5 + i * look[2] + dy), _blended(mask))
    return tile.quantize(palette=palette(), dither=Image.Dither.NONE), blended


#: At most this many drawn boxes are kept to tell untouched paper; past it, words read the pixels under them.
_TOUCHED = 32


def _bounds(xy: Any, width: float) -> tuple[int, int, int, int] | None:
    """A box holding every pixel a shape over the points `xy` with an outline (or line) of `width` may draw
    (None: `xy` is not a flat or paired sequence of numbers)."""
    try:
        flat = [float(v) for v in xy] if not isinstance(xy[0], (tuple, list)) else [float(v) for p in xy for v in p]
    except (TypeError, ValueError, IndexError):
        return None
    xs, ys = flat[0::2], flat[1::2]
    if not xs or len(xs) != len(ys):
        return None
    pad = int(width) + 2
    return int(min(xs)) - pad, int(min(ys)) - pad, int(max(xs)) + pad + 1, int(max(ys)) + pad + 1


class _Fall(Exception):
    """This drawing cannot be done on the palette directly."""


class _PaletteDraw:
    """`Canvas.draw`: the ImageDraw shapes the pictures use, on the palette (or in RGB after a fallback).

    It holds its canvas by a weak reference: a canvas holding its `draw` and the `draw` its canvas were a cycle,
    so every picture (its images, palette, drawing steps and owed marks: some 90 objects, about 180 a reply) was
    left to Python's collector instead of being freed when drawn; those were most of the garbage that set off a
    poll's collections (issue 27)."""

    def __init__(self, canvas: Canvas) -> None:
        self._canvas = weakref.ref(canvas)

    @property
    def canvas(self) -> Canvas:
        c = self._canvas()
        if c is None:
            raise ReferenceError("the canvas this drawing was made for is gone")
        return c

    def _shape(self, name: str, xy: Any, **kw: Any) -> None:
        c = self.canvas
        if c.rgb is None:
            try:
                inks = {k: (None if v is None else _known(v)) for k, v in kw.items() if k in ("fill", "outline")}
                if any(v is None and kw[k] is not None for k, v in inks.items()):
                    raise _Fall
                getattr(ImageDraw.Draw(c.image), name)(xy, **{**kw, **inks})
                cleared = {k: (None if v is None else 0) for k, v in inks.items()}
                c._mark(lambda dirty: getattr(ImageDraw.Draw(dirty), name)(xy, **{**kw, **cleared}))
                c._touch(_bounds(xy, kw.get("width") or 0))
                c.ops.append((name, (xy,), kw))
                return
            except _Fall:
                c._fall()
        assert c.rgb is not None
        getattr(c.rgb.draw, name)(xy, **kw)

    def rectangle(self, xy: Any, fill: RGB | None = None, outline: RGB | None = None, width: int = 1) -> None:
        self._shape("rectangle", xy, fill=fill, outline=outline, width=width)

    def rounded_rectangle(
        self, xy: Any, radius: int = 0, fill: RGB | None = None, outline: RGB | None = None, width: int = 1
    ) -> None:
        self._shape("rounded_rectangle", xy, radius=radius, fill=fill, outline=outline, width=width)

    def ellipse(self, xy: Any, fill: RGB | None = None, outline: RGB | None = None, width: int = 1) -> None:
        self._shape("ellipse", xy, fill=fill, outline=outline, width=width)

    def line(self, xy: Any, fill: RGB | None = None, width: int = 0) -> None:
        self._shape("line", xy, fill=fill, width=width)


class Canvas:
    """A white picture to draw on, drawn on the fixed palette directly (see above); `png()` gives the bytes
    `RgbCanvas` gives for the same drawing."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.image = Image.new("P", (width, height), index_of(PAPER))
        self.image.putpalette(_palette_bytes())
        self._dirty: Image.Image | None = None  # made when first read (`dirty`): most pictures never read it
        self._owed: list[Callable[[Image.Image], None]] = []  # marks not yet made on it, in order
        # Boxes (x0, y0, x1, y1, ends excluded) holding every pixel drawn so far: words whose box meets none of
        # them lie on untouched paper, with no blended pixel under them, without reading a pixel (None: not
        # known, every pixel is read; more than _TOUCHED boxes: the same)
        self.touched: list[tuple[int, int, int, int]] | None = []
        self.below = 0  # no box of `touched` reaches this row: a picture drawn from the top down asks only this
        self.rgb: RgbCanvas | None = None
        self.ops: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.draw = _PaletteDraw(self)
        if _known(PAPER) is None:
            self._fall()

    @property
    def dirty(self) -> Image.Image:
        """The mask of blended pixels (255: the pixel's colour is a blend, not a colour drawn whole).  Whoever
        reads it from outside may write it too: from then on every check reads its pixels."""
        self.touched = None
        return self._marks()

    def _marks(self) -> Image.Image:
        if self._dirty is None:
            self._dirty = Image.new("L", (self.width, self.height), 0)
        for owed in self._owed:
            owed(self._dirty)
        self._owed = []
        return self._dirty

    def _mark(self, change: Callable[[Image.Image], None]) -> None:
        """`change` made on the mask of blended pixels, now if it is made already, else when it is first read."""
        if self._dirty is None:
            self._owed.append(change)
        else:
            change(self._dirty)

    def _touch(self, box: tuple[int, int, int, int] | None) -> None:
        if self.touched is not None:
            if box is None or len(self.touched) >= _TOUCHED:
                self.touched = None
            else:
                self.touched.append(box)
                self.below = max(self.below, box[3])

    def _untouched(self, box: tuple[int, int, int, int]) -> bool:
        """Whether nothing was drawn in `box` yet: its pixels are all the paper's, none of them blended."""
        if self.touched is None:
            return False
        x0, y0, x1, y1 = box
        if y0 >= self.below:  # every box drawn ends above it (the pictures' words, drawn row by row): none met
            return True
        return not any(a < x1 and x0 < c and b < y1 and y0 < d for a, b, c, d in self.touched)

    def _fall(self) -> None:
        """Draw everything so far again in RGB, and go on there."""
        rgb = RgbCanvas(self.width, self.height)
        for name, args, kw in self.ops:
            target = getattr(rgb.draw, name) if name in ("rectangle", "rounded_rectangle", "ellipse", "line") else None
            (target or getattr(rgb, name))(*args, **kw)
        self.rgb, self.ops = rgb, []

    def text(self, xy: tuple[float, float], words: str, size: int = 13, fill: RGB = INK, anchor: str = "la") -> None:
        if self.rgb is None:
            mask, dx, dy, width = stamp(words, size)
            x, y = round(xy[0] - (width if anchor.startswith("r") else 0) + dx), round(xy[1]) + dy
            box = (x, y, x + mask.width, y + mask.height)
            if x >= 0 and y >= 0 and box[2] <= self.width and box[3] <= self.height and _known(fill) is not None:
                if self._untouched(box):  # on paper no drawing reached: no pixel to read
                    background: RGB | None = PAPER
                else:  # on Pillow's core images: the wrappers' checks and palette copies cost more than the pixels
                    low, high = self.image.im.crop(box).getextrema()
                    background = _KNOWN.get(low) if low == high else None
                    if background is not None and self._marks().im.crop(box).getbbox(False) is not None:
                        background = None
                if background is not None:
                    tile, blended = _stamp_p(words, size, fill, background)
                    self.image.im.paste(tile.im, box)
                    self._mark(lambda dirty: dirty.im.paste(255, box, blended.im))
                    self._touch(box)
                    self.ops.append(("text", (xy, words, size, fill, anchor), {}))
                    return
            self._fall()
        assert self.rgb is not None
        self.rgb.text(xy, words, size, fill, anchor)

    def width_of(self, words: str, size: int = 13) -> float:
        return stamp(words, size)[3]

    def box(self, xy: tuple[float, float, float, float], fill: RGB, outline: RGB = INK, width: int = 1) -> None:
        self.draw.rounded_rectangle(xy, radius=6, fill=fill, outline=outline, width=width)

    def card(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        lines: list[str],
        fill: RGB = PAPER,
        outline: RGB = INK,
        width: int = 1,
        look: Look = LOOK,
    ) -> None:
        """`RgbCanvas.card`: pasted from its tile on the palette where it has one."""
        at = (int(x), int(y))
        if self.rgb is None and at == (x, y) and at[0] >= 0 and at[1] >= 0 and int(w) == w and int(h) == h:
            tiles = _card_p(int(w), int(h), tuple(lines), fill, outline, width, look)
            if tiles is not None and at[0] + tiles[0].width <= self.width and at[1] + tiles[0].height <= self.height:
                box = (at[0], at[1], at[0] + tiles[0].width, at[1] + tiles[0].height)
                self.image.im.paste(tiles[0].im, box)
                mask = tiles[1].im
                self._mark(lambda dirty: dirty.im.paste(mask, box))
                self._touch(box)
                self.ops.append(("card", (x, y, w, h, lines, fill, outline, width, look), {}))
                return
        if self.rgb is None:  # drawn in place: its box and words, each on the palette if it can be
            self.draw.rectangle((x, y, x + w, y + h), fill=fill, outline=outline, width=width)
            for i, line in enumerate(lines):
                size = look[1] if i else look[0]
                self.text((x + 6, y + 5 + i * look[2]), fit(self, line, w - 10, size), size)
            return
        self.rgb.card(x, y, w, h, lines, fill, outline, width, look)

    def png(self) -> bytes:
        if self.rgb is not None:
            return self.rgb.png()
        return png_of(self.image)  # as `RgbCanvas.png` writes its quantized picture
