"""Hostile or broken IMAP, SMTP, PostgreSQL and DNS servers, one behaviour at one protocol step each (costs25).

The generator is `tests.mail.hostile25` (with `hostile25_pg_dns`; their docstrings list the steps, the behaviours
and what each case checks: the run ends by its deadline in one line naming the server, its memory bounded; then,
with the fault gone, every mail read and filed once, none filed in another's place, and the mail sent accepted once
or refused for good).  `PBEM_COSTS25_FULL=1` (or `PBEM_FULL_SIZE=1`) runs all 207 cases (205 and costs26's two TLS closes) (about 4 minutes: the
dripped and silent answers wait for their deadline); the suite runs `SAMPLE`, cases that end at once.

On 8aa88d6c 2 of the 205 cases failed, both a FETCH of the mails' bodies answered under other UIDs than asked: each
answer under the UID of the next asked ("imap FETCH-BODY other-uids"), or under none (imapclient then keys it by its
sequence number, which in an inbox whose first mail was expunged is another message's UID: "imap FETCH-BODY
no-uid").  pbem recorded the body under the UID it did not belong to and filed that UID: a mail filed unread, lost.
Now 0 of 205: the sizes' FETCH asks each message's Message-ID too, and a body whose Message-ID is not its UID's stays
in the inbox for the next run (`ImapInbox._not_its_own`, one warning line; the poll's handling of it:
`test_a_poll_whose_server_misnumbers_a_fetch_reads_the_mail_next_run_once_and_tells_the_moderator_once`).  The SMTP
(a 4xx, a 5xx, 421, drip, silence, endless lines, reset at each step), PostgreSQL and DNS cases failed none on
8aa88d6c.
"""

from __future__ import annotations

import os
import re

import pytest

from tests.mail import hostile25
from tests.sizes import FULL

EVERY = FULL or bool(os.environ.get("PBEM_COSTS25_FULL"))
SAMPLE = (
    "imap FETCH-BODY other-uids",
    "imap FETCH-BODY no-uid",
    "imap FETCH-SIZES no-uid",
    "imap FETCH-BODY endless-literal",
    "imap FETCH-BODY literal-long",
    "imap MOVE bye",
    "imap MOVE uidvalidity",
    "imap SEARCH endless-line",
    "smtp DATA 4xx",
    "smtp RCPT 5xx",
    "smtp DOT reset",
    "smtp QUIT 4xx",
    # (costs26) a session over TLS whose server, once it has said goodbye, neither closes nor sends close_notify: 0 of 2
    # fail on 4da2cbd6 and on costs26 (pbem's close waits for neither); a close that waited for the peer's close_notify
    # (`SSLSocket.unwrap`) fails both, ended by the watchdog at 2.0 s
    "imap tls-close hold",
    "smtp tls-close hold",
)


def test_the_sample_is_of_the_generator() -> None:
    assert set(SAMPLE) <= set(hostile25.cases()), sorted(set(SAMPLE) - set(hostile25.cases()))


@pytest.mark.parametrize("case", hostile25.cases() if EVERY else SAMPLE)
def test_a_hostile_server_ends_the_run_by_its_deadline_and_loses_nothing(case: str) -> None:
    why = hostile25.check(case)
    assert not why, f"{case}: {why}"


def _home(tmp_path, imap_port: int, smtp_port: int):  # type: ignore[no-untyped-def]
    """A home of one game (`sweep24.home`) reading the scripted IMAP server and sending through the SMTP one."""
    from tests.reliability import sweep24

    cfg = sweep24.home(tmp_path)
    text = cfg.read_text().replace('transport = "maildir"', 'transport = "imap"')
    text = text.replace("[mail]", f"[mail]\npoll_deadline = {int(hostile25.DEADLINE) + 3}", 1)
    for section, port in (("imap", imap_port), ("smtp", smtp_port)):
        text += (
            f'\n[{section}]\nhost = "127.0.0.1"\nport = {port}\nssl = false\nstarttls = false\n'
            'username = "moderator@pbem.test"\npassword_env = "PBEM_COSTS25_PW"\n'
        )
    cfg.write_text(text)
    return cfg


