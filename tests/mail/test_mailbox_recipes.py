"""The recipes in docs/mailboxes.md are valid pbem.toml, and the self-hosted one works.

Every ```toml block of the page is loaded as a pbem.toml (with `[moderator]`
and `[mail]` added where the block leaves them out).  The Dovecot + Postfix
recipe is then run by `pbem check` against the real servers of
tests/servers/secure.py, with only the host, the ports, the CA file and the
password store swapped for the test's.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from pbem.home.config import load

from .secure_fixtures import SECURE_MODERATOR as MOD
from .secure_fixtures import SECURE_USERS as USERS
from .secure_fixtures import pbem, write_home

PAGE = Path(__file__).resolve().parents[2] / "docs" / "mailboxes.md"


def recipes() -> dict[str, str]:
    """Each toml block of the page, keyed by the heading above it."""
    found: dict[str, str] = {}
    heading = ""
    for part in re.split(r"(^#{2,3} [^\n]*$|^```toml\n.*?^```$)", PAGE.read_text(), flags=re.M | re.S):
        if part.startswith("#"):
            heading = part.lstrip("#").strip()
        elif part.startswith("```toml"):
            found[heading] = part[len("```toml\n") : -3]
    return found


def test_the_page_has_a_recipe_for_each_provider():
    names = " / ".join(recipes())
    for provider in ("With an app password", "With OAuth2", "Microsoft 365", "Fastmail", "Dovecot and Postfix"):
        assert provider in names, names


@pytest.mark.parametrize("heading", sorted(recipes()))
def test_each_recipe_is_a_valid_configuration(tmp_path, heading):
    body = recipes()[heading]
    head = '[moderator]\naddress = "games@example.org"\n'
    if "[mail]" not in body:
        head += '[mail]\ntransport = "imap"\n'
    (tmp_path / "example-ca.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    path = tmp_path / "pbem.toml"
    path.write_text(head + body)
    cfg = load(path)
    assert cfg.transport == "imap"
    for mail in (cfg.imap, cfg.smtp):
        assert mail.host and mail.username and (mail.password_command or mail.token_command)
        assert mail.ssl or mail.starttls  # never a password in clear text
        assert (mail.port in (993, 465)) == mail.ssl


@pytest.mark.dovecot
def test_the_self_hosted_recipe_passes_pbem_check(secure_servers, tmp_path):
    body = recipes()["Self-hosted Dovecot and Postfix"]
    imap, smtp = (part.split("\n\n")[0] for part in body.split("[smtp]\n"))
    imap = imap.replace("[imap]\n", "")
    ports = {"993": secure_servers.imaps_port, "143": secure_servers.imap_port}
    ports |= {"587": secure_servers.submission_port, "465": secure_servers.smtps_port}

    def adapt(section: str) -> str:
        section = section.replace('"mail.example.org"', '"127.0.0.1"').replace("games@example.org", MOD)
        section = re.sub(r"^port = (\d+)", lambda m: f"port = {ports[m.group(1)]}", section, flags=re.M)
        section = section.replace('"example-ca.pem"', f'"{secure_servers.cafile}"')
        pw = f'["{sys.executable}", "-c", "print({USERS[MOD]!r})"]'
        return re.sub(r"^password_command = .*$", f"password_command = {pw}", section, flags=re.M)

    toml = write_home(tmp_path / "home", adapt(imap), adapt(smtp))
    result = pbem("--config", str(toml), "check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "TLS (certificate verified)" in result.stdout and "STARTTLS (certificate verified)" in result.stdout
