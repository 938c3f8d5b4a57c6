"""How pbem logs in to IMAP and SMTP: passwords and OAuth2 tokens, from where the moderator keeps them.

A `Login` is a user name, a secret and a mechanism ("password", "xoauth2",
"oauthbearer").  `login_for` builds it from `[imap]` or `[smtp]`: the output
of `password_command` or `token_command`, else `password_env`, else
`password`.  A command runs without a shell, with stdin closed and a
timeout (past it, the command and all it started are killed), in the folder
of pbem.toml; its first output line is the secret, its stderr is dropped,
and nothing it prints is ever logged: the secret is added to the log
redaction at once.  A failing command raises `CredentialError`, one line naming the
key and the exit status, never the output.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from pbem.home.config import ConfigError, MailConfig
from pbem.home.logs import login_forms

COMMAND_TIMEOUT = 30.0
#: Bytes of a command's output read: a secret or an OAuth token is a line of a few KB.  The whole output was kept
#: until the command ended (`yes` as the command: gigabytes until the timeout), found by
#: tests/reliability/test_costs4_commands.py.
MAX_OUTPUT = 64 * 1024


class _TooMuch(Exception):
    """The command printed more than MAX_OUTPUT bytes."""


class CredentialError(ConfigError):
    """A password or token command failed; the text names the key and why, never the output."""


@dataclass(frozen=True)
class Login:
    username: str
    secret: str = field(repr=False)
    mechanism: str = "password"  # or "xoauth2", "oauthbearer"


def run_command(argv: list[str], key: str, timeout: float = COMMAND_TIMEOUT, cwd: Path | None = None) -> str:
    """The first line ``argv`` prints (no shell, no stdin, stderr dropped), or CredentialError naming ``key``.

    ``cwd`` is the folder of pbem.toml, so relative paths in the command mean the same from cron.
    """
    program = argv[0]  # as written in pbem.toml: the whole path, so a wrong folder shows
    try:
        returncode, stdout = _run(argv, timeout, cwd)
    except FileNotFoundError:
        raise CredentialError(f"{key}: cannot run {program!r}: no such program") from None
    except PermissionError:
        raise CredentialError(f"{key}: cannot run {program!r}: permission denied") from None
    except subprocess.TimeoutExpired:
        raise CredentialError(f"{key}: {program!r} did not finish within {timeout:.0f} s") from None
    except _TooMuch:
        raise CredentialError(
            f"{key}: {program!r} printed more than {MAX_OUTPUT:,} bytes (it must print the secret on its first line)"
        ) from None
    except OSError as exc:
        raise CredentialError(f"{key}: cannot run {program!r}: {exc.strerror or type(exc).__name__}") from None
    if returncode != 0:
        raise CredentialError(f"{key}: {program!r} failed with exit status {returncode}; run it by hand to see why")
    lines = stdout.decode("utf-8", "replace").splitlines()
    secret = lines[0] if lines else ""  # exactly the line: a password may start or end with a space
    if not secret.strip():
        raise CredentialError(f"{key}: {program!r} printed nothing (it must print the secret on its first line)")
    redact_in_logs(secret)
    return secret


def _run(argv: list[str], timeout: float, cwd: Path | None) -> tuple[int, bytes]:
    """(exit status, output) of the command, which runs in a process group of its own: past `timeout` the whole
    group is killed (TimeoutExpired).  `subprocess.run` killed only the command, and what it had started (a shell's
    `sleep`, a `gpg` waiting for a passphrase) lived on after the run, one more at every cron run."""
    with subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        start_new_session=True,
    ) as proc:
        until = time.monotonic() + timeout
        try:
            out = _output(proc, until)
            proc.wait(timeout=max(0.0, until - time.monotonic()))  # its output ended: it ends too, or the timeout
        except (subprocess.TimeoutExpired, _TooMuch):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        return proc.returncode, out


def _output(proc: subprocess.Popen[bytes], until: float) -> bytes:
    """What `proc` prints until it closes its output: at most MAX_OUTPUT bytes (_TooMuch past them), by `until`
    (a monotonic time; TimeoutExpired past it)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    got = bytearray()
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            left = until - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(proc.args, 0)
            if not sel.select(left):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return bytes(got)
            got += chunk
            if len(got) > MAX_OUTPUT:
                raise _TooMuch


def login_for(section: str, mail: MailConfig, file: Path) -> Login:
    """The login configured in ``[section]`` (runs its command: call once per run and connection)."""
    if mail.auth != "password":
        token = run_command(mail.token_command, f"[{section}] token_command", cwd=file.parent)
        return Login(mail.username, token, mail.auth)
    if mail.password_command:
        password = run_command(mail.password_command, f"[{section}] password_command", cwd=file.parent)
        for form in login_forms(mail.username, password):  # as a SASL PLAIN login sends it (`pbem.home.logs`)
            redact_in_logs(form)
        return Login(mail.username, password)
    return Login(mail.username, mail.secret(file, section))


def redact_in_logs(secret: str) -> None:
    """Add ``secret`` to the redaction of the pbem log handlers (see `pbem.home.logs`)."""
    for handler in logging.getLogger("pbem").handlers:
        for flt in handler.filters:
            known = getattr(flt, "secrets", None)
            if isinstance(known, list) and secret not in known:
                known.append(secret)
