"""Identity is what mail infrastructure sees (issue 12): one From, one address, no second address in its name."""

from __future__ import annotations

import pytest

from pbem.mail.inbound.message import parse

REST = "To: moderator@pbem.test\nSubject: [pbem hh] orders\nMessage-ID: <id@x>\n\nCODE ALCE-2345\nNO EVENT\n"


def read(head: str):
    return parse((head + REST).encode("utf-8"), "moderator@pbem.test")


@pytest.mark.parametrize(
    "head",
    [
        "From: Alice <alice@players.test>\n",
        "From: alice@players.test\n",
        'From: "Alice Liddell" <Alice@Players.TEST>\n',
        "From: alice@players.test (Alice)\n",
        "From: =?utf-8?q?Alic=C3=A9?= <alice@players.test>\n",
        'From: "alice@players.test" <alice@players.test>\n',  # the name repeats the same address: not ambiguous
    ],
)
def test_one_from_with_one_address_identifies_the_sender(head: str) -> None:
    msg = read(head)
    assert msg.sender == "alice@players.test" and msg.problem is None


@pytest.mark.parametrize(
    ("head", "why"),
    [
        ("From: Alice <alice@players.test>\nFrom: Mallory <mallory@evil.test>\n", "2 From: headers"),
        ("From: Mallory <mallory@evil.test>\nFrom: Alice <alice@players.test>\n", "2 From: headers"),
        ("From: alice@players.test, mallory@evil.test\n", "2 addresses"),
        ("From: Alice <alice@players.test>, Mallory <mallory@evil.test>\n", "2 addresses"),
        ('From: "alice@players.test" <mallory@evil.test>\n', "display name holds another address"),
        ("From: alice@players.test <mallory@evil.test>\n", "ambiguous"),
        ('From: "Alice (alice@players.test)" <mallory@evil.test>\n', "display name holds another address"),
        ('From: "alice\uff20players.test" <mallory@evil.test>\n', "display name holds another address"),
        ("From: =?utf-8?q?alice=40players=2Etest?= <mallory@evil.test>\n", "display name holds another address"),
        ("From: =?utf-8?b?YWxpY2VAcGxheWVycy50ZXN0?= <mallory@evil.test>\n", "display name holds another address"),
        ("From: players: alice@players.test;\n", "group syntax"),
        ("From: undisclosed-recipients:;\n", "group syntax"),
        ("From: <>\n", "ambiguous"),
    ],
)
def test_anything_else_is_refused_as_ambiguous(head: str, why: str) -> None:
    msg = read(head)
    assert msg.problem and "ambiguous" in msg.problem and why in msg.problem, msg.problem


def test_the_notice_for_an_ambiguous_from_goes_to_the_address_it_names_first() -> None:
    """The pipeline tells the registered player whose address a forged From names (as for any unreadable mail)."""
    msg = read("From: Alice <alice@players.test>\nFrom: Mallory <mallory@evil.test>\n")
    assert msg.sender == "alice@players.test" and msg.text == ""


@pytest.mark.parametrize("other", ["Sender", "Reply-To", "Return-Path", "Resent-From"])
def test_sender_and_reply_to_never_identify_a_player(other: str) -> None:
    msg = read(f"From: Mallory <mallory@evil.test>\n{other}: Alice <alice@players.test>\n")
    assert msg.sender == "mallory@evil.test"
    msg = read(f"{other}: Alice <alice@players.test>\n")
    assert msg.sender == ""
