"""Names in Chinese, Japanese and Korean in the board picture: drawn with their letters, not as boxes.

Open Sans (the pictures' font) has no Han, kana or Hangul: until pictures2 a player named 田中 or 김민수 was
drawn as a row of FreeType's missing-glyph boxes in every picture (the text parts always had the name).  Now a
word holding a letter Open Sans lacks is drawn in runs: Open Sans where it has the letter, Noto Sans CJK where
that has it, Open Sans's box only for what neither has (an emoji).  A word Open Sans covers is drawn exactly as
before: one call to FreeType, the same pixels.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
from importlib import import_module
from typing import Any

import pytest
from PIL import Image, ImageFont

from pbem import engine as registry
from pbem.engine.bots import play
from pbem.render.pictures import MODULES
from pbem.render.pictures.canvas import RgbCanvas, fit, font, stamp
from tests.engine.test_contract import moments

KINDS = sorted(MODULES)
#: The brief's players: Chinese (or Japanese), Korean, a Polish-Japanese double name, German.
CJK = ["田中", "김민수", "Łukasz-山田", "Müller"]
#: Names Open Sans covers, and one with an emoji no font here has: drawn as on a0540ce.
COVERED = ["Zoë Núñez 🎲", "Σοφία", "Жанна", "Müller"]
#: Han, Hiragana, Katakana and Hangul syllables as Unicode 1.1 had them: every code point a letter
SPANS = [(0x4E00, 0x9FA5), (0x3041, 0x3094), (0x30A1, 0x30FA), (0xAC00, 0xD7A3)]


def _game(kind: str, names: list[str]):  # type: ignore[no-untyped-def]
    eng = registry.get(kind)
    return eng, play(eng, names[: eng.max_players], "pic", bot_seed="pic-bot", timeout_every=9)


def _pngs(mod, view, drawn=lambda draw, arg: draw(arg)) -> list[bytes]:  # type: ignore[no-untyped-def]
    """The PNGs of every picture a reader of `view` gets (the public map, then their own), drawn afresh by
    `drawn(draw, arg)`: no cache of `board` between."""
    out = [drawn(mod.draw_public, mod.public_key(view))] if hasattr(mod, "draw_public") else []
    out += [d for d in [drawn(mod.draw, view)] if d is not None]
    return [c.png() for c, _ in out]


def _boxes(size: int) -> list[bytes]:
    """The missing-glyph box of Open Sans and of the CJK font at `size`, as mask bytes with their size."""
    import noto_cjk_sans_jp_regular as noto

    fonts = [font(size), ImageFont.truetype(str(noto.FONT_PATH), size)]
    return [_key(Image.Image()._new(f.getmask("\uffff"))) for f in fonts]


def _key(mask: Image.Image) -> bytes:
    return bytes(str(mask.size), "ascii") + mask.tobytes()


def test_every_han_kana_and_hangul_letter_sampled_is_drawn_as_itself_not_a_box() -> None:
    """Generator: 160 letters drawn at random from Han, Hiragana, Katakana and Hangul syllables, and every
    letter of the brief's names, at the sizes the pictures use: none is drawn as either font's missing-glyph box.
    On a0540ce every one of them was Open Sans's box."""
    rnd = random.Random("cjk letters")
    letters = {ch for name in CJK for ch in name if ord(ch) > 0x2FFF}
    letters |= {chr(rnd.randint(*span)) for span in SPANS for _ in range(40)}
    boxed = []
    for size in (11, 12, 13, 14):
        boxes = _boxes(size)
        for ch in sorted(letters):
            mask = stamp(ch, size)[0]
            if _key(mask) in boxes:
                boxed.append((ch, size))
    assert not boxed, f"{len(boxed)} of {4 * len(letters)} drawn as a box: {boxed[:12]}"
    assert _key(stamp("\uffff", 13)[0]) == _boxes(13)[0], "the check can fail: U+FFFF is in no font, a box"


