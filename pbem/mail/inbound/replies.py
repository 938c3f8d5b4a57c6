"""Replies that authenticate themselves (pure): a reply names a mail pbem sent to that seat.

pbem's outgoing Message-IDs are keyed hashes (`pbem.mail.outbound.compose.stable_message_id`):
nobody can guess one without the home's secret, so a message whose ``In-Reply-To`` or ``References``
names a mail pbem sent to a seat proves its writer received that mail, as Discourse, GitHub and
GitLab take replies by email.  Such a reply from the seat's registered address needs no CODE line and
costs no key derivation (docs/architecture.md, "The email contract").  What does not count:

* a reference to a mail sent to another seat, another game, or another address (the message falls
  back to the code check, as a new mail does);
* a mail sent to the seat before its current row was made (a new code or a replacement makes the
  replies to earlier mail need the code again: whoever held the old code may hold the old mail too).

The shell looks the referenced ids up in the outbox (`pbem.record.answered.sent_mails`); this module
only chooses among what it found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

MAX_REFERENCES = 40  # ids of one message looked up at most (the newest: References lists the oldest first)
_ID = re.compile(r"^<[^<>\s@]{1,200}@[^<>\s@]{1,200}>$")


@dataclass(frozen=True)
class SentMail:
    """One mail pbem sent, as the outbox keeps it."""

    message_id: str
    game_id: int | None
    player: str
    to_addr: str
    created_at: datetime | None
    raw: bytes = b""


def looked_up(references: tuple[str, ...]) -> list[str]:
    """The Message-IDs of a message worth looking up: well formed, newest first, at most MAX_REFERENCES."""
    out: list[str] = []
    for ref in reversed(references):
        if _ID.match(ref) and ref not in out:
            out.append(ref)
        if len(out) >= MAX_REFERENCES:
            break
    return out


def answered(
    references: tuple[str, ...],
    sent: dict[str, SentMail],
    *,
    game_id: int,
    player: str,
    address: str,
    since: datetime | None = None,
) -> SentMail | None:
    """The newest mail among `references` that pbem sent to this seat (`player` at `address` in game
    `game_id`, no earlier than `since`), or None: then the message needs the player's code."""
    for ref in looked_up(references):
        mail = sent.get(ref)
        if mail is None or mail.game_id != game_id:
            continue
        if mail.player != player or mail.to_addr.lower() != address.lower():
            continue
        if since is not None and mail.created_at is not None and _naive(mail.created_at) < _naive(since):
            continue
        return mail
    return None


def _naive(dt: datetime) -> datetime:
    return dt.replace(tzinfo=None)
