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
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

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


@dataclass
class Arrivals:
    """When the server says the messages a fetch saw arrived (IMAP INTERNALDATE, read with their sizes: no round trip
    of its own), kept as two times, whatever the count (`pbem.app.arrivals` reads them).

    `since`: the UIDNEXT an earlier run saw at `reference` (its start, by this machine's clock), in this UIDVALIDITY;
    a message at or above it was not in the folder then.  `newest_new`: the latest arrival of those; `newest`: the
    latest of all."""

    since: int | None = None
    reference: datetime | None = None
    newest_new: datetime | None = None
    newest: datetime | None = None

    def saw(self, uid: int, when: object) -> None:
        if not isinstance(when, datetime):
            return  # a server that sent no INTERNALDATE (or one imapclient could not read): no evidence
        try:
            when = when.astimezone(UTC)  # (a date without a zone: taken as this machine's local time)
        except (OverflowError, ValueError, OSError):  # "31-Dec-9999 23:30 -0100": past year 9999 in UTC (costs13)
            return  # no evidence, and no crash: the fetch of every message in the inbox failed on it
        self.newest = max(self.newest or when, when)
        if self.since is not None and uid >= self.since:
            self.newest_new = max(self.newest_new or when, when)


class Inbox(Protocol):
    def fetch(self) -> Iterator[Incoming]:
        """New messages, oldest first, streamed (never the whole inbox in memory)."""

    def settle(self, key: str, accepted: bool) -> None:
        """Move a recorded message out of the inbox (processed or rejected)."""

    def close(self) -> None: ...


class Ledger(Protocol):
    """Where an inbox keeps between runs what it filed but could not take out of its folder: one line of text
    in the record (`pbem.app.filing`), written only when it changes."""

    def recall(self) -> str: ...

    def keep(self, value: str) -> None: ...


@dataclass(frozen=True)
class Left:
    """Messages an inbox filed (copied to their folder) that the server keeps in the inbox: `unflagged`, the
    server refused to flag them ``\\Deleted`` (and has no MOVE); `flagged`, flagged but not expunged.  Each
    reason is the server's last refusal ("": it said OK and kept them)."""

    unflagged: int = 0
    flagged: int = 0
    store_refusal: str = ""
    expunge_refusal: str = ""
    #: messages the server answered a FETCH of with another message (costs25): not read, left for the next run
    misnumbered: int = 0

    def __bool__(self) -> bool:
        return bool(self.unflagged or self.flagged or self.misnumbered)


@runtime_checkable
class KeepsFiling(Protocol):
    """An inbox that files by copying (IMAP without MOVE) and may be kept from taking a copied message out of the
    folder: it remembers such messages in a `Ledger`, never fetches or copies them again, and says what is left."""

    def remember_in(self, ledger: Ledger, tidy: bool = True) -> None:
        """Keep what is left in `ledger`; `tidy`: once a run, try again to take it out (False: a dry run)."""

    def tidy(self) -> None:
        """Once a run, after the last message was filed: try again to take out what is left (bounded)."""

    def left(self) -> Left: ...


class Sender(Protocol):
    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        """Deliver one message; raises TransientSendError or PermanentSendError."""

    def close(self) -> None: ...


def open_transport(cfg: Config) -> tuple[Inbox, Sender]:
    """The configured inbox and sender."""
    module = importlib.import_module(TRANSPORTS[cfg.transport])
    pair: tuple[Inbox, Sender] = module.open_transport(cfg)
    return pair
