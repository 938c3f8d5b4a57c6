"""A resigned player (RESIGN by mail, `pbem.app.resigning`) until the moderator gives the seat (judges6).

They asked to leave: they get what the README lists (STATUS answers, answers to their own mail, the final report,
"You no longer play" when the seat is given) and nothing else of the game's flow.  A new code or an address move
does not undo the resignation (`pbem.record.listing.given`); only `pbem game replace` gives the seat.  Played on
the embedded defaults (real SQLite, real Maildirs, the real poll), on the game `tests.test_moderator.new_game` makes.
"""

from __future__ import annotations

import re

from pbem.app import addresses, control, waiting
from pbem.home.app import Home
from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail, signed
from tests.test_moderator import new_game, run_poll

BOB = "Bob <bob@players.test>"


def _to(mails: list, addr: str) -> list:
    return [m for m in mails if m["To"].addresses[0].addr_spec == addr]


def _resign_bob(home, clock, name: str, seen: set[str]) -> None:
    deliver(home, order_mail(BOB, name, signed("Bob", "RESIGN")))
    run_poll(home, clock)
    (ask,) = sent_mail(home, seen)
    word = re.search(r"RESIGN (\d{6})", body_of(ask)).group(1)
    deliver(home, order_mail(BOB, name, f"RESIGN {word}", In_Reply_To=ask["Message-ID"]))
    run_poll(home, clock)
    sent_mail(home, seen)


def _waiting(home, clock) -> list[str]:
    return waiting.listed(waiting.waiting(Home.of(home), clock.now), clock.now)


def test_a_new_code_or_an_address_move_keeps_a_resignation_and_only_a_replacement_ends_it(home, clock) -> None:
    name = new_game(home, clock)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    _resign_bob(home, clock, name, seen)
    clock.advance(minutes=5)
    control.new_player_code(Home.of(home), name, "Bob", clock.now, code=CODES["Bob"])  # a new seat row
    clock.advance(minutes=5)
    addresses.move(Home.of(home), name, "Bob", "bob@new.test", clock.now)  # and another
    clock.advance(minutes=5)
    control.new_player_code(Home.of(home), name, "Bob", clock.now, code=CODES["Bob"])
    run_poll(home, clock)
    sent_mail(home, seen)
    deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", "PASS")))  # Bob moves next
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    assert any("Turn 2, Bob to play" in str(m["Subject"]) for m in _to(mails, "alice@players.test"))
    assert not _to(mails, "bob@new.test"), [str(m["Subject"]) for m in _to(mails, "bob@new.test")]
    assert any(line.startswith("  Bob:") and "RESIGNED" in line for line in _waiting(home, clock)), _waiting(
        home, clock
    )
    deliver(home, order_mail("Bob <bob@new.test>", name, signed("Bob", "RESIGN")))  # told when, nothing more
    run_poll(home, clock)
    (once,) = sent_mail(home, seen)
    assert "You resigned from game" in body_of(once), body_of(once)
    control.replace(Home.of(home), name, "Bob", ("Dora", "dora@players.test"), clock.now)
    run_poll(home, clock)
    sent_mail(home, seen)
    assert not any("RESIGNED" in line for line in _waiting(home, clock)), _waiting(home, clock)
