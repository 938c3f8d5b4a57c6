"""Whether each asked player got the step's report is read without reading the reports themselves (costs17).

At every due deadline `pbem.app.undelivered` asks `deliveries.deliveries` which of the step's asked players got
its report.  `outbox.status` and `outbox.sent_at` are stored after each mail's `raw` bytes, and SQLite follows a
row's overflow pages to reach a column stored after them: on 7f9524d the statement read every report of the step
to its asked players whole (a Sixteen Thirty report is about 55 KB).  Migration 0020 adds the index that holds
those columns; the statement is unchanged, and so is its answer.  The generator: the same reports, sent, queued
and failed, with mails of `SMALL` and 4 `SMALL` bytes; counted, not timed: the read calls the process makes
(`/proc/self/io`'s syscr, a fresh connection each, as `test_costs15_mail_bytes` counts them).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import timedelta

import pytest

from pbem.record import deliveries
from tests.reliability.test_costs15_mail_bytes import IO, PLAYERS, SMALL, T0, _at, _reads

pytestmark = pytest.mark.skipif(not IO.exists(), reason="counts the read calls of /proc/self/io (Linux)")

STEPS = 12  # reports before the step asked about, and in it
STATUSES = ("sent", "queued", "failed", "sent")  # cycled through a player's reports of the step
SINCE = T0 + timedelta(minutes=STEPS)


def _write(path: str, size: int) -> None:
    """Game 1: each player's `STEPS` reports before the step and `STEPS` in it (the first of Carol's not sent),
    and the same of game 2, each of `size` bytes."""
    with closing(sqlite3.connect(path)) as con, con:
        for gid in (1, 2):
            con.execute(
                "INSERT INTO games (id, name, kind, seed, seed_commitment, players_json, options_json, "
                "deadline_seconds, resolve, created_at, insecure_seed, legacy_events) "
                "VALUES (?, ?, 'habsburg', 's', 'c', '[]', '{}', 3600, 'asap', ?, 0, 0)",
                (gid, f"g{gid}", _at(0)),
            )
        rows = []
        for gid in (1, 2):
            for i in range(2 * STEPS):
                for k, p in enumerate(PLAYERS):
                    status = STATUSES[(i + k) % len(STATUSES)] if p != "Carol" or i > STEPS else "queued"
                    sent = _at(i + 1) if status == "sent" else None
                    rows.append((f"<{gid}{p}{i}@t>", gid, p, i, f"{p}@t", size, status, sent, _at(i), _at(i)))
        con.executemany(
            "INSERT INTO outbox (message_id, game_id, player, purpose, upto_seq, to_addr, status, attempts, "
            "last_error, sent_at, next_attempt_at, created_at) "
            "VALUES (?, ?, ?, 'report', ?, ?, ?, 1, '', ?, ?, ?)",
            [r[:5] + r[6:] for r in rows],
        )
        con.execute("INSERT INTO outbox_mail (id, raw) SELECT id, zeroblob(?) FROM outbox", (size,))  # (0022)


@pytest.fixture(scope="module")
def reads(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int, object]]:
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    out = []
    for size in (SMALL, 4 * SMALL):
        home = init_home(tmp_path_factory.mktemp(f"reports{size}") / "home", address="m@pbem.test", name="M")
        url = config_mod.load(home).database_url
        _write(url.removeprefix("sqlite:///"), size)
        out.append(_reads(url, lambda s: deliveries.deliveries(s, 1, PLAYERS, SINCE)))
    return out


def test_the_steps_deliveries_are_read_without_the_reports_bytes(reads: list[tuple[int, object]]) -> None:
    (n, at_n), (four, at_four) = reads
    assert at_n == at_four, "the answer depends on the reports' size"
    assert four <= n * 1.25 + 4, f"{n} and {four} read calls for the step's reports of {SMALL} and 4x bytes"


def test_the_answer_is_what_the_reports_say(reads: list[tuple[int, object]]) -> None:
    (_, got), _ = reads
    assert isinstance(got, dict)
    want: dict[str, deliveries.Delivery] = {}
    for k, p in enumerate(PLAYERS):
        sent, pending = None, []
        for i in range(STEPS, 2 * STEPS):
            status = STATUSES[(i + k) % len(STATUSES)] if p != "Carol" or i > STEPS else "queued"
            if status == "sent":
                sent = sent or T0 + timedelta(minutes=i + 1)
            else:
                pending.append((i * len(PLAYERS) + k + 1, status))
        want[p] = deliveries.Delivery(p, sent, tuple(pending))
    assert got == want
