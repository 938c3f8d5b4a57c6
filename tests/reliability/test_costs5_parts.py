"""A mail's parts cost what their bytes cost: many small parts are set aside and told, not read one by one (costs5).

The parser, the code search and the stored copy's rewrite cost 0.05 to 0.4 ms for each MIME part whatever its size:
a player's 1.6 MB mail of parts of a few bytes took 4.7 s to handle and a 3.7 MB one holding a code in each part
14.6 s (kept to 4 MiB: the code search parsed it whole), against 0.2 s for one 1.9 MB attachment; a mail of such
parts in a player's folder cost `pbem verify --mail` about 1.7 s a MB for each reading (a mail of 32 MiB: minutes,
the check past its deadline).  Found by this file's generator over the shapes of parts (`PARTS`: a few bytes of
text, a code in each, messages inside messages, HTML parts, alternatives), each handled whole (`poll.contained`)
and its CPU time compared with a mail of one attachment of the same size: at most `MAX_RATIO` times.  Now a mail
of more than `MAX_PARTS` parts is read by its headers only, refused with why, and stored without its body; a
folder's is set aside by `pbem verify`, told.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pbem.mail.inbound.message import MAX_PARTS
from tests.reliability.test_header_costs import cpu
from tests.reliability.test_hostile_mail import ADDR, CODES

SIZE = 300_000  # bytes of parts: thousands of them, a tenth of what a player's mail may hold
MAX_RATIO = 6.0  # times the cost of one attachment of the same size (it was 23 to 36 times, and growing with it)
_ids = itertools.count()

#: A part of a multipart/mixed of boundary "B", as a hostile (or a broken) client writes it again and again.
PARTS: dict[str, str] = {
    "a few bytes of text": "--B\r\n\r\nx\r\n",
    "a code in each": "--B\r\n\r\nCODE ABCD-EFGH\r\n",
    "messages inside": "--B\r\nContent-Type: message/rfc822\r\n\r\nFrom: x@y\r\nSubject: s\r\n\r\nx\r\n",
    "html parts": "--B\r\nContent-Type: text/html\r\n\r\n<p>x</p>\r\n",
    "attachments": "--B\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment\r\n\r\nAAAA\r\n",
}


class Home1:
    """A home with one game, hh (Alice, Bob, Carol), and a cheap way to look at its record."""

    def __init__(self, root: Path) -> None:
        from pbem.app import games
        from pbem.home.app import Home
        from tests.reliability import killpoints as kp

        self.cfg = kp.make_home(root)
        players = [(p, ADDR[p]) for p in ("Alice", "Bob", "Carol")]
        games.create_game(Home.of(self.cfg), "habsburg", "hh", players, seed="costs5-parts", codes=CODES)
        self.con = sqlite3.connect(self.cfg.database_url.removeprefix("sqlite:///"), timeout=30)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home1]:
    from pbem.trust import dkim

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dkim, "resolver", lambda name, timeout=5: None)
        w = Home1(tmp_path_factory.mktemp("costs5-parts") / "home")
        yield w
        w.con.close()


@pytest.fixture(scope="module")
def base(world: Home1) -> float:
    """The CPU time of a mail of one attachment of `SIZE` bytes."""
    return cpu(world, _mail(_attachment(SIZE)))  # type: ignore[arg-type]


def _mail(parts: str) -> Callable[[], bytes]:
    """A fresh copy (its own Message-ID) of Alice's orders for hh followed by `parts`."""

    def make() -> bytes:
        head = (
            f"From: Alice <{ADDR['Alice']}>\r\nTo: moderator@pbem.test\r\nSubject: [pbem hh] orders\r\n"
            f"Message-ID: <parts-{next(_ids)}@players.test>\r\nMIME-Version: 1.0\r\n"
            'Content-Type: multipart/mixed; boundary="B"\r\n\r\n'
        )
        first = f"--B\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nCODE {CODES['Alice']}\r\nPASS\r\n"
        return (head + first + parts + "--B--\r\n").encode()

    return make


def _attachment(size: int) -> str:
    lines = size // 74
    return (
        "--B\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        + ("QUFB" * 18 + "\r\n") * lines
    )


@pytest.mark.parametrize("shape", sorted(PARTS))
def test_many_parts_cost_no_more_than_one_attachment_of_their_size(world: Home1, base: float, shape: str) -> None:
    many = PARTS[shape] * (SIZE // len(PARTS[shape]))
    t = cpu(world, _mail(many), within=MAX_RATIO * max(base, 5e-3))  # type: ignore[arg-type]
    assert t <= MAX_RATIO * max(base, 5e-3), f"{shape}: {t:.3f} s against one attachment's {base:.4f} s"


def test_a_mail_of_too_many_parts_is_refused_with_why_and_stored_without_its_body(world: Home1) -> None:
    from pbem.app import poll as polling
    from pbem.home.app import Home
    from pbem.mail.outbound.bodies import text_bodies
    from tests.reliability.test_hostile_mail import WHEN

    last = world.con.execute("SELECT coalesce(max(id), 0) FROM outbox").fetchone()[0]
    raw = _mail(PARTS["a code in each"] * (MAX_PARTS + 1))()
    assert polling.contained(Home.of(world.cfg), raw, WHEN).kind == "rejected"
    outcome, reason, stored = world.con.execute(
        "SELECT outcome, reason, raw FROM inbound_messages ORDER BY id DESC LIMIT 1"
    ).fetchone()
    assert (outcome, reason) == ("rejected", f"could not be read: the message has more than {MAX_PARTS} parts")
    assert b"ABCD-EFGH" not in stored and CODES["Alice"].encode() not in stored and len(stored) < 2_000
    (told,) = world.con.execute(
        "SELECT keep_raw, raw FROM outbox JOIN outbox_mail USING (id) WHERE id > ?", (last,)
    ).fetchall()
    assert f"more than {MAX_PARTS} parts" in text_bodies(told[0] or told[1])["plain"]
    # as many parts as a mail may have are read (its orders applied or refused as any other mail's)
    assert polling.contained(Home.of(world.cfg), _mail(PARTS["a few bytes of text"] * (MAX_PARTS - 2))(), WHEN)
    reason = world.con.execute("SELECT reason FROM inbound_messages ORDER BY id DESC LIMIT 1").fetchone()[0]
    assert "parts" not in (reason or ""), reason


def test_verify_sets_a_mail_of_too_many_parts_aside_and_says_so(tmp_path: Path) -> None:
    from pbem.trust.receipts import read_folder

    folder = tmp_path / "box"
    for sub in ("cur", "new", "tmp"):
        (folder / sub).mkdir(parents=True)
    report = b"From: m@x\r\nSubject: [pbem hh] report\r\n\r\nPrivate report for Alice\r\n"
    parts = b'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="B"\r\n\r\n' + b"--B\r\n\r\nx\r\n" * 100_000
    (folder / "cur" / "1.M1.x:2,S").write_bytes(report)
    (folder / "cur" / "2.M2.x:2,S").write_bytes(b"From: m@x\r\nSubject: [pbem hh] report\r\n" + parts)
    aside: list[str] = []
    assert read_folder(folder, aside) == [report]
    assert aside == [f"2.M2.x:2,S in {folder} has more than {MAX_PARTS:,} parts; pbem's mail has a few"], aside
