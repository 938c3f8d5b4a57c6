"""A reply costs time linear in its size, whatever it quotes: generated replies over the whole handling.

A reply names a report pbem sent (In-Reply-To), so its reading also looks for copies of that report in it
(`pbem.orders.own_mail`) and for a client's furniture around them (`pbem.orders.furniture`).  The shapes
below quote the report as clients do and as no client does: once, many times, six of its words again and
again on one line (25 s for 16 KB before the furniture patterns were made linear), its words shuffled,
in nested HTML quotes, under many header-like lines, after long runs of spaces or stars, with an order typed into
the quote under each of its lines (`own_mail.changed_in_quote`).  Each is handled
whole (`poll.contained`, SQLite) and its CPU time bounded as a ratio to a plain reply of the same size
(`MAX_RATIO`), and four times the reply at most `MAX_GROWTH` times the time.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator

import pytest

from pbem.mail.outbound.bodies import text_bodies
from pbem.trust import dkim
from tests.growth import growth
from tests.reliability.test_header_costs import cpu, handling
from tests.reliability.test_hostile_mail import ADDR, World

SIZE = 4_000
MAX_RATIO = 40.0
MAX_GROWTH = 9.0
_ids = itertools.count()


@pytest.fixture(scope="module")
def world() -> Iterator[tuple[World, str, str]]:
    import tempfile
    from pathlib import Path

    with pytest.MonkeyPatch.context() as mp, tempfile.TemporaryDirectory() as tmp:
        mp.setattr(dkim, "resolver", lambda name, timeout=5: None)
        w = World(Path(tmp) / "home")
        mid, raw = w.con.execute(
            # the copy a reply is compared with (`pbem.record.answered`): a report carrying a code is stored sealed
            # in `raw`, and its Fernet token was all these shapes quoted (no word of it is a report's)
            "SELECT o.message_id, coalesce(b.keep_raw, b.raw) FROM outbox o JOIN outbox_mail b ON b.id = o.id "
            "JOIN games g ON g.id = o.game_id "
            "WHERE o.to_addr = ? AND g.name = 'hh' ORDER BY o.id DESC LIMIT 1",
            (ADDR["Alice"],),
        ).fetchone()
        report = text_bodies(raw)["plain"]
        assert "Private report for Alice" in report, report[:200]
        yield w, mid, report
        w.con.close()


def _reply(mid: str, body: str, html: bool = False) -> bytes:
    head = (
        f"From: Alice <{ADDR['Alice']}>\r\nTo: moderator@pbem.test\r\nSubject: Re: [pbem hh] report\r\n"
        f"Message-ID: <reply-cost-{next(_ids)}@players.test>\r\nIn-Reply-To: {mid}\r\nReferences: {mid}\r\n"
        f"MIME-Version: 1.0\r\nContent-Type: text/{'html' if html else 'plain'}; charset=utf-8\r\n\r\n"
    )
    return (head + body).encode("utf-8")


def shapes(report: str, size: int) -> dict[str, tuple[str, bool]]:
    quoted = "\n".join("> " + line for line in report.splitlines())
    words = report.split()
    gram = " ".join(words[100:106])
    typed_in = "\n".join(f"> {line}\n> NO EVENT" for line in report.splitlines())  # each a changed quote to tell
    return {
        "plain": ("PASS\n" + "I think France bluffs this turn.\n" * (size // 33), False),
        "quoted many times": ("PASS\n" + (quoted + "\n") * max(1, size // len(quoted)), False),
        "six words on one line": ("PASS\n" + (gram + " ") * (size // (len(gram) + 1)), False),
        "six words a line": ("PASS\n" + (gram + "\n") * (size // (len(gram) + 1)), False),
        "shuffled words": ("PASS\n" + " ".join(words[(i * 7) % len(words)] for i in range(size // 6)), False),
        "nested html quotes": (
            "<p>PASS</p>" + "<blockquote>" * 60 + report.replace("\n", "<br>")[:size] + "</blockquote>" * 60,
            True,
        ),
        "header-like lines": ("PASS\n" + "From: Alice <a@b.c>\nSent: today\n" * (size // 33), False),
        "runs of spaces": ("PASS\n" + " " * size + "\n" + quoted[:size], False),
        "runs of stars": ("PASS\n" + "*" * size + "\n" + quoted[:size], False),
        "attribution-like lines": ("PASS\n" + "On Monday Alice <a@b.c> wrote " * (size // 31) + "\n", False),
        # the reading rules of the sixth players' session (costs5): a blank of pbem's filled in a quoted line
        # (`own_mail._edited_in_quote`), quoted lines marked as the writer's choice, a quote a client rewrapped
        # without quoting the rest of each line, an answer typed under every quoted line, GroupWise's attribution
        # above the mail copied unquoted, sign-offs and separators between orders
        "edited quotes": ("Hi\n" + _times(_edited(quoted), size), False),
        "marked quoted lines": ("Hi\n" + _times(quoted.replace("\n", " <-- this\n"), size), False),
        "rewrapped quotes": ("PASS\n" + _times(_rewrapped(report), size), False),
        "an answer under every quoted line": (_times(quoted.replace("\n", "\nNO EVENT\n"), size), False),
        "groupwise copies": (_times(">>> Alice <a@b.c> 12/5/2026 3:04 PM >>>\n" + report, size), False),
        "sign-offs and separators": ("PASS\n" + "Best regards,\n-----\nPASS\n____\n" * (size // 30), False),
        "orders typed into the quote": ("PASS\n" + (typed_in + "\n") * max(1, size // len(typed_in)), False),
    }


def _times(text: str, size: int) -> str:
    """`text` again and again, about `size` characters (once at least)."""
    return "\n".join([text] * max(1, size // max(len(text), 1)))


def _edited(quoted: str) -> str:
    """A quoted report with each blank of its lines filled in ("> EVENT PERSON <card>" as "> EVENT PERSON Bohemia")."""
    return re.sub(r"<[^<>\s][^<>]*>", "Bohemia", quoted)


def _rewrapped(report: str) -> str:
    """The report quoted by a client that rewrapped it at 30 columns, the rest of each line left unquoted."""
    return "\n".join(f"> {line[:30]}\n{line[30:]}" if len(line) > 30 else f"> {line}" for line in report.splitlines())


def _maker(mid: str, body: str, html: bool) -> Callable[[], bytes]:
    return lambda: _reply(mid, body, html)


def test_no_reply_costs_more_than_a_constant_times_a_plain_one_of_its_size(world) -> None:
    w, mid, report = world
    cases = shapes(report, 4 * SIZE)
    base = cpu(w, _maker(mid, *cases.pop("plain")))
    for name, (body, html) in cases.items():
        t = cpu(w, _maker(mid, body, html), within=MAX_RATIO * base)
        assert t <= MAX_RATIO * base, f"{name}: {t:.3f} s against a plain reply's {base:.4f} s"


@pytest.mark.parametrize("name", sorted(shapes("one two three four five six seven " * 30, SIZE)))
def test_every_reply_shape_grows_linearly(world, name: str) -> None:
    w, mid, report = world
    g = growth(lambda k: handling(w, _maker(mid, *shapes(report, k)[name])), SIZE, bound=MAX_GROWTH, floor=5e-3)
    assert g.ratio <= MAX_GROWTH, f"{name}: {g}"
