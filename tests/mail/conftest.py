"""Real mail servers for the transport and end-to-end tests.

`pip_servers`: pymap (IMAP) + aiosmtpd (SMTP), started once per session,
mailboxes emptied before each test.  `debian_servers`: Dovecot + Postfix from
Debian packages (tests using it are marked ``dovecot``); skipped with the
reason when they are not installed or cannot start.  `mail_servers` is
parametrised over both pairs.
"""

from __future__ import annotations

import time

import pytest

from tests.servers.testservers import Unavailable, debian_mail_servers, debian_unavailable, pip_mail_servers

MODERATOR = "moderator@example.test"
USERS = {
    MODERATOR: "Mod-Secret-pw-7731",
    "alice@example.test": "alice-pw-1",
    "bob@example.test": "bob-pw-2",
    "carol@example.test": "carol-pw-3",
    "dave@example.test": "dave-pw-4",
    "erin@example.test": "erin-pw-5",
    "frank@example.test": "frank-pw-6",
    "mallory@example.test": "mallory-pw-7",
    "zoe@example.test": "Zoë-Müller-pw-8",  # not ASCII: IMAP LOGIN cannot send it, AUTHENTICATE PLAIN does
}

STARTUP_SECONDS: dict[str, float] = {}


@pytest.fixture(scope="session")
def _pip_session(tmp_path_factory):
    started = time.perf_counter()
    try:
        with pip_mail_servers(tmp_path_factory.mktemp("pip-mail"), USERS) as servers:
            STARTUP_SECONDS["pip"] = time.perf_counter() - started
            yield servers
    except Unavailable as exc:
        pytest.skip(f"pymap/aiosmtpd servers unavailable: {exc}")


@pytest.fixture(scope="session")
def _debian_session(tmp_path_factory):
    reason = debian_unavailable()
    if reason:
        pytest.skip(f"Dovecot/Postfix tier skipped: {reason}")
    started = time.perf_counter()
    try:
        with debian_mail_servers(tmp_path_factory.mktemp("debian-mail"), USERS) as servers:
            STARTUP_SECONDS["debian"] = time.perf_counter() - started
            yield servers
    except Unavailable as exc:
        pytest.skip(f"Dovecot/Postfix tier skipped: {exc}")


def _fresh(servers):
    servers.smtp_up()
    servers.imap_up()
    servers.reset()
    return servers


@pytest.fixture
def pip_servers(_pip_session):
    return _fresh(_pip_session)


@pytest.fixture
def debian_servers(_debian_session):
    return _fresh(_debian_session)


@pytest.fixture(params=["pip", pytest.param("debian", marks=pytest.mark.dovecot)])
def mail_servers(request):
    """Each real server pair in turn: pymap+aiosmtpd, then Dovecot+Postfix."""
    return request.getfixturevalue(f"{request.param}_servers")


def pytest_terminal_summary(terminalreporter):
    for name, seconds in STARTUP_SECONDS.items():
        terminalreporter.write_line(f"mail servers ({name}) started in {seconds:.2f} s")


# the TLS + OAuth2 server pair (tests/servers/secure.py), for test_tls_oauth.py and test_check.py
from .secure_fixtures import _secure_session, secure_servers  # noqa: E402, F401
