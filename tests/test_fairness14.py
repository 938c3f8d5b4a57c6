"""Fourteenth round of the fairness red team: the gaps the thirteenth left.

Each generator below forges as the moderator would and passed on 8edb878; each is named now, and the honest games
verify clean (the seeded games of all four titles).

1. An address given a new seat after leaving its own (two `replace` events between) is honest, so a mail its
   provider signed while it still played the old seat (one the moderator never applied), recorded as the new seat's
   input, passed.  The new seat's mail must be signed after every earlier-recorded mail of the old seat: both times
   are the provider's (`pbem.trust.vouched._signed_before`; 5 minutes allowed between its signing servers).
2. A mail's pictures are compared by their pixels, its part headers by nothing: the seed in a board's `tEXt`,
   `zTXt` or `iTXt` chunk or after its last chunk, its Content-ID, a part's header or a boundary, in one of Bob's
   reports before the end, passed.  Every part's header fields are searched now, and each picture's chunks but its
   pixels, text chunks inflated (`pbem.trust.receipts._uncompared`, `pbem.trust.leaked.pictured`).  In the HTML part (a comment, an attribute) it
   was already named: the HTML is compared as markup (`pbem.trust.prose`).
"""

from __future__ import annotations

import base64
import copy
import struct
import zlib
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest

from pbem.trust import leaked, vouched
from pbem.trust.receipts import lines, verify_mail
from pbem.trust.verify import check
from tests.test_fairness13 import SEED, _honest, _inputs, _public, _replaced, _said_early, _signature
from tests.test_history_golden import KINDS, seeded_export

# ------------------------------------------------------------------ 1. an old seat's mail recorded for the new seat


