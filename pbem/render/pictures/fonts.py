"""The pictures' fonts: Open Sans, and Noto Sans CJK for the letters Open Sans lacks (Han, kana, Hangul).

Both ship as Python packages pinned in pyproject.toml (`ttf-opensans`, `noto-cjk-sans-jp-regular`), never system
fonts, so a picture is a function of pbem's version: `pbem verify --mail` draws it again and compares pixels.
Both are laid out by Pillow's basic layout (`LAYOUT`), never Raqm: Pillow's wheels use Raqm only where the system's
FriBiDi library loads, and the two layouts place the same words' glyphs apart (1,893 pixels of one line of a board
picture differed, docs4), so a picture drawn by a moderator with FriBiDi was named forged by a player without it.

A word Open Sans covers is drawn by the caller as before, in one FreeType call (`runs` gives None), so the
pictures of such words keep their bytes.  A word holding a letter Open Sans lacks is split into runs, each in the
first font that has its letters (Open Sans, then the CJK font; Open Sans's box for what neither has, an emoji),
and the runs are drawn on one baseline (`mixed`).  The CJK font (16 MB) is opened only then: most polls never
read it.  Which letters a font has is read from its `cmap` table (`_ranges`), once per process.

Arabic and Hebrew (pictures3): a word holding a right-to-left letter is first shaped and put in display order
in Python, never by Raqm: `arabic_reshaper` gives each Arabic letter its joining form (the presentation forms
Noto Sans Arabic has), `bidi.algorithm` (python-bidi's own UAX #9, with mirroring) the visual order; both are
pinned, so the same name is the same pixels everywhere.  Its Arabic letters are drawn in Noto Sans Arabic
(`fontpkg-noto-sans-arabic`), its Hebrew in Heebo (`fontpkg-heebo`), each opened, and the two libraries
imported, only for such a word.  Vowel points and invisible marks are left out of the picture (the text parts
have them): the basic layout cannot place a mark over its letter.  python-bidi's Python algorithm lacks UAX #9's
bracket pairs: a bracket closing a right-to-left name at the end of a line may face the wrong way.

Thai and Devanagari (pictures4): drawn in Noto Sans Thai and Noto Sans Devanagari (`fontpkg-noto-sans-thai`,
`fontpkg-noto-sans-devanagari`), each opened only for a word with a letter of its script, by the basic layout
like the rest: each letter in the order it is written, a mark (zero advance) over or under the letter before it.
That is a plain but true drawing: a Thai tone mark over a vowel mark touches it; a Devanagari conjunct is drawn
spelled out, each consonant whole with its virama under it (the explicit form the script uses where a font
lacks the conjunct).  The one thing the basic layout draws wrong, Devanagari's vowel sign I after its consonant
(it is read and drawn before it), is put right in Python (`_sign_i_first`).  Other Indic and South-East Asian
scripts stay boxes: their fonts are not on pip, or need more (Khmer's subscript consonants).
"""

from __future__ import annotations

import bisect
import math
import struct
import unicodedata
from array import array
from functools import lru_cache
from importlib import import_module

import ttf_opensans
from PIL import Image, ImageChops, ImageFont

#: A run of a word and the font it is drawn in: `OPENSANS`, `CJK`, `ARABIC`, `HEBREW`, `THAI` or `DEVANAGARI`
#: (False and True are the first two, as before pictures3).
Run = tuple[str, int]
OPENSANS, CJK, ARABIC, HEBREW, THAI, DEVANAGARI = range(6)
#: The code points a font has: the firsts and the lasts of its ranges, sorted.
Ranges = tuple["array[int]", "array[int]"]

