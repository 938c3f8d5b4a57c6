"""The code check's key derivation: paid once per (seat, code) per process, and only for a registered seat's mail.

PBKDF2's rounds are a security choice (README, "How a game runs by email"); what
the poll controls is how often it pays them.  Derivations are counted by
`pbem.trust.codes.derivations`.
"""

from __future__ import annotations

import sqlite3

from pbem.app import games
from pbem.app import poll as polling
from pbem.home.app import Home
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from pbem.trust import codes
from tests.conftest import CODES, deliver, order_mail, signed

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]


def test_one_derivation_per_seat_and_code_however_often_it_is_checked() -> None:
    codes.forget_checks()
    stored = codes.hash_code("K7QX-2MPD", rounds=1000)
    before = codes.derivations
    assert codes.check_seat_code(41, "K7QX-2MPD", stored)
    assert codes.check_seat_code(41, "k7qx 2mpd", stored)  # the same code as a player may type it
    assert codes.derivations == before + 1
    assert not codes.check_seat_code(41, "AAAA-2222", stored)
    assert not codes.check_seat_code(41, "AAAA-2222", stored)
    assert codes.derivations == before + 2
    assert codes.check_seat_code(42, "K7QX-2MPD", stored)  # another seat row: its own derivation
    assert codes.derivations == before + 3


def test_a_poll_derives_once_per_registered_seat_and_code_and_never_for_mail_without_a_code(
    home, clock, monkeypatch
) -> None:
    monkeypatch.setattr(games, "hash_code", lambda c: codes.hash_code(c, rounds=1000))
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="kdf-test", clock=clock, codes=CODES)
    mails = [order_mail("Alice <alice@players.test>", "hh1", signed("Alice", "NO EVENT")) for _ in range(3)]
    mails.append(order_mail("Bob <bob@players.test>", "hh1", "CODE ZZZZ-9999\nNO EVENT"))  # wrong code
    mails.append(order_mail("Carol <carol@players.test>", "hh1", "HELP"))  # needs no code
    mails.append(order_mail("Mallory <mallory@elsewhere.test>", "hh1", "NO EVENT"))  # a stranger, no code
    for raw in mails:
        deliver(home, raw)
    codes.forget_checks()
    before = codes.derivations
    summary = polling.poll(
        Home.of(home, inbox=MaildirInbox(home.maildir_path), sender=MaildirSender(home.maildir_path), clock=clock)
    )
    assert summary.read == 6
    # Alice's code once for three messages; Bob's wrong code once for his seat, then once against each other
    # seat (is it another player's code sent from his address? issue 12): 1 + 1 + 2
    assert codes.derivations - before == 4


def test_games_store_codes_with_the_documented_rounds(home, clock, monkeypatch) -> None:
    """The real rounds (the tests' games use fewer, tests/conftest.py): 10,000, as docs/security.md argues."""
    monkeypatch.setattr(games, "hash_code", codes.hash_code)
    games.create_game(Home.of(home), "habsburg", "rounds", PLAYERS, seed="rounds-test", clock=clock, codes=CODES)
    con = sqlite3.connect(home.database_url.removeprefix("sqlite:///"))
    stored = [h for (h,) in con.execute("SELECT code_hash FROM seats")]
    con.close()
    assert codes.ROUNDS == 10_000
    assert len(stored) == 3 and all(h.split("$")[:2] == ["pbkdf2_sha256", "10000"] for h in stored), stored


def test_a_code_stored_with_the_earlier_rounds_still_checks() -> None:
    """Homes made before the rounds became 10,000 (docs/security.md) hold hashes of 60,000 rounds: a stored hash
    names its rounds, so those codes keep working, and a wrong code is still refused."""
    old = codes.hash_code("K7QX-2MPD", salt="0123456789abcdef", rounds=60_000)
    assert old.split("$")[:2] == ["pbkdf2_sha256", "60000"]
    assert codes.check_code("k7qx-2mpd", old)
    assert not codes.check_code("K7QX-2MPE", old)
    assert codes.hash_code("K7QX-2MPD", salt="0123456789abcdef") != old  # new codes: the new rounds
