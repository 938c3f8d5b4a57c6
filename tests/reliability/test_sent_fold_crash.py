"""A crash between sending a mail and folding what was sent into the outbox re-sends at most that one mail.

The sender notes each mail the server accepted in its journal and the poll
folds the journal into the outbox later (`pbem.record.sentlog`).  Here `pbem
poll` is SIGKILLed right after the server accepted the second mail (before its
journal line: that mail is sent again, once) or right after its journal line
(before any fold: nothing is sent again).  The next run folds the dead run's
journal, sends the rest and leaves no journal behind.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from sqlalchemy import select

from pbem.app import games
from pbem.home.app import Home
from pbem.record import sentlog
from pbem.record.db import reading
from pbem.record.models import OutboxMessage
from pbem.trust import codes
from tests.reliability import killpoints as kp

# Installed in the killed `pbem poll` process before the CLI runs: die at the 2nd mail, after `where`.
HOOK = """
import os, signal, sys
from pbem.mail.transports import maildir
from pbem.record import sentlog
count = {"n": 0}
def die_after(orig):
    def hooked(self, *a, **k):
        orig(self, *a, **k)
        count["n"] += 1
        if count["n"] == 2:
            os.kill(os.getpid(), signal.SIGKILL)
    return hooked
if sys.argv[1] == "sent":
    maildir.MaildirSender.send = die_after(maildir.MaildirSender.send)
else:
    sentlog.SentLog.record = die_after(sentlog.SentLog.record)
from pbem.cli import app
sys.argv = ["pbem", "--config", sys.argv[2], "poll"]
app(prog_name="pbem")
"""


@pytest.mark.parametrize("where, duplicates", [("sent", 1), ("journaled", 0)])
def test_a_kill_between_send_and_fold_resends_at_most_once(tmp_path, monkeypatch, where: str, duplicates: int) -> None:
    cfg = kp.make_home(tmp_path / "home")
    monkeypatch.setattr(games, "hash_code", lambda c: codes.hash_code(c, rounds=1000))
    players = [(p, kp.address("g1", p)) for p in ("Alice", "Bob", "Carol", "Dave")]
    games.create_game(Home.of(cfg), "habsburg", "g1", players, seed="fold-crash")  # four first reports queued
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_TEST_")}
    env["PYTHONPATH"] = kp.REPO + os.pathsep + env.get("PYTHONPATH", "")
    killed = subprocess.run(
        [sys.executable, "-c", HOOK, where, str(cfg.path)], env=env, capture_output=True, text=True, timeout=120
    )
    assert killed.returncode == -9, killed.stderr[-3000:]
    assert kp.run_poll(cfg, wrapper=False).returncode == 0
    sent = kp.delivered(cfg)
    assert len(sent) == 4 and all(n >= 1 for n in sent.values())
    assert sum(n - 1 for n in sent.values()) == duplicates
    assert list(sentlog.journal_dir(cfg.home).iterdir()) == []  # the dead run's journal was folded and removed
    with reading(cfg.database_url) as conn:  # all marked sent: the next run sends nothing
        assert set(conn.execute(select(OutboxMessage.status)).scalars()) == {"sent"}  # type: ignore[call-overload]