#: Letters drawn with the letter before them where its font has them: combining marks, joiners, selectors.
_JOINING = {"Mn", "Mc", "Me", "Cf"}
#: The bidirectional classes of the right-to-left letters: a word holding one is put in display order.
_RTL = {"R", "AL"}
#: The code points each right-to-left font is asked for: Hebrew and its presentation forms; Arabic, its
#: supplements and its presentation forms (the joining forms `arabic_reshaper` gives).
_SCRIPT = [
    ((0x0590, 0x05FF), HEBREW),
    ((0xFB1D, 0xFB4F), HEBREW),
    ((0x0600, 0x08FF), ARABIC),
    ((0xFB50, 0xFEFC), ARABIC),
    ((0x0E00, 0x0E7F), THAI),
    ((0x0900, 0x097F), DEVANAGARI),
    ((0xA8E0, 0xA8FF), DEVANAGARI),
]
#: The fonts whose ink may reach below Open Sans's line: their runs are raised together and cut to it (`mixed`).
_LIFTED = (ARABIC, HEBREW, DEVANAGARI)
#: Each script font's package and file (imported and opened when a word first needs it).
_FILES = {
    ARABIC: ("fontpkg_noto_sans_arabic", "NotoSansArabic[wdth,wght].ttf"),
    HEBREW: ("fontpkg_heebo", "Heebo[wght].ttf"),
    THAI: ("fontpkg_noto_sans_thai", "NotoSansThai[wdth,wght].ttf"),
    DEVANAGARI: ("fontpkg_noto_sans_devanagari", "NotoSansDevanagari[wdth,wght].ttf"),
}
#: Devanagari's consonants (with the nukta-ed ones); its vowel sign I (drawn before the consonant it follows).
_CONSONANTS = {*map(chr, range(0x0915, 0x093A)), *map(chr, range(0x0958, 0x0960)), *map(chr, range(0x0978, 0x0980))}
_NUKTA, _SIGN_I = "\u093c", "\u093f"


#: How the pictures' words are laid out, whatever libraries the machine has (see above).
LAYOUT = ImageFont.Layout.BASIC


@lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont:
    """Open Sans (the `ttf-opensans` package): Latin with every accent, Greek and Cyrillic, as player names
    have them (Pillow's embedded font draws a box for each letter past ASCII: "Zo□ M□ller")."""
    return ImageFont.truetype(_opensans_path(), size, layout_engine=LAYOUT)


@lru_cache(maxsize=8)  # each size a FreeType face of its own, about 1 MB: the pictures use 11 to 14
def cjk_font(size: int) -> ImageFont.FreeTypeFont:
    """Noto Sans CJK JP Regular (the `noto-cjk-sans-jp-regular` package): the pan-CJK font, Han, kana and Hangul.
    FreeType maps the file and reads the glyphs a word asks for, not the 16 MB."""
    return ImageFont.truetype(_cjk_path(), size, layout_engine=LAYOUT)


@lru_cache(maxsize=32)
def rtl_font(kind: int, size: int) -> ImageFont.FreeTypeFont:
    """Noto Sans Arabic (`ARABIC`), Heebo (`HEBREW`, the Hebrew font pip has), Noto Sans Thai (`THAI`) or Noto
    Sans Devanagari (`DEVANAGARI`): variable fonts, drawn at their default instance, Regular (weight 400, width
    100)."""
    return ImageFont.truetype(_path(kind), size, layout_engine=LAYOUT)


def face(kind: int, size: int) -> ImageFont.FreeTypeFont:
    """The font a run of `kind` is drawn in at `size`."""
    if kind == OPENSANS:
        return font(size)
    return cjk_font(size) if kind == CJK else rtl_font(kind, size)


def _path(kind: int) -> str:
    if kind in _FILES:
        package, name = _FILES[kind]  # imported when first needed: a word with a letter of its script
        return str(import_module(package).ROOT / "files" / name)
    return _cjk_path() if kind == CJK else _opensans_path()


def _opensans_path() -> str:
    return str(ttf_opensans.opensans(font_weight=400).path)


