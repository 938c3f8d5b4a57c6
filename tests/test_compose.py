"""Outgoing MIME written by hand (pbem/mail/outbound/compose.py) must read back exactly with the standard parser."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime
from email import policy
from email.parser import BytesParser

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.outbound.compose import Body, Envelope, compose

WHEN = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def build(**kw) -> bytes:
    base = dict(
        sender="moderator@x.test",
        sender_name="The Moderator",
        to="alice@x.test",
        to_name="Alice",
        subject="[pbem g1] Turn 1",
        text="Hello\n",
        html="<p>Hello</p>",
        message_id="<pbem.1@x.test>",
        when=WHEN,
    )
    given = {**base, **kw}
    body = {f.name for f in fields(Body)}
    envelope = Envelope(**{k: v for k, v in given.items() if k not in body})
    return compose(envelope, Body(**{k: v for k, v in given.items() if k in body}))


def read(raw: bytes):
    return BytesParser(policy=policy.default).parsebytes(raw)


def test_headers_and_both_parts_read_back() -> None:
    raw = build(
        sender_name="Moderator, Chief",
        to_name='Zoë "the" Ünter',
        subject="[pbem g] vote — é " + "long " * 30,
        text="VOTE RED — é\n",
        in_reply_to="<q@y.test>",
        references=("<a@y.test>",),
    )
    msg = read(raw)
    assert msg["From"].addresses[0].display_name == "Moderator, Chief"
    assert msg["To"].addresses[0].display_name == 'Zoë "the" Ünter'
    assert msg["To"].addresses[0].addr_spec == "alice@x.test"
    assert str(msg["Subject"]) == "[pbem g] vote — é " + "long " * 30
    assert msg["Auto-Submitted"] == "auto-generated" and msg["X-Loop"] == "moderator@x.test"
    assert msg["In-Reply-To"] == "<q@y.test>" and msg["References"] == "<a@y.test> <q@y.test>"
    assert msg["Message-ID"] == "<pbem.1@x.test>" and msg["Date"].datetime == WHEN
    assert msg.get_body(("plain",)).get_content() == "VOTE RED — é\n"
    assert msg.get_body(("html",)).get_content() == "<p>Hello</p>\n"
    assert not msg.defects and all(not p.defects for p in msg.walk())
    assert max(len(line) for line in raw.split(b"\n")) <= 78


def test_same_message_same_bytes_and_text_only_mail() -> None:
    assert build() == build()
    msg = read(build(html=None))
    assert msg.get_content_type() == "text/plain" and msg.get_content() == "Hello\n"


def test_a_line_break_in_a_name_or_subject_cannot_inject_a_header() -> None:
    msg = read(build(to_name="Eve\r\nBcc: all@x.test", subject="hi\nBcc: all@x.test"))
    assert msg["Bcc"] is None
    assert [a.addr_spec for a in msg["To"].addresses] == ["alice@x.test"]


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=3000),
    html=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=500),
    subject=st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=200),
    name=st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=60),
)
def test_any_text_reads_back_exactly_and_keeps_lines_short(text: str, html: str, subject: str, name: str) -> None:
    raw = build(text=text, html=html, subject=subject, to_name=name)
    msg = read(raw)
    want = text if text.endswith("\n") else text + "\n"
    assert msg.get_body(("plain",)).get_content() == want
    assert msg.get_body(("html",)).get_content() == (html if html.endswith("\n") else html + "\n")
    assert str(msg["Subject"]) == subject.strip() or str(msg["Subject"]).split() == subject.split()
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    assert [a.addr_spec for a in msg["To"].addresses] == ["alice@x.test"]
    assert msg["To"].addresses[0].display_name.split() == name.split()


@settings(max_examples=25, deadline=None)
@given(png=st.binary(min_size=1, max_size=5000), html=st.text(max_size=300))
def test_inline_pictures_read_back_as_a_related_part_named_by_their_content_id(png: bytes, html: str) -> None:
    """Issue 24: a report's board travels as multipart/alternative [text, multipart/related [html, image]]."""
    cid = "board.0123456789abcdef@pbem"
    raw = build(html=f'<img src="cid:{cid}" alt="the board">' + html, images=((cid, png),))
    assert max(len(line) for line in raw.split(b"\n")) <= 78
    msg = read(raw)
    plain, rich = msg.get_payload()
    assert plain.get_content() == "Hello\n" and rich.get_content_type() == "multipart/related"
    part, image = rich.get_payload()
    assert part.get_content_type() == "text/html" and f"cid:{cid}" in part.get_content()
    assert image["Content-ID"] == f"<{cid}>" and image.get_content_type() == "image/png"
    assert image.get_content() == png and image.get_content_disposition() == "inline"
    assert build(html=html, images=((cid, png),)) == build(html=html, images=((cid, png),))  # same bytes


PLAIN_WORD = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters=";,"), min_size=1
)


@settings(max_examples=400, deadline=None)
@given(
    name=st.sampled_from(["Subject", "References", "In-Reply-To", "X-Pbem-Record", "X-Pbem-Signature", "X"]),
    words=st.lists(st.one_of(PLAIN_WORD, PLAIN_WORD.map(lambda w: (w * 80)[: len(w) * 20])), min_size=1, max_size=8),
)
def test_long_headers_of_plain_words_fold_exactly_as_the_standard_library_folds_them(
    name: str, words: list[str]
) -> None:
    """`header` folds printable ASCII words itself (`_folded`) instead of through `email.header.Header`: the
    bytes must be Header's, word lengths around the 78-column limit included."""
    from email.header import Header

    from pbem.mail.outbound.compose import FOLD, header

    value = " ".join(words)
    standard = f"{name}: {Header(value, 'us-ascii', maxlinelen=FOLD, header_name=name).encode(linesep=chr(10))}\n"
    assert header(name, value) == standard
