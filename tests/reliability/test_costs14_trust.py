"""`pbem verify`'s reading of a seat given away many times, of one address signing for many seats, and of a
mail's pictures' compressed text, at n and 4n (costs14).

* `_Chain.seen_by` made a list of the entries each name of the reader's seat may see, a pass over the record for
  each (`_reminded`, `shown.untrue`, `_answers`, `_pinned`): a seat given away R times cost R passes, and every
  mail then looked its place up in R lists.  A seat renamed 250 and 1,000 times in a record of 500 and 2,000
  entries: 31,875 and 502,500 positions listed, 20 and 305 ms (15.8 at 4x) on 10a295e.  Now the seat's names are
  gathered once, each rename followed once, and the record read once for them all (`seen_by_seat`): the same
  first entry after each mail's head (checked against the per-name lists on random renames).
* `vouched._signed_before` looked at the latest signature of every other seat for each signed input: one address
  signing for 500 and 2,000 seats, 7 and 107 ms (15 at 4x).  Now the two latest seats are kept; the same lines as
  the scan (kept here) on random inputs.
* `leaked.pictured` inflated each compressed text chunk (`zTXt`, `iTXt`) of a picture to 64 KB, up to 4,096
  chunks a picture: 1,000 chunks of 200 bytes (a 215 KB picture) made 65 MB of text to search.  Now a mail's
  pictures are inflated to `leaked.MAX_INFLATED` in all, and a mail that holds more is told (`pbem verify`'s
  note) rather than searched past it.  Huge chunks, many chunks, an `iCCP` bomb (never inflated) and bytes after
  the `IEND` are read in time linear in the picture: sound.
"""

from __future__ import annotations

import binascii
import random
import struct
import zlib
from typing import Any

from pbem.trust import leaked, receipts, vouched
from pbem.trust.receipts import _Chain, seat_of
from tests.growth import growth


class _Counted(list):  # type: ignore[type-arg]
    """A record whose passes are counted: each `for` over it is one."""

    passes = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        _Counted.passes += 1
        return super().__iter__()


def _renamed(k: int) -> dict[str, Any]:
    """A record whose one seat was given away `k` times (P0 ... Pk), then as many inputs of its last player."""
    orders = [{"kind": "rename", "seq": i + 1, "player": f"P{i}", "lines": [f"P{i + 1}"]} for i in range(k)]
    orders += [{"kind": "orders", "seq": k + j + 1, "player": f"P{k}", "lines": ["PASS"]} for j in range(k)]
    return {"orders": orders, "events": []}


def test_a_seat_given_away_many_times_is_read_in_one_pass() -> None:
    """A pass of the record for each of the seat's names (254 and 1,004 passes of `_pinned` on 10a295e): 4 now."""

    def passes(k: int) -> int:
        doc = _renamed(k)
        ch = _Chain(_Counted(doc["orders"]), [], {})
        _Counted.passes = 0
        receipts._pinned(ch, doc, [], f"P{k}")
        return _Counted.passes

    small, large = passes(250), passes(1_000)
    assert small == large <= 4, f"passes over the record, a seat renamed 250 and 1,000 times: {small}, {large}"


def test_the_first_entry_a_seat_may_see_after_a_head_is_that_of_its_names_lists() -> None:
    """Random renames among a few names (chains, cycles, a name given twice, an event naming a newcomer) and
    entries seen by some: the one list answers as 10a295e's list per name did."""
    rng = random.Random(14)
    for case in range(300):
        names = [f"N{i}" for i in range(rng.randint(1, 6))]
        rows: list[dict[str, Any]] = []
        for seq in range(rng.randint(0, 14)):
            kind = rng.random()
            if kind < 0.3:
                rows.append({"kind": "rename", "seq": seq, "player": rng.choice(names), "lines": [rng.choice(names)]})
            elif kind < 0.6:
                rows.append({"kind": "orders", "seq": seq, "player": rng.choice([*names, ""]), "lines": ["PASS"]})
            else:
                vis = rng.choice(["public", "moderator", rng.sample(names, rng.randint(0, min(2, len(names))))])
                rows.append({"kind": "engine", "seq": seq, "visibility": vis, "text": "x"})
        doc = {"orders": [r for r in rows if "lines" in r], "events": []}
        for name in names:
            seat = seat_of(doc, name)
            ch = _Chain(rows, [], {})
            lists = [ch.seen_by(n) for n in seat]
            end = len(rows) + 1
            for at in range(end):
                want = min((_after(positions, at, end) for positions in lists), default=end)
                assert _after(ch.seen_by_seat(seat), at, end) == want, (case, name, at)


def _after(positions: list[int], at: int, end: int) -> int:
    return next((p for p in positions if p > at), end)


# ------------------------------------------------------------------ one address signing for many seats


