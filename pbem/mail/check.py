"""`pbem check`: would a poll work with this pbem.toml?

`checks(cfg)` yields one `Check` per thing a poll needs, in order: the
login secrets (running `password_command` / `token_command` once each), the
IMAP connection, TLS and login, the inbox folder and the two folders pbem
files mail into, MOVE support, then the SMTP connection, TLS and login.
Nothing is sent, created or moved: the SMTP session ends after the login.
A failed check says what failed and which key to change; checks that
depend on it are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pbem.home.config import Config, ConfigError
from pbem.mail.transports import deadline
from pbem.mail.transports.connect import inbox as make_inbox
from pbem.mail.transports.connect import sender as make_sender
from pbem.mail.transports.credentials import Login, login_for
from pbem.mail.transports.imap import ImapInbox
from pbem.mail.transports.seam import TransportError


@dataclass(frozen=True)
class Check:
    ok: bool
    text: str

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'}  {self.text}"


def _hint(text: str, section: str) -> str:
    """What to change, for a transport error that does not already say."""
    if f"[{section}]" in text:  # already names the key to change
        return text
    if " refused (" in text and "login as" in text:
        return f"{text}; check [{section}] username and the password or token it gets"
    if "connect failed (" in text or "cannot connect (" in text:
        return f"{text}; check [{section}] host, port, ssl and starttls"
    return text


def hinted(text: str) -> str:
    """A transport error's line as `pbem poll` ends with it: with what to change, as `pbem check` says it (walk9: a
    wrong password's poll said only "login as 'x' refused (...)"; the key to look at was in `check`'s line alone)."""
    for server, section in (("IMAP ", "imap"), ("SMTP ", "smtp")):
        if text.startswith(server) or f": {server}" in text:  # "sending mail failed: SMTP host:port: ..."
            return _hint(text, section)
    return text


def _how(login: Login, tls: str) -> str:
    mechanism = "password" if login.mechanism == "password" else login.mechanism.upper()
    return f"{tls}, logged in as {login.username or '(no login)'} with {mechanism}"


def _tls(ssl: bool, starttls: bool) -> str:
    if ssl:
        return "TLS (certificate verified)"
    return "STARTTLS (certificate verified)" if starttls else "no TLS"


def _login(cfg: Config, section: str) -> Iterator[Check | Login]:
    mail = getattr(cfg, section)
    try:
        login = login_for(section, mail, cfg.path)
    except ConfigError as exc:
        yield Check(False, str(exc))
        return
    if mail.auth != "password" or mail.password_command:
        key = "token_command" if mail.auth != "password" else "password_command"
        yield Check(True, f"[{section}] {key} printed a secret (not shown)")
    yield login


def imap_checks(cfg: Config) -> Iterator[Check]:
    login = None
    for item in _login(cfg, "imap"):
        if isinstance(item, Check):
            yield item
        else:
            login = item
    if login is None:
        return
    i = cfg.imap
    box = make_inbox(cfg, login, connect=False)
    where = f"IMAP {i.host}:{i.port}"
    try:
        client = box.open()
    except TransportError as exc:
        yield Check(False, _hint(str(exc), "imap"))
        return
    try:
        yield Check(True, f"{where}: {_how(login, _tls(i.ssl, i.starttls))}")
        yield from _folder_checks(box, client)
    finally:
        box.close()


def _folder_checks(box: ImapInbox, client: Any) -> Iterator[Check]:
    i_folder = box.folder
    try:
        names = [name for _flags, _delim, name in client.list_folders()]
        if i_folder not in names and not client.folder_exists(i_folder):
            shown = ", ".join(sorted(names)[:12]) + (", ..." if len(names) > 12 else "")
            yield Check(False, f'IMAP folder "{i_folder}" does not exist; set [imap] folder to one of: {shown}')
        else:
            status = client.folder_status(i_folder, [b"MESSAGES"])
            yield Check(True, f'IMAP folder "{i_folder}" (read): {status[b"MESSAGES"]} messages')
        for key, name in (("processed_folder", box._names["processed"]), ("rejected_folder", box._names["rejected"])):
            real = box._server_name(name)
            state = "exists" if client.folder_exists(real) else "missing: the first poll creates it"
            yield Check(True, f'IMAP folder "{real}" ([imap] {key}): {state}')
        if client.has_capability("MOVE"):
            yield Check(True, "IMAP MOVE: supported (handled mail is moved in one command)")
        else:
            yield Check(
                True,
                "IMAP MOVE: not supported; pbem uses COPY, then deletes and expunges (if the server refuses either, "
                "filed mail stays in the inbox, copied once and never read again, and pbem says so once a day)",
            )
        left = _flagged_deleted(box, client, i_folder) if i_folder in names or client.folder_exists(i_folder) else 0
        if left:
            yield Check(
                True,
                f'IMAP folder "{i_folder}": {left} message(s) flagged \\Deleted and not expunged (pbem reads none of '
                "them; the server or a client keeps them: expunge the folder, or turn auto-expunge on)",
            )
    except Exception as exc:  # a protocol failure mid-check
        yield Check(False, f"IMAP: listing folders failed ({type(exc).__name__}: {exc})")


def _flagged_deleted(box: ImapInbox, client: Any, folder: str) -> int:
    """How many messages of `folder` are flagged \\Deleted (read only: nothing is changed), searched window by
    window: one SEARCH answered with a line of every flagged UID, past `MAX_LINE` for a folder whose server keeps
    what pbem filed (costs21)."""
    # EXAMINE, left selected until the logout: a CLOSE is refused by some servers on a read-only folder, and
    # expunges on others when it is not
    box.selected(client.select_folder(folder, readonly=True))
    return box.flagged()


def smtp_checks(cfg: Config) -> Iterator[Check]:
    login = None
    for item in _login(cfg, "smtp"):
        if isinstance(item, Check):
            yield item
        else:
            login = item
    if login is None:
        return
    m = cfg.smtp
    sender = make_sender(cfg, login)
    try:
        conn = sender.open()
    except TransportError as exc:
        yield Check(False, _hint(str(exc), "smtp"))
        return
    try:
        size = conn.esmtp_features.get("size", "")
        limit = _size_limit(str(size))
        how = _how(login, _tls(m.ssl, m.starttls)) if login.username else f"{_tls(m.ssl, m.starttls)}, no login"
        yield Check(True, f"SMTP {m.host}:{m.port}: {how}{limit}; nothing sent")
    finally:
        sender.close()


CHECK_SECONDS = 60.0  # a server's checks (connect, log in, list folders), at most [mail] poll_deadline


def checks(cfg: Config) -> Iterator[Check]:
    """Every check a poll depends on (see the module docstring)."""
    if cfg.transport == "maildir":
        from pbem.mail.transports.maildir import maildir_problem, moved, ready

        problem = maildir_problem(cfg.maildir_path) or moved(cfg.maildir_path, cfg.sent_before())
        if problem:
            yield Check(False, f"{problem} (in {cfg.path})")
            return
        made = "" if ready(cfg.maildir_path) else "; missing folders are made by the first poll"
        yield Check(True, f"mail: maildir transport ({cfg.maildir_path}){made}; no mail server to check")
        return
    for part in (imap_checks, smtp_checks):  # each server within its own deadline: every wait has one
        seconds = min(CHECK_SECONDS, float(cfg.poll_deadline or CHECK_SECONDS))
        deadline.start(seconds)
        try:
            for check in part(cfg):
                if not check.ok and deadline.expired():
                    check = Check(False, f"{check.text}; the server had not answered within {seconds:.0f} s")
                yield check
        finally:
            deadline.stop()


def _size_limit(size: str) -> str:
    """The server's SIZE (RFC 1870) as a clause, or "" where it states none: ASCII digits, at most 18 (`str.isdigit`
    alone took "²", which `int` refuses, and 5,000 digits, beyond `int`'s limit: `pbem mail check` ended in a
    traceback on such an EHLO answer, costs23)."""
    if not (size.isascii() and size.isdigit() and len(size) <= 18 and int(size)):
        return ""
    return f"; message size limit {int(size) // 1_000_000} MB"