def _write(cfg, sql: str) -> None:  # type: ignore[no-untyped-def]
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(cfg.parent / "pbem.db")) as con, con:
        con.execute(sql)


def _rows(cfg, sql: str) -> list[tuple]:  # type: ignore[no-untyped-def]
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(cfg.parent / "pbem.db")) as con:
        return con.execute(sql).fetchall()


def test_a_poll_whose_server_misnumbers_a_fetch_reads_the_mail_next_run_once_and_tells_the_moderator_once(
    tmp_path, monkeypatch
) -> None:
    """The whole `pbem poll` over the case "imap FETCH-BODY no-uid": the players' mails the server answered under
    another's UID are left unread (not recorded, their deadlines held), the note says so, and the moderator's alert
    is queued once; the next poll (the server answering right) records each mail once, and no second alert."""
    from tests.reliability import sweep24

    monkeypatch.setenv("PBEM_COSTS25_PW", "hostile-pw-25")
    who = [f"{p} <{a}>" for p, a in sweep24.PLAYERS]
    raws = [
        sweep24.mail(who[i % 3], sweep24.signed(f"STATUS\n\n(question {i})", sweep24.PLAYERS[i % 3][0])).as_bytes()
        for i in range(4)
    ]
    imap, smtp = hostile25.Imap(raws, ("FETCH-BODY", "no-uid")), hostile25.Smtp()
    try:
        cfg = _home(tmp_path, imap.port, smtp.port)
        first = sweep24._cli(cfg, "poll")
        assert first.exit_code == 0, first.output[-1500:]
        assert "answered pbem's FETCH of" in first.output, first.output[-1500:]
        read_first = _rows(cfg, "SELECT count(*) FROM inbound_messages")[0][0]
        imap.fault = None
        second = sweep24._cli(cfg, "poll")
        assert second.exit_code == 0, second.output[-1500:]
        assert "answered pbem's FETCH of" not in second.output
    finally:
        imap.close()
        smtp.close()
    ids = [r[0] for r in _rows(cfg, "SELECT message_id FROM inbound_messages")]
    assert read_first < len(raws) and sorted(ids) == sorted(set(ids)) and len(ids) == len(raws), (read_first, ids)
    alerts = _rows(cfg, "SELECT count(*) FROM outbox WHERE purpose = 'alert'")[0][0]
    assert alerts == 1, f"{alerts} alerts queued"
    assert not imap.folders["INBOX"].mails and len(imap.filed) == len(raws), imap.filed


def test_a_postgresql_server_answering_garbage_mid_statement_ends_a_command_in_one_line(monkeypatch) -> None:
    """The case "pg statement garbage" in this process: psycopg's InternalError ("received 2 results from command
    'BEGIN'") was a traceback out of every command on 8aa88d6c (as "pg statement endless"); now the one line a
    command says of a database it cannot use (`pbem.cli._unusable`, `db.broken_server`), exit 3."""
    from pbem.cli import _unusable
    from pbem.record import db
    from tests.mail.hostile25_pg_dns import PG_WAIT, Postgres

    monkeypatch.setattr(db, "PG_CONNECT_TIMEOUT", PG_WAIT)
    monkeypatch.setattr(db, "PG_ANSWER_DEADLINE", float(PG_WAIT))
    db.engine_for.cache_clear()
    server = Postgres("statement", "garbage")
    try:
        with (
            pytest.raises(Exception) as err,
            db.transaction(f"postgresql+psycopg://pbem:pw-25@127.0.0.1:{server.port}/pbem"),
        ):
            pass
    finally:
        server.close()
        db.engine_for.cache_clear()
    line = _unusable(err.value)
    assert line is not None and line.startswith("the database could not be used: ") and "\n" not in line, err.value
    assert "pw-25" not in line


