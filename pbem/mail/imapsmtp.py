"""The IMAP + SMTP transport: mail read from an IMAP folder, sent through an SMTP server."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .imap import ImapInbox
from .smtp import SmtpSender

if TYPE_CHECKING:
    from ..config import Config


def open_transport(cfg: Config) -> tuple[ImapInbox, SmtpSender]:
    i, m = cfg.imap, cfg.smtp
    inbox = ImapInbox(
        i.host,
        i.port,
        i.ssl,
        i.starttls,
        i.username,
        i.secret(cfg.path, "imap"),
        folder=i.folder,
        processed_folder=i.processed_folder,
        rejected_folder=i.rejected_folder,
    )
    return inbox, SmtpSender(m.host, m.port, m.ssl, m.starttls, m.username, m.secret(cfg.path, "smtp"))
