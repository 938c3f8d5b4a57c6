"""`reading.sent_texts` reads pbem's own mails with the fast compat32 parser: the texts it finds are the ones the
modern email policy's `get_body` / `get_content` find (what it did before), for every mail a whole game sends,
each kind of mail, its redacted copy included, and for hand-made layouts around the edges.  The HTML part is
flattened by `html_words`, which must yield the same words as `html_to_text` (only words count when a reply's
copies of these texts are found, `pbem.orders.own_mail`)."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from pbem.app.reading import html_words, sent_texts
from pbem.mail.inbound.message import html_to_text
from pbem.orders.own_mail import _words


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


def words(texts: list[str]) -> list[list[str]]:
    return [_words(t) for t in texts]


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
            got = sent_texts(bytes(mail))
            assert got[0] == want[0], purpose  # the plain text, exactly
            assert words(got) == words(want), purpose


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
        assert words(sent_texts(raw)) == words(by_modern_policy(raw))
    assert [t.strip() for t in sent_texts(both.as_bytes())] == ["the text", "the page"]
    assert sent_texts(b"") == by_modern_policy(b"")  # an empty mail: one empty text, which own_text skips


def test_html_words_reads_the_words_the_parser_reads() -> None:
    """Around the edges of the flattening: declarations, comments, head and style, entities, inline and block
    tags, upper-case tags, attributes."""
    pages = [
        "<!DOCTYPE html><html><head><title>T</title><style>p {color: red}</style></head><body><p>a</p></body></html>",
        "<p>one<b>two</b> three</p><!-- hidden words --><div>four&amp;five &lt;six&gt; caf&eacute;</div>",
        '<TABLE><TR><TD>cell</TD><td>next</td></TR><tr><th class="x">head</th></tr></TABLE>',
        '<ul><li>first<li>second</ul><br>after<br/>line<SCRIPT>var x = "<p>";</SCRIPT>end',
        '<p style="font-family: Georgia">styled</p><span title="a title">inline</span>word<h2>Heading</h2>',
        "<blockquote>quoted <i>text</i></blockquote><pre>  kept\n  lines</pre>&#39;s &#x41;",
    ]
    for page in pages:
        assert _words(html_words(page)) == _words(html_to_text(page)), page
    assert re.sub(r"\s+", " ", html_words(pages[1])).strip() == "onetwo three four&five <six> café"
