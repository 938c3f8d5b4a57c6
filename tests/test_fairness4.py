"""Fourth red team of the fairness checks (docs/security.md, "Red team of the fairness checks, fourth round").

What a player LOOKS at: a report whose checked parts are true but whose other parts lie.  On a phone the board's
picture is what a player reads first, and the prose around the compared sections (the deadline sentence, the
board's note, the reply hint, the result block) was read by nobody.  Each forgery is made on real mail of the
seeded finished game of each kind (`tests.test_history_golden.seeded_home`), under its true signed head: every one
must be named, and every honest report must pass (tests/test_fairness3.py's generator checks each whole mailbox).
Each test failed on the code before this round.
"""

from __future__ import annotations

import base64
import email
import functools
import io
import re
import struct
import zlib
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from pbem.trust.receipts import lines, read_folder, verify_mail
from tests.growth import growth
from tests.test_fairness3 import _doc, _edited, _html_edited, _mails, _players, _text_of
from tests.test_history_golden import KINDS

Forgery = Callable[[bytes], bytes]


def _entries(raw: bytes) -> int:
    m = re.search(rb"^X-Pbem-Record: (\d+)\s", raw, re.M)
    return int(m.group(1)) if m else 0


def _mid(raw: bytes) -> bytes:
    m = re.search(rb"^Message-ID: (\S+)", raw, re.M | re.I)
    return m.group(1) if m else b""


def _box(kind: str, seat: int) -> tuple[dict, str, list[bytes]]:
    """The seeded game's export, the name of the player in `seat` and their mail, in the order of their receipts
    (a Maildir's order varies between runs)."""
    doc = _doc(kind)
    name, address = _players(doc)[seat]
    return doc, name, sorted(_mails(kind, address), key=lambda r: (_entries(r), _mid(r)))


def _decoded(png: bytes) -> tuple[tuple[int, int], bytes]:
    image = Image.open(io.BytesIO(png))
    return image.size, image.convert("RGBA").tobytes()


def _pictured(raws: list[bytes]) -> list[int]:
    return [i for i, r in enumerate(raws) if b"Private report for" in r and b"Content-Type: image/png" in r]


def _pngs(raw: bytes) -> list[tuple[str, bytes]]:
    """(Content-ID, PNG) of each picture of a mail, in order."""
    msg = email.message_from_bytes(raw)
    return [
        (str(p["Content-ID"]).strip("<>"), p.get_payload(decode=True))
        for p in msg.walk()
        if p.get_content_type() == "image/png"
    ]


def _with_png(index: int, png: bytes) -> Forgery:
    """Picture `index` of the mail replaced by `png` (its Content-ID, and so the HTML that shows it, unchanged)."""

    def forge(raw: bytes) -> bytes:
        msg = email.message_from_bytes(raw)
        part = [p for p in msg.walk() if p.get_content_type() == "image/png"][index]
        old = part.get_payload().encode("ascii")
        at = raw.index(old)
        return raw[:at] + base64.encodebytes(png) + raw[at + len(old) :]

    return forge


def _pixels_edited(index: int, edit: Callable[[Image.Image], None], **save: object) -> Callable[[bytes], Forgery]:
    """A forgery of picture `index`: its pixels changed by `edit`, written again by Pillow."""

    def make(raw: bytes) -> Forgery:
        image = Image.open(io.BytesIO(_pngs(raw)[index][1])).convert("RGB")
        edit(image)
        out = io.BytesIO()
        image.save(out, format="PNG", **save)
        return _with_png(index, out.getvalue())

    return make


def _part_removed(index: int) -> Forgery:
    """Picture `index` taken out of the mail: its part and the `<img>` that shows it."""

    def forge(raw: bytes) -> bytes:
        cid = _pngs(raw)[index][0].encode()
        start = raw.rindex(b"\n--", 0, raw.index(b"Content-ID: <" + cid + b">")) + 1
        end = raw.index(b"\n--", start + 3) + 1
        raw = raw[:start] + raw[end:]
        return _html_edited(
            raw, lambda page: re.sub(r'<img src="cid:' + re.escape(cid.decode()) + r'"[^>]*>', "", page)
        )

    return forge


