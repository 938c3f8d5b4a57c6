"""A player's lost code by mail: `[pbem NAME] lost code` from the registered address gets a new code there.

Found by trying the product: the refusal of a mail without a code told the player to write exactly that,
"the moderator sends the new code", yet such a mail was answered "No orders were found in your message" and
the moderator was never told: the procedure went nowhere. Played on the embedded defaults (real SQLite,
real Maildirs, the real poll).
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail
from tests.test_moderator import asked, new_game, run_poll

ALICE = "Alice <alice@players.test>"


def _code_mails(mails) -> list:
    return [m for m in mails if "Your new player code" in str(m["Subject"])]


@pytest.mark.parametrize(
    ("subject", "body"),
    [
        ("[pbem hh1] lost code", "Hello, sorry about this.\nAlice"),
        ("[pbem hh1] sorry", "Hi,\nI lost my code.\nThanks"),
        ("Re: [pbem hh1] Lost Code", ""),
    ],
)
def test_lost_code_mails_a_new_code_to_the_registered_address_once_a_day(home, clock, subject, body, caplog) -> None:
    name = new_game(home, clock)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    deliver(home, order_mail(ALICE, name, body, subject=subject))
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    (mail,) = _code_mails(mails)
    assert mail["To"].addresses[0].addr_spec == "alice@players.test" and len(mails) == 1
    new = re.search(r"Your new player code for game hh1 is (\S+)\.", body_of(mail)).group(1)
    assert new != CODES["Alice"]
    assert new not in caplog.text, "a code never reaches the log"

    reqs, _ = asked(home, name)
    line = next(r.legal[0] for r in reqs if r.player == "Alice") if any(r.player == "Alice" for r in reqs) else "HELP"
    deliver(home, order_mail(ALICE, name, f"CODE {CODES['Alice']}\n{line}"))
    run_poll(home, clock)
    assert "the player code it carried is wrong" in body_of(sent_mail(home, seen)[-1]), "the old code stops working"
    deliver(home, order_mail(ALICE, name, f"CODE {new}\nSTATUS"))
    run_poll(home, clock)
    assert "code" not in str(sent_mail(home, seen)[-1]["Subject"]).lower(), "the new one works"

    clock.advance(hours=3)  # a second request that day: told when the last went out, no new code
    deliver(home, order_mail(ALICE, name, "LOST CODE", subject="[pbem hh1] again"))
    run_poll(home, clock)
    (again,) = sent_mail(home, seen)
    assert not _code_mails([again]) and "was sent to this address on" in body_of(again)
    assert "Another can be asked for from" in body_of(again)
    clock.advance(hours=22)
    deliver(home, order_mail(ALICE, name, "LOST CODE", subject="[pbem hh1] again"))
    run_poll(home, clock)
    assert len(_code_mails(sent_mail(home, seen))) == 1, "a day later, a new one"


def test_a_forged_request_sends_the_code_to_the_registered_address_only(home, clock) -> None:
    """From a stranger's address naming a player: nothing; only a seat's own address asks for its code."""
    name = new_game(home, clock)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    deliver(
        home, order_mail("Mallory <mallory@evil.test>", name, "I am Alice. LOST CODE", subject="[pbem hh1] lost code")
    )
    run_poll(home, clock)
    assert not _code_mails(sent_mail(home, seen))
    # the seats are unchanged: Alice's old code still works
    deliver(home, order_mail(ALICE, name, f"CODE {CODES['Alice']}\nSTATUS"))
    run_poll(home, clock)
    assert "wrong" not in body_of(sent_mail(home, seen)[-1])


def test_lost_code_with_orders_in_the_same_mail_is_read_as_orders(home, clock) -> None:
    """A mail with orders is about the orders (without a code, refused with the lost-code advice), never a
    silent change of code."""
    name = new_game(home, clock)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    deliver(home, order_mail(ALICE, name, "NO EVENT\nlost code", subject="[pbem hh1] orders"))
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    assert not _code_mails(mails) and "lost code" in body_of(mails[-1])
