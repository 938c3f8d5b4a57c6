"""`reading.sent_texts` reads pbem's own mails with the fast compat32 parser: the texts it finds are the ones the
modern email policy's `get_body` / `get_content` find (what it did before), for every mail a whole game sends,
each kind of mail, its redacted copy included, and for hand-made layouts around the edges."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from pbem.app.reading import sent_texts
from pbem.mail.inbound.message import html_to_text


def by_modern_policy(raw: bytes) -> list[str]:
    """The reading sent_texts replaced (pbem/app/reading.py before issue 27)."""
    mail = BytesParser(policy=policy.default).parsebytes(raw)
    out = []
    for kind in ("plain", "html"):
        body = mail.get_body(preferencelist=(kind,))
        if body is not None:
            text = str(body.get_content())
            out.append(html_to_text(text) if kind == "html" else text)
    return out


def test_every_mail_of_a_game_reads_the_same(tmp_path: Path) -> None:
    home = tmp_path / "demo"
    subprocess.run(
        [sys.executable, "-m", "pbem", "demo", "italian-wars", "--seed", "texts", "--dir", str(home)],
        check=True,
        capture_output=True,
    )
    db = sqlite3.connect(home / "pbem.db")
    rows = db.execute("SELECT purpose, raw, keep_raw FROM outbox").fetchall()
    kinds = {purpose for purpose, _, _ in rows}
    assert len(rows) > 20 and {"report", "ack"} <= kinds, kinds
    for purpose, raw, keep in rows:
        for mail in (raw, keep) if keep else (raw,):
            want = by_modern_policy(bytes(mail))
            assert want, purpose
            assert sent_texts(bytes(mail)) == want, purpose


def test_charsets_attachments_and_single_parts() -> None:
    plain = EmailMessage()
    plain.set_content("Grüße, ordres reçues\n", charset="iso-8859-1")
    html_only = EmailMessage()
    html_only.set_content("<p>Only <b>HTML</b> here</p>", subtype="html")
    both = EmailMessage()
    both.set_content("the text\n")
    both.add_alternative("<p>the page</p>", subtype="html")
    both.add_attachment("not a body\n", filename="notes.txt")
    for msg in (plain, html_only, both):
        raw = msg.as_bytes()
        assert sent_texts(raw) == by_modern_policy(raw)
    assert sent_texts(both.as_bytes()) == ["the text\n", "the page"]
    assert sent_texts(b"") == by_modern_policy(b"")  # an empty mail: one empty text, which own_text skips
