"""An in-memory transport: an inbox and a sender that hold their mail in lists (tests, embedding).

`MemoryInbox` hands out what was `put` into it, oldest first, and keeps what `settle` filed where
(processed or rejected); `MemorySender` keeps every message it was asked to send, with its envelope,
and can refuse one for tests of the retry path (`refuse`).  Both keep the seam's contract
(`pbem.mail.transports.seam`): nothing is settled before the poll committed, a refused send raises.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from pbem.mail.transports.seam import Incoming, PermanentSendError, TransientSendError


@dataclass
class MemoryInbox:
    waiting: dict[str, bytes] = field(default_factory=dict)  # key -> raw, in arrival order
    processed: list[bytes] = field(default_factory=list)
    rejected: list[bytes] = field(default_factory=list)
    _next: int = 0

    def put(self, raw: bytes) -> str:
        """Deliver `raw` to the inbox; returns its key."""
        self._next += 1
        key = f"m{self._next:06d}"
        self.waiting[key] = raw
        return key

    def fetch(self) -> Iterator[Incoming]:
        for key in list(self.waiting):
            if key in self.waiting:
                yield Incoming(key, self.waiting[key])

    def settle(self, key: str, accepted: bool) -> None:
        raw = self.waiting.pop(key)
        (self.processed if accepted else self.rejected).append(raw)

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class Sent:
    raw: bytes
    sender: str
    recipients: tuple[str, ...]


@dataclass
class MemorySender:
    sent: list[Sent] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)  # recipient -> "transient" or "permanent"
    _lock: threading.Lock = field(default_factory=threading.Lock)  # the poll sends from its sender thread

    def refuse(self, recipient: str, how: str = "transient") -> None:
        self.refused[recipient] = how

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        for rcpt in recipients:
            how = self.refused.get(rcpt)
            if how == "permanent":
                raise PermanentSendError(f"550 {rcpt} refused")
            if how is not None:
                raise TransientSendError(f"451 {rcpt} try again later")
        with self._lock:
            self.sent.append(Sent(raw, sender, tuple(recipients)))

    def close(self) -> None:
        pass
