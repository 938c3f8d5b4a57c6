"""A player's mail costs time linear in its size, whatever it holds: the shapes the third cost hunt measured, each
handled whole (`poll.contained`: parse, the trusted Authentication-Results, identity, redaction, the stored copy,
the decision, the relayed press, SQLite) and its CPU time bounded as a ratio to a plain mail of the same size
(`MAX_RATIO`), and four times the mail at most `MAX_GROWTH` times the time (linear is 4, quadratic 16).

The shapes (see tests/reliability/test_stage_costs.py and test_header_costs.py for the earlier hunts):
* press relayed to the other players: one line of 48,000 characters, three blocks of long lines, the most
  press lines a mail may hold, many presses past `MAX_PRESS`, a press line of spaces before a letter (its
  pattern cost the cube of the spaces: 129 s for 3,000);
* CODE and AWAY lines of spaces before a letter, a run of quote marks around an order, runs of emphasis marks
  between letters (the square of the run: 0.26 s for 4,000), lines naming an address
  whose domain is dots (4 s for 58 KB), "boundary" before a run of spaces (counted in the raw mail);
* Authentication-Results believed from the moderator's server (`trust_authentication_results`): many headers,
  one very long one, runs of semicolons, nested and unclosed comments, unclosed quoted strings, folded lines;
  ARC sets and Received lines;
* HTML: a long attribute list inside one tag that never closes, many unclosed tags, deep nesting, entity runs,
  <style> and <script> that never close.
"""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pbem.app import poll as polling
from pbem.home.app import Home
from pbem.trust import dkim
from tests.growth import growth, least
from tests.reliability.test_header_costs import handling
from tests.reliability.test_hostile_mail import ADDR, CODES, WHEN, World

SIZE = 8_000  # characters of the shape (four times this in the growth check: within a body's 64,000)
MAX_RATIO = 40.0
MAX_GROWTH = 9.0
TRUSTED = "mx.pbem.test"
_ids = itertools.count()


