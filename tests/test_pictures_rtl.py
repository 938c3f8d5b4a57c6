"""Arabic and Hebrew names in the board picture: shaped, in display order, drawn with their letters, not boxes.

Until pictures3 no font of the pictures had an Arabic or Hebrew letter, and Pillow's basic layout (the only one
pbem uses, `fonts.LAYOUT`) neither joins Arabic letters nor reorders right-to-left text: محمد علي was a row of
boxes, left to right.  Now such a word is shaped (`arabic_reshaper`) and put in display order (python-bidi's
UAX #9) in Python, then drawn in runs: Noto Sans Arabic, Heebo for Hebrew, Open Sans and Noto Sans CJK for the
rest.  Thai and Devanagari were boxes until pictures4 (tests/test_pictures_scripts.py).
"""

from __future__ import annotations

import json
import random
import unicodedata
from importlib import import_module

import pytest
from PIL import Image, ImageStat

from pbem.render.pictures import MODULES, fonts
from pbem.render.pictures.canvas import RgbCanvas, fit, font, stamp
from tests.engine.test_contract import moments
from tests.test_pictures_cjk import _game, _pngs, drawn_alike_with_raqm_hidden, verify_mail_of_a_game_of

#: The players of the seeded games: Arabic, Hebrew, a Polish-Arabic double name, German.
RTL = ["محمد علي", "דוד כהן", "Łukasz-محمد", "Müller"]
#: The letters names are generated from, by script.
SCRIPTS = {
    "Arabic": "ابتثجحخدذرزسشصضطظعغفقكلمنهويةىءأإآؤئپچژگی",
    "Hebrew": "אבגדהוזחטיכלמנסעפצקרשתךםןףץ",
    "Thai": "".join(map(chr, range(0x0E01, 0x0E2F))),
    "Devanagari": "".join(map(chr, range(0x0915, 0x093A))) + "\u093e\u093f\u0940",
    "Greek": "αβγδεζηθικλμνξοπρστυφχψωΑΒΓΔΕΖΘΛΞΠΣΦΨΩάέήίόύώ",
    "Cyrillic": "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЖЗИЛПФЦЧШЩЭЮЯ",
}
LATIN = ["Anna", "Łukasz", "Zoë", "Jean-Luc 2"]
#: A vowel point, and the right-to-left mark a phone may add, after a word of a right-to-left script.
MARKS = {"Arabic": ["\u064e", "\u200f"], "Hebrew": ["\u05b8", "\u200f"]}


def _names(script: str, rnd: random.Random, n: int) -> list[str]:
    """`n` names of one or two words of the script, and `n` mixing such a word with a Latin name: before it,
    after it, in brackets; in Arabic and Hebrew with a vowel point or a bidi mark now and then (`MARKS`)."""
    pool = SCRIPTS[script]

    def word() -> str:
        w = "".join(rnd.choices(pool, k=rnd.randint(3, 8)))
        return w + rnd.choice(["", "", *MARKS.get(script, [])])

    pure = [word() + rnd.choice(["", " " + word()]) for _ in range(n)]
    latin = [f"{rnd.choice(LATIN)} {word()}", f"{word()}-{rnd.choice(LATIN)}", f"{word()} ({rnd.choice(LATIN)})"]
    return pure + [rnd.choice(latin) for _ in range(n)]


def _boxed(words: str) -> list[str]:
    """The letters of `words` drawn as a box: not in the font of their run."""
    parts = fonts.runs(words) or [(words, fonts.OPENSANS)]
    return [ch for w, kind in parts for ch in w if not fonts._has(fonts._ranges(fonts._path(kind)), ord(ch))]


def test_arabic_and_hebrew_names_generated_are_drawn_without_a_box_shaped_and_within_the_line() -> None:
    """Generator: 20 names in each script and 20 mixing it with Latin.  No Arabic, Hebrew, Greek or Cyrillic name
    has a letter drawn as a box (on d4333cc every Arabic and Hebrew one did: 80 of 80); nor, since pictures4, any
    Thai or Devanagari one (80 of 80 on e5c877a).  Each Arabic name is drawn in joining forms (no letter with such forms left bare), each is
    within Open Sans's line at the pictures' sizes, its advance the sum of its runs', and cut by `fit` to a width
    it ends with the ellipsis and fits."""
    rnd = random.Random("rtl names")
    boxed = {}
    for script in SCRIPTS:
        names = _names(script, rnd, 20)
        boxed[script] = sum(bool(_boxed(n)) for n in names)
        if script not in ("Arabic", "Hebrew"):
            continue
        for name in names:
            shown = "".join(w for w, _ in fonts.runs(name) or [])
            assert not any(0x0621 <= ord(ch) <= 0x064A and ch not in "ءة" for ch in shown), (name, shown)
            size = 11 + len(name) % 4
            mask, _, dy, advance = stamp(name, size)
            ascent, descent = font(size).getmetrics()
            assert dy >= 0 and dy + mask.height <= ascent + descent, (name, size, dy, mask.size)
            assert advance == sum(fonts.face(k, size).getlength(w) for w, k in fonts.runs(name) or []), name
            if len(name) % 3:
                continue  # cut a third of them: each cut draws the name's starts one by one
            got = fit(RgbCanvas(1, 1), name, 0.6 * advance, size)
            assert got.endswith("…") and name.startswith(got[:-1]), (name, got)
            assert stamp(got, size)[3] <= 0.6 * advance or got == "…", (name, got)  # as a Latin name's
    assert boxed == {"Arabic": 0, "Hebrew": 0, "Thai": 0, "Devanagari": 0, "Greek": 0, "Cyrillic": 0}, boxed
    assert _boxed("\uffff") == ["\uffff"], "the check can fail: U+FFFF is in no font, a box"


