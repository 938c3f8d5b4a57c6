"""A mail the sender had read before `pbem game abandon` withdrew it is not sent (walk10, walk9's leftover).

The sender reads the queued mails a few at a time (`READ_AHEAD`, 16) just before sending; walk9 made a mail that
went out while the game was abandoned recorded `sent`, but the ones read with it still went out after the abandon
had withdrawn them.  Now the sender reads each mail's status again right before handing it to the server (one
read by the primary key) and skips a withdrawn one.

The generator (walk9's race, `tests/mail/test_walk9_withdraw_race.py`): a real SMTP server on 127.0.0.1 holds its
answer to the k-th of a new Habsburg game's three Turn 1 reports (k = 1, 2, 3) until the abandon has committed;
required: no mail after the k-th reaches the server, each one withdrawn in the record, each one that went out
`sent`.  On b1f92b21 2 of 3 cases failed (k = 1 and 2: the 2 and 1 reports after the k-th went out after the
abandon; k = 3 leaves none after it); 0 now.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.app import control, games
from pbem.home.app import Home
from pbem.mail.outbound.sender import send_pending
from pbem.mail.transports.smtp import SmtpSender
from tests.conftest import CODES
from tests.mail.test_deadlines import server
from tests.mail.test_walk9_withdraw_race import PLAYERS, WAIT, _statuses, holding
from tests.reliability import killpoints as kp


@pytest.mark.parametrize("k", [1, 2, 3])
def test_no_mail_goes_out_after_the_abandon_withdrew_it(tmp_path: Path, k: int) -> None:
    cfg = kp.make_home(tmp_path / "home")
    games.create_game(Home.of(cfg), "habsburg", "g1", PLAYERS, seed="walk10", codes=CODES)
    before = _statuses(cfg)
    assert len(before) == 3 and set(before.values()) == {"queued"}, before
    arrived, release = threading.Event(), threading.Event()
    failed: list[BaseException] = []
    with server(holding(k, arrived, release)) as (port, log):
        sender = SmtpSender("127.0.0.1", port, timeout=WAIT)

        def send() -> None:
            try:
                send_pending(cfg, sender, datetime.now(UTC) + timedelta(seconds=1))
            except BaseException as exc:  # handed to the test's thread
                failed.append(exc)
            finally:
                sender.close()

        thread = threading.Thread(target=send)
        thread.start()
        try:
            assert arrived.wait(WAIT), "the sender never reached the k-th mail"
            control.abandon(Home.of(cfg), "g1", datetime.now(UTC))
        finally:
            release.set()
            thread.join(WAIT)
    assert not thread.is_alive() and not failed, failed
    after = _statuses(cfg)
    went = [mid.decode() for mid in log]
    assert len(went) == k, f"{len(went) - k} mail(s) went out after the abandon withdrew them: {went}"
    assert {after[mid] for mid in went} == {"sent"}, after
    assert {status for mid, status in after.items() if mid in before and mid not in went} <= {"withdrawn"}, after
