"""No log output of `pbem poll` at its most verbose holds a player code, a new code or the mail password.

The real CLI (`python -m pbem poll -v`, which logs at DEBUG, with `[log] file` set too) polls a home wired
to real IMAP/SMTP servers whose password comes from `password_env`, while players send: their code on a
CODE line, in the subject and in a sentence; another player's code; wrong codes (one a typo of a real one);
a LOST CODE request, then orders under the new code mailed back.  Every byte the runs wrote (stdout,
stderr, the log file) is searched for every code, the new one, the wrong ones and the password in each form
a server or library may echo it (`pbem.home.logs.secret_forms`).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from pbem.cli.demo import demo_code
from pbem.home.logs import secret_forms
from tests.mail.conftest import MODERATOR, USERS
from tests.mail.test_e2e import PASSWORD_ENV, World

ROOT = Path(__file__).resolve().parents[2]


def _poll(w: World, out: list[str]) -> None:
    """One `pbem poll -v` run as cron starts it; what it printed is appended to `out`."""
    w.servers.wait_for_count(MODERATOR, w.in_flight, timeout=60)
    w.in_flight = 0
    from tests.reliability import forkserver

    env = {**os.environ, PASSWORD_ENV: USERS[MODERATOR], "PYTHONPATH": str(ROOT)}
    # `python -m pbem`, forked from a process that imported pbem once (and holds no code or password)
    run = forkserver.pbem(["--config", str(w.cfg.path), "poll", "-v"], env=env, timeout=180)
    out += [run.stdout, run.stderr]
    assert run.returncode == 0, run.stderr


def test_verbose_poll_logs_hold_no_code_new_code_wrong_code_or_password(mail_servers, tmp_path, monkeypatch) -> None:
    w = World(mail_servers, tmp_path, monkeypatch)
    log_file = tmp_path / "pbem.log"
    with open(w.cfg.path, "a") as f:
        f.write(f'\n[log]\nfile = "{log_file}"\nlevel = "DEBUG"\n')
    out: list[str] = []
    with w.readers:
        w.new_game("italian-wars", 2)
        alice, bob = demo_code("e2e", "Alice"), demo_code("e2e", "Bob")
        typo = bob[:-1] + ("X" if bob[-1] != "X" else "Y")
        wrong = "WRNG-C0DE"
        _poll(w, out)  # the first reports, each with its player's code
        w.send("Alice <alice@example.test>", f"CODE {alice}\nDISCARD NONE")
        w.send("Alice <alice@example.test>", f"my code is {alice}\nSTATUS", subject=f"[pbem g1] {alice} status")
        w.send("Bob <bob@example.test>", f"CODE {alice}\nDISCARD NONE")  # another player's code
        w.send("Bob <bob@example.test>", f"code: {typo}\nDISCARD NONE")
        w.send("Bob <bob@example.test>", f"CODE={wrong}\nDISCARD NONE", subject=f"[pbem g1] CODE {wrong}")
        w.send("Mallory <mallory@example.test>", f"CODE {bob}\nDISCARD NONE")
        w.send("Bob <bob@example.test>", "Sorry, I lost it.", subject="[pbem g1] lost code")
        _poll(w, out)
        mailed = "\n".join(text for _, text in w.new_mail("Bob"))
        new = re.search(r"Your new player code for game g1 is (\S+)\.", mailed)
        assert new, mailed
        fresh = new.group(1)
        w.send("Bob <bob@example.test>", f"CODE {fresh}\nDISCARD NONE")
        w.send("Bob <bob@example.test>", f"CODE {bob}\nDISCARD NONE")  # the old code, now wrong
        _poll(w, out)
    logged = "\n".join(out) + "\n" + log_file.read_text(encoding="utf-8")
    assert "read 8 messages" in logged and "created IMAP folder" in log_file.read_text(), logged[-2000:]
    said = re.findall(r"message (\d+) of this run: (\w+)", log_file.read_text())  # -v: a line per message handled
    assert [n for n, _ in said].count("1") == 2 and len(said) >= 10, said  # the first run reads no mail
    for what, secret in [("Alice's", alice), ("Bob's", bob), ("the new", fresh), ("a typo", typo), ("a wrong", wrong)]:
        for form in {secret, secret.lower(), secret.replace("-", "")}:
            assert form not in logged, f"{what} code ({form}) is in the log:\n" + "\n".join(
                line for line in logged.splitlines() if form in line
            )
    for form in secret_forms(USERS[MODERATOR]):
        assert form not in logged, f"the mail password ({form!r}) is in the log"


def test_a_logged_traceback_is_masked_like_the_message(tmp_path, capfd) -> None:
    """`log.exception` (a message that could not be handled) and the DEBUG `exc_info=True` lines of `pbem poll -v`
    write the exception's text after the message: it may quote a mail's CODE line or a server's answer holding
    the password, and was written as it was."""
    import logging

    from pbem.home.logs import setup

    password = USERS[MODERATOR]
    log_file = tmp_path / "pbem.log"
    setup("DEBUG", log_file, secrets=[password])
    log = logging.getLogger("pbem.poll")
    try:
        raise ValueError(f"cannot read line 'CODE ABCD-EFGH' after LOGIN moderator \"{password}\"")
    except ValueError:
        log.exception("a message could not be handled; it is kept as rejected for the moderator")
        log.debug("parsing ahead of handling failed", exc_info=True)
    log.debug("here", stack_info=True, extra={})
    for h in logging.getLogger("pbem").handlers:
        h.flush()
    written = capfd.readouterr().err + log_file.read_text(encoding="utf-8")
    assert "ValueError: cannot read line 'CODE [redacted]'" in written, written
    assert "ABCD-EFGH" not in written and password not in written, written
    setup("INFO")


def test_a_server_echoing_a_plain_login_line_is_masked(tmp_path, capfd, monkeypatch) -> None:
    """pbem logs in by SASL PLAIN (AUTHENTICATE PLAIN, AUTH PLAIN) whenever the password is not ASCII: what goes on
    the wire is base64 of NUL user NUL password, which holds no form of the password alone (found by the secrecy
    red team: a server repeating that line in an error, logged, showed it).  `pbem poll` masks both PLAIN forms of
    each server's login, whether the password is in pbem.toml or in the environment."""
    import base64
    import logging

    from pbem.cli.common import _login_secrets
    from pbem.home import config as config_mod
    from pbem.home.logs import setup
    from tests.conftest import init_home

    toml = init_home(tmp_path / "home", address="moderator@pbem.test", name="Test Moderator")
    text = toml.read_text().replace('transport = "maildir"', 'transport = "imap"')
    text += '\n[imap]\nhost = "127.0.0.1"\nusername = "mod@pbem.test"\npassword_env = "PBEM_LOG_PW"\n'
    text += '\n[smtp]\nhost = "127.0.0.1"\nusername = "mod@pbem.test"\npassword = "Zoë-smtp-pw"\n'
    toml.write_text(text)
    monkeypatch.setenv("PBEM_LOG_PW", "Zoë-imap-pw")
    cfg = config_mod.load(toml)
    setup("DEBUG", tmp_path / "pbem.log", secrets=_login_secrets(cfg))
    for password in ("Zoë-imap-pw", "Zoë-smtp-pw"):
        for authz in ("", "mod@pbem.test"):
            line = base64.b64encode(f"{authz}\0mod@pbem.test\0{password}".encode()).decode()
            logging.getLogger("pbem.poll").error("server said: BAD [PARSE] in 'AUTHENTICATE PLAIN %s'", line)
            for h in logging.getLogger("pbem").handlers:
                h.flush()
            written = capfd.readouterr().err + (tmp_path / "pbem.log").read_text(encoding="utf-8")
            assert line not in written and "[redacted]" in written, written
    setup("INFO")


def test_a_password_from_its_command_is_masked_with_its_plain_login_forms(tmp_path, capfd) -> None:
    import base64
    import logging

    from pbem.home.config import MailConfig
    from pbem.home.logs import setup
    from pbem.mail.transports.credentials import login_for

    (tmp_path / "pw.py").write_text("print('Zoë-from-a-command')\n")
    setup("DEBUG")
    login = login_for("smtp", MailConfig(username="mod@pbem.test", password_command=[sys.executable, "pw.py"]),
                      tmp_path / "pbem.toml")  # fmt: skip
    assert login.secret == "Zoë-from-a-command"
    line = base64.b64encode(b"\0mod@pbem.test\0" + login.secret.encode()).decode()
    logging.getLogger("pbem.smtp").error("server said: 501 cannot decode '%s' (%s)", line, login.secret)
    written = capfd.readouterr().err
    assert line not in written and login.secret not in written and written.count("[redacted]") == 2, written
    setup("INFO")
