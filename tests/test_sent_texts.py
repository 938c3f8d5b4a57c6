"""`reading.sent_texts` reads pbem's own mails with the fast compat32 parser: the texts it finds are the ones the
modern email policy's `get_body` / `get_content` find (what it did before), for every mail a whole game sends,
each kind of mail, its redacted copy included, and for hand-made layouts around the edges.  The HTML part is
flattened by `html_words`, which must yield the same words as `html_to_text` (only words count when a reply's
copies of these texts are found, `pbem.orders.own_mail`)."""

from __future__ import annotations

import re
import sqlite3
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import compat32

from pbem.app.reading import html_words, sent_texts
from pbem.mail.inbound.message import html_to_text
from pbem.mail.outbound.bodies import parsed_bodies, text_bodies
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


def test_every_mail_of_a_game_reads_the_same() -> None:
    from tests.test_history_golden import seeded_home

    home = seeded_home("italian-wars")  # a whole game's mail, played once per run; only read here
    db = sqlite3.connect(home / "pbem.db")
    rows = db.execute("SELECT purpose, raw, keep_raw FROM outbox JOIN outbox_mail USING (id)").fetchall()
    db.close()
    kinds = {purpose for purpose, _, _ in rows}
    assert len(rows) > 20 and {"report", "ack"} <= kinds, kinds
    for purpose, raw, keep in rows:
        for mail in (raw, keep) if keep else (raw,):
            want = by_modern_policy(bytes(mail))
            assert want, purpose
            assert text_bodies(bytes(mail)) == parsed_bodies(message_from_bytes(bytes(mail), policy=compat32))
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
    assert _words(html_to_text(pages[2])) == ["cell", "next", "head"]  # a cell's words parted from the next cell's


def test_text_bodies_read_what_the_parser_reads_in_other_layouts() -> None:
    """CRLF line ends, a preamble and an epilogue, a base64 text part, an attachment before the body, nested
    alternatives, 8-bit text; and the layouts left to the standard parser (a mail inside the mail, a missing
    closing boundary, no blank line, an unknown transfer encoding) give its answer too."""
    nested = EmailMessage()
    nested.set_content("Grüße aus Köln\n", charset="utf-8", cte="base64")
    nested.add_alternative("<p>Gr&uuml;&szlig;e</p>", subtype="html", cte="quoted-printable")
    outer = EmailMessage()
    outer.add_attachment(b"\x89PNG not text", maintype="image", subtype="png", filename="board.png")
    outer.attach(nested)
    outer.preamble = "This is a multi-part message in MIME format.\n"
    outer.epilogue = "the end\n"
    inner_mail = EmailMessage()
    inner_mail.set_content("the body\n")
    inner_mail.add_attachment(b"From: a@b.test\nSubject: x\n\nforwarded text\n", maintype="message", subtype="rfc822")
    eight = b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\nordres re\xc3\xa7ues\n"
    cut = outer.as_bytes().rsplit(b"--", 2)[0]  # the closing delimiter gone
    odd = b"Content-Type: text/plain\nContent-Transfer-Encoding: x-uuencode\n\nbegin 644 x\n"
    for raw in (
        outer.as_bytes(),
        outer.as_bytes().replace(b"\n", b"\r\n"),
        nested.as_bytes(),
        inner_mail.as_bytes(),
        eight,
        cut,
        odd,
        b"Subject: no body",
        b"",
    ):
        want = parsed_bodies(message_from_bytes(raw, policy=compat32))
        assert text_bodies(raw) == want, raw[:200]
    assert text_bodies(outer.as_bytes())["plain"] == "Grüße aus Köln\n"
