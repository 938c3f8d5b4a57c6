"""The composition root: one `Home` built from a home's configuration holds what the use cases use.

The unit of work (`units()`: one transaction on the record, `pbem.record.db.Unit`), the inbox and the
sender (any transport behind `pbem.mail.transports.seam`; the in-memory one in tests), the clock, the
mail composer (`compose`: a finished mail to its outbox row) and the frozen `Policy` the deciding
functions read.  `Home.of(cfg)` wires the configured transport; `Home.of(cfg, inbox=..., sender=...)`
any other.  The poll takes a Home (`pbem.app.poll.poll`) and hands each stage only what it
reads: the Policy to the pure deciding functions, a unit of work to the load and write steps.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pbem.home.config import Config
from pbem.home.policy import Policy

if TYPE_CHECKING:
    from pbem.mail.outbound.outgoing import Mail, Receipt
    from pbem.mail.transports.seam import Inbox, Sender
    from pbem.record.db import Unit

Clock = Callable[[], datetime]


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Composer:
    """Finished mails to outbox rows: the template rendered and the MIME built, from this home's sender
    address and name (`pbem.mail.outbound.outgoing.outbox_row`)."""

    cfg: Config = field(repr=False)

    def row(
        self, mail: Mail, when: datetime, secret: bytes, game_id: int | None = None, receipt: Receipt | None = None
    ) -> dict[str, Any]:
        from pbem.mail.outbound.outgoing import outbox_row

        return outbox_row(self.cfg, mail, when, secret, game_id, receipt)


@dataclass(frozen=True)
class Home:
    cfg: Config = field(repr=False)
    policy: Policy
    inbox: Inbox | None
    sender: Sender | None
    clock: Clock
    composer: Composer

    @classmethod
    def of(
        cls,
        cfg: Config,
        *,
        inbox: Inbox | None = None,
        sender: Sender | None = None,
        clock: Clock = _now,
        connect: bool = False,
    ) -> Home:
        """The home of `cfg`; `connect`: open the configured transport for what is not given."""
        if connect and (inbox is None or sender is None):
            from pbem.mail.transports.seam import open_transport

            opened_inbox, opened_sender = open_transport(cfg)
            inbox, sender = inbox or opened_inbox, sender or opened_sender
        return cls(cfg, Policy.of(cfg), inbox, sender, clock, Composer(cfg))

    def connected(self, inbox: Inbox, sender: Sender) -> Home:
        """This home with the transport opened for it (`pbem.app.cron` opens it only once there is work)."""
        return replace(self, inbox=inbox, sender=sender)

    def units(self) -> AbstractContextManager[Unit]:
        """A unit of work: one transaction on the record (the caller commits)."""
        from pbem.record.db import session

        return session(self.cfg.database_url)

    def close(self) -> None:
        for part in (self.inbox, self.sender):
            if part is not None:
                part.close()
