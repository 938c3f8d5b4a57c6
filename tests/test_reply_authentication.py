"""Replies authenticate themselves (issue 23): a reply naming a mail pbem sent to that seat needs no code.

Real SQLite, real Maildirs, real engines: the first report's Message-ID is what the reply names.
"""

from __future__ import annotations

import re

from sqlmodel import select

from pbem.record.db import session
from pbem.record.models import InboundMessage
from pbem.trust import codes
from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail
from tests.test_moderator import PLAYERS, address_of, asked, new_game, run_poll

#: the reply line, or to a player asked nothing now its "in a reply to this mail" (players28)
HINT = re.compile(
    r"(?:Reply to this mail with your orders|in a reply to this mail)[^.]*;\s+a new mail\s+needs your player code"
)


def _started(cfg, clock):
    name = new_game(cfg, clock)
    run_poll(cfg, clock)
    seen: set = set()
    firsts = {m["To"].addresses[0].addr_spec: m for m in sent_mail(cfg, seen)}
    return name, firsts, seen


def _outcome(cfg) -> tuple[str, str]:
    with session(cfg.database_url) as s:
        row = s.exec(select(InboundMessage).order_by(InboundMessage.id.desc())).first()  # type: ignore[union-attr]
        assert row is not None
        return row.outcome, row.reason


def _asked_order(cfg, name) -> tuple[str, str]:
    reqs, _ = asked(cfg, name)
    r = reqs[0]
    return r.player, r.legal[0]


def test_every_game_mail_says_a_reply_needs_no_code(home, clock) -> None:
    _, firsts, _ = _started(home, clock)
    for m in firsts.values():
        assert HINT.search(body_of(m)), body_of(m)[-400:]


def test_a_plain_reply_without_code_is_applied_and_costs_no_key_derivation(home, clock) -> None:
    name, firsts, seen = _started(home, clock)
    player, line = _asked_order(home, name)
    first = firsts[address_of(player)]
    before = codes.derivations
    raw = order_mail(address_of(player), name, line, subject=f"Re: {first['Subject']}", In_Reply_To=first["Message-ID"])
    deliver(home, raw)
    run_poll(home, clock)
    assert _outcome(home)[0] == "accepted"
    assert codes.derivations == before
    mails = sent_mail(home, seen)
    ack = next(m for m in mails if m["To"].addresses[0].addr_spec == address_of(player))
    assert "Accepted and applied" in body_of(ack)


def test_the_same_reply_from_another_address_is_refused(home, clock) -> None:
    name, firsts, _ = _started(home, clock)
    player, line = _asked_order(home, name)
    first = firsts[address_of(player)]
    raw = order_mail("mallory@elsewhere.test", name, line, In_Reply_To=first["Message-ID"])
    deliver(home, raw)
    run_poll(home, clock)
    assert _outcome(home)[0] == "ignored"
    reqs, _ = asked(home, name)
    assert reqs[0].player == player  # nothing applied


def test_a_new_mail_without_code_is_refused(home, clock) -> None:
    name, _, _ = _started(home, clock)
    player, line = _asked_order(home, name)
    deliver(home, order_mail(address_of(player), name, line))
    run_poll(home, clock)
    outcome, reason = _outcome(home)
    assert outcome == "rejected" and "no player code" in reason


def test_a_reply_naming_another_seats_mail_is_refused(home, clock) -> None:
    """And told why: found by trying the product, the refusal said only "it carried no player code", though the
    player had replied to a report forwarded by another player."""
    name, firsts, seen = _started(home, clock)
    player, line = _asked_order(home, name)
    other, other_addr = next((p, a) for p, a in PLAYERS if p != player)
    raw = order_mail(address_of(player), name, line, In_Reply_To=firsts[other_addr]["Message-ID"])
    deliver(home, raw)
    run_poll(home, clock)
    outcome, reason = _outcome(home)
    assert outcome == "rejected" and "no player code" in reason
    (told,) = [m for m in sent_mail(home, seen) if m["To"].addresses[0].addr_spec == address_of(player)]
    assert f"The mail you answered was sent to {other}, not to you" in body_of(told)
    deliver(home, order_mail(address_of(player), name, line))  # a new mail: nothing about another player
    run_poll(home, clock)
    (plain,) = sent_mail(home, seen)
    assert "The mail you answered" not in body_of(plain)


