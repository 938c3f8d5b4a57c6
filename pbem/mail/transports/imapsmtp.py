"""The IMAP + SMTP transport: mail read from an IMAP folder, sent through an SMTP server.

The logins (password, `password_command`, or an OAuth2 token from `token_command`)
and the TLS contexts (`cafile`) are made in `pbem.mail.transports.connect`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.mail.transports.connect import transports

if TYPE_CHECKING:
    from pbem.home.config import Config
    from pbem.mail.transports.imap import ImapInbox
    from pbem.mail.transports.smtp import SmtpSender


def open_transport(cfg: Config) -> tuple[ImapInbox, SmtpSender]:
    """Both logins first (a failing helper command stops the run before any server is contacted)."""
    return transports(cfg)
