"""The inbound pipeline's shortcuts give what the long way gives (the poll's CPU per hostile mail).

* `storage.scrub` redacts from the parse `message.parse` already made (`Inbound.tree`, handed out once)
  instead of parsing the bytes again: the stored copy, subject, name, problem and lines are the same.
* The code searches run once over all of a message's texts joined by newlines: no pattern crosses a
  line break, so they find what a search of each text finds; a header without an encoded word skips
  `decode_header`.
* A From line is read once per process (`identity._one_from`): the same sender and problem.
* `db.fetch` runs a prepared look-up on SQLite's own connection: the same rows as SQLAlchemy gives.

The inputs are the fuzzer's mutants of real mails and the hostile corpus, with codes put in.
"""

from __future__ import annotations

import dataclasses
from email import policy
from email.header import decode_header, make_header
from email.parser import BytesParser
from pathlib import Path

import pytest
import sqlalchemy as sa

from pbem.mail.inbound import identity, redact, storage
from pbem.mail.inbound.message import parse
from pbem.mail.inbound.words import _meant
from pbem.orders.extract import extract
from tests.reliability.fuzz_mail import mutants, seeds

CORPUS = Path(__file__).parent / "reliability" / "corpus"


def _inputs(n: int = 400) -> list[bytes]:
    raws = [*mutants(n, 31), *seeds(), *(p.read_bytes() for p in sorted(CORPUS.glob("*.eml")))]
    coded = [r.replace(b"\n\n", b"\n\nCODE ALCE-2345\n", 1) for r in raws[: n // 2]]
    subject = [r.replace(b"Subject: ", b"Subject: code AB12-CD34 ", 1) for r in raws[: n // 4]]
    return raws + coded + subject


def _scrubbed(msg, raw: bytes, limit: int):
    ex = extract(msg.text, msg.subject, None) if not msg.problem else None
    out, stored, lines = storage.scrub(msg, raw, ex, limit)
    return out.subject, out.sender_name, out.problem, out.text, stored, repr(lines)


@pytest.mark.parametrize("limit", [256 * 1024, 3000])
def test_scrub_from_the_parse_already_made_stores_what_a_fresh_parse_stores(limit: int) -> None:
    reused = 0
    for i, raw in enumerate(_inputs(160)):
        msg = parse(raw, "moderator@pbem.test")
        fresh = dataclasses.replace(msg, tree=None)
        reused += msg.tree is not None
        expected = _scrubbed(fresh, raw, limit)
        assert _scrubbed(msg, raw, limit) == expected, raw[:300]
        if i % 4 == 0:  # handed out once: the same Inbound scrubbed again parses the bytes itself, and gets the same
            assert _scrubbed(msg, raw, limit) == expected, raw[:300]
    assert reused > 150  # the shortcut was taken (else this compares the long way with itself)


def test_scrub_ignores_a_parse_of_other_bytes() -> None:
    a = b"From: a@players.test\nSubject: x\n\nCODE ALCE-2345\nNO EVENT\n"
    b = b"From: a@players.test\nSubject: x\n\nNO EVENT\n"
    msg = parse(a, "moderator@pbem.test")
    _, stored, _ = storage.scrub(msg, b, None, 256 * 1024)
    assert stored == b  # b's own bytes: nothing to redact in them, the parse of `a` was not used


def test_one_search_of_the_joined_texts_finds_what_a_search_of_each_finds() -> None:
    pat = redact.code_pattern(["ALCE-2345", "AB12-CD34", "zz99-yy88"])
    assert pat is not None
    for raw in _inputs(200):
        try:
            msg = BytesParser(policy=policy.compat32).parsebytes(raw)
            texts = list(redact._texts(msg))
        except Exception:  # what the redaction itself treats as stating no code
            continue
        each = set().union(*(redact.codes_in_text(t) for t in texts))
        assert redact.codes_in_text("\n".join(texts)) == each, raw[:300]
        assert (pat.search("\n".join(texts)) is not None) == any(pat.search(t) for t in texts), raw[:300]


def test_a_header_without_an_encoded_word_reads_as_decode_header_reads_it() -> None:
    values = {v for raw in _inputs(200) for _, v in BytesParser(policy=policy.compat32).parsebytes(raw).raw_items()}
    values |= {"plain", "caf\udce9 au lait", "tab\there", " lead and trail ", "=? not a word", "a=b?c"}
    for value in values:
        text = str(value).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        try:
            long_way = str(make_header(_meant(decode_header(text))))  # (a mislabelled word: explore35)
        except Exception:
            long_way = text
        assert redact._header_text(value) == long_way, value


def test_a_header_of_the_parsed_message_without_an_encoded_word_reads_as_before() -> None:
    from pbem.mail.inbound.message import _clean, _decoded

    values = {v for raw in _inputs(200) for _, v in BytesParser(policy=policy.compat32).parsebytes(raw).raw_items()}
    for value in values | {"caf\udce9", "x\r\n y", "=?utf-8?q?caf=C3=A9?="}:
        try:
            long_way = str(make_header(_meant(decode_header(str(value)))))
        except Exception:
            long_way = str(value)
        assert _decoded(value) == _clean(long_way), value


def test_a_from_line_read_once_reads_as_it_did_the_first_time() -> None:
    for raw in _inputs(150):
        msg = BytesParser(policy=policy.compat32).parsebytes(raw)
        froms = [identity._one_line(v) for k, v in msg.raw_items() if k.lower() == "from"]
        if len(froms) == 1:
            assert identity.identify(msg) == identity._read_from(froms[0]), froms[0]


def test_fetch_gives_the_rows_sqlalchemy_gives(tmp_path: Path) -> None:
    from pbem.record.db import fetch

    eng = sa.create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    meta = sa.MetaData()
    t = sa.Table("t", meta, sa.Column("id", sa.Integer, primary_key=True), sa.Column("name", sa.String))
    meta.create_all(eng)
    q = sa.select(t.c.id, t.c.name).where(t.c.name == sa.bindparam("name")).order_by(t.c.id).limit(2)
    with eng.begin() as conn:
        conn.execute(t.insert(), [{"name": n} for n in ("a", "b", "a", "a", "c")])
        for name in ("a", "b", "zz"):
            assert fetch(conn, q, {"name": name}) == [tuple(r) for r in conn.execute(q, {"name": name})]
        with pytest.raises(sa.exc.OperationalError):
            fetch(conn, sa.select(sa.text("x")).select_from(sa.table("missing")), {})
