"""`pbem outbox list` and `retry` cost the mails' heads, not their bodies, and print bounded lines (costs8).

Both read whole outbox rows, the raw mail and its kept copy with them: `list` held up to 200 mails' bodies to print
one line of each, and `retry --all` every failed mail's body at once (ORM rows, all in memory until the commit), so
a home whose SMTP server refused a few thousand reports held them all to change a status.  `retry 1 2 ...` named
every id in one IN list and printed every id in one line; `list` showed the newest 200 and never said there were
more.  Now the heads are read, the ids updated in batches
(`pbem.record.outbox.REQUEUE_BATCH`), a line names at most `pbem.cli.outbox.NAMED` ids and counts the rest, and
`list` counts what it did not list.  The generator: n and 4n failed mails of 64 KB, each command's peak memory
(on cc9d072: `retry --all` 4 MB at 50 mails, 13.6 MB at 200; `list` 3.4 and 13.5 MB), the lines (both failed on
cc9d072), and 40,000 ids in batches.
"""

from __future__ import annotations

import tracemalloc
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import insert
from typer.testing import CliRunner

from pbem.cli import app
from pbem.record import outbox
from pbem.record.db import session
from pbem.record.models import OutboxMessage
from tests.growth import alone, traced

BODY = b"x" * 65_536
WHEN = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)


def _failed(url: str, n: int, start: int = 0) -> None:
    rows = [
        dict(message_id=f"<m{start + i}@pbem.test>", purpose="report", to_addr=f"p{i}@x.test", raw=BODY,
             status="failed", attempts=5, last_error="SMTP 450 try later", next_attempt_at=WHEN, created_at=WHEN)
        for i in range(n)
    ]  # fmt: skip
    with session(url) as s:
        s.connection().execute(insert(OutboxMessage), rows)
        s.commit()


def _peak(url: str, run: Any) -> int:
    """The bytes `run(session)` holds at its peak, counted in a forked child of its own (`tests.growth.alone`): SQLite
    lets the worker's other threads run while it waits, and `traced` alone counted what they allocated then (1.51 to
    1.69 MB against the bound of 1 MB beside `tests.noisy`'s neighbour, both cases; its own count is about 0.1 MB)."""

    def peak() -> int:
        with session(url) as s:
            try:
                with traced():
                    tracemalloc.reset_peak()
                    before = tracemalloc.get_traced_memory()[0]
                    run(s)
                    return tracemalloc.get_traced_memory()[1] - before
            finally:
                s.rollback()

    return alone(peak)


@pytest.mark.parametrize("n", [50, 200])
def test_listing_and_queuing_again_hold_no_mails_body(home: Any, n: int) -> None:
    _failed(home.database_url, n)
    requeued = _peak(home.database_url, lambda s: outbox.requeue(s, None, WHEN))
    listed = _peak(home.database_url, lambda s: outbox.given_up(s))
    assert requeued < 1_000_000 and listed < 1_000_000, (requeued, listed, n * len(BODY))


def test_the_lines_name_a_bounded_number_of_mails_and_count_the_rest(home: Any, monkeypatch: Any) -> None:
    from pbem.cli import outbox as cli

    monkeypatch.setattr(cli, "LISTED", 20, raising=False)
    _failed(home.database_url, 30)
    runner = CliRunner()
    res = runner.invoke(app, ["-c", str(home.path), "outbox", "list"])
    assert res.exit_code == 0, res.output
    assert len(res.output.splitlines()) == 22 and "... and 10 older mail(s) given up on, not listed" in res.output
    res = runner.invoke(app, ["-c", str(home.path), "outbox", "retry", *map(str, range(1, 41))])
    assert res.exit_code == 2 and max(len(x) for x in res.output.splitlines()) < 400, res.output
    assert "and 10 more (30 in all)" in res.output and "(10 in all)" not in res.output, res.output
    assert "not given up on (or no such mail): #31, #32" in res.output, res.output


def test_any_number_of_ids_is_queued_again(home: Any) -> None:
    _failed(home.database_url, 3)
    with session(home.database_url) as s:
        assert outbox.requeue(s, range(1, 40_001), WHEN) == [1, 2, 3]
        s.commit()
    with session(home.database_url) as s:
        assert outbox.given_up(s) == []
