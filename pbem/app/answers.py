"""The mail one inbound message causes: keys and the hourly reply cap.

Every mail derived from one message is keyed (message, recipient, purpose,
index), so any number of press relays, answers and reports to one person from
one message get distinct, stable Message-IDs.
"""

from __future__ import annotations

from typing import Any

from ..mail.message import Inbound
from ..mail.outgoing import Mail

CAPPED = ("ack", "notice")  # the purposes the hourly reply cap counts


class Outgoing:
    """Keys and the reply cap for one message's mail.  `replies`: answers already queued per address this hour."""

    def __init__(self, msg: Inbound, replies: dict[str, int], cap: int, game_id: int | None) -> None:
        self.msg, self.cap, self.game_id = msg, cap, game_id
        self.counts = dict(replies)
        self.used: dict[tuple[str, str], int] = {}

    def key(self, to: str, purpose: str) -> tuple[object, ...]:
        n = self.used.get((to, purpose), 0)
        self.used[(to, purpose)] = n + 1
        return (self.msg.ident, to, purpose, n)

    def allowed(self, to: str) -> bool:
        return self.counts.get(to, 0) < self.cap

    def mail(
        self,
        to: str,
        kind: str,
        purpose: str,
        context: dict[str, Any],
        *,
        player: str = "",
        to_name: str = "",
        reply: bool = True,
    ) -> Mail:
        """A mail derived from this message; `reply` threads it into the message (an answer to its sender)."""
        if purpose in CAPPED:
            self.counts[to] = self.counts.get(to, 0) + 1
        return Mail(
            to=to,
            kind=kind,
            context=context,
            purpose=purpose,
            key=self.key(to, purpose),
            to_name=to_name,
            player=player,
            in_reply_to=self.msg.message_id if reply else None,
            references=self.msg.references if reply else (),
            game_id=self.game_id,
        )
