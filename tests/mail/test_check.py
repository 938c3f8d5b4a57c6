"""`pbem check` and `pbem poll` with login commands, end to end against Dovecot + Postfix (tier ``dovecot``).

The moderator's home is written by `pbem init` and pointed at the TLS +
OAuth2 servers of tests/servers/secure.py; pbem runs as a subprocess, as
cron runs it.  The token and password helpers are small scripts that log
each call, so the tests see how often they ran.  Those tests are in the
tier ``dovecot``; a plain-text check against pymap + aiosmtpd and the check
of a Maildir home run in the default tier.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .secure_fixtures import SECURE_MODERATOR as MOD
from .secure_fixtures import SECURE_USERS as USERS
from .secure_fixtures import pbem, write_home

dovecot = pytest.mark.dovecot

HELPER = """import sys
from pathlib import Path
here = Path(sys.argv[0]).parent
with open(here / (Path(sys.argv[0]).stem + ".calls"), "a") as calls:
    calls.write("called\\n")
secret = (here / sys.argv[1]).read_text().strip()
if secret.startswith("FAIL"):
    sys.stderr.write("helper: " + secret + "\\n")
    sys.exit(int(secret.split()[1]))
print(secret)
"""


class Home:
    """A moderator home with a token helper (IMAP, XOAUTH2) and a password helper (SMTP)."""

    def __init__(self, servers, tmp: Path, imap: dict[str, str] | None = None, smtp: dict[str, str] | None = None):
        self.servers, self.dir = servers, tmp / "home"
        self.dir.mkdir()
        for name in ("token-helper", "password-helper"):
            (self.dir / f"{name}.py").write_text(HELPER)
        self.token = servers.oauth.issue(MOD)
        self.set_secret("token", self.token)
        self.set_secret("password", USERS[MOD])
        imap_keys = {
            "host": '"127.0.0.1"',
            "port": str(servers.imaps_port),
            "ssl": "true",
            "starttls": "false",
            "cafile": f'"{servers.cafile}"',
            "username": f'"{MOD}"',
            "auth": '"xoauth2"',
            "token_command": f'["{sys.executable}", "token-helper.py", "token.txt"]',
            **(imap or {}),
        }
        smtp_keys = {
            "host": '"127.0.0.1"',
            "port": str(servers.submission_port),
            "ssl": "false",
            "starttls": "true",
            "cafile": f'"{servers.cafile}"',
            "username": f'"{MOD}"',
            "password_command": f'["{sys.executable}", "password-helper.py", "password.txt"]',
            **(smtp or {}),
        }
        lines = lambda keys: "\n".join(f"{k} = {v}" for k, v in keys.items() if v is not None)  # noqa: E731
        self.toml = write_home(self.dir, lines(imap_keys), lines(smtp_keys) + '\n\n[log]\nfile = "pbem.log"')

    def set_secret(self, which: str, value: str) -> None:
        (self.dir / f"{which}.txt").write_text(value + "\n")

    def calls(self, which: str) -> int:
        path = self.dir / f"{which}-helper.calls"
        return len(path.read_text().splitlines()) if path.exists() else 0

    def run(self, *args: str):
        # from another directory: the helpers' relative paths must not depend on where cron starts pbem
        return pbem("--config", str(self.toml), *args)

    def everything_said(self, result) -> str:
        log = self.dir / "pbem.log"
        return result.stdout + result.stderr + (log.read_text() if log.exists() else "")


def order(n: int) -> bytes:
    return f"From: Alice <alice@example.test>\r\nTo: {MOD}\r\nSubject: hello {n}\r\n\r\nHi\r\n".encode()


# -- pbem check -------------------------------------------------------------------


@dovecot
def test_check_passes_and_changes_nothing(secure_servers, tmp_path):
    secure_servers.deliver(MOD, order(1))
    home = Home(secure_servers, tmp_path)
    result = home.run("check")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert all(line.startswith("ok") for line in lines), lines
    text = result.stdout
    assert (
        f"IMAP 127.0.0.1:{secure_servers.imaps_port}: TLS (certificate verified), logged in as {MOD} with XOAUTH2"
        in text
    )
    assert 'IMAP folder "INBOX" (read): 1 messages' in text
    assert 'IMAP folder "pbem/processed" ([imap] processed_folder): missing: the first poll creates it' in text
    assert "IMAP MOVE: supported" in text
    assert (
        f"SMTP 127.0.0.1:{secure_servers.submission_port}: STARTTLS (certificate verified), logged in as {MOD}" in text
    )
    assert "nothing sent" in text
    assert home.calls("token") == 1 and home.calls("password") == 1
    # nothing sent, created or moved
    assert secure_servers.folders(MOD) == ["INBOX"]
    assert len(secure_servers.mailbox(MOD)) == 1
    assert all(secure_servers.mailbox(user) == [] for user in USERS if user != MOD)
    assert home.token not in home.everything_said(result) and USERS[MOD] not in home.everything_said(result)


@dovecot
def test_check_with_oauthbearer_for_smtp_and_implicit_tls(secure_servers, tmp_path):
    home = Home(
        secure_servers,
        tmp_path,
        smtp={
            "port": str(secure_servers.smtps_port),
            "ssl": "true",
            "starttls": "false",
            "password_command": None,
            "auth": '"oauthbearer"',
            "token_command": f'["{sys.executable}", "token-helper.py", "token.txt"]',
        },
    )
    result = home.run("check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        f"SMTP 127.0.0.1:{secure_servers.smtps_port}: TLS (certificate verified), logged in as {MOD} with OAUTHBEARER"
        in result.stdout
    )
    assert home.calls("token") == 2  # once per connection: IMAP and SMTP


@dovecot
def test_check_names_a_wrong_password_and_what_to_change(secure_servers, tmp_path):
    home = Home(secure_servers, tmp_path)
    home.set_secret("password", "Wrong-Pw-31337")
    result = home.run("check")
    assert result.returncode == 1
    (fail,) = [line for line in result.stdout.splitlines() if line.startswith("FAIL")]
    assert f"SMTP 127.0.0.1:{secure_servers.submission_port}: login as '{MOD}' refused (535 " in fail
    assert "check [smtp] username and the password" in fail
    assert "Wrong-Pw-31337" not in home.everything_said(result)


@dovecot
def test_check_names_an_expired_token(secure_servers, tmp_path):
    home = Home(secure_servers, tmp_path)
    secure_servers.oauth.expire(home.token)
    result = home.run("check")
    assert result.returncode == 1
    (fail,) = [line for line in result.stdout.splitlines() if line.startswith("FAIL")]
    assert "IMAP" in fail and "AUTHENTICATIONFAILED" in fail and "[imap] username" in fail
    assert home.token not in home.everything_said(result)
    lines = result.stdout.splitlines()
    assert [ln for ln in lines[lines.index(fail) :] if ln.startswith(("ok", "FAIL")) and "SMTP" in ln]  # still checked


@dovecot
def test_check_names_a_missing_folder(secure_servers, tmp_path):
    home = Home(secure_servers, tmp_path, imap={"folder": '"Orders"'})
    result = home.run("check")
    assert result.returncode == 1
    assert 'FAIL  IMAP folder "Orders" does not exist; set [imap] folder to one of: INBOX' in result.stdout
    assert secure_servers.folders(MOD) == ["INBOX"]


@dovecot
def test_check_names_a_bad_certificate_on_both_sides(secure_servers, tmp_path):
    home = Home(
        secure_servers,
        tmp_path,
        imap={"cafile": f'"{secure_servers.other_cafile}"'},
        smtp={"cafile": f'"{secure_servers.other_cafile}"'},
    )
    result = home.run("check")
    assert result.returncode == 1
    fails = [line for line in result.stdout.splitlines() if line.startswith("FAIL")]
    assert len(fails) == 2
    for fail, section in zip(fails, ("imap", "smtp"), strict=True):
        assert "127.0.0.1:" in fail and "certificate not accepted: unable to get local issuer certificate" in fail
        assert f"[{section}] cafile" in fail


@dovecot
def test_check_names_a_failing_token_command(secure_servers, tmp_path):
    home = Home(secure_servers, tmp_path)
    home.set_secret("token", "FAIL 5")
    result = home.run("check")
    assert result.returncode == 1
    assert "FAIL  [imap] token_command: " in result.stdout and "exit status 5" in result.stdout
    assert "helper:" not in home.everything_said(result)


def test_check_of_a_maildir_home_passes(tmp_path):
    from pbem.cli.support import init_home

    toml = init_home(tmp_path / "home", address=MOD)
    result = pbem("--config", str(toml), "check")
    assert result.returncode == 0 and "maildir transport" in result.stdout


# -- pbem poll with the same settings ---------------------------------------------


@dovecot
def test_poll_over_tls_with_a_token_helper_and_a_password_helper(secure_servers, tmp_path):
    home = Home(secure_servers, tmp_path)
    players = [f"{name} <{name.lower()}@example.test>" for name in ("Alice", "Bob", "Carol")]
    created = home.run("game", "new", "habsburg", "--name", "hh1", *[a for p in players for a in ("--player", p)])
    assert created.returncode == 0, created.stderr
    result = home.run("poll", "--verbose")
    assert result.returncode == 0, result.stdout + result.stderr
    for user in ("alice@example.test", "bob@example.test", "carol@example.test"):
        assert secure_servers.mailbox(user, wait_for=1), user
    assert home.calls("token") == 1 and home.calls("password") == 1  # once per run and connection
    said = home.everything_said(result)
    assert home.token not in said and USERS[MOD] not in said


@dovecot
@pytest.mark.parametrize("failing", ["token", "password"])
def test_poll_stops_with_exit_3_when_a_helper_fails_and_does_nothing_else(secure_servers, tmp_path, failing):
    secure_servers.deliver(MOD, order(2))
    home = Home(secure_servers, tmp_path)
    home.set_secret(failing, "FAIL 2")
    result = home.run("poll")
    assert result.returncode == 3
    key = "[imap] token_command" if failing == "token" else "[smtp] password_command"
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("pbem:")]
    assert key in line and "exit status 2" in line
    assert "helper:" not in home.everything_said(result)
    # nothing else happened: no server contacted, nothing moved or created
    assert secure_servers.folders(MOD) == ["INBOX"] and len(secure_servers.mailbox(MOD)) == 1
    assert home.calls("password") == (1 if failing == "password" else 0)


@dovecot
def test_poll_with_a_wrong_password_from_the_helper_never_shows_it(secure_servers, tmp_path):
    home = Home(
        secure_servers,
        tmp_path,
        imap={
            "auth": None,
            "token_command": None,
            "password_command": f'["{sys.executable}", "password-helper.py", "password.txt"]',
        },
    )
    home.set_secret("password", "Wrong-Pw-8080")
    result = home.run("poll", "--verbose")
    assert result.returncode == 3
    assert "refused" in result.stderr and "Wrong-Pw-8080" not in home.everything_said(result)


# -- without TLS, against pymap + aiosmtpd (the default tier) -----------------------


def test_check_against_the_pip_servers_and_with_imap_down(pip_servers, tmp_path):
    from pbem.cli.support import init_home
    from tests.mail.conftest import MODERATOR as PIP_MOD
    from tests.mail.conftest import USERS as PIP_USERS

    toml = init_home(tmp_path / "home", address=PIP_MOD)
    pip_servers.wire_home(toml, PIP_MOD, "PBEM_CHECK_PW")
    env = {"PBEM_CHECK_PW": PIP_USERS[PIP_MOD]}
    result = pbem("--config", str(toml), "check", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"IMAP 127.0.0.1:{pip_servers.imap_port}: no TLS, logged in as {PIP_MOD} with password" in result.stdout
    assert f"SMTP 127.0.0.1:{pip_servers.smtp_port}: no TLS, logged in as {PIP_MOD}" in result.stdout
    with pip_servers.imap_stopped():
        down = pbem("--config", str(toml), "check", env=env)
    assert down.returncode == 1
    (fail,) = [line for line in down.stdout.splitlines() if line.startswith("FAIL")]
    assert f"IMAP 127.0.0.1:{pip_servers.imap_port}: connect failed (" in fail and "check [imap] host, port" in fail
    assert PIP_USERS[PIP_MOD] not in down.stdout + down.stderr


def test_check_says_when_the_server_does_not_offer_oauth2(pip_servers, tmp_path):
    from pbem.cli.support import init_home
    from tests.mail.conftest import MODERATOR as PIP_MOD

    toml = init_home(tmp_path / "home", address=PIP_MOD)
    pip_servers.wire_home(toml, PIP_MOD, "UNUSED")
    token = f'auth = "xoauth2"\ntoken_command = ["{sys.executable}", "-c", "print(\'tok-abc-123\')"]\n'
    toml.write_text(toml.read_text().replace('password_env = "UNUSED"\n', token))
    result = pbem("--config", str(toml), "check")
    assert result.returncode == 1
    fails = [line for line in result.stdout.splitlines() if line.startswith("FAIL")]
    assert len(fails) == 2, result.stdout
    assert "does not offer AUTH=XOAUTH2 (it offers " in fails[0] and "change [imap] auth" in fails[0]
    assert "does not offer AUTH XOAUTH2 (it offers " in fails[1] and "change [smtp] auth" in fails[1]
    assert "tok-abc-123" not in result.stdout + result.stderr
