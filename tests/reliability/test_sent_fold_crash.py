"""A crash between sending a mail and folding what was sent into the outbox re-sends at most that one mail.

The sender notes each mail the server accepted in its journal and the poll
folds the journal into the outbox later (`pbem.record.sentlog`).  Here `pbem
poll` is SIGKILLed right after the server accepted the second mail (before its
journal line: that mail is sent again, once) or right after its journal line
(before any fold: nothing is sent again).  The next run folds the dead run's
journal, sends the rest and leaves no journal behind.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbem.app import games
from pbem.home.app import Home
from pbem.record import sentlog
from pbem.record.db import reading
from pbem.record.models import OutboxMessage
from tests.reliability import killpoints as kp


# Killed at the 2nd mail: after the server accepted it, before its journal line (`send`: it is sent again),
# or after its journal line (`journal`: nothing is sent again).  `killpoints` installs the kill point.
@pytest.mark.parametrize("where, duplicates", [("send", 1), ("journal", 0)])
def test_a_kill_between_send_and_fold_resends_at_most_once(tmp_path, where: str, duplicates: int) -> None:
    cfg = kp.make_home(tmp_path / "home")
    players = [(p, kp.address("g1", p)) for p in ("Alice", "Bob", "Carol", "Dave")]
    games.create_game(Home.of(cfg), "habsburg", "g1", players, seed="fold-crash")  # four first reports queued
    killed = kp.run_poll(cfg, {"PBEM_TEST_KILL_AT": f"{where}:2"}, timeout=120)
    assert killed.returncode == -9, killed.stderr[-3000:]
    assert kp.run_poll(cfg, wrapper=False).returncode == 0
    sent = kp.delivered(cfg)
    assert len(sent) == 4 and all(n >= 1 for n in sent.values())
    assert sum(n - 1 for n in sent.values()) == duplicates
    # the dead run's journal was folded and removed (its ids kept in the ledger of mails sent, for a restore)
    left = sorted(p.name for p in sentlog.journal_dir(cfg.home).iterdir())
    assert left == sorted([sentlog.LEDGER, sentlog.LOCK])  # (the ledger's lock file stays)
    with reading(cfg.database_url) as conn:  # all marked sent: the next run sends nothing
        assert set(conn.execute(select(OutboxMessage.status)).scalars()) == {"sent"}  # type: ignore[call-overload]