def _cjk_path() -> str:
    import noto_cjk_sans_jp_regular  # imported when first needed: a word with a letter Open Sans lacks

    return str(noto_cjk_sans_jp_regular.FONT_PATH)


@lru_cache(maxsize=8)
def _ranges(path: str) -> Ranges:
    """The code points the Unicode `cmap` of the font at `path` maps to a glyph, as sorted (firsts, lasts) of
    ranges: its format 12 subtable (every plane) where it has one, else its format 4 (the BMP).  In arrays of
    C integers: the CJK font's 15,286 ranges in 122 KB (1.1 MB as tuples of Python ints)."""
    with open(path, "rb") as f:
        count = struct.unpack(">H", f.read(12)[4:6])[0]
        records = f.read(16 * count)
        tables = {records[i : i + 4]: struct.unpack(">II", records[i + 8 : i + 16]) for i in range(0, 16 * count, 16)}
        offset, length = tables[b"cmap"]
        f.seek(offset)
        cmap = f.read(length)
    subtables = {}
    for i in range(struct.unpack(">H", cmap[2:4])[0]):
        platform, encoding, at = struct.unpack(">HHI", cmap[4 + 8 * i : 12 + 8 * i])
        if (platform, encoding) in ((3, 10), (0, 4), (0, 6), (3, 1), (0, 3)):
            subtables[struct.unpack(">H", cmap[at : at + 2])[0]] = at
    pairs = _format12(cmap, subtables[12]) if 12 in subtables else _format4(cmap, subtables[4])
    return array("I", (a for a, _ in pairs)), array("I", (b for _, b in pairs))


def _format12(cmap: bytes, at: int) -> list[tuple[int, int]]:
    groups = struct.unpack(">I", cmap[at + 12 : at + 16])[0]
    body = struct.iter_unpack(">III", cmap[at + 16 : at + 16 + 12 * groups])
    return sorted((first + (glyph == 0), last) for first, last, glyph in body if first + (glyph == 0) <= last)


def _format4(cmap: bytes, at: int) -> list[tuple[int, int]]:
    """Each code point a format 4 subtable maps to a glyph other than 0 (the box), in ranges."""
    segments = struct.unpack(">H", cmap[at + 6 : at + 8])[0] // 2
    ends = struct.unpack(f">{segments}H", cmap[at + 14 : at + 14 + 2 * segments])
    base = at + 16 + 2 * segments
    starts = struct.unpack(f">{segments}H", cmap[base : base + 2 * segments])
    deltas = struct.unpack(f">{segments}h", cmap[base + 2 * segments : base + 4 * segments])
    where = base + 6 * segments
    offsets = struct.unpack(f">{segments}H", cmap[where - 2 * segments : where])
    covered: list[int] = []
    for i, (start, end, delta, offset) in enumerate(zip(starts, ends, deltas, offsets)):
        for c in range(start, min(end, 0xFFFE) + 1):
            if offset:
                at_glyph = where - 2 * segments + 2 * i + offset + 2 * (c - start)
                glyph = struct.unpack(">H", cmap[at_glyph : at_glyph + 2])[0]
                glyph = (glyph + delta) & 0xFFFF if glyph else 0
            else:
                glyph = (c + delta) & 0xFFFF
            if glyph:
                covered.append(c)
    pairs: list[tuple[int, int]] = []
    for c in covered:
        if pairs and pairs[-1][1] == c - 1:
            pairs[-1] = (pairs[-1][0], c)
        else:
            pairs.append((c, c))
    return pairs


def _has(ranges: Ranges, point: int) -> bool:
    i = bisect.bisect_right(ranges[0], point) - 1
    return i >= 0 and point <= ranges[1][i]


@lru_cache(maxsize=1)
def _opensans_letters() -> frozenset[str]:
    firsts, lasts = _ranges(_opensans_path())
    return frozenset(chr(c) for a, b in zip(firsts, lasts) for c in range(a, b + 1))


