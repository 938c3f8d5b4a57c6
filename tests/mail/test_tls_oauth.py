"""TLS and OAuth2 against real Dovecot + Postfix (tests/servers/secure.py), tier ``dovecot``.

TLS as moderators use it: IMAPS, IMAP STARTTLS, SMTP submission with
STARTTLS (587-style) and implicit TLS (465-style), certificates from a test
CA, verification always on; a certificate nobody trusts, or one for another
name, is refused with a line naming the host, the problem and the key to
change.  OAuth2: XOAUTH2 and OAUTHBEARER for IMAP and SMTP, tokens checked by
Dovecot at an introspection endpoint; a wrong or expired token gives the
server's refusal in one line without the token.
"""

from __future__ import annotations

import email

import pytest

from pbem.mail.transports import tls
from pbem.mail.transports.imap import ImapInbox
from pbem.mail.transports.seam import TransientSendError, TransportError
from pbem.mail.transports.smtp import SmtpSender

from .secure_fixtures import SECURE_MODERATOR as MOD
from .secure_fixtures import SECURE_USERS as USERS

pytestmark = pytest.mark.dovecot


def note(n: int, to: str = MOD) -> bytes:
    return (
        f"From: Alice <alice@example.test>\r\nTo: {to}\r\nSubject: orders {n}\r\n"
        f"Message-ID: <tls-{n}@example.test>\r\n\r\nPASS\r\n"
    ).encode()


def imap_ports(s) -> dict[str, tuple[int, bool, bool]]:
    return {"imaps": (s.imaps_port, True, False), "imap+starttls": (s.imap_port, False, True)}


def smtp_ports(s) -> dict[str, tuple[int, bool, bool]]:
    return {"submission+starttls": (s.submission_port, False, True), "smtps": (s.smtps_port, True, False)}


def subjects(raws: list[bytes]) -> list[str]:
    return [email.message_from_bytes(raw)["Subject"] for raw in raws]


@pytest.mark.parametrize("kind", ["imaps", "imap+starttls"])
def test_imap_over_tls_verified_by_the_private_ca(secure_servers, kind):
    port, ssl, starttls = imap_ports(secure_servers)[kind]
    secure_servers.deliver(MOD, note(1))
    box = ImapInbox("127.0.0.1", port, ssl, starttls, MOD, USERS[MOD], ssl_context=tls.context(secure_servers.cafile))
    try:
        assert box._client._imap.sock.version().startswith("TLS")
        assert subjects([m.raw for m in box.fetch()]) == ["orders 1"]
    finally:
        box.close()


@pytest.mark.parametrize("kind", ["submission+starttls", "smtps"])
def test_smtp_over_tls_with_password_delivers(secure_servers, kind):
    port, ssl, starttls = smtp_ports(secure_servers)[kind]
    sender = SmtpSender(
        "127.0.0.1", port, ssl, starttls, MOD, USERS[MOD], ssl_context=tls.context(secure_servers.cafile)
    )
    try:
        sender.send(note(2, "alice@example.test"), MOD, ["alice@example.test"])
    finally:
        sender.close()
    assert subjects(secure_servers.mailbox("alice@example.test", wait_for=1)) == ["orders 2"]


def test_submission_port_refuses_login_before_starttls(secure_servers):
    """Postfix's submission port offers AUTH only after STARTTLS: pbem says so instead of sending the password."""
    sender = SmtpSender("127.0.0.1", secure_servers.submission_port, False, False, MOD, USERS[MOD], auth="xoauth2")
    with pytest.raises(TransientSendError) as caught:
        sender.open()
    text = str(caught.value)
    assert "does not offer AUTH XOAUTH2" in text and "STARTTLS" in text and "[smtp] auth" in text


def _refusals(servers, ctx_for):
    """(what, callable) pairs that connect each TLS way with the context ``ctx_for(name)`` gives."""
    for name, (port, ssl, starttls) in imap_ports(servers).items():
        yield (
            name,
            port,
            lambda p=port, a=ssl, b=starttls, n=name: ImapInbox(
                "127.0.0.1", p, a, b, MOD, USERS[MOD], ssl_context=ctx_for(n), timeout=10
            ),
        )
    for name, (port, ssl, starttls) in smtp_ports(servers).items():
        yield (
            name,
            port,
            lambda p=port, a=ssl, b=starttls, n=name: SmtpSender(
                "127.0.0.1", p, a, b, MOD, USERS[MOD], ssl_context=ctx_for(n), timeout=10
            ).open(),
        )


@pytest.mark.parametrize("trust", ["system CAs (the default)", "an unrelated CA file"])
def test_a_certificate_nobody_configured_is_refused_naming_host_problem_and_key(secure_servers, trust):
    def ctx_for(_name):
        return tls.context(None if trust.startswith("system") else secure_servers.other_cafile)

    for name, port, connect in _refusals(secure_servers, ctx_for):
        with pytest.raises(TransportError) as caught:
            connect()
        text = str(caught.value)
        section = "imap" if name.startswith("imap") else "smtp"
        assert f"127.0.0.1:{port}" in text, (name, text)
        assert "certificate" in text and "unable to get local issuer certificate" in text, (name, text)
        assert f"[{section}] cafile" in text, (name, text)
        assert "\n" not in text and USERS[MOD] not in text


