"""Control characters are made visible in everything shown on a terminal or written to a text export (issue 26).

A player's press full of escape sequences (retitle the terminal, clear the screen, recolour, a bidi override
that reverses the line) is relayed and recorded; neither the other players' text mail, nor the text export,
nor `pbem game show`, nor a log line holds a raw control character: each is shown as an escape.
"""

from __future__ import annotations

import logging
import re

import pytest

from pbem.home.app import Home
from pbem.render.sanitize import visible
from tests.reliability.test_hostile_mail import ADDR, CODES, WHEN, World

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m \u202egnp.exe\x9b1m"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text, Zoë Müller, 日本", "plain text, Zoë Müller, 日本"),
        ("a\x1b[2Jb", "a\\x1b[2Jb"),
        ("bell\x07", "bell\\x07"),
        ("over\rwrite", "over\\x0dwrite"),
        ("csi\x9bm", "csi\\x9bm"),
        ("rev\u202eersed", "rev\\u202eersed"),
        ("line\u2028sep", "line\\u2028sep"),
    ],
)
def test_visible_shows_every_control_character_as_an_escape(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert visible(text + "\r\nnext\tcol", keep_lines=True) == shown + "\nnext\tcol"


def test_every_code_point_is_escaped_exactly_when_its_category_says_so() -> None:
    """`visible`'s one-pattern search finds exactly the characters the category rule names, over all of Unicode."""
    import unicodedata

    from pbem.render.sanitize import _BIDI

    for n in range(0x110000):
        if 0xD800 <= n <= 0xDFFF:  # surrogates: not characters of a str read from mail
            continue
        ch = chr(n)
        escaped = ch in _BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp")
        assert (visible("a" + ch) != "a" + ch) == (escaped and ch not in "\n\t"), hex(n)
        if ch not in "\n\t\r":
            assert (visible(ch, keep_lines=True) != ch) == escaped, hex(n)


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    return World(tmp_path_factory.mktemp("controls") / "home")


def test_hostile_press_reaches_no_terminal_and_no_text_export_raw(world: World, caplog) -> None:
    from email import policy
    from email.parser import BytesParser

    from pbem.app import poll as polling
    from pbem.app.exports import export_game
    from pbem.home.logs import RedactFilter

    _, _, last = world.counts()
    lines = [f"CODE {CODES['Alice']}", "PRESS TO ALL", HOSTILE, "END PRESS"]
    assert polling.handle(
        Home.of(world.cfg), world.mail(ADDR["Alice"], "hh", lines, mid="<esc@players.test>"), WHEN
    ).kind == ("accepted")
    press = world.con.execute(
        "SELECT raw FROM outbox JOIN outbox_mail USING (id) WHERE id > ? AND purpose = 'press'", (last,)
    ).fetchall()
    assert press
    for (raw,) in press:
        text = BytesParser(policy=policy.default).parsebytes(raw).get_body(("plain",)).get_content()
        assert "\\x1b[2J" in text and not RAW.search(text), text
    for who in (None, "Bob"):
        export = export_game(Home.of(world.cfg), "hh", "text", as_player=who)
        assert "\\x1b]0;pwned" in export and not RAW.search(export)
    record = logging.LogRecord("pbem.test", logging.WARNING, __file__, 1, "press: %s", (HOSTILE,), None)
    RedactFilter([]).filter(record)
    assert not RAW.search(record.getMessage()) and "\\x1b[31m" in record.getMessage()
