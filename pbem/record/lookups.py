"""The record's answers to the questions intake asks about one inbound message, as plain frozen data.

Who sent it (`is_registered`, `seats_of`, `games_of`, `seat_code`), whether it was read before
(`copies`), and what a player has on file for the current step (`revision_ids`, `held_ids`,
`stored_message`).  The statements on the poll's hot path are SQLAlchemy Core, built once; the use
cases (`pbem.app.poll`, `pbem.app.on_file`, `pbem.app.ahead`) call these and never build a query.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Select, bindparam, func
from sqlmodel import Session, col, select

from pbem.record import kept_state
from pbem.record.db import fetch, reading
from pbem.record.models import ControlAction, Deadline, Game, GameEvent, InboundMessage, OrderInput, Seat, Snapshot
from pbem.record.store import aware


@dataclass(frozen=True)
class Copy:
    """A recorded message with the Message-ID asked about."""

    id: int
    body_hash: str
    sender: str
    outcome: str
    player: str


@dataclass(frozen=True)
class SeatOf:
    """A seat an address holds: the game's name and kind, and the player."""

    game: str
    kind: str
    player: str


@dataclass(frozen=True)
class Stored:
    """A recorded inbound message as the revision rules need it: its (redacted) bytes and times."""

    id: int
    raw: bytes
    subject: str
    sent: datetime  # when it was written (Date, never later than its arrival), else when it arrived


_M = InboundMessage.__table__.c  # type: ignore[attr-defined]
_Q_SEEN = (
    sa.select(_M.id, _M.body_hash, _M.sender, _M.outcome, _M.player)
    .where(_M.message_id == sa.bindparam("mid"))
    .order_by(_M.id)
)  # built once: every message runs it

_Q_SEAT_CODE = (
    select(Seat.id, Seat.code_hash)
    .join(Game, col(Game.id) == col(Seat.game_id))
    .where(Game.name == bindparam("game"), func.lower(Seat.address) == bindparam("address"))
    .order_by(col(Seat.id).desc())
)  # built once: every message with a code runs it


def copies(s: Session, message_id: str) -> list[Copy]:
    """Every recorded message with this Message-ID, oldest first (one indexed look-up)."""
    rows = fetch(s.connection(), _Q_SEEN, {"mid": message_id})
    return [Copy(i or 0, h, who, outcome, player) for i, h, who, outcome, player in rows]


def is_registered(s: Session, address: str) -> bool:
    """Whether `address` is a seat of any game (one indexed look-up): only then is a code ever checked."""
    return bool(address) and bool(fetch(s.connection(), _any_seat(), {"address": address}))


@cache
def _any_seat() -> Select[Any]:
    """Built once: a stranger's mail should cost the look-up, not the building of its statement."""
    return select(Seat.id).where(Seat.address == bindparam("address")).limit(1)


def seat_code(url: str, game: str, address: str) -> tuple[int, str] | None:
    """(seat id, code hash) of `address`'s newest seat in `game`, read without the write lock (a cache warm)."""
    with reading(url) as conn:  # run as `fetch` runs the poll's statements: every reply from a seat asks it
        rows = fetch(conn, _Q_SEAT_CODE, {"game": game.lower(), "address": address.lower()})
    row = rows[0] if rows else None
    return (int(row[0]), str(row[1])) if row is not None and row[1] else None


def seats_of(s: Session, address: str) -> list[SeatOf]:
    """The seats `address` holds in any game (a message naming no game)."""
    if not address:
        return []
    q = (
        select(Game.name, Game.kind, Seat.player)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .where(Seat.address == address)
        .order_by(col(Seat.id))
    )
    last: dict[str, SeatOf] = {}
    for name, kind, player in s.exec(q).all():
        last[name] = SeatOf(name, kind, player)  # the newest seat row of each game
    return list(last.values())


def games_of(s: Session, address: str) -> list[str]:
    """The games `address` holds a seat in (a player of another game writing to this one)."""
    q = select(Game.name).join(Seat, col(Seat.game_id) == col(Game.id)).where(Seat.address == address)
    return sorted(set(s.exec(q).all()))


def revision_ids(s: Session, game_id: int, player: str, step: str) -> list[int]:
    """The record ids of `player`'s order messages applied in the current `step`, newest first."""
    # The last state of another step is `before`; input before+1 opened this step; later inputs answered it.
    before = s.exec(select(func.max(Snapshot.seq)).where(Snapshot.game_id == game_id, Snapshot.step != step)).one()
    opened = 0 if before is None else before + 1
    ids = s.exec(
        select(OrderInput.inbound_id)
        .where(OrderInput.game_id == game_id, OrderInput.player == player, OrderInput.kind == "orders")
        .where(OrderInput.seq > opened, col(OrderInput.inbound_id).is_not(None))
        .order_by(col(OrderInput.seq).desc())
    ).all()
    return [i for i in ids if i is not None]


