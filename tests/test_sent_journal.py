"""The sender's journal and its fold into the outbox (`pbem.record.sentlog`), and the sender threads' claims.

The sender notes what the server accepted in its own file instead of taking the
database's write lock; these tests hold the fold to what marking sent did: one
statement per batch for the rows (and one for the bytes of the mails that carried a
code: the rest are not written again, migration 0022), only queued rows, the code-free copy kept, idempotent, and
a journal left by a killed run folded by the next one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import event, select

from pbem.cli.support import init_home
from pbem.home import config as config_mod
from pbem.mail.outbound.sender import Claims, Dispatcher
from pbem.record import outbox, sentlog
from pbem.record.db import engine_for, reading, session
from pbem.record.models import OutboxMail, OutboxMessage

WHEN = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def _home(tmp_path: Path):
    return config_mod.load(init_home(tmp_path / "home", address="moderator@pbem.test", name="Moderator"))


def _queue(cfg, n: int, secret: bool = False) -> list[int]:
    rows = [
        dict(
            message_id=f"<m{i}@pbem.test>",
            purpose="report",
            to_addr=f"p{i}@example.test",
            raw=b"CODE ABCD-EFGH" if secret else b"report",
            keep_raw=b"CODE [redacted]" if secret else None,
            next_attempt_at=WHEN,
            created_at=WHEN,
        )
        for i in range(n)
    ]
    with session(cfg.database_url) as s:
        outbox.queue(s, rows)
        s.commit()
    with reading(cfg.database_url) as conn:
        return list(conn.execute(select(OutboxMessage.id).order_by(OutboxMessage.id)).scalars())  # type: ignore[arg-type]


def _rows(cfg) -> dict[int, tuple]:
    c = OutboxMessage.__table__.c  # type: ignore[attr-defined]
    m = OutboxMail.__table__.c  # type: ignore[attr-defined]
    q = select(c.id, c.status, c.attempts, m.raw, m.keep_raw).join_from(
        OutboxMessage.__table__,  # type: ignore[attr-defined]
        OutboxMail.__table__,  # type: ignore[attr-defined]
        m.id == c.id,
    )
    with reading(cfg.database_url) as conn:
        return {r[0]: tuple(r[1:]) for r in conn.execute(q)}


def test_fold_marks_the_journaled_rows_sent_in_one_statement_and_drops_the_code(tmp_path: Path) -> None:
    cfg = _home(tmp_path)
    ids = _queue(cfg, 5, secret=True)
    journal = sentlog.SentLog(sentlog.journal_dir(cfg.home))
    for oid in ids[:3]:
        journal.record(oid)
    assert sentlog.read_ids(journal.path) == set(ids[:3])  # on disk before any fold
    statements: list[str] = []
    eng = engine_for(cfg.database_url)
    listener = lambda *a: statements.append(a[2])  # noqa: E731
    event.listen(eng, "before_cursor_execute", listener)
    try:
        with session(cfg.database_url) as s:
            assert sentlog.fold(s.connection(), journal.take(), WHEN) == 3
            s.commit()
    finally:
        event.remove(eng, "before_cursor_execute", listener)
    updates = [" ".join(st.split()) for st in statements if st.lstrip().upper().startswith("UPDATE")]
    assert len(updates) == 2 and updates[0].startswith("UPDATE outbox_mail SET keep_raw=?, raw=")
    assert updates[1].startswith("UPDATE outbox SET") and "raw" not in updates[1]  # the bytes are not in the row
    rows = _rows(cfg)
    assert [rows[i][:2] for i in ids] == [("sent", 1)] * 3 + [("queued", 0)] * 2
    assert all(rows[i][2] == b"CODE [redacted]" and rows[i][3] is None for i in ids[:3])  # the code left with the mail
    assert all(rows[i][2] == b"CODE ABCD-EFGH" for i in ids[3:])
    with session(cfg.database_url) as s:  # folding the same lines again changes nothing
        assert sentlog.fold(s.connection(), ids[:3], WHEN) == 0
        s.commit()
    assert _rows(cfg) == rows
    journal.close(remove=True)
    assert not journal.path.exists()


def test_a_journal_left_by_a_killed_run_is_folded_and_removed_before_anything_is_sent(tmp_path: Path) -> None:
    cfg = _home(tmp_path)
    ids = _queue(cfg, 4)
    # a run that journaled two mails and was killed before folding (its process is gone)
    script = (
        "import sys, os; from pathlib import Path; from pbem.record import sentlog\n"
        "j = sentlog.SentLog(Path(sys.argv[1])); j.record(int(sys.argv[2])); j.record(int(sys.argv[3]))\n"
        "os._exit(0)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    subprocess.run(
        [sys.executable, "-c", script, str(sentlog.journal_dir(cfg.home)), str(ids[0]), str(ids[1])],
        check=True,
        env=env,
    )
    left = sentlog.others(sentlog.journal_dir(cfg.home))
    assert len(left) == 1 and left[0][1] is False  # its writer is dead

    class Recorder:
        def __init__(self) -> None:
            self.sent: list[bytes] = []

        def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
            self.sent.append(recipients[0].encode())

        def close(self) -> None:
            pass

    out = Recorder()
    with Dispatcher(cfg, out, lambda: WHEN) as d:
        d.nudge()
        summary = d.finish()
    assert summary.sent == 2
    assert sorted(out.sent) == [b"p2@example.test", b"p3@example.test"]  # the journaled two are not sent again
    assert {r[0] for r in _rows(cfg).values()} == {"sent"}
    folder = sentlog.journal_dir(cfg.home)
    # both journals folded and removed (the ledger's lock file stays: removing it would race its next holder)
    assert sorted(p.name for p in folder.iterdir()) == sorted([sentlog.LEDGER, sentlog.LOCK])
    assert sorted(map(int, (folder / sentlog.LEDGER).read_text().split())) == sorted(_rows(cfg))  # their ids kept


def test_what_a_journal_remembers_is_only_what_is_not_folded_yet(tmp_path: Path) -> None:
    journal = sentlog.SentLog(tmp_path / "j")
    for oid in (1, 2, 3):
        journal.record(oid)
    ids = journal.take()
    assert ids == [1, 2, 3] and journal.sent == {1, 2, 3}  # taken, not yet committed: still not to be re-sent
    journal.folded(ids)
    journal.record(4)
    assert journal.sent == {4} and journal.pending() == 1
    journal.close(remove=False)
    assert sentlog.read_ids(journal.path) == {1, 2, 3, 4}
    assert 7 in Claims([7]) and 8 not in Claims([7])
