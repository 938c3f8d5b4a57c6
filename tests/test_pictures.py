"""The board pictures (pbem/render/pictures): they draw the reader's view, all of it that matters, and nothing
the reader may not know.

* The secrecy scramble over the pictures: change another player's secrets (`engine.scramble`) and every
  other reader's PNG stays byte-identical; the scramble does change some reader's own picture (hands drawn).
* The facts match the view: each Sixteen Thirty country's box is filled in its faction's colour and its
  alt text states the view's faction, status, army and ability; a reader's hand is named card by card,
  and no other player's hidden card is named (tests/secrets_by_kind.py).
* Italian Wars: usable and unusable cards are told apart in words (text) and by a mark (picture), never by
  colour alone.
"""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from pbem import engine as registry
from pbem.engine.bots import play
from pbem.render.pictures import MODULES, Picture, board
from pbem.render.pictures import sixteen_thirty as thirty_picture
from pbem.render.pictures.canvas import BLUE_TINT, GOLD, GREY_TINT, INK, RED_TINT, Canvas, RgbCanvas, card_tile
from tests.engine.test_contract import moments
from tests.secrets_by_kind import HIDDEN

KINDS = sorted(MODULES)


def _game(kind: str, n: int | None = None, seed: str = "pic"):
    eng = registry.get(kind)
    seats = [f"P{i}" for i in range(n or eng.max_players)]
    return eng, play(eng, seats, seed, bot_seed=f"{seed}-bot", timeout_every=9)


def picture(view) -> Picture | None:
    """All of a reader's pictures as one (their bytes and alt texts joined), to compare and search."""
    pics = board(view)
    if not pics:
        return None
    return Picture(b"".join(p.png for p in pics), " ".join(p.alt for p in pics), pics[0].width, pics[0].height)


@pytest.mark.parametrize("kind", KINDS)
def test_changing_another_players_secrets_leaves_the_readers_picture_byte_identical(kind: str) -> None:
    eng, pt = _game(kind)
    changed = checked = 0
    for s in moments(eng, pt, 8):
        shown = {r: picture(eng.view(s, r)) for r in [None, *pt.players]}
        for q in pt.players:
            t = eng.scramble(s, q)
            for reader, pic in shown.items():
                if reader != q:
                    again = picture(eng.view(t, reader))
                    assert again is not None and pic is not None
                    assert again.png == pic.png, (kind, reader, q)
                    checked += 1
            own = picture(eng.view(t, q))
            changed += own is not None and shown[q] is not None and own.png != shown[q].png  # type: ignore[union-attr]
    assert checked > 0
    assert changed > 0, f"{kind}: the scramble never changed a reader's own picture: it draws no secret of theirs"


@pytest.mark.parametrize("kind", KINDS)
def test_every_report_of_the_game_has_a_picture_naming_the_readers_hand_and_no_hidden_card(kind: str) -> None:
    eng, pt = _game(kind)
    for s in moments(eng, pt, 8):
        for p in pt.players:
            view = eng.view(s, p)
            pic = picture(view)
            assert pic is not None and pic.png.startswith(b"\x89PNG") and pic.alt
            for part in board(view):  # picture version 2, laid out for phones: drawn at its layout's size
                image = Image.open(io.BytesIO(part.png))
                assert image.size == (part.width, part.height) and part.width <= 340
            for part in board(view, 1):  # version 1, kept for verifying older mail
                image = Image.open(io.BytesIO(part.png))
                assert image.size == (part.width, part.height) and part.width <= 700
            hand = view["data"].get("your_hand" if kind == "italian-wars" else "hand") or []
            for card in hand:
                name = card["card"] if isinstance(card, dict) else card
                assert name in pic.alt, (kind, p, name)
            if kind in HIDDEN:
                mine = set(HIDDEN[kind](s, p))
                for q in pt.players:
                    for item in set(HIDDEN[kind](s, q)) - mine:
                        assert item not in pic.alt.split(", "), (kind, p, q, item)


