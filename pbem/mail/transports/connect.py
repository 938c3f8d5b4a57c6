"""The configured IMAP inbox and SMTP sender, built from `pbem.toml`.

`transports(cfg)` first obtains both logins (running `password_command` /
`token_command` once each, see `pbem.mail.transports.credentials`), so that a failing
command stops the run before any server is contacted; then it connects the
inbox.  The sender connects on its first message and keeps its login for
the whole run.  Both verify TLS certificates against the system CAs or the
section's `cafile`.
"""

from __future__ import annotations

from pbem.home.config import Config
from pbem.mail.transports.credentials import Login, login_for
from pbem.mail.transports.imap import ImapInbox
from pbem.mail.transports.smtp import SmtpSender
from pbem.mail.transports.tls import context


def logins(cfg: Config) -> tuple[Login, Login]:
    """The IMAP and SMTP logins (each command runs once, here)."""
    return login_for("imap", cfg.imap, cfg.path), login_for("smtp", cfg.smtp, cfg.path)


def inbox(cfg: Config, login: Login, *, connect: bool = True) -> ImapInbox:
    i = cfg.imap
    return ImapInbox(
        i.host,
        i.port,
        i.ssl,
        i.starttls,
        login.username,
        login.secret,
        folder=i.folder,
        processed_folder=i.processed_folder,
        rejected_folder=i.rejected_folder,
        ssl_context=context(i.cafile) if (i.ssl or i.starttls) else None,
        auth=login.mechanism,
        connect=connect,
        max_message=max(cfg.max_stored_player, cfg.max_stored_stranger) + 1,  # more is refused unread anyway
    )


def sender(cfg: Config, login: Login) -> SmtpSender:
    m = cfg.smtp
    return SmtpSender(
        m.host,
        m.port,
        m.ssl,
        m.starttls,
        login.username,
        login.secret,
        ssl_context=context(m.cafile) if (m.ssl or m.starttls) else None,
        auth=login.mechanism,
    )


def transports(cfg: Config) -> tuple[ImapInbox, SmtpSender]:
    """Both logins first, then the inbox (connected) and the sender (connects when it first sends)."""
    imap_login, smtp_login = logins(cfg)
    return inbox(cfg, imap_login), sender(cfg, smtp_login)
