"""A wrong password stops `pbem poll` with the line `pbem check` gives: what to change (walk9, Part B).

The moderator's mistake: a wrong IMAP or SMTP password (or token) in the environment cron gives pbem.  `pbem check`
said "login as 'x' refused (...); check [imap] username and the password or token it gets"; the poll, which is
what cron.log shows, said only "login as 'x' refused (...)" (2 of 2 cases, IMAP and SMTP, on 90a53973; 0 now).
"""

from __future__ import annotations

import pytest

from tests.mail.conftest import MODERATOR, USERS
from tests.mail.secure_fixtures import pbem


@pytest.mark.parametrize("wrong", ["imap", "smtp"])
def test_a_refused_login_stops_the_poll_naming_the_setting_to_check(pip_servers, tmp_path, wrong: str) -> None:
    from pbem.app import games
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.home.app import Home
    from tests.conftest import CODES

    toml = init_home(tmp_path / "home", address=MODERATOR)
    players = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("Carol", "carol@example.test")]
    games.create_game(
        Home.of(config_mod.load(toml)), "habsburg", "g1", players, seed="walk9", codes=CODES
    )  # mail to send
    pip_servers.wire_home(toml, MODERATOR, "PBEM_W9_PW")
    text = toml.read_text()
    at = text.rindex(f"\n[{wrong}]\n")  # this server's password comes from a variable of its own, set wrong
    toml.write_text(text[:at] + text[at:].replace('password_env = "PBEM_W9_PW"', 'password_env = "PBEM_W9_BAD"', 1))
    env = {"PBEM_W9_PW": USERS[MODERATOR], "PBEM_W9_BAD": "not-the-password-9"}
    got = pbem("--config", str(toml), "poll", env=env)
    assert got.returncode == 3, got.stdout + got.stderr
    (line,) = [x for x in got.stderr.splitlines() if x.startswith("pbem: ")]
    assert f"login as '{MODERATOR}' refused (" in line, line
    assert line.endswith(f"; check [{wrong}] username and the password or token it gets"), line
    assert "not-the-password-9" not in got.stdout + got.stderr