_O = OrderInput.__table__.c  # type: ignore[attr-defined]
_Q_NEWEST_ORDERS = (
    sa.select(_M.id, _M.subject, _M.sent_at, _M.received_at)
    .join_from(OrderInput.__table__, InboundMessage.__table__, _O.inbound_id == _M.id)  # type: ignore[attr-defined]
    .where(_O.game_id == sa.bindparam("gid"), _O.player == sa.bindparam("player"), _O.kind == "orders")
    .order_by(_O.seq.desc())
    .limit(1)
)  # built once: a delayed mail of orders runs it


def newest_orders(s: Session, game_id: int, player: str) -> tuple[int, str, datetime] | None:
    """`player`'s newest order message applied in any step: its record id, subject and when it was written
    (None: none yet).  One precompiled statement reading three columns, never the message's bytes."""
    rows = fetch(s.connection(), _Q_NEWEST_ORDERS, {"gid": game_id, "player": player})
    if not rows or rows[0][0] is None:
        return None
    mid, subject, sent_at, received_at = rows[0]
    sent = aware(sent_at) or aware(received_at)
    return None if sent is None else (mid, subject, sent)


@dataclass(frozen=True)
class Closed:
    """The step open when a mail was sent, closed since: when, by which kind of input ("deadline" or "orders"), and
    the default lines the deadline applied for the player (none: not theirs, or orders of theirs on file)."""

    at: datetime
    by: str
    applied: tuple[str, ...]
    opened: int = 0  # the seq of the snapshot of the step open when the mail was sent (`snapshot_state`)
    due: datetime | None = None  # closed by its deadline: the due time that passed, as the players were told it


def closed_after(s: Session, game_id: int, player: str, when: datetime) -> Closed | None:
    """The step that was open at `when` (the newest snapshot written by then), if an input closed it since: the
    first later snapshot of another step, its input's kind and the default lines it applied for `player`.  Three
    indexed reads, run only for a reply whose lines answer nothing asked now, or one to mail older than the current
    deadline that would be applied (`pbem.app.closing`)."""
    opened = s.exec(
        select(Snapshot.seq, Snapshot.step)
        .where(Snapshot.game_id == game_id, Snapshot.created_at <= when)
        .order_by(col(Snapshot.seq).desc())
        .limit(1)
    ).first()
    if opened is None:
        return None
    closing = s.exec(
        select(Snapshot.seq, Snapshot.created_at)
        .where(Snapshot.game_id == game_id, Snapshot.seq > opened[0], Snapshot.step != opened[1])
        .order_by(col(Snapshot.seq))
        .limit(1)
    ).first()
    if closing is None:
        return None
    by = s.exec(select(OrderInput.kind).where(OrderInput.game_id == game_id, OrderInput.seq == closing[0])).first()
    applied: list[str] = []
    if by == "deadline":
        rows = s.exec(
            select(GameEvent.data_json).where(
                GameEvent.game_id == game_id, GameEvent.input_seq == closing[0], GameEvent.kind == "default-orders"
            )
        ).all()
        for row in rows:
            data = json.loads(row)
            if data.get("player") == player:
                applied += [str(x) for x in data.get("lines", [])]
    at = aware(closing[1])
    due = _due(s, game_id, str(opened[1]), closing[1]) if by == "deadline" else None
    return None if at is None else Closed(at, str(by or "orders"), tuple(applied), int(opened[0]), due)


def _due(s: Session, game_id: int, step: str, closed_at: datetime) -> datetime | None:
    """The due time of `step` in force when an input closed it at `closed_at` (its newest deadline row by then): the
    time the report, or the notice of an extension, told the players; the poll may apply it minutes later (walk6)."""
    due = s.exec(
        select(Deadline.due_at)
        .where(Deadline.game_id == game_id, Deadline.step == step, Deadline.created_at <= closed_at)
        .order_by(col(Deadline.created_at).desc(), col(Deadline.id).desc())
        .limit(1)
    ).first()
    return aware(due) if due is not None else None


_SN = Snapshot.__table__.c  # type: ignore[attr-defined]
_Q_STATE_AT = (
    sa.select(_SN.state_json)
    .where(_SN.game_id == sa.bindparam("gid"), _SN.created_at <= sa.bindparam("when"))
    .order_by(_SN.seq.desc())
    .limit(1)
)  # built once: two thirds of a sequential game's replies run it (built per call, it was most of their deciding)