@pytest.mark.parametrize("kind", KINDS)
def test_a_game_of_players_named_in_cjk_draws_their_names_not_boxes(kind: str) -> None:
    """A seeded game whose players are 田中, 김민수, Łukasz-山田 and Müller: every picture of it differs from the
    same picture with each CJK letter of the names written as a character no font has (U+FFFF, drawn as the box).
    On a0540ce they were the same pixels: the names were boxes.  Each is drawn on the palette (`Canvas`) as in RGB
    mapped to the palette at the end (`RgbCanvas`, the reference)."""
    from tests.test_pictures import _drawn_with

    mod = import_module(MODULES[kind])
    eng, pt = _game(kind, CJK)
    boxed = {n: "".join("\uffff" if ord(ch) > 0x2FFF else ch for ch in n) for n in pt.players}
    differ = same = 0
    for s in moments(eng, pt, 2):  # the set-up and the end
        for r in [None, *pt.players]:
            view = eng.view(s, r)
            text = json.dumps(view, ensure_ascii=False)
            for n, b in boxed.items():
                text = text.replace(n, b)
            pngs = _pngs(mod, view)
            if pngs == _pngs(mod, json.loads(text)):
                same += 1
            else:
                differ += 1
            with_rgb = _pngs(mod, view, lambda draw, arg: _drawn_with(mod, RgbCanvas, draw, arg))
            assert pngs == with_rgb, (kind, r)
    assert differ > 0 and same == 0, f"{kind}: {same} pictures drew the CJK names as boxes, {differ} did not"


def _forget() -> None:
    """Every picture and word kept by the drawing and by `pbem verify --mail` forgotten: drawn again."""
    from pbem.render import pictures
    from pbem.render.pictures import canvas
    from pbem.trust import pictured

    for cache in (pictures._drawn, pictures._public, canvas.stamp, canvas.card_tile, canvas._stamp_p, canvas._card_p):
        cache.cache_clear()
    pictured._DRAWN.clear()


def test_verify_mail_of_a_game_with_cjk_names_compares_their_pictures_and_passes(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A House of Habsburg game of 田中, 김민수, Łukasz-山田 and Müller, dealt, its first reports mailed through a
    real poll, then abandoned (its seed revealed, as a finished game's): `pbem verify --mail` of each player's
    mailbox draws their pictures again from the replayed view and passes.  Drawn by a verifier without the CJK font
    (its words as boxes), the same mail is named: so the font is a required, exactly pinned dependency."""
    verify_mail_of_a_game_of(CJK, ["田中", "김민수"], tmp_path, monkeypatch)


def verify_mail_of_a_game_of(names: list[str], named: list[str], tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The test above for a game of `names`: `named` are the players whose mail a verifier drawing every word in
    Open Sans alone (as on a0540ce) names."""
    from datetime import timedelta
    from pathlib import Path

    from pbem.app import games
    from pbem.app.control import abandon
    from pbem.app.cron import run_poll
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from pbem.render.pictures import canvas
    from pbem.trust.receipts import lines, verify_mail
    from tests.conftest import in_delivered_order
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import T0

    players = [(n, f"p{i}@example.test") for i, n in enumerate(names)]
    cfg = kp.make_home(tmp_path / "home")
    codes = {n: f"CJK{i}-2222" for i, n in enumerate(names)}
    games.create_game(
        Home.of(cfg), "habsburg", "g1", players, seed="cjk-names-0123456789abcdef", codes=codes, clock=lambda: T0
    )
    assert run_poll(cfg, clock=lambda: T0 + timedelta(minutes=1)).summary.sent == len(players)
    abandon(Home.of(cfg), "g1", T0 + timedelta(minutes=2))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    sent = [p.read_bytes() for p in in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))]
    boxes = {n: [raw for raw in sent if a.encode() in raw] for n, a in players}
    _forget()
    for name, mails in boxes.items():
        checked = verify_mail(doc, mails, name)
        assert checked.ok, (name, lines(checked))
        assert any("its pictures of the board" in c for c in checked.checked), checked.checked
    _forget()
    monkeypatch.setattr(canvas, "runs", lambda words: None)  # every word in Open Sans alone, as on a0540ce
    for name in named:
        problems = verify_mail(doc, boxes[name], name).problems
        assert any("differs from the replay" in p for p in problems), (name, problems)
    _forget()