def _scanned(signed: list[tuple[int, str, int | None]], seats: dict[int, int]) -> tuple[int, str, int, str] | None:
    """The inputs 10a295e's `_signed_before` named, every other seat's latest looked at for each input (the
    reference): (the input, its player, the earlier one, its player)."""
    latest: dict[int, tuple[int, int, str]] = {}
    for b, two, t in signed:
        s2 = seats.get(b, -1)
        if t is not None:
            old = max((v for s, v in latest.items() if s != s2), default=None)
            if old is not None and t < old[0] - vouched.SKEW:
                return b, two, old[1], old[2]
            latest[s2] = max(latest.get(s2, (t, b, two)), (t, b, two))
    return None


def test_one_address_signing_for_many_seats_costs_its_inputs_once() -> None:
    def work(n: int) -> Any:
        signed = [(i, f"P{i}", 1_800_000_000 + 60 * i) for i in range(n)]
        seats = {i: i for i in range(n)}
        return lambda: vouched._signed_before(signed, seats, "example.org")

    g = growth(work, 500, bound=8)  # every seat looked at for each input: 15 at 4x
    assert g.ratio <= 8, f"_signed_before, one address signing for 500 and 2,000 seats: {g}"


def test_the_input_named_is_the_scans() -> None:
    rng = random.Random(1414)
    for case in range(2_000):
        n = rng.randint(0, 9)
        signed = [(i, f"P{i}", rng.choice([None, *range(0, 2_000, 100)])) for i in range(n)]
        seats = {i: rng.randint(0, 3) for i in range(n)}
        got = vouched._signed_before(signed, seats, "example.org")
        want = _scanned(signed, seats)
        assert len(got) == (want is not None), (case, signed, seats, got, want)
        if want is not None:
            b, two, a, one = want
            assert got[0].startswith(f"input {b} ({two})") and f"before input {a} ({one})" in got[0], (case, got)


# ------------------------------------------------------------------ a mail's pictures' compressed text


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I4s", len(body), kind) + body + struct.pack(">I", binascii.crc32(kind + body))


BOMB = zlib.compress(b"a" * leaked.MAX_TEXT, 9)  # 64 KB of text in 100 bytes or so


def _picture(chunks: int, last: bytes = b"") -> bytes:
    """A PNG of `chunks` `zTXt` chunks that each inflate to `MAX_TEXT`, then one holding `last`."""
    body = b"".join(_chunk(b"zTXt", b"Comment\x00\x00" + BOMB) for _ in range(chunks))
    return leaked.PNG + body + _chunk(b"zTXt", b"Comment\x00\x00" + zlib.compress(last)) + _chunk(b"IEND", b"")


def _mail(pictures: list[bytes]) -> bytes:
    parts = b"".join(
        b"--b\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\n" + binascii.b2a_base64(p)
        for p in pictures
    )
    return b'Subject: x\nContent-Type: multipart/related; boundary="b"\n\npreamble\n' + parts + b"--b--\n"


def test_a_mails_pictures_are_inflated_to_its_budget_and_a_mail_past_it_is_told() -> None:
    """40 chunks of 64 KB, 8 pictures: 20 MB of text to search for a 40 KB mail on 10a295e.  Now at most
    `MAX_INFLATED` in all, the text up to it searched, and the mail past it told."""
    seed = "0123456789abcdef" * 2
    raw = _mail([_picture(40, seed.encode())] * 8)
    budget = leaked.Inflating()
    said = receipts._uncompared(raw, budget)
    assert len(said) <= 2 * len(raw) + leaked.MAX_INFLATED, f"{len(said):,} characters of a {len(raw):,}-byte mail"
    assert budget.cut and seed not in said
    small = leaked.Inflating()
    assert seed in receipts._uncompared(_mail([_picture(2, seed.encode())]), small) and not small.cut


def test_huge_many_and_odd_chunks_cost_the_picture() -> None:
    """A chunk that says it is 4 GB long, 4,096 chunks of `IHDR`, an `iCCP` bomb, 1 MB after the `IEND`: the text
    read is the picture's bytes, no more."""
    pictures = {
        "a 4 GB length": leaked.PNG + struct.pack(">I4s", 0xFFFFFFFF, b"tEXt") + b"x" * 100_000,
        "many chunks": leaked.PNG + _chunk(b"tEXt", b"k\x00v") * 20_000 + _chunk(b"IEND", b""),
        "an iCCP bomb": leaked.PNG + _chunk(b"iCCP", b"icc\x00\x00" + BOMB) * 1_000 + _chunk(b"IEND", b""),
        "after the IEND": leaked.PNG + _chunk(b"IEND", b"") + b"\x00" * 1_000_000,
    }
    for what, data in pictures.items():
        for b64 in (False, True):
            said = leaked.pictured(binascii.b2a_base64(data) if b64 else data, base64=b64)
            assert len(said) <= len(data) + 4 * leaked.MAX_CHUNKS, (what, b64, len(said), len(data))
