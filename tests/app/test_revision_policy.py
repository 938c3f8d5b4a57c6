"""Issue 12 on plain objects: copies are duplicates, late mail never replaces a newer revision, a player's code
from another player's address is told to its owner and the moderator (`pbem.app.intake.decide`,
`pbem.app.revisions`, `pbem.app.misuse`, `pbem.mail.inbound.fingerprint`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pbem.app import views
from pbem.app.decision import Decision
from pbem.app.intake import Facts, decide
from pbem.app.misuse import IGNORED_CODE_ASKING
from pbem.app.revisions import FirstCopy, OnFile
from pbem.mail.inbound.fingerprint import TRACE, content_hash, missing_message_id, sent_at
from pbem.mail.inbound.message import parse
from pbem.orders.extract import extract
from tests.app.plain import MODERATOR, WHEN, address, loaded, mail, signed
from tests.conftest import CODES, order_mail

CAP = 30
EARLIER = "Mon, 05 Jan 2026 09:00:00 +0000"
LATER = "Mon, 05 Jan 2026 11:00:00 +0000"
ON_FILE = OnFile(41, datetime(2026, 1, 5, 10, 0, tzinfo=UTC), "[pbem g1] second thoughts", ("TRIBUTE Copper 5",))


def run(msg, g, **facts) -> Decision:
    ex = extract(msg.text, msg.subject, views.engine(g).order_words) if not msg.problem else None
    registered = bool(g.seat_for_address(msg.sender)) or bool(facts.get("sender_games"))  # as the shell finds it
    return decide(msg, Facts(g, extracted=ex, when=WHEN, moderator=MODERATOR, registered=registered, **facts), CAP)


def dynasties():
    return loaded("dynasties", ("Ann", "Ben"))


# ----------------------------------------------------------------------------- the same message


RAW = b"\n".join(  # as a client that writes no Message-ID sends it
    line
    for line in order_mail("Ann <ann@players.test>", "g1", "TRIBUTE Gold 8", Date=EARLIER).split(b"\n")
    if not line.lower().startswith(b"message-id:")
)


@pytest.mark.parametrize(
    "trace",
    [
        "Received: from relay.example.net by mx.players.test; Mon, 5 Jan 2026 09:01:00 +0000",
        "Return-Path: <ann@players.test>",
        "Delivered-To: moderator@pbem.test",
        "X-Original-To: moderator@pbem.test",
        "Authentication-Results: mx.pbem.test; dkim=pass header.d=players.test",
        "Received-SPF: pass (mx.pbem.test: domain of players.test designates 192.0.2.1)",
        "DKIM-Signature: v=1; a=rsa-sha256; d=forwarder.test; s=s1;\n b=abc",
        "ARC-Seal: i=1; a=rsa-sha256; cv=none; d=forwarder.test",
        "X-Spam-Status: No, score=-0.1",
        "Resent-From: forwarder@forwarder.test",
        "X-MS-Exchange-Organization-AuthAs: Anonymous",
    ],
)
def test_trace_and_delivery_headers_do_not_make_another_message(trace: str) -> None:
    copy = (trace + "\n").encode() + RAW.replace(b"\n", b"\r\n")
    assert content_hash(copy) == content_hash(RAW)
    assert missing_message_id(copy) == missing_message_id(RAW)


@pytest.mark.parametrize("change", [b"Subject: [pbem g1] other", b"Date: Mon, 05 Jan 2026 09:00:01 +0000", b"Cc: b@x"])
def test_a_header_the_sender_wrote_or_another_body_makes_another_message(change: str) -> None:
    assert content_hash(change + b"\n" + RAW) != content_hash(RAW)
    assert content_hash(RAW + b"TRIBUTE Copper 5\n") != content_hash(RAW)


def test_every_listed_trace_header_is_lower_case_and_none_is_one_a_sender_writes() -> None:
    assert all(h == h.lower() for h in TRACE)
    assert not TRACE & {"from", "to", "cc", "subject", "date", "message-id", "in-reply-to", "references"}


def test_a_message_without_message_id_redelivered_gets_the_same_stand_in() -> None:
    copy = b"Received: from a by b; Mon, 5 Jan 2026 09:01:00 +0000\n" + RAW
    assert parse(copy).message_id == parse(RAW).message_id != parse(RAW + b"x").message_id


def test_the_date_counts_but_never_later_than_the_arrival() -> None:
    assert sent_at(EARLIER, WHEN) == datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    assert sent_at("Tue, 05 Jan 2100 09:00:00 +0000", WHEN) == WHEN, "a future Date cannot block later revisions"
    assert sent_at("", WHEN) == sent_at("not a date", WHEN) == WHEN
    assert sent_at("Mon, 05 Jan 2026 25:61:61 +0000", WHEN) == WHEN, "a Date no calendar holds is not an error"


# ----------------------------------------------------------------------------- duplicates


@pytest.mark.parametrize("outcome", ["accepted", "held", "rejected", "ignored"])
def test_a_copy_changes_nothing_and_gets_no_answer(outcome: str) -> None:
    g = dynasties()
    msg = mail("Ann", signed("Ann", "TRIBUTE Gold 8"))
    d = run(msg, g, first=FirstCopy(7, outcome, "Ann"))
    assert (d.outcome, d.duplicate_of, d.handled) == ("duplicate", 7, "duplicates")
    assert not d.effects and not d.inputs


def test_a_copy_of_a_revision_the_player_replaced_tells_which_revision_is_on_file() -> None:
    g = dynasties()
    msg = mail("Ann", signed("Ann", "TRIBUTE Gold 8"), Date=EARLIER)
    on_file = OnFile(41, ON_FILE.sent, ON_FILE.subject, ON_FILE.lines, frozenset({7}))
    d = run(msg, g, first=FirstCopy(7, "accepted", "Ann"), on_file=on_file)
    assert d.outcome == "duplicate" and not d.inputs
    [m] = d.mails
    assert (m.kind, m.to, m.context["why"]) == ("revision_on_file", address("Ann"), "copy")
    assert m.context["on_file_lines"] == ["TRIBUTE Copper 5"] and m.context["on_file_subject"] == ON_FILE.subject
    assert CODES["Ann"] not in repr(m.context)


def test_a_copy_of_the_revision_on_file_itself_is_silent() -> None:
    d = run(mail("Ann", signed("Ann", "TRIBUTE Copper 5")), dynasties(), first=FirstCopy(41, "accepted", "Ann"))
    assert d.outcome == "duplicate" and not d.effects


# ----------------------------------------------------------------------------- late revisions


def test_a_message_written_before_the_revision_on_file_is_refused_and_told_what_stands() -> None:
    g = dynasties()
    d = run(mail("Ann", signed("Ann", "TRIBUTE Platinum 4"), Date=EARLIER), g, on_file=ON_FILE)
    assert d.outcome == "rejected" and "before the revision on file" in d.reason
    assert not d.inputs and not d.events
    [m] = d.mails
    assert m.kind == "revision_on_file" and m.context["why"] == "older"
    assert (m.context["sent"], m.context["on_file_sent"]) == ("2026-01-05 09:00 UTC", "2026-01-05 10:00 UTC")
    assert m.context["on_file_lines"] == ["TRIBUTE Copper 5"]


def test_a_message_written_after_the_revision_on_file_replaces_it() -> None:
    d = run(mail("Ann", signed("Ann", "TRIBUTE Platinum 4"), Date=LATER), dynasties(), on_file=ON_FILE)
    assert d.outcome == "accepted" and [i.lines for i in d.inputs] == [("TRIBUTE Platinum 4",)]


def test_a_late_message_over_the_reply_cap_is_still_refused_and_answered_only_by_the_budget() -> None:
    g = dynasties()
    msg = mail("Ann", signed("Ann", "TRIBUTE Platinum 4"), Date=EARLIER)
    d = run(msg, g, on_file=ON_FILE, replies={address("Ann"): CAP})
    assert d.outcome == "rejected" and not d.inputs and [m.kind for m in d.mails] == ["too_many"]


def test_a_message_without_orders_is_not_judged_by_its_date() -> None:
    d = run(mail("Ann", "STATUS", Date=EARLIER), dynasties(), on_file=ON_FILE)
    assert d.outcome == "accepted" and d.reports


def test_the_on_file_date_of_a_held_revision_is_checked_the_same_way() -> None:
    g = loaded("dynasties", ("Ann", "Ben"), resolve="deadline")
    late = run(mail("Ann", signed("Ann", "TRIBUTE Gold 8"), Date=EARLIER), g, on_file=ON_FILE)
    fresh = run(mail("Ann", signed("Ann", "TRIBUTE Gold 8"), Date=LATER), g, on_file=ON_FILE)
    assert (late.outcome, fresh.outcome) == ("rejected", "held")


# ----------------------------------------------------------------------------- a code from another player


def test_a_seat_sending_another_seats_code_is_refused_and_the_owner_and_moderator_are_told() -> None:
    g = loaded()
    d = run(mail("Carol", signed("Bob", "PASS")), g)
    assert d.outcome == "rejected" and d.player == "Carol" and "Bob" in d.reason
    kinds = {m.kind: m for m in d.mails}
    assert set(kinds) == {"refused_code", "code_misused", "code_misuse_alert"}
    assert kinds["refused_code"].to == address("Carol") and "Bob" not in repr(kinds["refused_code"].context)
    assert kinds["code_misused"].to == address("Bob") and kinds["code_misused"].in_reply_to is None
    alert = kinds["code_misuse_alert"]
    assert (alert.to, alert.context["owner"], alert.context["sender"]) == (MODERATOR, "Bob", address("Carol"))
    assert all(CODES["Bob"] not in repr(m.context) for m in d.mails)


def test_a_player_of_another_game_sending_a_code_of_this_one_is_refused_and_both_are_told() -> None:
    g = loaded()
    d = run(mail("Dora <dora@players.test>", signed("Bob", "PASS")), g, sender_games=["g7"])
    assert d.outcome == "rejected" and not d.inputs
    kinds = {m.kind: m.to for m in d.mails}
    assert kinds == {
        "code_misused": address("Bob"),
        "code_misuse_alert": MODERATOR,
        "not_your_game": "dora@players.test",
    }


@pytest.mark.parametrize("asks", ["HELP", "STATUS", "HELP\nSTATUS", ""])
def test_a_mail_that_only_asks_is_answered_and_another_seats_code_in_it_is_reported(asks: str) -> None:
    """HELP and STATUS need no code, but a mail carrying Bob's code from Carol's address shows the code has
    leaked whatever else it asks: Bob and the moderator are told, Carol is answered as usual (never told
    whose code it was), and her own or a wrong code tells nobody."""
    g = loaded()
    d = run(mail("Carol", signed("Bob", asks)), g)
    assert d.player == "Carol" and "the code of Bob" in d.reason and not d.inputs
    to = {m.kind: m.to for m in d.mails}
    assert to["code_misused"] == address("Bob") and to["code_misuse_alert"] == MODERATOR, to
    assert all(CODES["Bob"] not in repr(m.context) for m in d.mails)
    if asks:
        assert d.outcome == "accepted" and (d.reports or any(m.kind == "help" for m in d.mails)), d
    to_carol = [(m.kind, m.context) for m in d.mails if m.to == address("Carol")]
    told = [
        n for m in d.mails if m.to == address("Carol") for n in m.context.get("problems", m.context.get("notes", []))
    ]
    told += [n for r in d.reports if r.ack for n in r.ack["problems"]]
    assert told == [IGNORED_CODE_ASKING], told
    if asks:  # in the answer she asked for: one mail (the HELP mail, or the STATUS report's top)
        assert [k for k, _ in to_carol] == (["help"] if "HELP" in asks else []), to_carol
    for quiet in (signed("Carol", asks), "CODE WRNG-2345\n" + asks):
        alone = run(mail("Carol", quiet), g)
        assert not {"code_misused", "code_misuse_alert"} & {m.kind for m in alone.mails}, alone.mails
        assert (alone.outcome, alone.player) == (d.outcome, "Carol")
        assert [r.purpose for r in alone.reports] == [r.purpose for r in d.reports]
        if quiet.startswith("CODE WRNG"):  # not her code: told so (replies3), as for Bob's, never whose it is
            assert [(m.kind, m.context) for m in alone.mails] == to_carol, "Carol's answer is the same whoever's code"
        else:  # her own code: answered without the note
            assert all(IGNORED_CODE_ASKING not in m.context.get("problems", []) for m in alone.mails)


def test_a_mail_that_only_asks_past_the_senders_cap_looks_for_no_owner() -> None:
    d = run(mail("Carol", signed("Bob", "HELP")), loaded(), replies={address("Carol"): CAP})
    assert [m.kind for m in d.mails] == ["too_many"] and "Bob" not in d.reason


def test_a_seats_own_wrong_code_tells_nobody_else() -> None:
    d = run(mail("Carol", "CODE WRNG-2345\nPASS"), loaded())
    assert [m.kind for m in d.mails] == ["refused_code"]


def test_the_moderator_alerts_count_against_the_hourly_cap() -> None:
    d = run(mail("Carol", signed("Bob", "PASS")), loaded(), replies={MODERATOR: CAP})
    assert sorted(m.kind for m in d.mails) == ["code_misused", "refused_code"]


def test_a_message_date_exactly_on_file_is_not_older() -> None:
    same = ON_FILE.sent.strftime("%a, %d %b %Y %H:%M:%S +0000")
    d = run(mail("Ann", signed("Ann", "TRIBUTE Gold 8"), Date=same), dynasties(), on_file=ON_FILE)
    assert d.outcome == "accepted"