#: sha256 of the decoded pixels (size, indices, palette) of every picture of `_pngs` for a seeded game of
#: `COVERED`'s players (3 moments, every reader), drawn by a0540ce with this Pillow and FreeType.
#: Since the words are laid out by Pillow's basic layout (`fonts.LAYOUT`; a0540ce let Pillow choose, Raqm here):
#: dynasties 7a509fbb..., habsburg 736243d1..., italian-wars ad1da86e..., sixteen-thirty 1332d84f... with Raqm.
A0540CE = {
    "dynasties": "b1408f2f103a492cfa82ba823174df3d",
    "habsburg": "b62668b746e54110a107782d0bad2376",
    "italian-wars": "dd8406107188b131f273d673cae59746",
    "sixteen-thirty": "91c22325b93049d6c9aa479ff41b1b70",  # (order13: bots choose by position in lists by name, so
}  # the seeded game and its pictures are another game's; on ab18255d 0e436b4a1e0a96d94928a096f9ab78c9)
A0540CE_LIBRARIES = ("13.0.0", "2.14.3")  # Pillow, FreeType: another one may draw other pixels for any font


@pytest.mark.parametrize("kind", KINDS)
def test_pictures_of_names_open_sans_covers_or_no_font_has_are_a0540ces_pixels(kind: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Accented Latin, Greek, Cyrillic and an emoji (no font here has it: Open Sans's box, as before): every
    picture of a seeded game of such players has a0540ce's pixels (laid out as now), and each word it stamps is drawn by the one
    FreeType call a0540ce made (`runs` None), whatever the libraries' version, never opening the CJK font."""
    from PIL import __version__, features

    from pbem.render.pictures import canvas, fonts

    def never(size: int) -> None:
        raise AssertionError("the CJK font opened for words Open Sans draws")

    monkeypatch.setattr(fonts, "cjk_font", never)
    mod = import_module(MODULES[kind])
    eng, pt = _game(kind, COVERED)
    stamped: set[tuple[str, int]] = set()
    digest = hashlib.sha256()
    drawn = canvas.stamp.fn
    canvas.stamp.fn = lambda words, size: stamped.add((words, size)) or drawn(words, size)  # type: ignore[assignment]
    try:
        for s in moments(eng, pt, 3):
            for r in [None, *pt.players]:
                for png in _pngs(mod, eng.view(s, r)):
                    image = Image.open(io.BytesIO(png))
                    digest.update(repr(image.size).encode() + image.tobytes() + bytes(image.getpalette() or []))
    finally:
        canvas.stamp.fn = drawn
    assert any("🎲" in w for w, _ in stamped) and any("ë" in w for w, _ in stamped), sorted(stamped)[:5]
    assert all(fonts.runs(w) is None for w, _ in stamped), [w for w, _ in stamped if fonts.runs(w) is not None]
    if (__version__, features.version("freetype2")) == A0540CE_LIBRARIES:
        assert digest.hexdigest()[:32] == A0540CE[kind], kind


#: The scripts mixed names are made of, a run of one at a time: Latin with accents (a combining one too), Greek
#: and Cyrillic, Han, kana (a voicing mark combined), Hangul, and an emoji and a private-use letter no font here has.
_SCRIPTS = ["aZéŁü\u0301", "Σжя", "田中山川鈴木", "さくらカ\u3099ナ", "김민수이", "🎲\ue000"]


def _mixed_words(n: int, seed: str) -> list[str]:
    """The brief's names and `n` generated: one to four runs of one script each, between spaces, hyphens or the
    ideographic space, at most 40 letters as names are."""
    rnd = random.Random(seed)
    out = [*CJK, "田中🎲", "\u3000", ""]
    for _ in range(n):
        runs = ["".join(rnd.choices(rnd.choice(_SCRIPTS), k=rnd.randint(1, 8))) for _ in range(rnd.randint(1, 4))]
        out.append("".join(r + rnd.choice(["", " ", "-", "\u3000"]) for r in runs)[:40])
    return out


def test_mixed_names_keep_the_line_and_are_cut_to_fit_with_an_ellipsis() -> None:
    """Generator: 40 names of up to 40 letters mixing Latin, Han, kana, Hangul, combining marks and letters no font
    has, at the sizes the pictures use.  Each is drawn (no crash) within Open Sans's line (a card's lines do not
    meet), its advance the sum of its runs'; cut by `fit` to a random width, the cut is the longest start of the
    name whose ellipsis fits, as for a Latin name; the letters of no font are Open Sans's box."""
    from pbem.render.pictures import fonts

    rnd = random.Random("fit")
    cut = 0
    for words in _mixed_words(40, "mixed"):
        for size in (11, 12, 13, 14):
            mask, _, dy, advance = stamp(words, size)
            ascent, descent = font(size).getmetrics()
            assert dy >= 0 and dy + mask.height <= ascent + descent, (words, size, dy, mask.size)
            parts = fonts.runs(words)
            if parts is not None:
                faces = [fonts.cjk_font(size) if cjk else font(size) for _, cjk in parts]
                assert advance == sum(f.getlength(w) for f, (w, _) in zip(faces, parts)), (words, size)
            if size != 12 + len(words) % 2:
                continue  # cut at one size a name (the cards' two): each cut draws the name's starts one by one
            width = rnd.uniform(0.4, 1.1) * advance
            got = fit(RgbCanvas(1, 1), words, width, size)
            if got == words:
                assert advance <= width
                continue
            cut += 1
            kept = got[:-1]
            assert got.endswith("…") and words.startswith(kept), (words, got)
            assert stamp(got, size)[3] <= width or not kept, (words, width, got)
            assert stamp(words[: len(kept) + 1] + "…", size)[3] > width, (words, width, got)
    assert cut > 20
    assert fonts.runs("田中🎲") == [("田中", True), ("🎲", False)]
    assert fonts.runs("Ana 🎲") is None and fonts.runs("カ\u3099") == [("カ\u3099", True)]


def test_a_card_of_mixed_names_pasted_from_its_tile_has_the_pixels_of_the_card_drawn_in_place() -> None:
    """A card whose lines mix scripts, cut to its width or not, pasted from its tile (`card_tile`) over a noisy
    background: the pixels of drawing it in place."""
    from pbem.render.pictures.canvas import INK, PAPER, card_tile

    noise = random.Random("cards").randbytes(3 * 300 * 120)
    tiled = 0
    for lines in (
        ["田中", "김민수 Łukasz-山田"],
        ["Łukasz-山田さくら김민수田中Łukasz", "🎲 田中"],
        ["カ\u3099ナ", "Müller"],
    ):
        for w in (60, 150):
            a, b = RgbCanvas(300, 120), RgbCanvas(300, 120)
            for c in (a, b):
                c.image.frombytes(noise)
            a._card(20, 30, w, 40, list(lines), PAPER, INK, 1)
            b.card(20, 30, w, 40, list(lines), PAPER, INK, 1)
            assert a.image.tobytes() == b.image.tobytes(), (lines, w)
            tiled += card_tile(w, 40, tuple(lines), PAPER, INK, 1) is not None
    assert tiled > 0


def test_the_fonts_are_required_dependencies_pinned_to_the_installed_versions() -> None:
    """`pbem verify --mail` compares a picture's pixels with its own drawing: every font, and the two libraries that
    order right-to-left words, are required (not an extra) and pinned exactly, and this process draws with them."""
    import tomllib
    from importlib.metadata import version
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    pinned = dict(d.split("==") for d in project["dependencies"] if "==" in d)
    drawing = ["ttf-opensans", "noto-cjk-sans-jp-regular", "fontpkg-noto-sans-arabic", "fontpkg-heebo"]
    drawing += ["fontpkg-noto-sans-thai", "fontpkg-noto-sans-devanagari"]  # pictures4
    for package in [*drawing, "arabic-reshaper", "python-bidi"]:  # the last two order Arabic and Hebrew (pictures3)
        assert pinned.get(package) == version(package), (package, pinned.get(package), version(package))


def test_open_sans_has_every_printable_ascii_letter_which_runs_pass_without_reading_a_cmap() -> None:
    from pbem.render.pictures import fonts

    ascii_ = "".join(map(chr, range(0x20, 0x7F)))
    assert fonts._opensans_letters().issuperset(ascii_) and fonts.runs(ascii_) is None
    assert fonts.runs("\t") is None and fonts.runs("a\u3000") == [("a", False), ("\u3000", True)]


def test_splitting_words_into_runs_is_linear_in_their_length() -> None:
    """`runs` grew each run a letter at a time by copying it (quadratic in a run's length, 84e7701); now a run is
    cut from the word once.  Words of 20,000 and 80,000 letters of one run each, and of runs of one letter."""
    from pbem.render.pictures import fonts
    from tests.growth import growth

    for unit in ("田", "田a"):
        g = growth(lambda n, unit=unit: lambda: fonts.runs(unit * (n // len(unit))), 20_000, bound=6)
        assert g.ratio <= 6, (unit, str(g))


@pytest.mark.parametrize("kind", KINDS)
def test_the_pictures_have_the_same_pixels_whether_pillow_has_raqm_or_not(kind: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Pillow's wheels lay text out with Raqm where the system's FriBiDi library loads, else with their basic layout,
    and the two place the same words' glyphs apart: a picture drawn by a moderator with FriBiDi was named forged by
    `verify --mail` of a player without it (docs4 saw 1,893 pixels of one line differ).  pbem lays its words out
    with the basic layout always (`fonts.LAYOUT`), so a machine with Raqm and one without draw every picture alike,
    CJK names included."""
    from PIL import ImageFont, features

    from pbem.render.pictures import fonts

    if not features.check_feature("raqm"):
        pytest.skip("this Pillow has no Raqm to compare with")
    face = ImageFont.truetype(fonts._opensans_path(), 13)  # Pillow's own choice here: Raqm
    assert face.layout_engine == ImageFont.Layout.RAQM
    words = "Alice: score 0, tokens 0"
    assert _key(Image.Image()._new(face.getmask(words))) != _key(Image.Image()._new(fonts.font(13).getmask(words)))
    mod = import_module(MODULES[kind])
    eng, pt = _game(kind, CJK[:2] + COVERED)
    views = [eng.view(s, r) for s in moments(eng, pt, 2) for r in [None, *pt.players]]

    drawn_alike_with_raqm_hidden(mod, views, monkeypatch)


def drawn_alike_with_raqm_hidden(mod, views: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The pictures of `views`, drawn afresh (every cache and font forgotten), have the same pixels with Pillow's
    Raqm hidden (`HAVE_RAQM` False) as with it."""
    from PIL import _imagingft, features

    from pbem.render.pictures import fonts

    def pixels() -> list[bytes]:
        _forget()
        for opened in (fonts.font, fonts.cjk_font, fonts.rtl_font):
            opened.cache_clear()
        return [Image.open(io.BytesIO(png)).convert("RGBA").tobytes() for v in views for png in _pngs(mod, v)]

    with_raqm = pixels()
    monkeypatch.setattr(_imagingft, "HAVE_RAQM", False)
    assert not features.check_feature("raqm")
    assert pixels() == with_raqm
    monkeypatch.undo()
    pixels()
