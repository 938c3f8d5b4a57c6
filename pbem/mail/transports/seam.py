"""The transport seam between the moderator and the mail system.

The moderator only sees these two small interfaces.  The embedded default is
a pair of local Maildirs (`pbem.mail.transports.maildir`); the real thing is IMAP in,
SMTP out (`pbem.mail.transports.imap`, `pbem.mail.transports.smtp`).  Every test and the demo run
offline on the Maildir transport.

Exactly-once intake: the moderator records a message (and everything it
causes) in one database transaction, commits, and only then calls
`Inbox.settle`.  A crash between the two leaves the message in the inbox; it
is fetched again next run, recognised by Message-ID + body hash, and settled
without being applied twice.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pbem.mail.transports.registry import TRANSPORTS

if TYPE_CHECKING:
    from pbem.home.config import Config


MAX_REASON = 200


def one_line(text: object, secret: str | None = None) -> str:
    """A server's answer or an exception as one short line, with the password (if any) masked."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    line = " ".join(str(text).split())
    if secret:
        from pbem.home.logs import mask

        line = mask(line, [secret], "***")
    return line if len(line) <= MAX_REASON else line[: MAX_REASON - 3] + "..."


class TransportError(Exception):
    """The mail server could not be reached or refused us; the run stops, nothing is lost."""


class TransientSendError(TransportError):
    """Sending failed in a way worth retrying later (connection, 4xx)."""


class ServerUnreachable(TransientSendError):
    """The server could not be reached or refused the session (connect, TLS, login): no message was tried,
    so no message's attempts count (issue 26)."""


class MessageDeferred(TransientSendError):
    """A 4xx about this message or its recipient: retry it later; the connection and the other mail go on."""


class PermanentSendError(TransportError):
    """The server refused this message for good (5xx on the recipient or data)."""


@dataclass(frozen=True)
class Incoming:
    """One raw message in the inbox; `key` identifies it to `settle`."""

    key: str
    raw: bytes


class Inbox(Protocol):
    def fetch(self) -> Iterator[Incoming]:
        """New messages, oldest first, streamed (never the whole inbox in memory)."""

    def settle(self, key: str, accepted: bool) -> None:
        """Move a recorded message out of the inbox (processed or rejected)."""

    def close(self) -> None: ...


class Sender(Protocol):
    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        """Deliver one message; raises TransientSendError or PermanentSendError."""

    def close(self) -> None: ...


def open_transport(cfg: Config) -> tuple[Inbox, Sender]:
    """The configured inbox and sender."""
    module = importlib.import_module(TRANSPORTS[cfg.transport])
    pair: tuple[Inbox, Sender] = module.open_transport(cfg)
    return pair