def test_default_context_verifies_and_the_cafile_key_is_what_makes_it_work(secure_servers):
    # the same connection: refused with the system CAs, accepted with the test CA as cafile
    with pytest.raises(TransportError):
        ImapInbox("127.0.0.1", secure_servers.imaps_port, True, False, MOD, USERS[MOD], timeout=10)
    ImapInbox(
        "127.0.0.1",
        secure_servers.imaps_port,
        True,
        False,
        MOD,
        USERS[MOD],
        ssl_context=tls.context(secure_servers.cafile),
    ).close()


def test_a_certificate_for_another_name_is_refused_as_a_mismatch(secure_servers):
    """The test certificate names 127.0.0.1 only; connecting as "localhost" must fail verification."""
    ctx = tls.context(secure_servers.cafile)
    with pytest.raises(TransportError) as caught:
        ImapInbox("localhost", secure_servers.imaps_port, True, False, MOD, USERS[MOD], ssl_context=ctx, timeout=10)
    text = str(caught.value)
    assert "localhost" in text and "mismatch" in text.lower() and "[imap] host" in text
    with pytest.raises(TransientSendError) as caught:
        SmtpSender("localhost", secure_servers.smtps_port, True, False, MOD, USERS[MOD], ssl_context=ctx).open()
    assert "mismatch" in str(caught.value).lower() and "[smtp] host" in str(caught.value)


def test_implicit_tls_against_a_starttls_port_says_which_setting_to_change(secure_servers):
    ctx = tls.context(secure_servers.cafile)
    with pytest.raises(TransportError) as caught:
        ImapInbox("127.0.0.1", secure_servers.imap_port, True, False, MOD, USERS[MOD], ssl_context=ctx, timeout=10)
    assert "starttls = true" in str(caught.value)


# -- OAuth2 -----------------------------------------------------------------------


@pytest.mark.parametrize("mechanism", ["xoauth2", "oauthbearer"])
@pytest.mark.parametrize("kind", ["imaps", "imap+starttls"])
def test_imap_oauth2_login_reads_the_inbox(secure_servers, mechanism, kind):
    port, ssl, starttls = imap_ports(secure_servers)[kind]
    secure_servers.deliver(MOD, note(3))
    token = secure_servers.oauth.issue(MOD)
    asked = secure_servers.oauth.asked
    ctx = tls.context(secure_servers.cafile)
    box = ImapInbox("127.0.0.1", port, ssl, starttls, MOD, token, ssl_context=ctx, auth=mechanism)
    try:
        assert subjects([m.raw for m in box.fetch()]) == ["orders 3"]
    finally:
        box.close()
    assert secure_servers.oauth.asked > asked  # Dovecot really asked the introspection endpoint


@pytest.mark.parametrize("mechanism", ["xoauth2", "oauthbearer"])
@pytest.mark.parametrize("kind", ["submission+starttls", "smtps"])
def test_smtp_oauth2_login_delivers(secure_servers, mechanism, kind):
    port, ssl, starttls = smtp_ports(secure_servers)[kind]
    token = secure_servers.oauth.issue(MOD)
    ctx = tls.context(secure_servers.cafile)
    sender = SmtpSender("127.0.0.1", port, ssl, starttls, MOD, token, ssl_context=ctx, auth=mechanism)
    try:
        sender.send(note(4, "bob@example.test"), MOD, ["bob@example.test"])
    finally:
        sender.close()
    assert subjects(secure_servers.mailbox("bob@example.test", wait_for=1)) == ["orders 4"]


@pytest.mark.parametrize("how", ["expired", "wrong", "someone else's"])
def test_a_bad_token_gives_the_servers_refusal_in_one_line(secure_servers, how):
    token = secure_servers.oauth.issue("alice@example.test" if how == "someone else's" else MOD)
    if how == "expired":
        secure_servers.oauth.expire(token)
    elif how == "wrong":
        token = token[:-4] + "XXXX"
    ctx = tls.context(secure_servers.cafile)
    with pytest.raises(TransportError) as caught:
        ImapInbox("127.0.0.1", secure_servers.imaps_port, True, False, MOD, token, ssl_context=ctx, auth="xoauth2")
    imap_text = str(caught.value)
    assert f"login as '{MOD}' refused" in imap_text and "AUTHENTICATIONFAILED" in imap_text
    sender = SmtpSender(
        "127.0.0.1", secure_servers.submission_port, False, True, MOD, token, ssl_context=ctx, auth="xoauth2"
    )
    with pytest.raises(TransientSendError) as caught:
        sender.open()
    smtp_text = str(caught.value)
    assert f"login as '{MOD}' refused (535 " in smtp_text
    for text in (imap_text, smtp_text):
        assert token not in text and "\n" not in text
    assert secure_servers.mailbox("bob@example.test") == []