def _part_added(raw: bytes) -> bytes:
    """The mail's first picture once more, as a part of its own no `<img>` shows (a mail program lists it)."""
    cid = _pngs(raw)[0][0].encode()
    start = raw.rindex(b"\n--", 0, raw.index(b"Content-ID: <" + cid + b">")) + 1
    end = raw.index(b"\n--", start + 3) + 1
    return raw[:end] + raw[start:end].replace(cid, b"extra." + cid) + raw[end:]


def _bomb() -> bytes:
    """A PNG of a few hundred bytes declaring 60,000 x 60,000 pixels (3.6 billion: a decoder would allocate them)."""
    rows = zlib.compress(b"\x00" * (60_001 * 4), 9)  # a few rows' worth: the header is what a decoder trusts

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 60_000, 60_000, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def _chunk_added(kind: bytes, data: bytes) -> Callable[[bytes], Forgery]:
    """A forgery of the reader's own picture: its pixels unchanged, a chunk `kind` added after its header (an
    animation control, a gamma), which changes what a mail program shows but not what a decoder gives."""

    def make(raw: bytes) -> Forgery:
        png = _pngs(raw)[-1][1]
        chunk = struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        return _with_png(len(_pngs(raw)) - 1, png[:33] + chunk + png[33:])  # (8 signature + 25 IHDR)

    return make


def _attached(raw: bytes) -> bytes:
    """The report with one more part, an attachment "note.txt" that a mail program lists under it."""
    boundary = re.search(rb'^Content-Type: multipart/alternative; boundary="([^"]+)"', raw, re.M)
    assert boundary is not None
    end = raw.rindex(b"--" + boundary.group(1) + b"--")
    note = (b"--" + boundary.group(1) + b'\nContent-Type: text/plain; charset="utf-8"\n'
            b'Content-Disposition: attachment; filename="note.txt"\n\nBob holds Plague.\n\n')  # fmt: skip
    return raw[:end] + note + raw[end:]


