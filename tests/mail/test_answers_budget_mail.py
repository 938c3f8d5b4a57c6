"""Every reply counts over real mail (issue 12): the burst of tests/test_answers_budget_poll.py sent by
SMTP to Dovecot + Postfix, polled over IMAP, answered over SMTP, read back from the player's mailbox."""

from __future__ import annotations

import pytest

from tests.mail.test_e2e import World

pytestmark = pytest.mark.dovecot


def test_a_burst_of_help_and_status_forgeries_gets_one_notice_then_silence_over_imap(
    debian_servers, tmp_path, monkeypatch
) -> None:
    w = World(debian_servers, tmp_path, monkeypatch)
    w.cfg.replies_per_hour = 3
    w.new_game("habsburg", 3)
    w.poll()
    w.new_mail("Alice")  # the first report
    for i in range(8):  # forged in Alice's name: HELP and STATUS need no code
        w.send(f"Alice <{w.address('Alice')}>", "HELP" if i % 2 == 0 else "STATUS")
    w.send(f"Mallory <{w.address('Mallory')}>", "CODE BBBB-3333\nNO EVENT")  # no player: not answered
    s = w.poll()
    assert (s.read, s.failures) == (9, 0)
    subjects = [str(m["Subject"]) for m, _ in w.new_mail("Alice")]
    # Postfix may deliver the four in any order: count the notices, not their place.
    notices = [x for x in subjects if x.startswith("[pbem] Too many messages: answering again at ")]
    assert len(subjects) == 4 and len(notices) == 1, subjects
    assert w.sent_to(w.address("Mallory")) == 0
    for _ in range(3):
        w.send(f"Alice <{w.address('Alice')}>", "STATUS")
    w.poll()
    assert w.new_mail("Alice") == [], "one notice, then silence until the hour has passed"
