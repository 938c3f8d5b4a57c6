"""`pbem verify --mail`: the pictures of the board a report showed, against the pictures of the replayed view.

On a phone the board's picture is what a player reads first, and `pbem.trust.shown` compares the report's text
and HTML only: a forged picture (another player's score, a card the reader does not hold, a wrong board) under a
true text passed (fourth fairness red team).  A picture is a pure function of the reader's view
(`pbem.render.pictures.board`, its fonts and text ordering the packages pinned in pyproject.toml), so once the seed is revealed each report's pictures
are drawn again from the view replayed at its head and compared with the mail's, in the order its HTML shows them,
with their alt text.  The comparison is of the DECODED pixels (size, then every pixel as RGBA), not of the PNG
bytes: another machine's deflate, or another Pillow, writes other bytes for the same pixels; equal bytes are equal
pixels without decoding (an honest report checked on the machine family that wrote it decodes nothing).

What the mail shows: each `<img>` of its HTML part in order (a `cid:` resolved to the mail's image part of that
Content-ID; any other source, or a Content-ID the mail lacks, is a picture that differs), then every image part
no `<img>` shows (a mail program lists it as an attachment).  Bounded: at most `MAX_PICTURES` pictures read per
mail; a picture's size is read from its PNG header before anything is decoded, and it is decoded only when that
size is the replayed picture's (a PNG bomb, a few hundred bytes declaring 60,000 x 60,000 pixels, is named unread
at the cost of its header; `MAX_PIXELS` bounds what `pixels` decodes at all), so a mail costs at most what drawing
its pictures again costs.
"""

from __future__ import annotations

import binascii
import io
import json
import quopri
import re
import struct
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from html import unescape
from typing import Any

from PIL import Image

from pbem.render.pictures import VERSION, Picture, board

MAX_PICTURES = 8  # pictures read from one mail (pbem draws at most two)
MAX_LEAVES = 64  # parts of a mail read (a report has two texts and its pictures)
MAX_PIXELS = 2_000_000  # pixels a picture may declare (version 1: 680 x under 1,000; version 2: 340 x under 900)
_IMG = re.compile(r"<img\b([^>]{0,2000})>", re.I)
_ATTR = re.compile(r'\b(src|alt)="([^"]{0,4000})"', re.I)

Shown = list[tuple[bytes | None, str]]  # (PNG bytes, or None for a picture the mail cannot show; alt text)


@dataclass(frozen=True)
class Read:
    """What a report mail shows besides its text and HTML: its pictures (`Shown`), and the first part of it that
    pbem does not write ("" when none: an attachment, a second text, a part of another type)."""

    pictures: Shown
    stray: str = ""


def of_mail(raw: bytes, page: str) -> Read:
    """The pictures a report mail shows (`page`: its HTML part, `told.html`), each with its alt text: the HTML's
    `<img>` in order, then the image parts none shows; at most `MAX_PICTURES`.  With the first part pbem does not
    write: a report is one plain text, one HTML and its pictures, so any other part (an attachment "Bob's
    hand.txt", a second text shown under the first) is one more thing the reader may read that nothing checks."""
    parts: dict[str, bytes] = {}
    loose: list[bytes] = []
    leaves = _leaves(raw)
    for kind, named, _, data in leaves:
        if kind.startswith("image/") and data is not None:
            if named and named not in parts:
                parts[named] = data
            else:
                loose.append(data)
    out: Shown = []
    used: set[str] = set()
    for img in _IMG.findall(page)[:MAX_PICTURES]:
        attrs = {k.lower(): unescape(v) for k, v in _ATTR.findall(img)}
        src = attrs.get("src", "")
        cid = src[4:] if src.lower().startswith("cid:") else None
        out.append((parts.get(cid) if cid is not None else None, attrs.get("alt", "")))
        if cid is not None:
            used.add(cid)
    out += [(data, "") for cid, data in parts.items() if cid not in used]
    return Read(out + [(data, "") for data in loose], _stray(leaves))


def _stray(leaves: list[tuple[str, str, str, bytes | None]]) -> str:
    texts: set[str] = set()
    for kind, _, filename, _ in leaves:
        if kind in ("text/plain", "text/html") and not filename and kind not in texts:
            texts.add(kind)
        elif kind != "image/png":  # (a picture that is none is named by the pictures' comparison)
            return kind + (f' "{filename[:80]}"' if filename else "")
    return ""


_BOUNDARY = re.compile(rb'"?([^";\s]{1,200})"?')
#: What `_leaves` calls text a multipart holds outside its parts (a MIME preamble or epilogue): pbem writes none,
#: and some mail programs show it, so a report that has some carries words nothing checks.
OUTSIDE = "text outside the mail's parts (a MIME preamble or epilogue)"
_HEADERS = re.compile(rb"\r?\n\r?\n")


