"""Loop safety follows the standards (issue 12): what must never be answered, one case per marker."""

from __future__ import annotations

import pytest

from pbem.mail.inbound.loops import auto_submitted_is_human
from pbem.mail.inbound.message import parse

FROM = "From: Alice <alice@players.test>\n"
REST = "To: moderator@pbem.test\nSubject: [pbem hh] orders\nMessage-ID: <l@x>\n"


def auto(head: str, sender: str = FROM, body: str = "\nCODE ALCE-2345\nNO EVENT\n") -> str | None:
    return parse((sender + REST + head + body).encode(), "moderator@pbem.test").auto


@pytest.mark.parametrize(
    "value", ["no", "No", "NO", " no ", "no; owner-email=alice@players.test", "no (a person wrote this)", "(x) no ;a=b"]
)
def test_auto_submitted_no_is_a_person(value: str) -> None:
    assert auto_submitted_is_human(value)
    assert auto(f"Auto-Submitted: {value}\n") is None


@pytest.mark.parametrize(
    "value",
    [
        "auto-replied",
        "auto-generated",
        "auto-notified",
        "notification",
        "nope",
        "no-thanks",
        "",
        "yes",
        "x; no",
        "(no)",
    ],
)
def test_every_other_auto_submitted_value_is_automatic(value: str) -> None:
    """RFC 3834 5: only the exact keyword `no` is human; `notification` once slipped through a prefix test."""
    assert not auto_submitted_is_human(value)
    assert auto(f"Auto-Submitted: {value}\n")


def test_a_second_auto_submitted_header_that_is_not_no_counts() -> None:
    assert auto("Auto-Submitted: no\nAuto-Submitted: auto-replied\n")


@pytest.mark.parametrize(
    "head",
    [
        "X-Autoreply: yes\n",
        "X-Autoreply: \n",
        "X-Autorespond: Out of office\n",
        "X-Autorespond-Sent: 1\n",
        "Precedence: auto_reply\n",
        "Precedence: Auto_Reply\n",
        "Precedence: bulk\n",
        "Precedence: junk\n",
        "Precedence: list\n",
        "List-Id: Players <players.lists.test>\n",
        "List-Unsubscribe: <mailto:leave@lists.test>\n",
        "X-Loop: moderator@pbem.test\n",
        "Return-Path: <>\n",
        "X-Failed-Recipients: alice@players.test\n",
    ],
)
def test_vacation_list_and_bounce_markers(head: str) -> None:
    assert auto(head)


def test_x_autoreply_no_is_a_person() -> None:
    assert auto("X-Autoreply: no\n") is None


@pytest.mark.parametrize("sender", ["From: MAILER-DAEMON@players.test\n", "From: postmaster@players.test\n", ""])
def test_daemon_and_null_senders_are_bounces(sender: str) -> None:
    assert auto("", sender=sender)


@pytest.mark.parametrize("report", ["delivery-status", "disposition-notification", "feedback-report"])
def test_a_multipart_report_is_a_bounce_or_receipt_even_from_a_player(report: str) -> None:
    body = (
        f'Content-Type: multipart/report; report-type={report}; boundary="r"\n\n--r\nContent-Type: text/plain\n\n'
        "Your message could not be delivered.\nCODE ALCE-2345\nNO EVENT\n--r\n"
        f"Content-Type: message/{report}\n\nFinal-Recipient: rfc822; x@y.test\nAction: failed\n\n--r--\n"
    )
    assert auto("MIME-Version: 1.0\n", body=body)


def test_a_top_level_delivery_status_is_a_bounce() -> None:
    assert auto("Content-Type: message/delivery-status\n")


def test_ordinary_mail_is_answered() -> None:
    assert auto("Precedence: first-class\n") is None
    assert auto("") is None
