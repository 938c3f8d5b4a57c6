"""CPU of two pieces of the work beside the poll's thread (perf37), in this process, for the pbem first on the path.

    PYTHONPATH=CHECKOUT python benchmarks/beside_poll.py [--nudges 300] [--ids 3000]

* `sender_reading_ms_a_mail`: the sender thread's reading of its due mail (`sender._due_mail`: the due ids, the
  mails' bytes, each mail's status right before it goes), three mails a nudge as a poll's nudges mostly find, on a
  SQLite record; `time.thread_time`, per mail.
* `message_id_ms`: the IMAP thread's reading of a fetched message's Message-ID (`imap._message_id`) for a 7 KB
  reply quoting a report, per message.

Compare checkouts by running it with each first on `PYTHONPATH` (`git worktree add --detach /tmp/base COMMIT`),
alternated; each figure is one thread's CPU, so a busy machine moves it less than a wall-clock figure.  Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

WHEN = datetime(2026, 12, 7, 11, 0, tzinfo=UTC)
REPLY = (
    b"From: a@x.test\r\nTo: m@x.test\r\nSubject: Re: [pbem g1] Turn 3\r\nMessage-ID: <r1@x.test>\r\n"
    b"In-Reply-To: <s@x.test>\r\nReferences: <s@x.test>\r\nDate: Mon, 5 Jan 2026 12:00:00 +0000\r\n"
    b"Content-Type: text/plain\r\n\r\n" + b"> a quoted line of the report, as mail clients quote it\r\n" * 120
)


def sender_reading(nudges: int) -> float:
    from sqlalchemy import text

    from pbem.mail.outbound import sender as sending
    from pbem.record import db, outbox, sentlog

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        url = f"sqlite:///{home / 'o.db'}"
        db.migrate(url)
        cpu = 0.0
        for r in range(nudges):
            with db.session(url) as s:
                rows = [
                    dict(
                        message_id=f"<m{r}.{i}@x.test>",
                        purpose="report",
                        player="P",
                        to_addr="p@x.test",
                        raw=b"Subject: x\n\n" + b"y" * 6000,
                        keep_raw=None,
                        next_attempt_at=WHEN - timedelta(minutes=1),
                        created_at=WHEN,
                    )
                    for i in range(3)
                ]
                outbox.queue(s, rows)
                s.commit()
            journal = sentlog.SentLog(home / f"j{r}")
            cfg = SimpleNamespace(database_url=url, home=home)
            t = time.thread_time()
            for _ in sending._due_mail(cfg, WHEN, journal, sending.Claims(), (0, 1)):  # type: ignore[arg-type]
                pass
            cpu += time.thread_time() - t
            journal.close(remove=True)
            with db.transaction(url) as conn:
                conn.execute(text("UPDATE outbox SET status = 'sent'"))
        return 1000 * cpu / (3 * nudges)


def message_id(ids: int) -> float:
    from pbem.mail.transports import imap

    t = time.thread_time()
    for _ in range(ids):
        imap._message_id(REPLY)
    return 1000 * (time.thread_time() - t) / ids


def main() -> None:
    import pbem

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nudges", type=int, default=300)
    ap.add_argument("--ids", type=int, default=3000)
    args = ap.parse_args()
    doc = {
        "benchmark": "beside_poll",
        "pbem": str(Path(pbem.__file__).parent),
        "sender_reading_ms_a_mail": round(sender_reading(args.nudges), 4),
        "message_id_ms": round(message_id(args.ids), 4),
    }
    print(json.dumps(doc))


if __name__ == "__main__":
    main()