def _leaves(raw: bytes) -> list[tuple[str, str, str, bytes | None]]:
    """(content type, Content-ID, file name, decoded bytes of an image, else None) of each part of `raw` that is no
    multipart, at most `MAX_LEAVES` (their bytes for at most `MAX_PICTURES` images): the mail cut at the delimiter
    lines of every boundary it declares (at most 16), each part's headers parsed alone (the `email` package's
    parse of a whole report, its pictures' base64 lines included, cost more than the rest of the check).  Found
    with `bytes.find`: linear in the mail."""
    cuts = _cuts(raw)
    starts = [c[0] for c in cuts]
    ends = [c[1] for c in cuts]
    out: list[tuple[str, str, str, bytes | None]] = []
    images = 0
    for (begin, closes), end in zip([(c[1], c[2]) for c in cuts], starts[1:]):
        if closes:  # an epilogue, up to the next delimiter of an enclosing multipart
            if raw[begin:end].strip():
                out.append((OUTSIDE, "", "", None))
            continue
        head_end = _HEADERS.search(raw, begin, end)
        if head_end is None:
            continue
        head = _headers(raw[begin : head_end.start()])
        kind = head.get("content-type", "text/plain").split(";")[0].strip().lower() or "text/plain"
        if kind.startswith("multipart/"):
            if raw[head_end.end() : end].strip():  # a nested multipart's preamble
                out.append((OUTSIDE, "", "", None))
            continue
        data = None
        if kind.startswith("image/") and images < MAX_PICTURES:
            images += 1
            body = raw[head_end.end() : end]
            coding = head.get("content-transfer-encoding", "").strip().lower()
            try:
                data = (
                    binascii.a2b_base64(body)
                    if coding == "base64"
                    else (quopri.decodestring(body) if coding == "quoted-printable" else body.rstrip(b"\r\n"))
                )
            except (binascii.Error, ValueError):
                data = b""
        named = _NAME.search(head.get("content-disposition", "")) or _NAME.search(head.get("content-type", ""))
        filename = named.group(1).strip() if named else ""
        out.append((kind, head.get("content-id", "").strip().strip("<>"), filename, data))
        if len(out) >= MAX_LEAVES:
            break
    top = _HEADERS.search(raw)  # the mail's own headers end: what follows up to the first delimiter is its preamble
    if cuts and (top is None or raw[top.end() : starts[0]].strip() or (cuts[-1][2] and raw[ends[-1] :].strip())):
        out.append((OUTSIDE, "", "", None))  # (after the last closing delimiter: the outer epilogue)
    return out


def _cuts(raw: bytes) -> list[tuple[int, int, bool]]:
    """(where a delimiter line starts, where it ends, whether it closes its multipart) of every boundary `raw`
    declares (at most 16), in order, at most 4 x `MAX_LEAVES`: found with `bytes.find`, linear in the mail."""
    low, at = raw.lower(), 0
    marks: set[bytes] = set()
    while len(marks) < 16 and (at := low.find(b"boundary=", at) + 1) > 0:
        if (m := _BOUNDARY.match(raw, at + 8)) is not None:
            marks.add(m.group(1))
    cuts: list[tuple[int, int, bool]] = []  # (where a delimiter line starts, where it ends, whether it closes)
    for mark in marks:
        at = 0
        while (at := raw.find(b"\n--" + mark, at) + 1) > 0:
            after = at + 2 + len(mark)
            if raw[after : after + 1] in (b"-", b" ", b"\t", b"\r", b"\n", b""):
                eol = raw.find(b"\n", after)
                cuts.append((at, len(raw) if eol < 0 else eol + 1, raw[after : after + 2] == b"--"))
    cuts.sort()
    cuts = cuts[: 4 * MAX_LEAVES]
    return cuts


_DRAWN: OrderedDict[str, list[Picture]] = OrderedDict()
MAX_DRAWN = 1_024  # views whose pictures are kept (a few KB each): a mailbox's reports, and the next mailbox's


def drawn(view: dict[str, Any], version: int = VERSION) -> list[Picture]:
    """The pictures of `view` in the layout `version` (`pbem.render.pictures.board`), kept for the views seen
    last: `--mail A --mail B`, and a check run again, draw the maps and hands that every reader of one moment
    shares once."""
    key = json.dumps([view, version], sort_keys=True, default=str)
    if key in _DRAWN:
        _DRAWN.move_to_end(key)
        return _DRAWN[key]
    pictures = _DRAWN[key] = board(view, version)
    if len(_DRAWN) > MAX_DRAWN:
        _DRAWN.popitem(last=False)
    return pictures


_NAME = re.compile(r'\b(?:file)?name\*?=\s*"?([^";]{0,200})', re.I)
_FOLDED = re.compile(rb"\r?\n[ \t]+")