def state_at(s: Session, game_id: int, when: datetime) -> dict[str, Any] | None:
    """The engine state of the newest snapshot written by `when` (one read, from the newest back): what a player
    was asked when a mail was sent, for a reply the intake would apply to a step opened since (`pbem.app.on_file`)."""
    rows = fetch(s.connection(), _Q_STATE_AT, {"gid": game_id, "when": when})
    return kept_state.loads(rows[0][0]) if rows else None


def snapshot_state(s: Session, game_id: int, seq: int) -> dict[str, Any] | None:
    """The engine state after input `seq` (one read by the primary key): what a player was asked when a mail was sent,
    for a reply whose step closed since (`pbem.app.closing.changed`)."""
    row = s.exec(select(Snapshot.state_json).where(Snapshot.game_id == game_id, Snapshot.seq == seq)).first()
    return kept_state.loads(row)


def held_ids(s: Session, game_id: int, player: str) -> list[int]:
    """Resolve-at-the-deadline: the record ids of `player`'s held messages not yet applied, newest first."""
    done = set(
        s.exec(
            select(ControlAction.detail).where(ControlAction.game_id == game_id, ControlAction.action == "held-done")
        )
    )
    rows = s.exec(
        select(InboundMessage.id)
        .where(InboundMessage.game_id == game_id, InboundMessage.outcome == "held", InboundMessage.player == player)
        .order_by(col(InboundMessage.id).desc())
    ).all()
    return [i for i in rows if i is not None and f"applied-at-deadline:{i}" not in done]


def stored_message(s: Session, inbound_id: int) -> Stored | None:
    row = s.get(InboundMessage, inbound_id)
    if row is None:
        return None
    sent = aware(row.sent_at) or aware(row.received_at)
    assert sent is not None
    return Stored(inbound_id, row.raw, row.subject, sent)


@dataclass(frozen=True)
class HeldMessage:
    """A message held for a resolve-at-the-deadline game: its record id, player and (redacted) bytes."""

    id: int
    player: str
    raw: bytes
    message_id: str


def held_messages(s: Session, game_id: int) -> list[HeldMessage]:
    """Messages held for the deadline and not yet applied, oldest first.

    At a deadline every held message is applied or refused in arrival order, each with a `held-done`
    row; so those not yet applied are the ones after the newest `held-done` (two index probes).
    """
    done = s.exec(
        select(ControlAction.detail)
        .where(ControlAction.game_id == game_id, ControlAction.action == "held-done")
        .order_by(col(ControlAction.id).desc())
        .limit(1)
    ).first()
    after = int(done.rsplit(":", 1)[1]) if done else 0
    rows = s.exec(
        select(InboundMessage.id, InboundMessage.player, InboundMessage.raw, InboundMessage.message_id)
        .where(InboundMessage.game_id == game_id, InboundMessage.outcome == "held", col(InboundMessage.id) > after)
        .order_by(col(InboundMessage.id))
    ).all()
    return [HeldMessage(rid or 0, player, raw, mid) for rid, player, raw, mid in rows]


def open_code_hashes(s: Session) -> list[str]:
    """The stored code hash of every current seat (the newest row of each position) of every game not over: the
    codes that still let someone act, which the moderator's message to a game's players may not hold
    (`pbem.app.say.codes_of`), whichever game they are of."""
    from pbem.record.store import open_game_ids

    ids = open_game_ids(s)
    if not ids:
        return []
    q = select(Seat.game_id, Seat.position, Seat.code_hash).where(col(Seat.game_id).in_(ids)).order_by(col(Seat.id))
    newest: dict[tuple[int, int], str] = {}
    for gid, position, code_hash in s.exec(q).all():
        newest[(gid, position)] = code_hash
    return [h for h in newest.values() if h]


EARLIER = 3  # the player's newest accepted mails of a game read for the lines they sign every mail with

_Q_EARLIER = (
    sa.select(_M.raw)
    .where(_M.game_id == sa.bindparam("gid"), _M.player == sa.bindparam("player"), _M.outcome == "accepted")
    .order_by(_M.received_at.desc())
    .limit(EARLIER)
)  # built once: read only for a mail refused with orders (`pbem.app.footprints`); `ix_inbound_game_player_received`


def earlier_mails(s: Session, game_id: int, player: str) -> list[bytes]:
    """The kept (redacted) bytes of `player`'s `EARLIER` newest accepted mails of the game, newest first.  One
    statement on an index: its cost does not grow with the game's history."""
    return [bytes(raw) for (raw,) in fetch(s.connection(), _Q_EARLIER, {"gid": game_id, "player": player})]
