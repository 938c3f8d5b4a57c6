"""The TLS + OAuth2 Dovecot/Postfix pair as a pytest fixture (imported by tests/mail/conftest.py).

``secure_servers`` starts once per session (tier ``dovecot``) and is emptied
before each test.  ``secure_home`` is a moderator home whose pbem.toml points
at it; tests pass the [imap] and [smtp] lines they are about.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from pbem.cli.support import init_home
from tests.servers.secure import SecureMailServers, Unavailable, secure_mail_servers, unavailable

SECURE_MODERATOR = "moderator@example.test"
SECURE_USERS = {
    SECURE_MODERATOR: "Mod-Secure-pw-5521",
    "alice@example.test": "alice-secure-1",
    "bob@example.test": "bob-secure-2",
    "carol@example.test": "carol-secure-3",
}
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def _secure_session(tmp_path_factory):
    reason = unavailable()
    if reason:
        pytest.skip(f"TLS/OAuth2 Dovecot+Postfix tier skipped: {reason}")
    try:
        with secure_mail_servers(tmp_path_factory.mktemp("secure-mail"), SECURE_USERS) as servers:
            yield servers
    except Unavailable as exc:
        pytest.skip(f"TLS/OAuth2 Dovecot+Postfix tier skipped: {exc}")


@pytest.fixture
def secure_servers(_secure_session: SecureMailServers) -> SecureMailServers:
    _secure_session.reset()
    return _secure_session


def write_home(home: Path, imap: str, smtp: str) -> Path:
    """A pbem home (as `pbem init` writes it) using IMAP + SMTP with the given section bodies."""
    init_home(home, address=SECURE_MODERATOR, name="Test Moderator")
    toml = home / "pbem.toml"
    text = toml.read_text().replace('transport = "maildir"', 'transport = "imap"')
    toml.write_text(f"{text}\n[imap]\n{imap}\n\n[smtp]\n{smtp}\n")
    return toml


def pbem(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `python -m pbem ARGS` as a moderator would (PYTHONPATH points at this checkout), forked from a process
    that imported pbem once (`tests.reliability.forkserver`)."""
    from tests.reliability import forkserver

    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return forkserver.pbem(list(args), env=full_env, timeout=timeout)
