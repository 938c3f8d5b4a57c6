"""Which revision of a player's orders stands (pure): copies and late mail never replace a newer one.

Issue 12, "Intake is exactly-once against the real world":
* A copy of a message already read (same Message-ID and sender; without a
  Message-ID, the same content without trace headers: `pbem.mail.inbound.fingerprint`)
  is recorded as a duplicate of its first copy and changes nothing.  It gets
  no answer, unless it repeats a revision a newer one has replaced within the
  current step: then the player is told which revision is on file (the copy
  may be the player re-sending it on purpose).
* Within a step, a message written (its Date, never later than its arrival)
  before the player's revision on file is refused whole, and the player is told
  which revision is on file: which message (when written, subject) and its lines.

`OnFile` is what the shell loaded for the player (`pbem.app.on_file`): the
newest accepted revision of the current step of a resolve-as-soon-as-possible
game, or the newest held message of a resolve-at-the-deadline game.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from pbem.app.answers import Outgoing
from pbem.app.decision import Decision
from pbem.mail.inbound.fingerprint import sent_at
from pbem.mail.inbound.message import Inbound
from pbem.mail.outbound.outgoing import Mail
from pbem.record.rows import Seat


@dataclass(frozen=True)
class FirstCopy:
    """The recorded message a duplicate repeats."""

    id: int
    outcome: str
    player: str = ""


@dataclass(frozen=True)
class OnFile:
    """A player's newest revision for the current step, and the revisions of that step it replaced."""

    inbound_id: int
    sent: datetime  # when it was written (Date, never later than its arrival)
    subject: str  # as recorded: without a code
    lines: tuple[str, ...]
    older: frozenset[int] = frozenset()  # record ids of the revisions it replaced


def written(msg: Inbound, arrived: datetime) -> datetime:
    return sent_at(msg.date, arrived)


DELAYED = timedelta(minutes=1)  # written this long before it arrived: worth asking whether it is an old step's


def delayed(msg: Inbound, arrived: datetime | None) -> bool:
    """Written well before it arrived (a phone's outbox, a slow server): it may answer an earlier step."""
    return arrived is not None and written(msg, arrived) < arrived - DELAYED


def stale(
    msg: Inbound, arrived: datetime | None, on_file: OnFile | None, earlier: OnFile | None
) -> tuple[OnFile, datetime, str] | None:
    """Why a message of orders cannot be meant for the current step (None if it can): written before the player's
    revision on file for it ("older"), or before the player's orders applied to an earlier step ("earlier");
    with the revision it was written before and when it arrived, as `refuse_stale` takes them."""
    if arrived is None:
        return None
    if on_file is not None and is_stale(msg, arrived, on_file):
        return on_file, arrived, "older"
    if on_file is None and earlier is not None and is_stale(msg, arrived, earlier):
        return earlier, arrived, "earlier"
    return None


def is_stale(msg: Inbound, arrived: datetime | None, on_file: OnFile | None) -> bool:
    """Written before the revision on file (a delayed copy, a message sent earlier from another client)."""
    return on_file is not None and arrived is not None and written(msg, arrived) < on_file.sent


def duplicate(
    msg: Inbound,
    first: FirstCopy,
    seat: Seat | None,
    on_file: OnFile | None,
    out: Outgoing,
    game: str,
    arrived: datetime | None,
) -> Decision:
    """A copy of `first`: recorded, linked, changes nothing; answered only if it repeats a replaced revision."""
    d = Decision(
        "duplicate", f"a copy of message {first.id} ({first.outcome})", player=first.player, duplicate_of=first.id
    )
    if seat is None or on_file is None or first.id not in on_file.older:
        return d
    d.reason += f"; a revision that message {on_file.inbound_id} replaced"
    if out.admit(d, seat.address, player=seat.player, to_name=seat.display_name):
        d.effects.append(_told(out, seat, msg, on_file, game, "copy", _sent(msg, arrived)))
    return d


def refuse_stale(
    d: Decision,
    out: Outgoing,
    seat: Seat,
    msg: Inbound,
    on_file: OnFile,
    arrived: datetime,
    why: str = "older",
    unasked: bool = False,
) -> Decision:
    """Refuse a message written before the revision on file (`why` "older"), or before the player's orders of an
    earlier step ("earlier": a delayed copy of an old turn's reply); tell the player which one stands.  `unasked`:
    the game asks the player nothing now (`pbem.app.views.unasked`), so the answer asks for no orders (players29:
    "earlier" ended "reply to this mail with the orders again" to a player whose turn had passed)."""
    d.outcome = "rejected"
    what = "the revision on file" if why == "older" else "the orders applied to an earlier step"
    d.reason = f"written before {what} (message {on_file.inbound_id}): nothing was applied"
    if out.admit(d, seat.address, player=seat.player, to_name=seat.display_name):
        d.effects.append(_told(out, seat, msg, on_file, d.game, why, _sent(msg, arrived), unasked))
    return d


def _told(
    out: Outgoing, seat: Seat, msg: Inbound, on_file: OnFile, game: str, why: str, sent: str, unasked: bool = False
) -> Mail:
    """The `revision_on_file` mail; a copy ("copy") is answered only while its step is open, so the player is asked
    then (a revision on file is one of a request of theirs the step has not resolved)."""
    context = {
        "unasked": unasked,
        "game_name": game,
        "subject_in": msg.subject,
        "sent": sent,
        "why": why,
        "on_file_subject": on_file.subject,
        "on_file_sent": _utc(on_file.sent),
        "on_file_lines": list(on_file.lines),
    }
    return out.mail(seat.address, "revision_on_file", "ack", context, player=seat.player, to_name=seat.display_name)


def _sent(msg: Inbound, arrived: datetime | None) -> str:
    return _utc(written(msg, arrived)) if arrived is not None else (msg.date or "at an unknown time")


def _utc(when: datetime) -> str:
    return f"{when:%Y-%m-%d %H:%M} UTC"
