"""Codes are never stored (issue 12): a corpus of encodings through a real poll, then the whole record searched.

Every message below carries Alice's code somewhere (plain, base64,
quoted-printable split by a soft line break, an RFC 2047 subject, HTML only,
an entity inside HTML, quoted text, a signature, a press body, an order
line, a stranger's mail, an auto-reply, a mail naming no game).  After one
`pbem poll` (Maildir transport, real SQLite home) every column of every
table, every mail pbem sent and the run's output are searched for the code
in any case and with any separators, after transfer and RFC 2047 decoding.
"""

from __future__ import annotations

import base64
import quopri
import sqlite3
from email.header import Header
from pathlib import Path

from pbem.home.app import Home
from pbem.mail.inbound.redact import _texts, code_pattern
from tests.reliability import killpoints as kp

CODES = {"Alice": "ALCE-2345", "Bob": "BOBB-3456", "Carol": "CARL-4567"}
ADDR = {p: f"{p.lower()}@players.test" for p in CODES}
ALICE = CODES["Alice"]


def _mail(sender: str, subject: str, body: bytes, mid: str, head: str = "", ctype: str = "text/plain") -> bytes:
    return (
        f"From: {sender}\nTo: moderator@pbem.test\nSubject: {subject}\nMessage-ID: <{mid}@players.test>\n"
        f"MIME-Version: 1.0\n{head}Content-Type: {ctype}; charset=utf-8\n\n"
    ).encode() + body


def corpus(order: str) -> list[bytes]:
    alice = f"Alice <{ADDR['Alice']}>"
    b64 = base64.encodebytes(f"CODE {ALICE}\nHELP\n".encode())
    qp = quopri.encodestring(f"CODE {ALICE}\nSTATUS\n".encode()).replace(b"ALCE-", b"ALCE-=\n")
    subject = Header(f"[pbem hh] orders code {ALICE}", "utf-8").encode()
    return [
        _mail(alice, "[pbem hh] orders", f"CODE {ALICE}\n{order}\n".encode(), "plain"),
        _mail(alice, "[pbem hh] help", b64, "b64", "Content-Transfer-Encoding: base64\n"),
        _mail(alice, "[pbem hh] status", qp, "qp", "Content-Transfer-Encoding: quoted-printable\n"),
        _mail(alice, subject, b"STATUS\n", "rfc2047"),
        _mail(alice, "[pbem hh] html", f"<p>CODE {ALICE}</p><p>STATUS</p>".encode(), "html", ctype="text/html"),
        _mail(alice, "[pbem hh] html entity", b"<p>CODE ALCE&#45;2345</p><p>STATUS</p>", "ent", ctype="text/html"),
        _mail(
            alice,
            "Re: [pbem hh] report",
            f"CODE {ALICE}\nSTATUS\n\nOn Monday the moderator wrote:\n> Your code: {ALICE}\n-- \nAlice {ALICE}\n".encode(),
            "quoted",
        ),
        _mail(alice, "[pbem hh] press", f"CODE {ALICE}\nPRESS TO Bob\nmy code is {ALICE}\nEND PRESS\n".encode(), "press"),
        _mail(alice, "[pbem hh] bad line", f"code: alce2345\nNO EVENT {ALICE}\nVOTE alce 2345\n".encode(), "line"),
        _mail("Mallory <mallory@evil.test>", "[pbem hh] orders", base64.encodebytes(f"CODE {ALICE}\nNO EVENT\n".encode()),
              "stranger", "Content-Transfer-Encoding: base64\n"),
        _mail(alice, f"[pbem hh] Out of office code {ALICE}", f"CODE {ALICE}\n".encode(), "auto",
              "Auto-Submitted: auto-replied\n"),
        _mail(alice, f"orders code {ALICE}", f"CODE {ALICE}\nSTATUS\n".encode(), "nogame"),
        _mail(alice, "[pbem hh] header", b"STATUS\n", "header", f"X-Player-Code: {ALICE}\nCode: alce-2345\n"),
        _mail(f"Alice <{ADDR['Alice']}>\nFrom: Mallory <mallory@evil.test>", f"[pbem hh] code {ALICE}",
              f"CODE {ALICE}\n".encode(), "twofrom"),
    ]  # fmt: skip


def holds_code(value: object, pattern) -> bool:
    if value is None:
        return False
    if isinstance(value, bytes):
        from email import policy
        from email.parser import BytesParser

        if pattern.search(value.decode("latin-1")):
            return True
        msg = BytesParser(policy=policy.compat32).parsebytes(value)
        return any(pattern.search(t) for t in _texts(msg))
    return bool(pattern.search(str(value)))


def home(root: Path):
    from pbem.app.games import create_game

    cfg = kp.make_home(root)
    create_game(Home.of(cfg), "habsburg", "hh", [(p, a) for p, a in ADDR.items()], seed="codes", codes=CODES)
    return cfg


def test_no_code_anywhere_in_the_record_or_the_mail_sent(tmp_path: Path) -> None:
    from pbem import engine as registry
    from pbem.record import store
    from pbem.record.db import session

    cfg = home(tmp_path / "home")
    assert kp.run_poll(cfg, wrapper=False).returncode == 0  # the first reports (which carry the codes) go out
    for p in (Path(cfg.maildir_path) / "sent").glob("*/*"):
        p.unlink()
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "hh"))
        asked = [r for r in registry.get("habsburg").requests(loaded.state) if r.player == "Alice" and not r.answered]
    order = asked[0].legal[0] if asked else "STATUS"
    kp.deliver_in_order(cfg, corpus(order))
    r = kp.run_poll(cfg, wrapper=False)
    assert r.returncode == 0, r.stderr[-3000:]
    pattern = code_pattern([ALICE])
    assert pattern is not None
    assert not pattern.search(r.stdout + r.stderr)
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert {"inbound_messages", "outbox", "events", "orders"} <= set(tables)
    rows = 0
    for table in tables:
        cols = [c[1] for c in con.execute(f'PRAGMA table_info("{table}")')]
        for row in con.execute(f'SELECT * FROM "{table}"'):
            rows += 1
            for col, value in zip(cols, row, strict=True):
                assert not holds_code(value, pattern), f"{table}.{col} holds the code: {str(value)[:600]}"
    recorded = dict(con.execute("SELECT message_id, outcome FROM inbound_messages"))
    assert len(recorded) >= len(corpus(order)) and rows > 30
    assert recorded["<plain@players.test>"] in ("accepted", "held")  # the code still works for the check
    sent = list((Path(cfg.maildir_path) / "sent").glob("*/*"))
    assert sent, "the corpus was answered"
    for p in sent:
        assert not holds_code(p.read_bytes(), pattern), f"a sent mail echoes the code: {p.read_bytes()[:800]!r}"
    echoed = [t for p in sent for t in _texts_of(p.read_bytes()) if t.startswith("Subject: Re: orders code")]
    assert echoed and all("[code]" in t for t in echoed)  # the no-game notice echoes the subject, redacted
    assert any("[code]" in t for p in sent for t in _texts_of(p.read_bytes()))  # the acks do echo, redacted


def _texts_of(raw: bytes) -> list[str]:
    from email import policy
    from email.parser import BytesParser

    return list(_texts(BytesParser(policy=policy.compat32).parsebytes(raw)))
