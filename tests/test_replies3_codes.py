"""A CODE line that is not the player's code is told the same way whatever the mail asks (issue 23, replies3).

A reply authenticates by the mail it answers, so a CODE line in it is ignored.  Orders in a reply with a wrong
code were applied and their answer said the code was ignored; a HELP, a STATUS or a JOIN sent as a reply with a
wrong code got no such note (the CODE line was not even checked), so the player went on typing the wrong code
into their next new mail, which was then refused.  Now every reply, and a new mail that only asks for HELP or
STATUS, says it; another player's code in any of them still goes the leaked-code path (`pbem.app.misuse`).
Real SQLite, real Maildirs, real engines.
"""

from __future__ import annotations

import pytest

from pbem.app import games
from pbem.app.games import Table
from pbem.home.app import Home
from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail
from tests.test_moderator import PLAYERS, address_of, run_poll
from tests.test_reply_authentication import IGNORED, _outcome, _started

ASKING = "The CODE line in your mail is not your current player code and was ignored: HELP and STATUS need no code"


def _to(mails, addr):
    return [m for m in mails if m["To"].addresses[0].addr_spec == addr]


@pytest.mark.parametrize("command", ["HELP", "STATUS", "help please", "Status."])
def test_a_help_or_status_reply_with_a_wrong_code_is_answered_and_says_the_code_was_ignored(
    home, clock, command
) -> None:
    name, firsts, seen = _started(home, clock)
    player = "Alice"
    first = firsts[address_of(player)]
    body = f"CODE WRNG-2345\n{command}"
    deliver(
        home, order_mail(address_of(player), name, body, f"Re: {first['Subject']}", In_Reply_To=first["Message-ID"])
    )
    run_poll(home, clock)
    assert _outcome(home)[0] == "accepted"
    mails = _to(sent_mail(home, seen), address_of(player))
    texts = "\n".join(body_of(m) for m in mails)
    assert IGNORED in texts, [m["Subject"] for m in mails]
    assert len(mails) == 1, "told in the answer asked for, not in a mail of its own"
    assert "WRNG-2345" not in texts and CODES[player] not in texts


def test_a_help_reply_with_the_right_code_or_none_gets_no_note(home, clock) -> None:
    name, firsts, seen = _started(home, clock)
    for player, body in (("Alice", f"CODE {CODES['Alice']}\nHELP"), ("Bob", "HELP")):
        first = firsts[address_of(player)]
        raw = order_mail(address_of(player), name, body, f"Re: {first['Subject']}", In_Reply_To=first["Message-ID"])
        deliver(home, raw)
        run_poll(home, clock)
        assert _outcome(home)[0] == "accepted"
        texts = "\n".join(body_of(m) for m in _to(sent_mail(home, seen), address_of(player)))
        assert "HELP" in texts and IGNORED not in texts and "not your current player code" not in texts


def test_a_new_help_mail_with_a_wrong_code_is_answered_and_says_so(home, clock) -> None:
    name, _, seen = _started(home, clock)
    deliver(home, order_mail(address_of("Bob"), name, "CODE WRNG-2345\nHELP"))
    run_poll(home, clock)
    assert _outcome(home)[0] == "accepted"
    texts = "\n".join(body_of(m) for m in _to(sent_mail(home, seen), address_of("Bob")))
    assert ASKING in texts and "WRNG-2345" not in texts and CODES["Bob"] not in texts


@pytest.mark.parametrize("command", ["HELP", "STATUS"])
def test_a_help_or_status_reply_with_another_players_code_tells_its_owner_and_the_moderator(
    home, clock, command
) -> None:
    name, firsts, seen = _started(home, clock)
    player, (owner, owner_addr) = "Alice", PLAYERS[1]
    first = firsts[address_of(player)]
    body = f"CODE {CODES[owner]}\n{command}"
    deliver(
        home, order_mail(address_of(player), name, body, f"Re: {first['Subject']}", In_Reply_To=first["Message-ID"])
    )
    run_poll(home, clock)
    outcome, reason = _outcome(home)
    assert outcome == "accepted" and f"the code of {owner}" in reason
    mails = sent_mail(home, seen)
    assert len([m for m in _to(mails, owner_addr) if "code" in str(m["Subject"])]) == 1
    assert len(_to(mails, home.moderator_address)) == 1
    mine = "\n".join(body_of(m) for m in _to(mails, address_of(player)))
    assert IGNORED in mine and owner_addr not in mine
    assert all(CODES[owner] not in body_of(m) for m in mails)


def test_a_join_reply_with_a_wrong_code_joins_and_says_the_code_was_ignored(home, clock) -> None:
    ann, ben = ("Ann", "ann@players.test"), ("Ben", "ben@players.test")
    games.create_game(
        Home.of(home), "italian-wars", "iw1", [ann, ben], clock=clock, codes=CODES, table=Table(join=True)
    )
    run_poll(home, clock)
    seen: set = set()
    invites = {m["To"].addresses[0].addr_spec: m for m in sent_mail(home, seen)}
    invite = invites[ann[1]]
    raw = order_mail(
        "Ann <ann@players.test>",
        "iw1",
        "JOIN\nCODE WRNG-2345",
        f"Re: {invite['Subject']}",
        In_Reply_To=invite["Message-ID"],
    )
    deliver(home, raw)
    run_poll(home, clock)
    assert _outcome(home)[0] == "accepted"
    (ack,) = _to(sent_mail(home, seen), ann[1])
    text = body_of(ack)
    assert "you have joined, Ann" in text and IGNORED in text and "WRNG-2345" not in text
    html = ack.get_body(("html",))
    assert html is not None and "not your current player code" in html.get_content()