#: Whole polls over a fault (then a clean poll): one case a class of what a poll does with the server's failure
POLL_CASES = (
    "imap FETCH-BODY endless-literal",
    "imap MOVE reset",
    "imap SELECT bye",
    "imap SEARCH drip",
    "smtp DOT 4xx",
    "smtp DOT reset",
    "smtp RCPT 5xx",
    "smtp DATA drip",
    "smtp QUIT reset",
)


def _polled(tmp_path, case: str) -> str:  # type: ignore[no-untyped-def]
    """What went wrong in two polls of a home of one game, 3 players' mails in the inbox and one moderator's message
    queued to each, the first poll over the fault: it ends in at most one `pbem:` line and no traceback; after the
    second every mail is recorded once and filed once, and every mail queued is accepted once or given up on."""
    from tests.reliability import sweep24

    protocol, step, how = case.split(" ")
    who = [f"{p} <{a}>" for p, a in sweep24.PLAYERS]
    raws = [
        sweep24.mail(who[i], sweep24.signed(f"STATUS\n\n(question {i})", sweep24.PLAYERS[i][0])).as_bytes()
        for i in range(3)
    ]
    imap = hostile25.Imap(raws, (step, how) if protocol == "imap" else None)
    smtp = hostile25.Smtp((step, how) if protocol == "smtp" else None)
    problems = []
    try:
        cfg = _home(tmp_path, imap.port, smtp.port)
        sweep24._cli(cfg, "game", "say", sweep24.GAME, "Play on.")
        first = sweep24._cli(cfg, "poll")  # (a traceback raises here)
        said = [line for line in first.output.splitlines() if line.startswith("pbem: ")]
        if len(said) > 1 or first.exit_code not in (0, 1, 3):
            problems.append(f"the first poll: exit {first.exit_code}, {said}")
        if not (imap.faulted.is_set() or smtp.faulted.is_set()):
            problems.append("the fault was never met")
        imap.fault = smtp.fault = None
        for _ in range(2):  # the second with every retry due now (a mail refused for now waits its retry's time)
            again = sweep24._cli(cfg, "poll")
            if again.exit_code != 0:
                problems.append(f"a clean poll: exit {again.exit_code}: {again.output[-300:]}")
            _write(cfg, "UPDATE outbox SET next_attempt_at = '2000-01-01 00:00:00.000000' WHERE status = 'queued'")
    finally:
        imap.close()
        smtp.close()
    ids = [r[0] for r in _rows(cfg, "SELECT message_id FROM inbound_messages")]
    if len(ids) != len(raws) or len(set(ids)) != len(ids):
        problems.append(f"{len(ids)} mails recorded ({len(set(ids))} distinct) of {len(raws)}")
    filed = [raw for _, _, raw in imap.filed]
    if imap.folders["INBOX"].mails or sorted(filed) != sorted(raws):
        problems.append(f"{len(imap.folders['INBOX'].mails)} left in the inbox, {len(filed)} filed")
    sent = [m for raw in smtp.accepted for m in re.findall(rb"(?im)^Message-ID: *(<[^>]*>)", raw)[:1]]
    if len(sent) != len(set(sent)):
        problems.append(f"a mail accepted twice: {sorted(m for m in sent if sent.count(m) > 1)}")
    left = _rows(cfg, "SELECT status, count(*) FROM outbox WHERE status NOT IN ('sent', 'failed') GROUP BY status")
    if left:
        problems.append(f"mail still to send after two clean polls: {left}")
    return "; ".join(problems)


@pytest.mark.skipif(not EVERY, reason="whole polls: PBEM_COSTS25_FULL=1 (the suite polls one case above)")
@pytest.mark.parametrize("case", POLL_CASES)
def test_a_poll_over_a_hostile_server_loses_nothing_and_sends_nothing_twice(tmp_path, monkeypatch, case: str) -> None:
    monkeypatch.setenv("PBEM_COSTS25_PW", "hostile-pw-25")
    why = _polled(tmp_path, case)
    assert not why, f"{case}: {why}"
