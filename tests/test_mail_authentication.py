"""`[mail] trust_authentication_results`: the receiving server's verdict on the From domain (issue 12)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pbem.app.poll import handle, poll
from pbem.home.app import Home
from pbem.mail.inbound.authentication import parse_header
from pbem.mail.inbound.message import parse
from pbem.mail.transports.seam import open_transport as transports
from tests.conftest import order_mail, signed

MX = "mx.example.org"


def read(*results: str, trusted: str = MX, sender: str = "Alice <alice@players.test>"):
    head = "".join(f"Authentication-Results: {r}\n" for r in results)
    raw = (
        f"{head}From: {sender}\nTo: m@pbem.test\nSubject: [pbem hh] orders\nMessage-ID: <a@x>\n\nNO EVENT\n"
    ).encode()
    return parse(raw, "m@pbem.test", trusted)


def test_the_header_grammar_comments_quotes_and_properties() -> None:
    authserv, results = parse_header(
        "mx.example.org 1; (a comment) dmarc=fail (p=reject dis=none) header.from=players.test;\n"
        ' spf=softfail smtp.mailfrom="alice@players.test"; dkim=pass header.d=mail.players.test header.s=sel'
    )
    assert authserv == MX
    assert [(r.method, r.result) for r in results] == [("dmarc", "fail"), ("spf", "softfail"), ("dkim", "pass")]
    assert results[1].props["smtp.mailfrom"] == "alice@players.test"
    assert results[2].props["header.d"] == "mail.players.test"


@pytest.mark.parametrize(
    "results",
    [
        [f"{MX}; dmarc=fail (p=reject) header.from=players.test"],
        [f"{MX}; dmarc=FAIL header.from=players.test; spf=pass smtp.mailfrom=players.test"],
        [f"{MX}; spf=fail smtp.mailfrom=players.test; dkim=fail header.d=players.test"],
        [f"{MX}; spf=softfail smtp.mailfrom=players.test; dkim=none"],
        [f"{MX}; spf=fail smtp.mailfrom=x.test; dkim=pass header.d=evil.test"],  # a signature, but not theirs
        [f"{MX}; dmarc=pass header.from=players.test", f"{MX}; dmarc=fail header.from=players.test"],  # fail wins
        [f"{MX.upper()}; dmarc=fail header.from=players.test"],
    ],
)
def test_a_trusted_failure_for_the_from_domain_is_refused(results: list[str]) -> None:
    msg = read(*results)
    assert msg.problem and MX in msg.problem and "players.test" in msg.problem and msg.text == ""


@pytest.mark.parametrize(
    "results",
    [
        [],
        [f"{MX}; dmarc=pass header.from=players.test; spf=fail smtp.mailfrom=players.test"],
        [f"{MX}; dmarc=none; spf=fail smtp.mailfrom=players.test; dkim=pass header.d=players.test"],
        [f"{MX}; dmarc=none; spf=fail; dkim=pass header.d=mail.players.test"],
        [f"{MX}; spf=pass smtp.mailfrom=players.test; dkim=none"],
        [f"{MX}; spf=neutral; dkim=none"],
        [f"{MX}; none"],
        ["mx.evil.test; dmarc=fail header.from=players.test"],  # another server's word is not taken
        [f"relay.{MX}; dmarc=fail header.from=players.test"],
        [f"{MX}; dmarc=fail header.from=other.test"],  # about another domain
    ],
)
def test_anything_else_is_read_as_usual(results: list[str]) -> None:
    msg = read(*results)
    assert msg.problem is None and "NO EVENT" in msg.text


def test_off_by_default() -> None:
    assert read(f"{MX}; dmarc=fail header.from=players.test", trusted="").problem is None


def test_a_refused_mail_changes_nothing_and_the_registered_player_is_told(home, clock) -> None:
    from tests.conftest import sent_mail
    from tests.test_moderator import new_game

    name = new_game(home, clock)
    home.trust_authentication_results = MX
    raw = order_mail(
        "Alice <alice@players.test>",
        name,
        signed("Alice", "STATUS"),
        Authentication_Results=f"{MX}; dmarc=fail (p=reject) header.from=players.test",
    )
    out = handle(Home.of(home), raw, datetime(2026, 1, 5, 12, tzinfo=UTC))
    assert out.kind == "rejected"
    inbox, sender = transports(home)
    poll(Home.of(home, inbox=inbox, sender=sender))
    told = [m for m in sent_mail(home) if "DMARC failed" in m.get_body(preferencelist=("plain",)).get_content()]
    assert told and all(m["To"].addresses[0].addr_spec == "alice@players.test" for m in told)
