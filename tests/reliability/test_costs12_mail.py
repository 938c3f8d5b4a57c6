"""What the last session added to reading mail, at n and 4n (costs12).

* `pbem.trust.told`'s texts remembered by digest: by count alone (1,024), a mailbox of mails of 250 KB held 256 MB of
  text; they are now bounded in characters too (`MEMO_CHARS`), the oldest let go first.
* `html_to_text`'s highlighted lines and quote marks (players14): nested coloured <span>s, <font color>s and <mark>s,
  many highlighted lines, blockquotes nested deeper than the 8 marks a line gets, and up to `BOLD_OPEN` bold runs
  around one text that starts with typed "> " marks, whose marks each run counted again (a loop in Python: 64 runs
  around 40,000 marks 0.2 s on 271d97f, 0.03 s with one pass in C).  All linear (3.8 to 4.3 at 4x).
"""

from __future__ import annotations

from email.message import EmailMessage
from typing import Any

import pytest

from pbem.mail.inbound.message import html_to_text
from pbem.trust import told
from tests.growth import growth


def _mail(i: int, size: int) -> bytes:
    m = EmailMessage()
    m["Subject"] = f"report {i}"
    m.set_content(f"{i}\n" + "x" * 70 + "\n" * (size // 72))
    return m.as_bytes()


def test_the_texts_remembered_are_bounded_in_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(told, "MEMO_CHARS", 1_000_000)
    monkeypatch.setattr(told, "_MEMO", {})
    monkeypatch.setattr(told, "_held", [0])
    mails = [_mail(i, 100_000) for i in range(40)]
    for raw in mails:
        assert told.plain(raw).startswith(str(mails.index(raw)))
        held = sum(len(text) for text in told._MEMO.values())
        assert held == told._held[0] <= 1_000_000 + 101_000, f"{held} characters held"
    parsed = [0]
    parse = told._parse

    def counted(raw: bytes, kind: str) -> str:
        parsed[0] += 1
        return parse(raw, kind)

    monkeypatch.setattr(told, "_parse", counted)
    told.plain(mails[-1])
    assert parsed[0] == 0, "the newest is still remembered"


SHAPES = {
    "nested coloured spans": lambda k: '<span style="color:#ff0000">' * k + "NO EVENT" + "</span>" * k,
    "nested font colours and marks": lambda k: ('<font color="red"><mark>' * k) + "NO EVENT" + "</mark></font>" * k,
    "highlighted lines": lambda k: '<span style="color:red">NO EVENT</span><br>' * k,
    "deep blockquotes": lambda k: "<blockquote>" * k + "<b>NO EVENT</b><br>" * k + "</blockquote>" * k,
    "bold runs around typed marks": lambda k: "<b>" * 64 + "> " * (20 * k) + "x" + "</b>" * 64,
}


@pytest.mark.parametrize("shape", SHAPES)
def test_reading_an_html_part_is_linear(shape: str) -> None:
    def work(k: int) -> Any:
        page = SHAPES[shape](k)
        return lambda: html_to_text(page)

    g = growth(work, 500, bound=6)
    assert g.ratio <= 6, f"{shape}: {g}"