@pytest.mark.parametrize("kind", KINDS)
def test_the_png_writer_gives_back_every_pixel_and_the_palette_with_either_deflater(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`png_of` writes the rows itself (ISA-L's deflate, or zlib where isal is missing): a PNG reader must
    get back exactly the canvas's pixel indices and palette, for every kind's pictures at several moments."""
    import zlib

    from pbem.render.pictures import canvas

    eng, pt = _game(kind)
    seen = 0
    for s in moments(eng, pt, 4):
        view = eng.view(s, pt.players[0])
        mod = __import__(MODULES[kind], fromlist=["draw"])
        drawn = mod.draw({"kind": kind, "players": view["players"], "data": view["data"]})
        if drawn is None:
            continue
        c, _ = drawn
        image = c.image if c.rgb is None else c.rgb.image.quantize(palette=canvas.palette(), dither=0)
        for deflater, level in ((canvas._deflater, canvas._LEVEL), (zlib, 6)):
            monkeypatch.setattr(canvas, "_deflater", deflater)
            monkeypatch.setattr(canvas, "_LEVEL", level)
            back = Image.open(io.BytesIO(canvas.png_of(image)))
            back.load()
            assert back.mode == "P" and back.size == image.size, kind
            assert back.tobytes() == image.tobytes(), (kind, deflater)
            assert back.getpalette() == image.getpalette(), (kind, deflater)
            seen += 1
    assert seen >= 2, kind


def test_each_sixteen_thirty_country_is_drawn_in_its_factions_colour_with_its_counters() -> None:
    eng, pt = _game("sixteen-thirty", 4)
    seen = set()
    for s in moments(eng, pt, 6):
        view = eng.view(s, "P0")
        pic = picture(view)
        assert pic is not None
        image = Image.open(io.BytesIO(board(view)[0].png)).convert("RGB")  # the map comes first
        old = Image.open(io.BytesIO(board(view, 1)[0].png)).convert("RGB")  # version 1: the map of 680 px
        for i, name in enumerate(thirty_picture.AT):
            k = view["data"]["countries"][name]
            want = {"RED": RED_TINT, "BLUE": BLUE_TINT, None: GREY_TINT}[k["faction"]]
            x0, y0 = thirty_picture.phone_place(i)
            inside = image.getpixel((x0 + 20, y0 + 80))  # under its words and pips
            assert max(abs(a - b) for a, b in zip(inside, want)) < 24, (name, k["faction"], inside)
            x, y = thirty_picture.AT[name]
            inside = old.getpixel((x - thirty_picture.BOX_W // 2 + 10, y + thirty_picture.BOX_H // 2 - 8))
            assert max(abs(a - b) for a, b in zip(inside, want)) < 24, (name, k["faction"], inside)
            words = (
                f"{name} ({k['faction'] or 'neutral'}, status {k['status']}  army {k['army']}  ability {k['ability']}"
            )
            assert words in pic.alt
            seen.add(k["faction"])
        for p in pt.players:
            assert f"{p} {view['data']['scores'][p]}" in pic.alt
    assert {"RED", "BLUE"} <= seen


def test_italian_wars_marks_unusable_cards_with_an_x_and_the_reason() -> None:
    from pbem.engine.italian_wars.cards import BY_NAME

    eng = registry.get("italian-wars")
    found = 0
    for seed in ("iw1", "iw2", "iw3", "iw4"):
        pt = play(eng, ["P0", "P1"], seed, bot_seed=seed, timeout_every=5)
        for s in moments(eng, pt, 12):
            if s["step"] != "discard":
                continue
            for p in pt.players:
                view = eng.view(s, p)
                bad = view["data"]["your_unusable"]
                hand = next(b for b in view["sections"] if b["title"] == "Your hand")
                for line, card in zip(hand["lines"], s["hands"][p]):
                    assert line.startswith(card + " (") and line.endswith(" - usable") != (card in bad), line
                    side = BY_NAME[card]["side"]
                    if side and {"F": "French", "S": "Spanish"}[side] != s["sides"][p]:
                        assert card in bad and " - NOT usable: " in line and "only" in line
                found += len(bad)
                assert "(not usable)" in picture(view).alt or not bad  # type: ignore[union-attr]
    assert found > 0, "no unusable card was ever held: the test checked nothing"


def test_italian_wars_reports_explain_the_card_codes_once() -> None:
    eng, pt = _game("italian-wars", 2)
    for s in moments(eng, pt, 6):
        view = eng.view(s, "P0")
        legends = [b for b in view["sections"] if b["title"] == "Card codes"]
        assert len(legends) == 1
        text = " ".join(legends[0]["lines"])
        for word in ("Force", "French only", "Spanish only", "IK", "IM", "WON", "LOST", "Tactics", "Cavalry"):
            assert word in text


STEP_ID = re.compile(r"\bt\d+\.(?:[A-Z]\w*\.)?[a-z]+\b")


@pytest.mark.parametrize("kind", KINDS)
def test_no_report_in_the_seeded_playthroughs_names_an_internal_step_id(kind: str) -> None:
    """The playthrough transcripts are every mail of a whole game (tests/test_playthrough_golden.py keeps them
    equal to what is sent), so a step id such as "t7.Carol.specials" in any report would be found here."""
    from tests.test_playthrough_golden import ROOT, _read

    files = sorted((ROOT / kind).glob("*.txt*"))
    assert files
    for f in files:
        text = _read(f)
        assert "Asked of you now:" in text
        hit = STEP_ID.search(text)
        assert hit is None, f"{f.name}: {text[max(0, hit.start() - 80) : hit.end() + 20]!r}"


def test_sixteen_thirty_offers_an_early_vote_only_to_a_player_who_may_cast_it() -> None:
    """ST-R9: a ballot may be locked in the placement round only by a player with a pile there (or placing)."""
    from pbem.engine.sixteen_thirty.state import pile

    eng = registry.get("sixteen-thirty")
    told = {"pile": 0, "none": 0}
    for seed in ("v1", "v2"):
        pt = play(eng, ["P0", "P1", "P2", "P3", "P4"], seed, bot_seed=seed, timeout_every=13)
        for s in moments(eng, pt, 60):
            if s["phase"] != "place":
                continue
            for r in eng.requests(s):
                has = pile(s, r.player, s["vote"]["country"])
                if has:
                    assert "you may add your VOTE now" in r.prompt and any(x.startswith("VOTE") for x in r.syntax)
                    told["pile"] += 1
                elif len(r.legal) == 1:
                    assert "VOTE" not in r.prompt.replace("do not vote", "") and not any("VOTE" in x for x in r.syntax)
                    told["none"] += 1
                else:
                    assert "only then may you add your VOTE" in r.prompt
    assert told["pile"] and told["none"]


def test_the_phasing_player_is_told_how_to_send_specials_and_the_vote_call_with_the_trade() -> None:
    eng, pt = _game("sixteen-thirty", 3)
    asked = [r for s in moments(eng, pt, 40) if s["phase"] == "trade" for r in eng.requests(s)]
    assert asked
    for r in asked:
        assert "Special cards" in r.prompt
        assert any(x.startswith("PLAY <special>") for x in r.syntax) and any(
            x.startswith("CALL <country>") for x in r.syntax
        )


class _Recording(RgbCanvas):
    """A canvas that keeps the arguments of every card drawn on it."""

    def __init__(self, width: int, height: int) -> None:
        super().__init__(width, height)
        self.cards: list[tuple] = []

    def card(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        self.cards.append(args)
        super().card(*args, **kwargs)


@pytest.mark.parametrize("kind", KINDS)
def test_a_card_pasted_from_its_tile_has_the_pixels_of_the_card_drawn_in_place(kind: str, monkeypatch) -> None:
    """`Canvas.card` pastes a card drawn once (`card_tile`): over a background of every colour, and at the
    places and sizes the games draw their cards (in both picture versions' looks), the pixels equal those of
    drawing it there (`Canvas._card`)."""
    import random
    from importlib import import_module

    mod = import_module(MODULES[kind])
    monkeypatch.setattr(mod, "Canvas", _Recording)
    eng, pt = _game(kind)
    cards: set[tuple] = set()
    phone_cards: set[tuple] = set()  # version 2's look (`phone.LOOK`): one look, a sample of its cards
    for s in moments(eng, pt, 6):
        for r in [None, *pt.players]:
            for draw, found in ((mod.draw, cards), (mod.draw_phone, phone_cards)):
                drawn = draw(eng.view(s, r))
                if drawn is not None:
                    found.update((a[0], a[1], a[2], a[3], tuple(a[4]), *a[5:]) for a in drawn[0].cards)
    if kind != "sixteen-thirty":
        assert len(cards) > 20 and len(phone_cards) > 20
    cards |= set(sorted(phone_cards, key=repr)[:40])
    noise = random.Random(kind).randbytes(3 * 700 * 200)
    tiled = 0
    for x, y, w, h, lines, *rest in sorted(cards, key=repr)[:340]:
        a, b = RgbCanvas(700, 200), RgbCanvas(700, 200)
        for c in (a, b):
            c.image.frombytes(noise)
        px, py = int(x) % 500, int(y) % 100  # the card's own place, wrapped into the small canvas
        a._card(px, py, w, h, list(lines), *rest)
        b.card(px, py, w, h, list(lines), *rest)
        assert a.image.tobytes() == b.image.tobytes(), (kind, lines)
        tiled += card_tile(int(w), int(h), lines, *rest) is not None
    assert tiled > 0, "no card was ever pasted from a tile: the test compared nothing"


class _Both:
    """Draws every operation on the palette canvas (`Canvas`) and on the RGB reference (`RgbCanvas`)."""

    def __init__(self, width: int, height: int) -> None:
        self.p, self.rgb = Canvas(width, height), RgbCanvas(width, height)
        self.width, self.height = width, height
        self.draw = self

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        def both(*args, **kwargs):  # type: ignore[no-untyped-def]
            for c in (self.p, self.rgb):
                target = (
                    getattr(c.draw, name) if name in ("rectangle", "rounded_rectangle", "ellipse", "line") else None
                )
                out = (target or getattr(c, name))(*args, **kwargs)
            return out

        return both


def _drawn_with(mod, canvas, draw, arg):  # type: ignore[no-untyped-def]
    """`draw(arg)` of picture module `mod` with its pictures made on `canvas`."""
    before = mod.Canvas
    mod.Canvas = canvas
    try:
        return draw(arg)
    finally:
        mod.Canvas = before


@pytest.mark.parametrize("kind", KINDS)
def test_the_palette_canvas_gives_the_bytes_of_the_rgb_reference_for_every_picture(kind: str) -> None:
    """`Canvas` draws on the fixed palette directly; every picture of the game (readers, moments, the public
    map) is the same PNG as drawing it in RGB and mapping it to the palette at the end (`RgbCanvas`), and a
    reader's own picture never needed the RGB fallback."""
    from importlib import import_module

    mod = import_module(MODULES[kind])
    eng, pt = _game(kind)
    compared = 0
    for s in moments(eng, pt, 8):
        for r in [None, *pt.players]:
            view = eng.view(s, r)
            pairs = [(mod.draw, view, True)]
            if hasattr(mod, "draw_public") and r is None:  # the map: the same for every reader of a moment
                pairs.append((mod.draw_public, mod.public_key(view), False))
            for draw, arg, own in pairs:
                ours, reference = draw(arg), _drawn_with(mod, RgbCanvas, draw, arg)
                if ours is None:
                    assert reference is None
                    continue
                assert isinstance(ours[0], Canvas) and isinstance(reference[0], RgbCanvas)
                assert not own or ours[0].rgb is None, f"{kind}: a reader's picture fell back to RGB"
                assert ours[0].png() == reference[0].png(), (kind, r)
                compared += 1
    assert compared > 0


@pytest.mark.parametrize("kind", KINDS)
def test_version_2s_pictures_on_the_palette_are_the_bytes_of_the_rgb_reference(kind: str) -> None:
    """Picture version 2 (`pbem.render.pictures.phone`, the layout for phones) draws on the palette canvas too:
    each of its pictures is the PNG of the same drawing in RGB, and none fell back to RGB."""
    from importlib import import_module

    mod = import_module(MODULES[kind])
    eng, pt = _game(kind)
    compared = 0
    for s in moments(eng, pt, 4):
        for r in [None, pt.players[0]]:  # (the layout is the same for every reader: the public view and one player's)
            view = eng.view(s, r)
            pairs = [(mod.draw_phone, view)]
            if hasattr(mod, "draw_public_phone") and r is None:
                pairs.append((mod.draw_public_phone, mod.public_key(view)))
            for draw, arg in pairs:
                ours, reference = draw(arg), _drawn_with(mod, RgbCanvas, draw, arg)
                if ours is None:
                    assert reference is None
                    continue
                assert isinstance(ours[0], Canvas) and isinstance(reference[0], RgbCanvas)
                assert ours[0].rgb is None, f"{kind}: a picture of version 2 fell back to RGB"
                assert ours[0].png() == reference[0].png(), (kind, r)
                compared += 1
    assert compared > 0


def test_words_over_blended_pixels_a_mixed_background_or_the_edge_fall_back_to_rgb_and_match_it() -> None:
    """Where the palette canvas cannot know a background (words over other words' antialiased pixels, over two
    colours, across the edge, in a colour sharing another's index), it draws everything again in RGB: the bytes
    still equal the reference's, and a drawing it can do stays on the palette."""
    simple = _Both(200, 60)
    simple.text((10, 10), "Archduke Maria", 14)
    simple.card(10, 30, 120, 26, ["Gold 3"], GREY_TINT)
    simple.rectangle((150, 5, 190, 20), fill=GOLD)
    simple.rectangle((140, 30, 199, 59), fill=BLUE_TINT, outline=INK)
    simple.text((146, 36), "on blue", 13)  # words on a fill: blended with the fill, not the paper
    assert simple.p.rgb is None and simple.p.png() == simple.rgb.png()
    cases = [
        lambda c: (c.text((10, 10), "Overlapping words", 14), c.text((14, 12), "Overlapping words", 14)),
        lambda c: (c.rectangle((0, 0, 40, 60), fill=BLUE_TINT), c.text((30, 20), "across two fills", 13)),
        lambda c: c.text((180, 50), "past the edge", 13),
        lambda c: (c.text((10, 10), "before", 13), c.ellipse((60, 0, 120, 50), fill=RED_TINT, outline=INK),
                   c.line([(0, 0), (200, 60)], fill=INK, width=3), c.text((90, 20), "after", 12, anchor="ra")),
    ]  # fmt: skip
    for make in cases:
        c = _Both(200, 60)
        make(c)
        assert c.p.png() == c.rgb.png()
    for make in cases[:3]:
        fell = _Both(200, 60)
        make(fell)
        assert fell.p.rgb is not None, "words over blended pixels, two colours or the edge must fall back"


def test_words_on_paper_no_drawing_reached_need_no_pixel_read_and_give_the_same_bytes() -> None:
    """`Canvas` tells words on untouched paper from the boxes it has drawn in (`touched`) instead of reading the
    pixels under them, and marks blended pixels only when the mask is first read: random drawings of shapes of
    every kind and width, words and cards, overlapping or not, give the same PNG and the same fallback as a canvas
    that reads every pixel (`touched` None), and the same PNG as the RGB reference."""
    import random

    from pbem.render.pictures.canvas import GREEN_TINT, RED

    fills, inks = [BLUE_TINT, GREY_TINT, RED_TINT, GREEN_TINT, None], [INK, RED, GOLD]
    words = ["Maria", "Archduke Maria Theresa", "Gold 3", "to play", "Ab"]
    fast = 0
    for seed in range(60):
        rnd = random.Random(seed)
        both, reading = _Both(240, 120), Canvas(240, 120)
        reading.touched = None
        for _ in range(rnd.randint(1, 9)):
            x, y = rnd.randint(-10, 230), rnd.randint(-10, 115)
            shape = rnd.choice(["text", "text", "card", "rectangle", "rounded_rectangle", "ellipse", "line"])
            if shape == "text":
                args: tuple = ((x, y), rnd.choice(words), rnd.choice([12, 13, 14]))
                kw: dict = {"fill": rnd.choice(inks), "anchor": rnd.choice(["la", "ra"])}
            elif shape == "card":
                args, kw = (x, y, rnd.choice([60, 120]), 26, [rnd.choice(words)], rnd.choice(fills[:-1])), {}
            elif shape == "line":
                args = ([(x, y), (x + rnd.randint(-40, 40), y + rnd.randint(-40, 40))],)
                kw = {"fill": rnd.choice(inks), "width": rnd.randint(1, 5)}
            else:
                box = (x, y, x + rnd.randint(1, 60), y + rnd.randint(1, 40))
                kw = {"fill": rnd.choice(fills), "outline": rnd.choice(inks), "width": rnd.randint(1, 4)}
                args = (box,) if shape != "rounded_rectangle" else (box, 6)
            getattr(both, shape)(*args, **kw)
            target = getattr(reading.draw, shape) if shape not in ("text", "card") else getattr(reading, shape)
            target(*args, **kw)
        assert (both.p.rgb is None) == (reading.rgb is None), seed
        assert both.p.png() == reading.png() == both.rgb.png(), seed
        fast += both.p.rgb is None and both.p.touched is not None
    assert fast > 10  # most drawings stayed on the palette without reading the pixels under their words


def test_the_palette_canvas_marks_blended_pixels_and_never_stamps_words_over_them() -> None:
    """Its knowledge of a pixel's colour (`dirty`): the antialiased pixels of words are marked, a shape drawn
    over them clears the mark, and words whose box holds a marked pixel are drawn in RGB (the blend there could
    differ), even where every index under them is the paper's."""
    c = Canvas(200, 40)
    c.text((10, 10), "Maria Theresa", 14)
    marked = c.dirty.getbbox()
    assert marked is not None and c.rgb is None
    c.draw.rectangle((0, 0, 199, 39), fill=BLUE_TINT)
    assert c.dirty.getbbox() is None and c.rgb is None
    d = Canvas(200, 40)
    d.dirty.putpixel((60, 20), 255)  # a blended pixel whose index is the paper's
    d.text((50, 12), "Ab", 13)
    assert d.rgb is not None, "words over a marked pixel must be drawn in RGB"


def test_the_tile_caches_hold_their_byte_budget_and_drop_the_least_recently_used_first() -> None:
    """`Tiles` bounds a cache by the pixel bytes it holds, not by entries: a long poll draws thousands of
    distinct status lines, and an entry-counted cache of their stamps grew its peak memory with the number of
    messages (benchmarks/memory.py)."""
    from pbem.render.pictures.canvas import Tiles, image_bytes

    calls: list[int] = []

    def draw(n: int) -> Image.Image:
        calls.append(n)
        return Image.new("L", (100 if n < 1000 else n, 10), n % 256)  # 1,000 bytes each, but the large

    tiles = Tiles(draw, budget=3 * (100 * 10 + 200))  # three 100x10 masks and their entries
    for n in (100, 100, 100):
        assert tiles(n).size == (100, 10)
    assert calls == [100]  # drawn once, then kept
    first = tiles(100)
    for n in range(101, 104):
        tiles(n)
        assert tiles.held <= tiles.budget
    assert tiles.held == sum(size for _, size in tiles.kept.values())
    assert list(tiles.kept) == [(101,), (102,), (103,)]  # the oldest dropped to fit the newest
    tiles(101)  # used again: now the most recent, kept over 102
    tiles(104)
    assert list(tiles.kept) == [(103,), (101,), (104,)]
    assert tiles(100).tobytes() == first.tobytes()  # dropped and drawn again: the same pixels
    calls.clear()
    tiles(5000)  # larger than the whole budget: returned, never kept, and nothing dropped for it
    assert (5000,) not in tiles.kept and tiles.held <= tiles.budget
    calls.clear()
    tiles(n=104)  # by keyword: a key of its own, never one of a positional call's
    assert calls == [104] and len(tiles.kept) == 3 and ((104,) in tiles.kept)
    assert image_bytes((Image.new("RGB", (4, 5)), Image.new("L", (4, 5)), 3, None)) == 4 * 5 * 3 + 4 * 5
    tiles.cache_clear()
    assert tiles.held == 0 and not tiles.kept


def test_every_picture_cache_of_images_is_bounded_by_bytes() -> None:
    """The caches that keep Pillow images are `Tiles` with a budget of at most 2 MiB each (lru_cache counts
    entries, and the picture caches' entries range from 0.5 KB to 30 KB)."""
    from pbem.render.pictures import canvas

    budgets = {name: getattr(canvas, name).budget for name in ("stamp", "card_tile", "_stamp_p", "_card_p")}
    assert all(0 < b <= 2 * canvas.MIB for b in budgets.values()), budgets


_LETTERS = [
    chr(c)
    for lo, hi in ((0xC0, 0x17F), (0x391, 0x3C9), (0x410, 0x44F))  # Latin-1 and Extended-A, Greek, Cyrillic
    for c in range(lo, hi + 1)
    if chr(c).isalpha()
]


@pytest.mark.parametrize("size", [11, 13, 16])
def test_names_in_accented_latin_greek_and_cyrillic_are_drawn_with_their_letters(size: int) -> None:
    """Found by trying the product: "Zoë Müller" and "José Núñez" came out as "Zo□ M□ller" and "Jos□ N□□ez" in
    the board picture (Pillow's embedded font has ASCII only), though names may be "letters of any script".
    Every letter of those scripts is drawn as itself, not as the font's box for a missing glyph."""
    from pbem.render.pictures.canvas import font

    f = font(size)

    def drawn(ch: str) -> bytes:
        box = f.getbbox(ch)
        mask = Image.new("L", (max(1, box[2] - box[0]), max(1, box[3] - box[1])))
        from PIL import ImageDraw

        ImageDraw.Draw(mask).text((-box[0], -box[1]), ch, font=f, fill=255)
        return mask.tobytes() + bytes(str(box), "ascii")

    missing = drawn("\uffff")
    boxes = [ch for ch in _LETTERS if drawn(ch) == missing]
    assert not boxes, f"drawn as a box: {''.join(boxes)}"
    assert drawn("李") == missing, "the check can fail: a script the font lacks is drawn as its box"


def test_a_words_stamp_is_the_mask_imagedraw_draws_in_the_box_freetype_measures() -> None:
    """`stamp` lays its words out once (`getmask2`); the same mask, offset and advance as measuring their box
    (`getbbox`) and drawing them on a mask of that size, on 480 generated words (empty, blank, accented,
    Greek, Cyrillic, a zero-width space) at every size the pictures use."""
    import random

    from PIL import ImageDraw

    from pbem.render.pictures.canvas import font, stamp

    rnd = random.Random("stamp")
    letters = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 ,.:()…-'éüöñßçøåÆŒΣπЖжЛ\u200b"
    corpus = ["", " ", "…", "Zoë Müller", "Carol: score 7, tokens 3, holdings 4, 1 cards in hand"]
    corpus += ["".join(rnd.choice(letters) for _ in range(rnd.randrange(40))) for _ in range(115)]
    for words in corpus:
        for size in (11, 12, 13, 14):
            f = font(size)
            left, top, right, bottom = f.getbbox(words, anchor="la")
            mask = Image.new("L", (max(1, int(right - left)), max(1, int(bottom - top))), 0)
            ImageDraw.Draw(mask).text((-left, -top), words, font=f, fill=255, anchor="la")
            got, dx, dy, advance = stamp.__wrapped__(words, size)
            assert (got.mode, got.size, got.tobytes()) == ("L", mask.size, mask.tobytes()), (words, size)
            assert (dx, dy, advance) == (left, top, f.getlength(words)), (words, size)


def test_a_tile_shows_a_colour_exactly_where_getcolors_finds_it() -> None:
    """`_shows` (is any pixel this colour?) agrees with `getcolors` on 400 generated tiles: the colour planted
    at a random pixel, a colour one step off in one band, or neither."""
    import random

    from pbem.render.pictures.canvas import _shows

    rnd = random.Random("shows")
    found = 0
    for _ in range(400):
        colour = (rnd.choice((0, 255, rnd.randrange(256))), rnd.randrange(256), rnd.choice((254, rnd.randrange(256))))
        w, h = rnd.randrange(1, 40), rnd.randrange(1, 20)
        image = Image.new("RGB", (w, h), tuple(rnd.randrange(256) for _ in range(3)))
        for _ in range(rnd.randrange(4)):
            near = list(colour)
            band = rnd.randrange(3)
            near[band] = (near[band] + rnd.choice((1, 255))) % 256
            image.putpixel((rnd.randrange(w), rnd.randrange(h)), tuple(near))
        if rnd.random() < 0.5:
            image.putpixel((rnd.randrange(w), rnd.randrange(h)), colour)
        colours = image.getcolors(maxcolors=1 << 16)
        assert colours is not None
        expected = any(c == colour for _, c in colours)
        assert _shows(image, colour) == expected, (colour, w, h)
        found += expected
    assert 100 < found < 300


def _keyed(view) -> list[Picture]:  # type: ignore[no-untyped-def]
    """The reader's own picture as 9fb0ae7 drew it for every game: from the view's canonical JSON read back."""
    import json

    from pbem.render import pictures

    got = pictures._drawn(json.dumps([view["kind"], view["players"], view["data"]], sort_keys=True, default=str))
    return [] if got is None else [got]


@pytest.mark.parametrize("kind", ["habsburg", "dynasties"])
def test_a_picture_drawn_from_the_view_itself_has_the_bytes_of_one_drawn_from_its_json(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module that says `FROM_VIEW` is drawn from the view as the engine made it (`board`), not from its
    canonical JSON read back: every reader's PNG and alt text at 6 moments of a played game must be the same
    either way.  Dynasties, drawn from a dict in the engine's order (its treasury), must keep its key: with
    `FROM_VIEW` set it draws other bytes, which shows the comparison can fail."""
    mod = __import__(MODULES[kind], fromlist=["draw"])
    monkeypatch.setattr(mod, "FROM_VIEW", True, raising=False)
    eng, pt = _game(kind)
    differ = compared = 0
    for s in moments(eng, pt, 6):
        for reader in [None, *pt.players]:
            view = eng.view(s, reader)
            ours, keyed = board(view), _keyed(view)
            differ += [(p.png, p.alt) for p in ours] != [(p.png, p.alt) for p in keyed]
            compared += 1
    assert compared >= 6
    if kind == "dynasties":
        assert differ > 0, "Dynasties draws the same from its view: it could say FROM_VIEW too"
    else:
        assert differ == 0, (kind, differ, compared)