def _region(image: Image.Image) -> None:
    """Paint over a 12 x 12 square near the middle of the picture (a score, a card's name) in a colour it lacks."""
    w, h = image.size
    image.paste((255, 0, 255), (w // 2, h // 2, w // 2 + 12, h // 2 + 12))


def _one_pixel(image: Image.Image) -> None:
    x, y = image.size[0] // 3, image.size[1] // 3
    r, g, b = image.getpixel((x, y))  # type: ignore[misc]
    image.putpixel((x, y), ((r + 128) % 256, g, b))


def _text_edit(old: str, new: str) -> Forgery:
    return lambda raw: _edited(raw, lambda text: text.replace(old, new, 1))


def _deadline_said_more(raw: bytes) -> bytes:
    def edit(text: str) -> str:
        return re.sub(r"((?:^Deadline: |; deadline ).*UTC)\.$", r"\1; orders sent after Tuesday are late.", text,
                      count=1, flags=re.M)  # fmt: skip

    return _edited(raw, edit)


def _line_added(raw: bytes) -> bytes:
    return _edited(raw, lambda text: text.replace(
        "The tables below hold everything it shows.\n",
        "The tables below hold everything it shows.\nBob has already sent his orders for this step.\n", 1))  # fmt: skip


def _record_changed(raw: bytes) -> bytes:
    return _edited(
        raw, lambda text: re.sub(r"^Record #(\d+),", lambda m: f"Record #{int(m[1]) + 1},", text, count=1, flags=re.M)
    )


def _former_added(raw: bytes) -> bytes:
    return _edited(raw, lambda text: text.replace(
        "Do not forward it: it holds what only you may know.\n",
        "Do not forward it: it holds what only you may know.\n"
        "You took over the seat of Mallory: the history below calls the seat so until then.\n", 1))  # fmt: skip


#: (what the forgery is, how it is made from the report, a phrase its mismatch must hold)
PROSE: list[tuple[str, Forgery, str]] = [
    ("the deadline sentence says more", _deadline_said_more, "deadline"),  # (a long line is quoted cut)
    ("a word of the board's note", _text_edit("hold everything it shows", "hold most of what it shows"), "hold most"),
    ("a line added after the board's note", _line_added, "Bob has already sent his orders"),
    ("a word of the line naming the reader", _text_edit("Do not forward it", "Do forward it"), "Do forward it"),
    (
        "a word of the reply hint",
        _text_edit("with your orders, one per line", "with your orders, two per line"),
        "two per",
    ),
    ("a word of what is asked", _text_edit("of you now", "of you yet"), "of you yet"),
    (
        "a word of the HTML figure's caption",
        lambda r: _html_edited(r, lambda p: p.replace("hold the same facts", "hold most facts", 1)),
        "most facts",
    ),
    (
        "the HTML part's style hides the private sections",
        lambda r: _html_edited(r, lambda p: p.replace("</style>", "section.private{display:none}\n</style>", 1)),
        "display:none",
    ),
    (
        "a line added to the HTML part",
        lambda r: _html_edited(
            r, lambda p: p.replace("<figure", "<p>Bob has already sent his orders.</p>\n<figure", 1)
        ),
        "Bob has already",
    ),
    (
        "the HTML part's title",
        lambda r: _html_edited(r, lambda p: re.sub(r"(<h1>[^<]*): ", r"\1: Last turn, ", p, count=1)),
        "Last turn",
    ),
    ("the record line", _record_changed, "Record #"),
    (
        "the subject",
        lambda r: re.sub(rb"^(Subject: \[pbem [^\]]+\] )", rb"\1Final report: you won. ", r, count=1, flags=re.M),
        "has the subject",
    ),
    ("earlier names the seat never had", _former_added, "Mallory"),
    (
        "an answer to a message never sent",
        lambda r: _edited(
            r,
            lambda t: t.replace(
                "Do not forward it: it holds what only you may know.\n",
                "Do not forward it: it holds what only you may know.\n\n== Your message ==\nBob has already sent his orders.\n",
                1,
            ),
        ),
        "Bob has already sent",
    ),
]


def _named(c, phrase: str) -> bool:
    return any(phrase.lower() in p.lower() for p in c.problems)


@pytest.mark.parametrize("kind", KINDS)
def test_every_forged_picture_and_prose_of_a_report_is_named_and_the_honest_report_passes(kind: str) -> None:
    """Generator: a report of each kind's seeded game, forged under its true signed head in each way a moderator
    could make a player read something else than the replay shows: its picture swapped for another reader's or
    another head's, a region or one pixel painted over, a picture taken out or added, shrunk or hidden, animated
    or faded by a PNG chunk, its alt text, a PNG bomb, a picture fetched from elsewhere, an attachment; and its
    prose (the subject, the deadline sentence, fixed paragraphs of both parts, the HTML's style and title, the
    record line, the seat's earlier names, a made-up "Your message").  Every forgery is named; the honest report,
    and the same picture written again with other PNG bytes (another zlib, another Pillow), pass."""
    doc, name, raws = _box(kind, 1)
    reports = _pictured(raws)
    # a report that asks its reader for orders: the reply line is forged too (players28: a report to a reader asked
    # nothing now ends "Nothing is needed from you now", and the second report was such in two games)
    at = next(i for i in reports[1:] if "with your orders, one per line" in _text_of(raws[i]))
    box = [r for r in raws if _entries(r) <= _entries(raws[at])]
    at = box.index(raws[at])
    honest = verify_mail(doc, box, name)
    assert honest.ok, lines(honest)
    raw = box[at]
    pngs = _pngs(raw)
    own = len(pngs) - 1  # the reader's own picture comes last (Sixteen Thirty's public map first)

    later = next(p for i in reports[2:] if (p := _pngs(raws[i])[own][1]) and _decoded(p) != _decoded(pngs[own][1]))
    _, _, others = _box(kind, 0)
    theirs = next(
        p for i in _pictured(others) if (p := _pngs(others[i])[own][1]) and _decoded(p) != _decoded(pngs[own][1])
    )

    def forged(forge: Forgery):
        return verify_mail(doc, [*box[:at], forge(raw), *box[at + 1 :]], name)

    differs = "the picture differs from the replay"
    pictures: list[tuple[str, Forgery, str]] = [
        ("another head's picture", _with_png(own, later), differs),
        ("another reader's picture", _with_png(own, theirs), differs),
        ("a region painted over", _pixels_edited(own, _region)(raw), differs),
        ("one pixel changed", _pixels_edited(own, _one_pixel)(raw), differs),
        ("a picture taken out", _part_removed(own), "a picture is missing"),
        ("a picture added", _part_added, "a picture the replay does not draw"),
        ("a PNG bomb", _with_png(own, _bomb()), "is larger than a board"),
        ("a picture from elsewhere", lambda r: _html_edited(r, lambda p: p.replace('src="cid:', 'src="https://example.org/', 1)), "where the replay draws"),
        ("the picture shrunk out of sight", lambda r: _html_edited(r, lambda p: re.sub(r'width="\d+" height="\d+"', 'width="1" height="1"', p, count=1)), 'width="1"'),
        ("the picture hidden by a style", lambda r: _html_edited(r, lambda p: p.replace("<img ", '<img style="display:none" ', 1)), "display:none"),
        ("an animation after the honest frame", _chunk_added(b"acTL", struct.pack(">II", 2, 0))(raw), "acTL changes how"),
        ("a gamma that fades it", _chunk_added(b"gAMA", struct.pack(">I", 10_000))(raw), "gAMA changes how"),
        ("an attachment", _attached, 'text/plain "note.txt"'),
        ("its alt text", lambda r: _html_edited(r, lambda p: re.sub(r'alt="', 'alt="Bob holds Plague. ', p, count=1)), "Bob holds Plague"),
    ]  # fmt: skip
    missed = []
    for what, forge, phrase in pictures + PROSE:
        c = forged(forge)
        if c.ok or not _named(c, phrase):
            missed.append((what, c.problems or lines(c)))
        else:
            said = next(p for p in c.problems if phrase.lower() in p.lower())
            assert "your view of the game replayed up to entry #" in said and "this mail is your evidence" in said, said
    assert not missed, " | ".join(what for what, _ in missed)
    assert any("its pictures of the board and its other words" in x for x in honest.checked), honest.checked
    # A picture in a report another pbem wrote (its X-Mailer) may be drawn otherwise after an upgrade: said so.
    from pbem import __version__

    older = _pixels_edited(own, _one_pixel)(raw)(raw).replace(
        f"X-Mailer: pbem {__version__}".encode(), b"X-Mailer: pbem 0.0.9", 1
    )
    said = next(p for p in verify_mail(doc, [*box[:at], older, *box[at + 1 :]], name).problems if differs in p)
    assert f"written by pbem 0.0.9 and you check with pbem {__version__}" in said, said
    # The same pixels in other PNG bytes: an honest report written on another machine, or by another Pillow.
    rewritten = _pixels_edited(own, lambda image: None, compress_level=9)(raw)
    assert _pngs(rewritten(raw))[own][1] != pngs[own][1]
    same = forged(rewritten)
    assert same.ok, lines(same)


def test_a_png_bomb_is_refused_by_its_header_before_any_pixel_is_decoded() -> None:
    """A picture is decoded only when its header declares at most `MAX_PIXELS`: the bomb's 3.6 billion pixels are
    never allocated, and reading it costs what its few bytes cost.  A picture pbem draws is well under the bound."""
    from PIL import ImageFile

    from pbem.trust import pictured

    bomb = _bomb()
    assert len(bomb) < 2_000
    loaded: list[tuple[int, int]] = []
    load = ImageFile.ImageFile.load

    def counted(image: ImageFile.ImageFile) -> object:  # every decoding of pixels goes through `load`
        loaded.append(image.size)
        return load(image)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ImageFile.ImageFile, "load", counted)
        assert pictured.pixels(bomb) is None
        assert not pictured.same(bomb, bomb + b"\x00")  # (other bytes: decoded, and refused)
    assert all(w * h <= pictured.MAX_PIXELS for w, h in loaded), loaded  # no decoding of the bomb began
    _, _, raws = _box("sixteen-thirty", 0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ImageFile.ImageFile, "load", counted)
        pngs = _pngs(raws[_pictured(raws)[0]])
        assert all(pictured.pixels(png) for _, png in pngs) and len(loaded) >= len(pngs)  # (a decoding is seen)
    for _, png in pngs:
        size, rgba = pictured.pixels(png)  # type: ignore[misc]
        assert size[0] * size[1] <= pictured.MAX_PIXELS and len(rgba) == 4 * size[0] * size[1]
    assert pictured.pixels(b"\x89PNG\r\n\x1a\nnot a picture") is None and pictured.pixels(b"") is None


def test_a_mail_of_many_parts_and_boundaries_is_read_in_linear_time() -> None:
    """The pictures of a mail are found with `bytes.find`, at most `MAX_PICTURES` of them: a hostile mail of
    thousands of parts, or of delimiter-like lines, costs what its bytes cost."""
    from pbem.trust import pictured

    part = b"--b\nContent-Type: image/png\nContent-ID: <x@y>\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n"

    def related(k: int) -> bytes:
        return b'Content-Type: multipart/related; boundary="b"\n\n' + part * k + b"\n--b" * (5 * k // 2) + b"--\n"

    def mixed(k: int) -> bytes:
        return b'Content-Type: multipart/mixed; boundary="b"\n\n' + b"--b\nContent-Type: text/plain\n\nhello\n" * k

    shown = pictured.of_mail(related(20_000), '<img src="cid:x@y" alt="a">' * 10_000)
    assert len(shown.pictures) <= 2 * pictured.MAX_PICTURES
    assert pictured.of_mail(mixed(50_000) + b"--b--\n", "").stray == "text/plain"  # (the second text: not read further)
    g = growth(
        lambda k: functools.partial(pictured.of_mail, related(k), '<img src="cid:x@y" alt="a">' * (k // 2)),
        5_000,
        bound=9,
    )
    assert g.ratio <= 9, f"parts and boundaries: {g}"
    g = growth(lambda k: functools.partial(pictured.of_mail, mixed(k) + b"--b--\n", ""), 12_500, bound=9)
    assert g.ratio <= 9, f"text parts: {g}"


# ------------------------------------------------------------------ the same players' other game: rematch or restart


def test_an_unfinished_game_the_player_played_beside_this_one_is_a_rematch_not_a_warning(tmp_path) -> None:
    """Gap: `verify --mail` warned of a game started again under another name also for a second game the same
    players chose to play at the same time and had not finished: a false alarm.  The player's own orders in the
    other game, acknowledged after this game began (only their own message gets `X-Pbem-Input`), show that they
    played both: a note.  A game they left before this one began stays a WARNING (test_fairness3, `given_up`),
    now worded as a question."""
    from pbem.cli.demo import run
    from tests.conftest import Clock

    clock = Clock(datetime(2026, 1, 4, 12, 0, tzinfo=UTC))  # a day before the seeded game's first mail
    other = run("italian-wars", 2, "golden-iw-beside", tmp_path / "beside", clock=clock, max_polls=5,
                after_poll=lambda *_: clock.advance(hours=12), name="iw-beside")  # fmt: skip
    doc = _doc("italian-wars")
    name, address = _players(doc)[0]
    pattern = re.compile(rb"^To: .*<" + re.escape(address.encode()) + rb">", re.M)
    beside = [r for r in read_folder(other.home / "mail" / "sent") if pattern.search(r)]
    assert not any(b"The seed was" in r for r in beside), "the other game must not have ended"
    assert any(b"X-Pbem-Input" in r and b"Date: Mon, 05 Jan 2026 12:00:00" not in r for r in beside)
    c = verify_mail(doc, beside + _mails("italian-wars", address), name)
    said = next(n for n in c.notes if '"iw-beside"' in n)
    assert not said.startswith("WARNING") and "you still played it after this game began" in said, said
    assert "a rematch" in said and "acknowledges your orders" in said, said

    def earlier(raw: bytes) -> bytes:
        return re.sub(rb"^Date: .*$", b"Date: Sat, 03 Jan 2026 12:00:00 +0000", raw, count=1, flags=re.M)

    # The same game's mail, every Date before this game's first mail: left before this one began, a WARNING.
    c = verify_mail(doc, [earlier(r) for r in beside] + _mails("italian-wars", address), name)
    said = next(n for n in c.notes if '"iw-beside"' in n)
    assert said.startswith("WARNING: ") and "never ended" in said and "if you did not choose to leave it" in said, said
    assert "a rematch left unfinished, looks the same" in said, said


def test_the_salts_and_the_warning_about_the_deal_a_report_states_are_the_exports(tmp_path) -> None:
    """A game with a join step: its first report after the deal lists the players' salts, and every report warns of
    the JOINs their provider did not sign; both are the export's (`salts` event), and an honest mailbox passes.  The
    moderator who tells Alice that her salt went in as she wrote it while it did not, or leaves the warning's words
    out, is named."""
    import json

    from pbem.cli.demo import run
    from tests.conftest import Clock

    game = run("italian-wars", 2, None, tmp_path / "joined", clock=Clock(), join_salts={"Alice": "my words", "Bob": ""})
    doc = json.loads(game.export.read_text())
    pattern = re.compile(rb"^To: .*<alice@players\.example>", re.M)
    raws = [r for r in read_folder(game.home / "mail" / "sent") if pattern.search(r)]
    honest = verify_mail(doc, raws, "Alice")
    assert honest.ok, lines(honest)
    raws = sorted(raws, key=lambda r: (_entries(r), _mid(r)))
    at = next(i for i, r in enumerate(raws) if b"The deal: nobody chose it." in r)
    raws = [r for r in raws if _entries(r) <= _entries(raws[at])]  # (the mail up to it: quicker to check)
    for edit, phrase in [
        (lambda t: t.replace('Alice: "my words"', 'Alice: "my own words"', 1), "my own words"),
        (
            lambda t: re.sub(r"^(Warning about the deal: ).*$", r"\1none.", t, count=1, flags=re.M),
            "the deal: none",
        ),
    ]:
        c = verify_mail(doc, [*raws[:at], _edited(raws[at], edit), *raws[at + 1 :]], "Alice")
        assert not c.ok and _named(c, phrase), lines(c)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600), st.binary(max_size=300))
def test_no_mail_or_picture_bytes_make_the_picture_check_raise(head: bytes, body: bytes) -> None:
    """Fuzzer: whatever bytes a mail or a picture holds (a PNG's signature and header followed by anything, parts of
    any type and boundary), reading its pictures and comparing one with a real picture returns, never raises."""
    from pbem.trust import pictured

    png = b"\x89PNG\r\n\x1a\n" + head
    raw = b'Content-Type: multipart/related; boundary="b"\n\n--b\nContent-Type: image/png\nContent-ID: <x>\n\n'
    read = pictured.of_mail(raw + head + b"\n--b\n" + body + b"\n--b--\n", '<img src="cid:x" alt="">')
    assert len(read.pictures) <= 2 * pictured.MAX_PICTURES
    out = io.BytesIO()
    Image.new("P", (4, 4)).save(out, format="PNG")
    real = out.getvalue()  # a picture of 4 x 4: one whose header `head` may follow, so that its pixels are decoded
    for got in (png, head, body, real[:33] + head, real[:33] + body + real[-12:], *(p for p, _ in read.pictures if p)):
        assert pictured.same(got, real) in (True, False)
        pictured.shown_otherwise(got)