def _headers(block: bytes) -> dict[str, str]:
    """A part's headers, each name lower case to its value (folded lines joined; the first of a name kept):
    parsed by hand, a tenth of the `email` package's parser's cost, which was most of this module's."""
    out: dict[str, str] = {}
    for line in _FOLDED.sub(b" ", block.strip(b"\r\n")).split(b"\n")[:100]:
        name, colon, value = line.partition(b":")
        if colon:
            out.setdefault(name.strip().lower().decode("latin-1"), value.strip().decode("latin-1"))
    return out


def size(png: bytes) -> tuple[int, int] | None:
    """The size a PNG's header declares, read without decoding a pixel; None when it is no PNG, or declares more
    than `MAX_PIXELS`."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            width, height = Image.open(io.BytesIO(png), formats=["PNG"]).size
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError, Image.DecompressionBombWarning):
        return None
    return (width, height) if 0 < width * height <= MAX_PIXELS else None


def pixels(png: bytes) -> tuple[tuple[int, int], bytes] | None:
    """(size, RGBA bytes) of a PNG; None when it is no picture, or declares more than `MAX_PIXELS` (`size`: read
    from its header before any pixel is decoded)."""
    declared = size(png)
    if declared is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            return declared, Image.open(io.BytesIO(png), formats=["PNG"]).convert("RGBA").tobytes()
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError, Image.DecompressionBombWarning):
        return None


#: The PNG chunks a picture may carry: the image itself, transparency (decoded into the compared alpha) and what no
#: reader shows.  Any other changes what a mail program shows without changing what a decoder gives: an animation
#: (APNG's acTL, fcTL, fdAT: the decoded first frame honest, the frames shown after it forged), a colour profile
#: or gamma (iCCP, gAMA, cHRM, sRGB, sBIT: colours shifted by the programs that manage colour), a background.
CHUNKS = frozenset({b"IHDR", b"PLTE", b"tRNS", b"IDAT", b"IEND", b"tEXt", b"zTXt", b"iTXt", b"tIME", b"pHYs"})
MAX_CHUNKS = 10_000  # chunks walked in one picture


def shown_otherwise(png: bytes) -> str | None:
    """The first chunk of `png` (a PNG's signature checked by `size`) that changes how a mail program shows it
    (`CHUNKS`), else None; linear in its chunks, at most `MAX_CHUNKS` walked."""
    at = 8
    for _ in range(MAX_CHUNKS):
        if at + 8 > len(png):
            return None
        length, kind = struct.unpack(">I", png[at : at + 4])[0], png[at + 4 : at + 8]
        if kind not in CHUNKS:
            return kind.decode("latin-1")
        if kind == b"IEND":
            return None
        at += 12 + length
    return "(more than 10,000 chunks)"


def same(got: bytes | None, want: bytes | None) -> bool:
    """Whether two PNGs show the same picture: equal bytes, else equal declared sizes and equal decoded pixels.  A
    mail's picture is decoded only when its header declares the replay's own picture's size: what one picture of
    a mail costs is bounded by what drawing it cost, whatever size the mail claims."""
    if got is None or want is None:
        return False
    if got == want:
        return True
    declared = size(got)
    if declared is None or declared != size(want) or shown_otherwise(got) is not None:
        return False
    a = pixels(got)
    return a is not None and a == pixels(want)


def alike(read: Read, want: Shown) -> bool:
    """Whether a mail's pictures are the replay's: as many, each the same picture with the same alt text; and it
    has no part pbem does not write."""
    got = read.pictures
    return not read.stray and len(got) == len(want) and all(a == b and same(g, w) for (g, a), (w, b) in zip(got, want))


def differs(read: Read, want: Shown) -> str:
    """How a mail's pictures differ from the replay's, in one phrase (the table mismatches' form)."""
    if read.stray:
        return f"carries a part pbem does not write ({read.stray}), which a mail program shows too"
    got = read.pictures
    if len(got) != len(want):
        return f"shows {len(got)} pictures of the board where the replay draws {len(want)}: " + (
            "a picture is missing" if len(got) < len(want) else "a picture the replay does not draw"
        )
    for i, ((g, a), (w, b)) in enumerate(zip(got, want), 1):
        if not same(g, w):
            unread = g is None or size(g) is None
            chunk = None if g is None or unread else shown_otherwise(g)
            return (
                f"shows picture {i} of {len(want)} of the board"
                + (" (it cannot be read, or is larger than a board)" if unread else "")
                + (f" (its PNG chunk {chunk} changes how a mail program shows it)" if chunk else "")
                + ": the picture differs from the replay"
            )
        if a != b:
            return f'shows picture {i} of {len(want)} of the board with the words "{a[:120]}" where the replay has "{b[:120]}"'
    return "shows the pictures of the board the replay draws"  # (not reached: `alike` said they differ)