def runs(words: str) -> list[Run] | None:
    """`words` as runs of one font each, in display order, or None where they are drawn in Open Sans alone, as
    before pictures2: every letter is Open Sans's, or none of the others is another font's either (an emoji: Open
    Sans's box) and none is right to left."""
    if words.isascii() and words.isprintable():  # Open Sans has all of printable ASCII: most words, no cmap read
        return None
    opensans = _opensans_letters()
    if opensans.issuperset(words):
        return None
    shown = _display(words) if any(unicodedata.bidirectional(ch) in _RTL for ch in words) else words
    if _SIGN_I in shown:
        shown = _sign_i_first(shown)
    kinds: list[int] = []  # each letter's font (a mark after a letter of another font stays with it where it can)
    for ch in shown:
        after = kinds[-1] if kinds and unicodedata.category(ch) in _JOINING else OPENSANS
        if after != OPENSANS and _has(_ranges(_path(after)), ord(ch)):
            kinds.append(after)
        else:
            kinds.append(OPENSANS if ch in opensans else _kind(ord(ch)))
    if shown == words and not any(kinds):
        return None
    out: list[Run] = []
    start = 0
    for i in range(1, len(shown) + 1):
        if i == len(shown) or kinds[i] != kinds[start]:
            out.append((shown[start:i], kinds[start]))
            start = i
    return out


def _sign_i_first(words: str) -> str:
    """`words` with each Devanagari vowel sign I before the consonant it follows (and that consonant's nukta), where
    it is drawn: the basic layout draws the letters in the order they are written, कि as क then ि (read "क ि").
    Conjuncts stay apart, each consonant before a virama drawn whole with the virama under it (प्रिया as प्‌रिया,
    the explicit form): the sign then goes before the last consonant, as in that form."""
    out: list[str] = []
    for ch in words:
        if ch == _SIGN_I and out:
            at = len(out) - 1
            if out[at] == _NUKTA and at > 0:
                at -= 1
            if out[at] in _CONSONANTS:
                out.insert(at, ch)  # at most two places back: linear
                continue
        out.append(ch)
    return "".join(out)


def _kind(point: int) -> int:
    """The font of a letter Open Sans lacks: its script's, or the CJK font's, where that has it; else Open Sans
    (its box)."""
    kind = next((k for (first, last), k in _SCRIPT if first <= point <= last), CJK)
    return kind if _has(_ranges(_path(kind)), point) else OPENSANS


def _display(words: str) -> str:
    """`words` as they are drawn from left to right: Arabic letters in their joining forms, then the whole in
    UAX #9's visual order in a left-to-right line, as the pictures' English lines are ("محمد علي: score 0" keeps
    the name first, read from the right; a number or a Latin name in it left to right, brackets mirrored),
    without vowel points and invisible marks (see above).  A letter with no bidirectional class is ordered as a
    left-to-right one (`_NO_CLASS`)."""
    from bidi.algorithm import get_display

    if not all(unicodedata.bidirectional(ch) for ch in words):  # python-bidi asserts on a class it lacks
        words = "".join(ch if unicodedata.bidirectional(ch) else _NO_CLASS for ch in words)
    shown = str(get_display(_reshaper().reshape(words), base_dir="L"))  # the pictures' lines are English
    return "".join(ch for ch in shown if not _unplaced(ch))


@lru_cache(maxsize=1)
def _reshaper():  # type: ignore[no-untyped-def]
    """`arabic_reshaper`'s defaults alone: an empty configuration file named, so the one an environment variable
    names (`PYTHON_ARABIC_RESHAPER_CONFIGURATION_FILE`) cannot change a picture; the variable is set aside while
    the module is imported too (its import reads the file, and raises where it is missing)."""
    import os

    named = os.environ.pop(_RESHAPER_FILE, None)
    try:
        import arabic_reshaper
    finally:
        if named is not None:
            os.environ[_RESHAPER_FILE] = named
    return arabic_reshaper.ArabicReshaper(configuration_file=os.devnull)


