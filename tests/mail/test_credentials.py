"""Secrets from commands, and how [imap]/[smtp] say how to log in (no mail server needed).

The commands really run (as subprocesses, without a shell).
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from pbem.home.config import ConfigError, load
from pbem.home.logs import setup
from pbem.mail.transports.credentials import CredentialError, Login, login_for, run_command

PY = sys.executable


def test_the_first_output_line_is_the_secret():
    assert run_command([PY, "-c", "print('s3cret-pw'); print('second line')"], "[imap] password_command") == "s3cret-pw"


def test_no_shell_arguments_are_passed_as_they_are(tmp_path):
    marker = tmp_path / "touched"
    out = run_command([PY, "-c", "import sys; print(sys.argv[1])", f"a;b $(touch {marker}) `x` | c"], "k")
    assert out == f"a;b $(touch {marker}) `x` | c"
    assert not marker.exists()


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        ([PY, "-c", "import sys; print('leaked-secret'); sys.exit(4)"], "exit status 4"),
        ([PY, "-c", "print('')"], "printed nothing"),
        (["/nonexistent/pass-helper", "show"], "cannot run '/nonexistent/pass-helper': no such program"),
        ([PY, "-c", "import time; time.sleep(30)"], "did not finish within 1 s"),
    ],
    ids=["exit status", "empty", "missing program", "timeout"],
)
def test_a_failing_command_is_one_line_naming_the_key_never_the_output(argv, fragment):
    with pytest.raises(CredentialError) as caught:
        run_command(argv, "[smtp] token_command", timeout=1)
    text = str(caught.value)
    assert text.startswith("[smtp] token_command: ") and fragment in text
    assert "leaked-secret" not in text and "\n" not in text


def test_stderr_of_the_command_is_dropped(capfd):
    assert run_command([PY, "-c", "import sys; sys.stderr.write('helper-noise\\n'); print('tok')"], "k") == "tok"
    assert "helper-noise" not in capfd.readouterr().err


def test_the_secret_is_redacted_from_pbem_logs_once_read(tmp_path):
    log_file = tmp_path / "pbem.log"
    setup("DEBUG", log_file, secrets=[])
    root = logging.getLogger("pbem")
    try:
        secret = run_command([PY, "-c", "print('Tok-9f8e7d6c')"], "k")
        logging.getLogger("pbem.test").warning("a careless line with %s in it", secret)
    finally:
        for handler in list(root.handlers):
            handler.close()
            root.removeHandler(handler)
    text = log_file.read_text()
    assert "careless line" in text and "Tok-9f8e7d6c" not in text and "[redacted]" in text


def test_login_repr_never_shows_the_secret():
    assert "pw-123" not in repr(Login("games@example.org", "pw-123"))


# -- pbem.toml ------------------------------------------------------------------

BASE = '[moderator]\naddress = "games@example.test"\n[mail]\ntransport = "imap"\n'


def write(tmp_path: Path, imap: str, smtp: str = 'host = "smtp.example.test"') -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(f'{BASE}[imap]\nhost = "imap.example.test"\n{imap}\n[smtp]\n{smtp}\n')
    return path


def test_each_way_to_log_in_is_read(tmp_path):
    path = write(
        tmp_path,
        f'username = "g"\npassword_command = ["{PY}", "-c", "print(\'from-cmd\')"]',
        f'host = "s"\nusername = "g"\nauth = "xoauth2"\ntoken_command = ["{PY}", "-c", "print(\'tok-1\')"]',
    )
    cfg = load(path)
    assert login_for("imap", cfg.imap, path) == Login("g", "from-cmd", "password")
    assert login_for("smtp", cfg.smtp, path) == Login("g", "tok-1", "xoauth2")


@pytest.mark.parametrize(
    ("imap", "fragment"),
    [
        ('password_env = "X"\npassword_command = ["pass", "show", "g"]', "give one of password_command, password_env"),
        ('auth = "xoauth2"', 'auth = "xoauth2" needs token_command'),
        ('auth = "xoauth2"\ntoken_command = ["t"]', 'auth = "xoauth2" needs username'),
        ('token_command = ["t"]', 'token_command is used only with auth = "xoauth2"'),
        (
            'auth = "oauthbearer"\ntoken_command = ["t"]\npassword_env = "X"',
            "logs in with a token: remove password_env",
        ),
        ('password_command = "pass show g"', "must be a command as a list of arguments"),
        ("password_command = []", "must be a command as a list of arguments"),
        ('auth = "cram-md5"', 'must be one of "password", "xoauth2", "oauthbearer"'),
        ('cafile = "no-such-ca.pem"', "no-such-ca.pem: no such file"),
    ],
)
def test_bad_login_settings_are_refused_with_the_key(tmp_path, imap, fragment):
    with pytest.raises(ConfigError) as caught:
        load(write(tmp_path, imap))
    assert fragment in str(caught.value) and "[imap]" in str(caught.value)


def test_cafile_is_relative_to_the_config_file(tmp_path):
    (tmp_path / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    cfg = load(write(tmp_path, 'cafile = "ca.pem"'))
    assert cfg.imap.cafile == (tmp_path / "ca.pem").resolve()
    assert cfg.smtp.cafile is None
