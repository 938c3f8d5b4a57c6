"""Every reply counts, through the whole poll (issue 12): real SQLite, the Maildir transport.

A burst of HELP and STATUS mails forged in a player's name (they need no code)
gets `replies_per_hour` answers, ONE "too many messages, answering again at
HH:MM" notice and then silence until the hour has passed; a stranger writing
with a stolen code costs no key derivation and gets one short answer a day.
The same burst over IMAP + SMTP is in tests/mail/test_answers_budget_mail.py.
"""

from __future__ import annotations

from pbem.app import games
from pbem.app import poll as polling
from pbem.home.app import Home
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from pbem.trust import codes
from tests.conftest import CODES, deliver, order_mail, sent_mail, signed

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
ALICE = "Alice <alice@players.test>"


def run_poll(cfg, clock):
    return polling.poll(
        Home.of(cfg, inbox=MaildirInbox(cfg.maildir_path), sender=MaildirSender(cfg.maildir_path), clock=clock)
    )


def to(msgs, address: str) -> list[str]:
    return [str(m["Subject"]) for m in msgs if m["To"].addresses[0].addr_spec == address]


def test_a_burst_of_help_and_status_forgeries_gets_one_notice_then_silence(home, clock, monkeypatch) -> None:
    home.replies_per_hour = 4
    home.stranger_answers_per_day = 1
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="budget", clock=clock, codes=CODES)
    run_poll(home, clock)
    seen: set = set()
    sent_mail(home, seen)
    codes.forget_checks()
    before = codes.derivations  # code checks computed in this process (the poll runs in it too)

    for i in range(10):
        deliver(home, order_mail(ALICE, "hh1", "HELP" if i % 2 == 0 else "STATUS"))
    for body in (signed("Bob", "NO EVENT"), signed("Alice", "STATUS"), "CODE WXYZ-2345\nHELP"):
        deliver(home, order_mail("Mallory <mallory@evil.test>", "hh1", body))
    deliver(home, order_mail("Mallory <mallory@evil.test>", "", "hello", subject="hello"))
    s = run_poll(home, clock)
    assert s.read == 14 and s.failures == 0
    new = sent_mail(home, seen)
    alice = to(new, "alice@players.test")
    assert len(alice) == 5, alice
    assert sum("Handbook" in x for x in alice[:4]) == 2, "two HELP answers and two STATUS reports"
    assert alice[4] == "[pbem] Too many messages: answering again at 13:00 UTC"
    assert to(new, "mallory@evil.test") == ["[pbem] This address plays no game here"], "one a day"
    assert not to(new, "bob@players.test") and not to(new, "carol@players.test")
    assert codes.derivations == before, "no key derivation: Alice's forgeries carry no code, Mallory is no player"

    clock.advance(minutes=30)
    for _ in range(3):
        deliver(home, order_mail(ALICE, "hh1", "HELP"))
    deliver(home, order_mail("Mallory <mallory@evil.test>", "hh1", "again"))
    run_poll(home, clock)
    assert sent_mail(home, seen) == [], "silence until the window passes"

    clock.advance(minutes=31)  # 13:01: the answers of 12:00 left the window
    deliver(home, order_mail(ALICE, "hh1", "HELP"))
    run_poll(home, clock)
    [again] = sent_mail(home, seen)
    assert "Handbook" in str(again["Subject"])


def test_the_stranger_keys_are_read_and_checked(tmp_path) -> None:
    import pytest

    from pbem.home.config import ConfigError, load

    path = tmp_path / "pbem.toml"
    base = '[moderator]\naddress = "m@x.test"\n[mail]\n'
    path.write_text(base)
    cfg = load(path)
    assert (cfg.stranger_answers_per_day, cfg.stranger_answers_per_hour) == (0, 60), "strangers unanswered by default"
    path.write_text(base + "stranger_answers_per_day = 1\nstranger_answers_per_hour = 0\n")
    cfg = load(path)
    assert (cfg.stranger_answers_per_day, cfg.stranger_answers_per_hour) == (1, 0)
    path.write_text(base + "stranger_answers_per_day = -1\n")
    with pytest.raises(ConfigError, match="stranger_answers_per_day"):
        load(path)