def _moved(kind: str, signed: timedelta) -> dict:
    """The public export of the seeded `kind` game in which, after Alice's middle input `a`, both seats were given
    away (two `replace` events) and Bob's next input `b` is a mail Alice's provider signed `signed` after input `a`
    was (before it when negative); input `a` signed by her provider too."""
    doc = seeded_export(kind)
    alice, bob = _inputs(doc, "Alice"), _inputs(doc, "Bob")
    a = alice[len(alice) // 2]
    b = next(s for s in bob if s > a + 1)
    address = doc["players"][0]["address"]
    out = _replaced(_replaced(doc, 0, a), 1, a)
    public = _public(out, {a: address})
    o = next(o for o in out["orders"] if o["seq"] == b)
    when = (datetime.fromisoformat(next(o["at"] for o in out["orders"] if o["seq"] == a)) + signed).isoformat()
    mid = o["message_id"].strip("<>")
    public["evidence"].append(copy.deepcopy(_signature(out["game"]["name"], mid, tuple(o["lines"]), when, address)))
    return public


BACK = (timedelta(minutes=-10), timedelta(hours=-5), timedelta(days=-2))


@pytest.mark.parametrize("kind", ["habsburg", "sixteen-thirty", "italian-wars"])
def test_a_mail_signed_while_the_address_played_another_seat_is_not_the_new_seats(kind: str) -> None:
    """Gap (8edb878, fairness13's limit): Alice's mail signed 10 minutes, 5 hours or 2 days before her last own input,
    recorded as Bob's input after both seats were given away, passed `vouched` (9 of 9 on 8edb878: three titles,
    three times).  Named now (`vouched._signed_before`); the same mail signed after her last input, or 2 minutes
    before it (two of her provider's servers' clocks), is honest."""
    for back in BACK:
        (named,) = vouched.check(_moved(kind, back)).failures
        assert "(Bob) was signed by its provider" in named and "recorded earlier for another seat" in named, named
    for honest in (timedelta(minutes=1), timedelta(minutes=-2)):
        assert not vouched.check(_moved(kind, honest)).failures


@pytest.mark.parametrize("kind", KINDS)
def test_the_seeded_games_verify_with_their_players_signed_inputs(kind: str) -> None:
    """No false alarm: every title's seeded export verifies, and each player's inputs signed by their own provider."""
    doc = seeded_export(kind)
    assert check(doc).ok
    assert not vouched.check(_public(doc, _honest(doc))).failures


# ------------------------------------------------------------------ 2. the seed in a picture or a part's header


def _png(raw: bytes, kind: bytes, value: str, junk: bytes = b"") -> bytes:
    """The report `raw` with a text chunk `kind` holding `value` added to its board's PNG (its pixels unchanged), or
    `value` after its last chunk (`kind` b""); `junk` put in its base64 text, which a decoder skips."""
    head, mark, rest = raw.partition(b"Content-ID: <board.")
    start = rest.index(b"\n\n") + 2
    end = rest.index(b"\n--", start)
    png = base64.b64decode(rest[start:end])
    data = {
        b"": b"",
        b"tEXt": b"Comment\x00" + value.encode(),
        b"zTXt": b"Comment\x00\x00" + zlib.compress(value.encode()),
        b"iTXt": b"Comment\x00\x01\x00en\x00\x00" + zlib.compress(value.encode()),
    }[kind]
    chunk = struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    png = png[:33] + chunk + png[33:] if kind else png + value.encode()  # after the IHDR chunk, or the IEND
    text = base64.encodebytes(png).rstrip(b"\n")
    return head + mark + rest[:start] + text[:100] + junk + text[100:] + rest[end:]


def _board_id(raw: bytes) -> bytes:
    return raw.split(b"Content-ID: <board.", 1)[1].split(b"@", 1)[0]


FORGED: dict[str, Callable[[bytes], bytes]] = {
    "tEXt": lambda raw: _png(raw, b"tEXt", SEED),
    "zTXt": lambda raw: _png(raw, b"zTXt", SEED),
    "iTXt": lambda raw: _png(raw, b"iTXt", SEED[:32].upper()),
    "after the IEND": lambda raw: _png(raw, b"", SEED[24:40]),
    "tEXt, junk in its base64": lambda raw: _png(raw, b"tEXt", SEED, junk=b"!!"),
    "Content-ID": lambda raw: raw.replace(_board_id(raw), SEED[16:32].encode()),
    "a part's header": lambda raw: raw.replace(b"Content-ID: <", f"X-Note: {SEED[40:56]}\nContent-ID: <".encode(), 1),
    "a boundary": lambda raw: raw.replace(b"_r", SEED[:16].encode()),
}


def test_a_seed_in_a_picture_or_a_parts_header_of_one_players_mail_is_named(home, clock) -> None:
    """Gap (8edb878, fairness13's limit): the seed, or 16 hex digits of it, in a text chunk of the board of one of
    Bob's reports before the end (its base64 text holding a character a decoder skips, too), after its last chunk, in
    its Content-ID, a part's header or a boundary, verified: 8 of 8 on 8edb878.  The
    header fields of every part are searched now, and each picture's chunks but its pixels; the honest mailbox
    verifies."""
    from tests.test_fairness11 import _mailbox

    doc = _said_early(home, clock, "")
    bob = _mailbox(home, "bob@players.test")
    assert verify_mail(doc, bob, "Bob").ok
    k = next(i for i, raw in enumerate(bob) if b"Turn 1" in raw.split(b"\n\n", 1)[0])
    for what, forge in FORGED.items():
        forged = forge(bob[k])
        assert forged != bob[k], what
        c = verify_mail(doc, [*bob[:k], forged, *bob[k + 1 :]], "Bob")
        (named,) = c.problems
        assert "written before the game's end" in named and "given to you early" in named, (what, lines(c))
    bombs = bob[k]
    for _ in range(5):  # text chunks of 64 KB each, past the mail's `MAX_INFLATED`: searched to it, and told (costs14)
        bombs = _png(bombs, b"zTXt", "a" * leaked.MAX_TEXT)
    c = verify_mail(doc, [*bob[:k], bombs, *bob[k + 1 :]], "Bob")
    assert c.ok and any("was not searched for the seed" in n for n in c.notes), lines(c)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x89PNG\r\n\x1a\n",
        b"\x89PNG\r\n\x1a\n\xff\xff\xff\xffzTXt",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\x05iTXtk\x00\x01",
    ],
)
def test_a_broken_picture_is_read_without_failing(data: bytes) -> None:
    """A picture cut short, a chunk longer than the picture, a text chunk that does not inflate: read as far as it
    goes, as bytes or as base64 (one with a character a decoder skips decoded whole)."""
    for b64 in (False, True):
        got = leaked.pictured(base64.b64encode(data) + b"*" if b64 else data, base64=b64)
        assert isinstance(got, str)


def test_a_mail_of_header_fields_alone_is_searched() -> None:
    """A mail with no empty line (no body) is all header fields: searched whole, as fairness13 searched it."""
    from pbem.trust.receipts import _uncompared

    assert SEED[:16] in _uncompared(f"Subject: x\r\nX-Note: {SEED[:16].upper()}\r\n".encode())
    assert SEED[:16] in _uncompared(f"Subject: x\n\nbody\n--b\nX-Note: {SEED[:16]}".encode())