_RESHAPER_FILE = "PYTHON_ARABIC_RESHAPER_CONFIGURATION_FILE"
#: What a code point with no bidirectional class (unassigned in this Python's Unicode: U+0378, U+0E7F) is ordered
#: as: a private-use letter (class L) no font has, so it is drawn as the same box; python-bidi raised an
#: AssertionError for the word instead (pictures4's fuzzer: 2,554 of 3,000 words on e5c877a, every one with a
#: right-to-left letter; none now).
_NO_CLASS = "\ue000"


def _unplaced(ch: str) -> bool:
    """A format character (a bidi mark, a joiner), or a vowel point of Hebrew or Arabic."""
    category = unicodedata.category(ch)
    return category == "Cf" or (category == "Mn" and (0x0590 <= ord(ch) <= 0x08FF or 0xFB1D <= ord(ch) <= 0xFEFC))


def _lifted(pieces: list[tuple[Image.Image, int, int, int]], line: int) -> list[tuple[Image.Image, int, int, int]]:
    """`pieces` with their right-to-left and Devanagari runs raised together as far as their ink reaches below
    `line`."""
    deep = max((y + ink[3] - line for m, _, y, k in pieces if k in _LIFTED and (ink := m.getbbox())), default=0)
    return [(m, x, y - deep if deep > 0 and k in _LIFTED else y, k) for m, x, y, k in pieces]


def mixed(parts: list[Run], size: int) -> tuple[Image.Image, int, int, float]:
    """The runs drawn one after another on Open Sans's baseline, each from where the one before ended (its
    fraction of a pixel passed to FreeType): the mask, its offset from the words' top left as `ImageDraw.text`
    places it with anchor "la" (the top of Open Sans's ascender), and the words' advance.  Cut to Open Sans's
    line where a run is right to left, so a card's lines never meet: Noto Sans Arabic's deepest ink (the dots of
    a final ي, the foot of ج) reaches up to 2 px below it at 11 to 14 px, so the word's right-to-left runs are
    drawn that much higher, never cut (cut, علي read as على); so are its Devanagari runs (the vocalic signs
    ॄ ॢ ॣ reach 2 px below); the CJK and Thai runs fit it as they are (tests/test_pictures_cjk.py,
    tests/test_pictures_scripts.py)."""
    ascent, descent = font(size).getmetrics()  # anchor "la" is `ascent` above the baseline
    pen, pieces = 0.0, []
    for words, kind in parts:
        f = face(kind, size)
        x = math.floor(pen)
        drawn, (left, top) = f.getmask2(words, "L", anchor="ls", start=(pen - x, 0))
        if drawn.size[0] and drawn.size[1]:
            pieces.append((Image.Image()._new(drawn), x + left, ascent + top, kind))
        pen += f.getlength(words)
    if any(kind in _LIFTED for _, kind in parts):
        pieces = _lifted(pieces, ascent + descent)
    if not pieces:
        return Image.new("L", (1, 1), 0), 0, 0, pen
    left = min(x for _, x, _, _ in pieces)
    top = min(y for _, _, y, _ in pieces)
    right = max(x + m.width for m, x, _, _ in pieces)
    bottom = max(y + m.height for m, _, y, _ in pieces)
    if any(kind in _LIFTED for _, kind in parts):
        top, bottom = max(0, top), min(ascent + descent, bottom)
    if bottom <= top:
        return Image.new("L", (1, 1), 0), 0, 0, pen
    mask = Image.new("L", (right - left, bottom - top), 0)
    for m, x, y, _ in pieces:  # where two runs' pixels meet, the darker ink
        box = (x - left, y - top, x - left + m.width, y - top + m.height)
        mask.paste(ImageChops.lighter(mask.crop(box), m), box)
    return mask, left, top, pen
