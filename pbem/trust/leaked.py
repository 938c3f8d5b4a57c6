"""`pbem verify`: no entry of the record gives out the seed before the game's end (fairness13).

The seed, and the seed the game dealt from after a join step, decide every hidden card: whoever holds either
before the end can work out every hand and every draw to come.  pbem writes the seed into the record only at the
end (Sixteen Thirty's `reveal-seed` event, the export's `seed`).  So a moderator's message (`game say`), a press,
an undo's reason, an order line or any other entry that holds 16 hex digits in a row of either (64 bits) before
the end gave it out: to every player, or to a press's readers alone (a moderator playing a seat to a friend).
Only seeds of 32 hex digits or more are looked for: a seed typed by hand (`--insecure-seed`) may share words with
a sentence.  What goes outside the record (a mail of the moderator's own) and the seed written another way cannot
be seen here.  Pure; linear in the record (one substring search per 8 digits of the seed).
"""

from __future__ import annotations

import binascii
import json
import struct
import zlib
from collections.abc import Callable
from typing import Any

WINDOW = 16  # hex digits: 64 bits of a seed
ENDS = frozenset({"game-over", "reveal-seed"})  # the events that end a game and reveal its seed
HEX = frozenset("0123456789abcdef")
FREE = frozenset({"press", "moderator", "undo"})  # events whose data no replay proves


def secret(*seeds: object) -> list[str]:
    """The seeds of `seeds` looked for: strings of 32 hex digits or more, lower case."""
    return [s.lower() for s in seeds if isinstance(s, str) and len(s) >= 32 and set(s.lower()) <= HEX]


def _said(row: dict[str, Any]) -> str:
    """What an entry says: an input's lines; an event's text, and the data of one whose words no replay proves (a
    press, a moderator's event, an undo: an engine event's data is the replayed game's)."""
    if "lines" in row:
        return "\n".join(str(line) for line in row["lines"]).lower()
    text = str(row.get("text", ""))
    if row.get("kind") in FREE:
        text += "\n" + json.dumps(row.get("data"), sort_keys=True)
    return text.lower()


def _ends(row: dict[str, Any]) -> bool:
    data = row.get("data")
    return row.get("kind") in ENDS or (
        row.get("kind") == "moderator" and isinstance(data, dict) and data.get("action") == "abandon"
    )


def early(rows: list[dict[str, Any]], seeds: list[str]) -> str:
    """Why an entry of `rows` (the chain, in order) before the game's end gives out a seed of `seeds` ("" if none
    does).  The entries up to the end are searched at once; only when a window of a seed is found is the entry
    looked for."""
    before = []
    for row in rows:
        if _ends(row):
            break
        before.append(_said(row))
    found = found_in("\x00".join(before), seeds)
    if not found:
        return ""
    position = next(n for n, said in enumerate(before, 1) if found in said)
    row = rows[position - 1]
    what = (
        f"input {row.get('seq')} ({row.get('player') or 'the moderator'}, {row.get('kind')})"
        if "lines" in row
        else f"event {row.get('seq')} ({row.get('kind')}, seen by {_seen(row.get('visibility'))})"
    )
    return (
        f"{what}, entry {position} of the chain, holds {WINDOW} hex digits in a row of the seed ({found}), before "
        "the game's end: the seed was given out early, and whoever read it could work out every hidden card"
    )


def end(rows: list[dict[str, Any]]) -> int:
    """The position (1-based) of the entry of `rows` that ends the game (len(rows) + 1 if none does)."""
    return next((n for n, row in enumerate(rows, 1) if _ends(row)), len(rows) + 1)