def test_right_to_left_names_read_from_the_right_with_latin_and_numbers_left_to_right() -> None:
    """The display order, by hand, in a left-to-right line (the pictures' lines are English: "محمد علي: score 0"
    keeps the name first): a right-to-left name's words from the right, the letters of each reversed; a Latin
    name or a number in it left to right; brackets in it mirrored; Arabic letters joined (lam-alef one glyph);
    vowel points and bidi marks left out; a word of a script no font has (Syriac) reordered all the same."""
    o, a, h = fonts.OPENSANS, fonts.ARABIC, fonts.HEBREW
    assert fonts.runs("محمد علي") == [("ﻲﻠﻋ", a), (" ", o), ("ﺪﻤﺤﻣ", a)]
    assert fonts.runs("Łukasz-محمد") == [("Łukasz-", o), ("ﺪﻤﺤﻣ", a)]
    assert fonts.runs("محمد (Ali)") == [("ﺪﻤﺤﻣ", a), (" (Ali)", o)]
    assert fonts.runs("محمد علي: score 0") == [("ﻲﻠﻋ", a), (" ", o), ("ﺪﻤﺤﻣ", a), (": score 0", o)]
    assert fonts.runs("דוד (כהן) לוי") == [("יול", h), (" (", o), ("ןהכ", h), (") ", o), ("דוד", h)]
    assert fonts.runs("مُحَمَّد") == fonts.runs("محمد") and fonts.runs("لا") == [("ﻻ", a)]
    assert fonts.runs("דוד כהן") == [("ןהכ", h), (" ", o), ("דוד", h)]
    assert fonts.runs("שָׁלוֹם 12") == [("12 ", o), ("םולש", h)] == fonts.runs("\u200fשלום 12\u200e")  # noqa: RUF001
    assert fonts.runs("田中 דוד") == [("田中", fonts.CJK), (" ", o), ("דוד", h)]
    assert fonts.runs("ܐܒܓ") == [("ܓܒܐ", o)] and fonts.runs("Zoë") is None