def _words(n: int) -> str:
    return " ".join(("spain", "is", "weak", "this", "turn", "and", "france", "bluffs")[i % 8] for i in range(n // 5))


#: name -> size -> (extra headers, body, the body is HTML)
Shape = Callable[[int], tuple[str, str, bool]]
SHAPES: dict[str, Shape] = {
    "plain": lambda n: ("", "I think France bluffs this turn.\r\n" * (n // 34), False),
    "one-line press": lambda n: ("", f"PRESS TO ALL: {_words(n)}\r\n", False),
    "press blocks of long lines": lambda n: ("", f"PRESS TO ALL\r\n{_words(n // 3)}\r\nEND PRESS\r\n" * 3, False),
    "press of the most lines": lambda n: (
        "",
        "PRESS TO ALL\r\n" + "x\r\n" * 199 + "END PRESS\r\n" + "y\r\n" * n,
        False,
    ),
    "many presses": lambda n: ("", "PRESS TO ALL: hi\r\n" * (n // 18), False),
    "press names": lambda n: ("", "PRESS TO " + ", ".join(["bob", "carol"] * (n // 12)) + ": hi\r\n", False),
    "press line of spaces": lambda n: ("", "PRESS TO ALL: " + " " * n + "x\r\n", False),
    "code line of spaces": lambda n: ("", "CODE" + " " * n + "x\r\n", False),
    "away line of spaces": lambda n: ("", "AWAY" + " " * n + "x\r\n", False),
    "quote marks": lambda n: ("", '"' * n + "x\r\n", False),
    "emphasis marks": lambda n: ("", "PASS a" + "_" * (n // 2) + "b" + "*" * (n // 2) + "c\r\n", False),
    "dotted addresses": lambda n: ("", ("a@" + "." * 200 + "\r\n") * (n // 203), False),
    "boundary and spaces": lambda n: ("", "boundary" + " " * n + "x\r\n", False),
    "trusted results, many": lambda n: (
        f"Authentication-Results: {TRUSTED}; spf=pass smtp.mailfrom=players.test\r\n" * (n // 70),
        "PASS\r\n",
        False,
    ),
    "trusted results, one long": lambda n: (
        f"Authentication-Results: {TRUSTED}; " + "; ".join(["dkim=pass header.d=players.test"] * (n // 35)) + "\r\n",
        "PASS\r\n",
        False,
    ),
    "trusted results, semicolons": lambda n: (
        f"Authentication-Results: {TRUSTED}" + ";" * n + "\r\n",
        "PASS\r\n",
        False,
    ),
    "trusted results, comments": lambda n: (
        f"Authentication-Results: {TRUSTED}; " + "(" * (n // 2) + ")" * (n // 2) + "(a" * (n // 4) + "\r\n",
        "PASS\r\n",
        False,
    ),
    "trusted results, open quotes": lambda n: (
        f"Authentication-Results: {TRUSTED}; " + 'a="\\' * (n // 4) + "\r\n",
        "PASS\r\n",
        False,
    ),
    "trusted results, folded": lambda n: (
        f"Authentication-Results: {TRUSTED};" + "\r\n spf=fail (x)" * (n // 15) + "\r\n",
        "PASS\r\n",
        False,
    ),
    "arc sets and received lines": lambda n: (
        "".join(
            f"ARC-Authentication-Results: i={i}; {TRUSTED}; dkim=pass\r\nARC-Seal: i={i}; a=rsa-sha256; b=AAAA\r\n"
            f"Received: from a (b [192.0.2.1]) by {TRUSTED} with ESMTPS; Fri, 4 Dec 2026 08:00:00 +0000\r\n"
            for i in range(n // 180)
        ),
        "PASS\r\n",
        False,
    ),
    "html attributes of an unclosed tag": lambda n: ("", "<p>PASS</p><p " + 'a="v" ' * (n // 7), True),
    "html unclosed tags": lambda n: ("", "<p>PASS</p>" + "<b>" * (n // 3), True),
    "html deep nesting": lambda n: ("", "<p>PASS</p>" + "<div>" * (n // 11) + "x" + "</div>" * (n // 11), True),
    "html entity runs": lambda n: ("", "<p>PASS</p>" + "&amp;&#65;&x" * (n // 12), True),
    "html style never closed": lambda n: ("", "<p>PASS</p><style>" + "a{b:c}<b>" * (n // 9), True),
    "html script never closed": lambda n: ("", "<p>PASS</p><script>" + "x<y </b " * (n // 8), True),
}


def _mail(headers: str, body: str, html: bool) -> bytes:
    head = (
        f"From: Alice <{ADDR['Alice']}>\r\nTo: moderator@pbem.test\r\nSubject: [pbem hh] orders\r\n"
        f"Message-ID: <costs3-{next(_ids)}@players.test>\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: text/{'html' if html else 'plain'}; charset=utf-8\r\n{headers}\r\n"
    )
    code = f"<p>CODE {CODES['Alice']}</p>" if html else f"CODE {CODES['Alice']}\r\n"
    return (head + code + body).encode("utf-8")


def maker(name: str, size: int) -> Callable[[], bytes]:
    headers, body, html = SHAPES[name](size)
    return lambda: _mail(headers, body, html)


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Iterator[World]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dkim, "resolver", lambda name, timeout=5: None)  # no DNS in a cost test
        w = World(Path(tmp_path_factory.mktemp("costs3")) / "home")
        w.cfg.press_per_day = 10**9  # every press is relayed: its cost is measured, not held back
        w.cfg.trust_authentication_results = TRUSTED
        yield w
        w.con.close()


#: when the mails `_earlier_mails_small` sends are received: after every mail a test handles (at `WHEN`)
LATER = WHEN + datetime.timedelta(days=1)


@pytest.fixture(autouse=True)
def _earlier_mails_small(world: World) -> None:
    """Alice's newest accepted mails, before each test: three short presses received after every mail the tests
    handle.  A mail refused with orders is decided again with the lines of the sender's three newest accepted mails
    of the game (`pbem.app.footprints`), and every mail here is received at `WHEN`: the three were any of the earlier
    shapes' mails, up to 64,000 characters each.  Read again, they were a constant 0.55 s in each reading of a
    refused shape (the trusted Authentication-Results ones: 0.019 s, then 0.58 s once an earlier shape's mails were
    the three), which hid the shape's own growth under it and cost 7 of the file's 10 CPU s."""
    for _ in range(3):
        polling.contained(Home.of(world.cfg), _mail("", "PRESS TO ALL\r\nhello\r\nEND PRESS\r\n", False), LATER)


@pytest.fixture(scope="module")
def plain_cost(world: World) -> float:
    return least(lambda: handling(world, maker("plain", 4 * SIZE)), most=2)


@pytest.mark.parametrize("name", sorted(set(SHAPES) - {"plain"}))
def test_every_shape_grows_linearly_and_costs_a_constant_times_a_plain_mail(
    world: World, plain_cost: float, name: str
) -> None:
    g = growth(lambda k: handling(world, maker(name, k)), SIZE, bound=MAX_GROWTH, floor=5e-3)
    assert min(g.ratio, g.paired) <= MAX_GROWTH, f"{name}: {g}"  # (a quadratic shape is 16x in every pair too)
    assert g.large <= MAX_RATIO * plain_cost, f"{name}: {g.large:.3f} s against a plain mail's {plain_cost:.4f} s"


def test_the_press_is_relayed_and_the_results_are_read(world: World) -> None:
    """The shapes measure the work they name: a one-line press goes to both other players, and a failing verdict
    of the trusted server refuses the mail."""
    since = world.con.execute("SELECT coalesce(max(id), 0) FROM outbox").fetchone()[0]
    polling.contained(Home.of(world.cfg), maker("one-line press", 200)(), WHEN)
    relayed = world.con.execute("SELECT to_addr FROM outbox WHERE id > ? AND purpose = 'press'", (since,)).fetchall()
    assert sorted(a for (a,) in relayed) == [ADDR["Bob"], ADDR["Carol"]]
    failing = f"Authentication-Results: {TRUSTED}; dmarc=fail header.from=players.test\r\n"
    got = polling.contained(Home.of(world.cfg), _mail(failing, "PASS\r\n", False), WHEN)
    assert got.kind == "rejected", got


def test_a_refused_shape_reads_again_only_the_short_earlier_mails(world: World) -> None:
    """Last in the file, after every shape: the mails a refused one is decided again with (`pbem.app.footprints`)
    are the three short presses `_earlier_mails_small` sent, not the shapes' mails (which the readings of every
    refused shape carried, 0.55 s each, until suite12)."""
    from pbem.record import lookups, store

    with Home.of(world.cfg).units() as s:
        game = store.game_by_name(s, "hh")
        assert game is not None and game.id is not None
        earlier = lookups.earlier_mails(s, game.id, "Alice")
    assert len(earlier) == lookups.EARLIER and all(len(raw) < 2_000 for raw in earlier), [len(r) for r in earlier]