def test_a_reply_with_a_forged_reference_is_refused(home, clock) -> None:
    name, firsts, _ = _started(home, clock)
    player, line = _asked_order(home, name)
    real = str(firsts[address_of(player)]["Message-ID"])
    forged = real[:5] + ("0" if real[5] != "0" else "1") + real[6:]
    deliver(home, order_mail(address_of(player), name, line, In_Reply_To=forged, References=forged))
    run_poll(home, clock)
    assert _outcome(home)[0] == "rejected"


def test_a_reply_with_the_code_still_works(home, clock) -> None:
    name, firsts, _ = _started(home, clock)
    player, line = _asked_order(home, name)
    first = firsts[address_of(player)]
    raw = order_mail(address_of(player), name, f"CODE {CODES[player]}\n{line}", In_Reply_To=first["Message-ID"])
    deliver(home, raw)
    run_poll(home, clock)
    assert _outcome(home)[0] == "accepted"


IGNORED = "The CODE line in your mail is not your current player code"


def _reply(cfg, clock, firsts, name, code: str):
    player, line = _asked_order(cfg, name)
    first = firsts[address_of(player)]
    raw = order_mail(
        address_of(player),
        name,
        f"CODE {code}\n{line}",
        subject=f"Re: {first['Subject']}",
        In_Reply_To=first["Message-ID"],
    )
    deliver(cfg, raw)
    run_poll(cfg, clock)
    return player


def test_a_reply_with_a_wrong_code_is_applied_and_its_answer_says_the_code_was_ignored(home, clock) -> None:
    """Found by the players' testers: a reply authenticates by the mail it answers, so a mistyped (or an old)
    CODE line in it was ignored without a word, and the player went on typing it.  It is still ignored, and
    the answer now says so, never showing the code pbem holds."""
    name, firsts, seen = _started(home, clock)
    player = _reply(home, clock, firsts, name, "WRNG-2345")
    assert _outcome(home)[0] == "accepted"
    mails = sent_mail(home, seen)
    (answer,) = [m for m in mails if m["To"].addresses[0].addr_spec == address_of(player)]
    text = body_of(answer)
    assert "Accepted and applied" in text and IGNORED in text
    assert CODES[player] not in text and "WRNG-2345" not in text
    assert all(m["To"].addresses[0].addr_spec in {a for _, a in PLAYERS} for m in mails), "nobody else is told"


def test_a_reply_with_the_right_code_gets_no_notice(home, clock) -> None:
    name, firsts, seen = _started(home, clock)
    player, _ = _asked_order(home, name)
    _reply(home, clock, firsts, name, CODES[player])
    assert _outcome(home)[0] == "accepted"
    (answer,) = [m for m in sent_mail(home, seen) if m["To"].addresses[0].addr_spec == address_of(player)]
    assert "Accepted and applied" in body_of(answer) and IGNORED not in body_of(answer)


def test_a_reply_with_another_players_code_is_applied_and_the_leak_told_once_to_its_owner_and_the_moderator(
    home, clock
) -> None:
    """The reply is the player's own (it answers their mail): it is applied, and they are told only that the
    code was not theirs, as for a mistyped one; the code has leaked, so its owner and the moderator are told
    (`misuse.leaked`), each once."""
    name, firsts, seen = _started(home, clock)
    player, _ = _asked_order(home, name)
    owner, owner_addr = next((p, a) for p, a in PLAYERS if p != player)
    _reply(home, clock, firsts, name, CODES[owner])
    outcome, reason = _outcome(home)
    assert outcome == "accepted" and f"the code of {owner}" in reason
    mails = sent_mail(home, seen)
    to_owner = [m for m in mails if m["To"].addresses[0].addr_spec == owner_addr and "code" in str(m["Subject"])]
    to_moderator = [m for m in mails if m["To"].addresses[0].addr_spec == home.moderator_address]
    assert len(to_owner) == 1 and address_of(player) in body_of(to_owner[0]), [m["Subject"] for m in mails]
    assert len(to_moderator) == 1 and owner in body_of(to_moderator[0])
    (answer,) = [m for m in mails if m["To"].addresses[0].addr_spec == address_of(player)]
    (note,) = [line for line in body_of(answer).splitlines() if IGNORED in line]  # as for a mistyped code
    assert owner not in note and owner_addr not in body_of(answer)
    assert all(CODES[owner] not in body_of(m) for m in mails)