def found_in(text: str, seeds: list[str]) -> str:
    """The first `WINDOW` hex digits in a row of a seed of `seeds` that `text` (lower case) holds ("" if none)."""
    blocks = {s[i : i + WINDOW // 2]: s for s in seeds for i in range(0, len(s) - WINDOW // 2 + 1, WINDOW // 2)}
    return next((run for block, s in sorted(blocks.items()) if block in text and (run := _run(text, block, s))), "")


def _run(whole: str, block: str, seed: str) -> str:
    """The first `WINDOW` digits in a row of `seed` around an occurrence of its `block` in `whole` ("" if none).  Any
    `WINDOW` digits in a row of a seed hold one of its blocks of `WINDOW // 2` that start at a multiple of it, so
    searching for those few blocks finds every run, and the run is confirmed around them."""
    half = WINDOW // 2
    at = whole.find(block)
    while at >= 0:
        around = whole[max(0, at - half) : at + WINDOW]
        for i in range(len(around) - WINDOW + 1):
            if around[i : i + WINDOW] in seed:
                return around[i : i + WINDOW]
        at = whole.find(block, at + 1)
    return ""


PNG = b"\x89PNG\r\n\x1a\n"
MAX_CHUNKS = 4_096  # chunks of a picture walked (pbem's have a handful)
MAX_TEXT = 64 * 1024  # bytes a compressed text chunk of a picture is inflated to
MAX_INFLATED = 256 * 1024  # bytes the compressed text chunks of one mail's pictures are inflated to, in all


class Inflating:
    """What is left of one mail's `MAX_INFLATED` for its pictures' compressed text, and whether a chunk was left
    uninflated for want of it (the caller says so).  A chunk of 100 bytes inflates to 64 KB: 4,096 such chunks, a
    picture's `MAX_CHUNKS`, made 256 MB of text of a 400 KB picture, and a mail may hold hundreds (costs14)."""

    def __init__(self, left: int = MAX_INFLATED) -> None:
        self.left = left
        self.cut = False


def pictured(data: bytes, base64: bool = False, inflating: Inflating | None = None) -> str:
    """What a picture's bytes may say besides its pixels, lower case: of a PNG, every chunk but its pixels (`IDAT`:
    a seed there changes the picture, which `pbem.trust.pictured` compares) and what follows its `IEND`, each
    compressed text chunk (`zTXt`, `iTXt`) inflated, at most `MAX_TEXT` bytes each and what is left of `inflating` (a
    mail's) in all; of any other picture, its bytes.
    A picture is compared by its decoded pixels, so its text chunks are read nowhere else: one of Bob's boards could
    carry the seed to him alone (fairness14).  `base64`: `data` is the part's body as sent, decoded only where a
    chunk's header or a chunk but the pixels lies (decoding the whole of a player's pictures was most of the cost);
    when that reading does not end at an `IEND` at the picture's end (a character the decoder would skip moved
    it), the body is decoded whole and read again.  Linear in the picture: its chunks are walked by their lengths,
    at most `MAX_CHUNKS`."""
    budget = Inflating() if inflating is None else inflating
    if not base64:
        return _walked(lambda start, end: data[start:end], len(data), budget)[0]
    read = _Base64(data)
    left, cut = budget.left, budget.cut
    try:
        said, whole = _walked(read.get, read.size, budget)
    except (binascii.Error, ValueError):
        whole = False
    if whole:
        return said
    budget.left, budget.cut = left, cut  # read again whole: what was inflated is inflated again
    return pictured(_decoded(data), inflating=budget)


def _walked(get: Callable[[int, int], bytes], size: int, budget: Inflating) -> tuple[str, bool]:
    """`pictured` of the picture whose bytes `get` reads, and whether its chunks ended at an `IEND` at its end."""
    if get(0, len(PNG)) != PNG:
        return get(0, size).decode("latin-1").lower(), True
    out, at, kind = [], len(PNG), b""
    for _ in range(MAX_CHUNKS):
        if at + 8 > size:
            break
        length, kind = struct.unpack(">I4s", get(at, at + 8))
        if kind != b"IDAT":
            body = get(at + 8, at + 8 + length)
            out.append(body.decode("latin-1"))
            if kind in (b"zTXt", b"iTXt"):
                out.append(_inflated(body, kind, budget))
        at += 12 + length
        if kind == b"IEND":
            break
    out.append(get(at, size).decode("latin-1"))
    return "\x00".join(out).lower(), kind == b"IEND" and at == size


class _Base64:
    """A part's base64 body, its bytes decoded a slice at a time (`get`, strictly: a character outside the alphabet
    raises): its line breaks taken out, so that 4 of its characters are 3 bytes."""

    def __init__(self, body: bytes) -> None:
        text = body.replace(b"\n", b"")
        self.text = (text.replace(b"\r", b"") if b"\r" in text else text).rstrip(b"=")
        self.size = len(self.text) * 3 // 4

    def get(self, start: int, end: int) -> bytes:
        end = min(end, self.size)
        if start >= end:
            return b""
        chunk = self.text[start // 3 * 4 : (end + 2) // 3 * 4]
        return binascii.a2b_base64(chunk + b"=" * (-len(chunk) % 4), strict_mode=True)[
            start % 3 : start % 3 + end - start
        ]


def _decoded(text: bytes) -> bytes:
    try:
        return binascii.a2b_base64(text)
    except (binascii.Error, ValueError):
        return b""


def _inflated(body: bytes, kind: bytes, budget: Inflating) -> str:
    """The compressed text of a `zTXt` (keyword, 0, method, data) or `iTXt` chunk (keyword, 0, flag, method,
    language, 0, keyword translated, 0, text): "" when it is not compressed or does not inflate; at most `MAX_TEXT`
    bytes and what is left of `budget`, which it spends (none left: `budget.cut`)."""
    rest = body.partition(b"\x00")[2]  # after the keyword
    if kind == b"iTXt":  # compressed (1), method, language, 0, translated keyword, 0, then the text
        if rest[:1] != b"\x01":
            return ""
        rest = b"\x00" + rest[2:].partition(b"\x00")[2].partition(b"\x00")[2]
    if budget.left <= 0:
        budget.cut = True
        return ""
    limit, inflate = min(MAX_TEXT, budget.left), zlib.decompressobj()
    try:
        text = inflate.decompress(rest[1:], limit)
    except zlib.error:
        return ""
    budget.left -= len(text)
    budget.cut = budget.cut or (limit < MAX_TEXT and len(text) == limit and not inflate.eof)
    return text.decode("latin-1")


def _seen(visibility: object) -> str:
    if isinstance(visibility, list):
        return ", ".join(str(p) for p in visibility) or "nobody"
    return "every player" if visibility == "public" else str(visibility)