def test_latin_and_cjk_words_never_shape_reorder_or_open_the_right_to_left_fonts(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The Arabic and Hebrew fonts and the two libraries are read only for a word with a right-to-left letter: a
    Latin, Greek, Cyrillic or CJK word is drawn as on d4333cc (tests/test_pictures_cjk.py has its pixels)."""
    from tests.test_pictures_cjk import CJK, COVERED, _mixed_words

    def never(*args: object) -> None:
        raise AssertionError("a right-to-left font or library used for a word without such a letter")

    monkeypatch.setattr(fonts, "rtl_font", never)
    monkeypatch.setattr(fonts, "_display", never)
    stamp.cache_clear()
    for words in [*CJK, *COVERED, *_mixed_words(20, "no rtl")]:
        fonts.mixed(fonts.runs(words) or [(words, fonts.OPENSANS)], 13)
        assert all(kind in (fonts.OPENSANS, fonts.CJK) for _, kind in fonts.runs(words) or []), words
    stamp.cache_clear()


def test_every_arabic_and_hebrew_letter_keeps_all_its_ink_within_the_line() -> None:
    """Generator: each Arabic presentation form (the letters `arabic_reshaper` gives) and each Hebrew letter at the
    pictures' sizes (11 to 14 px) is drawn within Open Sans's line with every pixel of its glyph.  On 8e2ea21 the
    line cut Noto Sans Arabic's deepest ink, 86 of the 1,000 letters and sizes: a final ي lost its two dots (علي
    read as على), the foot of ج, ح and ع went; now a word's right-to-left runs are drawn that much higher (at most
    2 px), its other runs where they were."""
    letters = [(chr(cp), fonts.ARABIC) for cp in [*range(0xFE80, 0xFEFD), *range(0xFB50, 0xFBB2)]]
    letters += [(chr(cp), fonts.HEBREW) for cp in range(0x05D0, 0x05EB)]
    lost, drawn = [], 0
    for size in (11, 12, 13, 14):
        ascent, descent = font(size).getmetrics()
        for ch, kind in letters:
            glyph = fonts.face(kind, size).getmask2(ch, "L", anchor="ls")[0]
            if fonts.runs(ch) != [(ch, kind)] or not glyph.size[0] * glyph.size[1]:
                continue
            drawn += 1
            mask, _, dy, _ = stamp(ch, size)
            assert dy >= 0 and dy + mask.height <= ascent + descent, (ch, size)
            if ImageStat.Stat(mask).sum != ImageStat.Stat(Image.Image()._new(glyph)).sum:
                lost.append((hex(ord(ch)), size))
    assert drawn == 1000 and not lost, f"{len(lost)} of {drawn} drawn with less ink than their glyph: {lost[:8]}"
    ali = fonts.face(fonts.ARABIC, 13).getmask2("ﻲﻠﻋ", "L", anchor="ls")[0]  # علي joined, as the README names it
    assert ImageStat.Stat(stamp("علي", 13)[0]).sum == ImageStat.Stat(Image.Image()._new(ali)).sum


def test_right_to_left_words_are_put_in_order_in_time_linear_in_their_length() -> None:
    """Shaping and ordering (`fonts._display`) and the split into runs: words of 500 and 2,000 letters mixing
    Arabic, Hebrew, Latin, digits and brackets.  Counted in lines of Python executed (`step_growth`: arabic-reshaper
    and python-bidi's algorithm are Python), exact on any machine: timed, a CI run read 7.1 at 4x against a bound of
    6 from one fast small reading, the other readings 4.5-5."""
    from tests.growth import step_growth

    unit = "محمد דוד a1( "
    fonts.runs(unit * 3)  # the libraries imported and the fonts opened before counting
    g = step_growth(lambda n: lambda: fonts.runs(unit * (n // len(unit))), 500)
    assert g.ratio <= 5, str(g)  # linear reads 4.0; square 16


def test_a_reshaper_configuration_named_in_the_environment_changes_no_picture(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`arabic_reshaper` reads a configuration file named by an environment variable: pbem's pictures use its
    defaults whatever the variable names, a file that would keep the vowel points or none at all."""
    import sys

    expected = fonts.runs("مُحَمَّد علي")
    kept = tmp_path / "reshaper.ini"
    kept.write_text("[ArabicReshaper]\ndelete_harakat = no\nsupport_ligatures = no\n")
    for named in (str(kept), str(tmp_path / "missing.ini")):
        monkeypatch.setenv(fonts._RESHAPER_FILE, named)
        monkeypatch.delitem(sys.modules, "arabic_reshaper", raising=False)
        monkeypatch.delitem(sys.modules, "arabic_reshaper.arabic_reshaper", raising=False)
        fonts._reshaper.cache_clear()
        assert fonts.runs("مُحَمَّد علي") == expected, named
        assert __import__("os").environ[fonts._RESHAPER_FILE] == named
    monkeypatch.undo()
    fonts._reshaper.cache_clear()


@pytest.mark.parametrize("kind", ["habsburg"])  # the others draw names alike (test_pictures_cjk.py)
def test_a_game_of_players_named_in_arabic_and_hebrew_draws_their_names_alike_with_raqm_or_without(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seeded game of محمد علي, דוד כהן, Łukasz-محمد and Müller: every picture of it differs from the same
    picture with each right-to-left letter written as a character no font has (U+FFFF, the box; on d4333cc they
    were the same pixels), and has the same pixels whether Pillow could use Raqm or not (pbem never lets it)."""
    from PIL import features

    mod = import_module(MODULES[kind])
    eng, pt = _game(kind, RTL)
    rtl = {"R", "AL", "NSM"}
    boxed = {n: "".join("\uffff" if unicodedata.bidirectional(ch) in rtl else ch for ch in n) for n in pt.players}
    views = [eng.view(s, r) for s in moments(eng, pt, 2) for r in [None, *pt.players]]

    for view in views:
        text = json.dumps(view, ensure_ascii=False)
        for n, b in boxed.items():
            text = text.replace(n, b)
        assert _pngs(mod, view) != _pngs(mod, json.loads(text)), kind
    if features.check_feature("raqm"):
        drawn_alike_with_raqm_hidden(mod, views, monkeypatch)


def test_verify_mail_of_a_game_with_arabic_and_hebrew_names_passes(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A House of Habsburg game of محمد علي, דוד כהן, Łukasz-محمد and Müller, dealt, its first reports mailed by a
    real poll, then abandoned: `pbem verify --mail` of each player's mailbox draws their pictures again and passes.
    Drawn as d4333cc drew (right-to-left letters as boxes, left to right), the mail of محمد علي and דוד כהן is named."""
    verify_mail_of_a_game_of(RTL, RTL[:2], tmp_path, monkeypatch)
