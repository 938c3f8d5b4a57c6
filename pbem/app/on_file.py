"""Reading what the revision rules need (`pbem.app.revisions`): a message's first copy, a player's revision on file.

Also the games a sender holds a seat in, for a code from another game's player (`pbem.app.misuse`).

Shell side of the pure rules: one indexed lookup by Message-ID per message,
and for a player's order mail in a step they have already answered, the
record row of their newest revision and the ids of the ones it replaced.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem.app import views
from pbem.app.revisions import FirstCopy, OnFile
from pbem.mail.inbound.message import Inbound, parse
from pbem.orders.extract import extract
from pbem.record import store
from pbem.record.models import ControlAction, Game, InboundMessage, OrderInput, Seat, Snapshot


@dataclass(frozen=True)
class Seen:
    """What the record holds with `msg`'s Message-ID."""

    same: str | None  # the outcome of a byte-identical copy (a run killed before filing it): not recorded again
    first: FirstCopy | None  # the first copy from the same sender: `msg` is a duplicate of it
    taken: bool  # the Message-ID is in the record at all (outgoing ids are then keyed by the bytes too)


_M = InboundMessage.__table__.c  # type: ignore[attr-defined]
_Q_SEEN = (
    sa.select(_M.id, _M.body_hash, _M.sender, _M.outcome, _M.player)
    .where(_M.message_id == sa.bindparam("mid"))
    .order_by(_M.id)
)  # built once: every message runs it


def seen(s: Session, msg: Inbound) -> Seen:
    rows = s.connection().execute(_Q_SEEN, {"mid": msg.message_id}).all()
    same = next((outcome for _, h, _, outcome, _ in rows if h == msg.body_hash), None)
    sender = msg.sender.lower()
    first = next((FirstCopy(i or 0, out, who_as) for i, _, who, out, who_as in rows if who.lower() == sender), None)
    return Seen(same, first, bool(rows))


def games_of(s: Session, address: str) -> list[str]:
    """The games `address` holds a seat in (a player of another game writing to this one)."""
    q = select(Game.name).join(Seat, col(Seat.game_id) == col(Game.id)).where(Seat.address == address)
    return sorted(set(s.exec(q).all()))


def revision_on_file(s: Session, loaded: store.Loaded, player: str) -> OnFile | None:
    """`player`'s newest revision for the current step (held, or applied and still revisable), if any."""
    if loaded.game.resolve == "deadline":
        return _held(s, loaded, player)
    eng = views.engine(loaded)
    if not any(r.player == player and r.answered for r in eng.requests(loaded.state)):
        return None
    step, gid = views.current_step(eng, loaded.state), loaded.game.id
    # The last state of another step is `before`; input before+1 opened this step; later inputs answered it.
    before = s.exec(select(func.max(Snapshot.seq)).where(Snapshot.game_id == gid, Snapshot.step != step)).one()
    opened = 0 if before is None else before + 1
    ids = s.exec(
        select(OrderInput.inbound_id)
        .where(OrderInput.game_id == gid, OrderInput.player == player, OrderInput.kind == "orders")
        .where(OrderInput.seq > opened, col(OrderInput.inbound_id).is_not(None))
        .order_by(col(OrderInput.seq).desc())
    ).all()
    return _on_file(s, [i for i in ids if i is not None], tuple(views.on_file(eng, loaded.state, player)))


def _held(s: Session, loaded: store.Loaded, player: str) -> OnFile | None:
    """Resolve-at-the-deadline: the player's held messages not yet applied, newest first."""
    gid = loaded.game.id
    done = set(
        s.exec(select(ControlAction.detail).where(ControlAction.game_id == gid, ControlAction.action == "held-done"))
    )
    rows = s.exec(
        select(InboundMessage.id)
        .where(InboundMessage.game_id == gid, InboundMessage.outcome == "held", InboundMessage.player == player)
        .order_by(col(InboundMessage.id).desc())
    ).all()
    ids = [i for i in rows if i is not None and f"applied-at-deadline:{i}" not in done]
    if not ids:
        return None
    newest = s.get(InboundMessage, ids[0])
    assert newest is not None
    m = parse(newest.raw)
    lines = tuple(extract(m.text, m.subject, views.engine(loaded).order_words).orders)
    return _on_file(s, ids, lines)


def _on_file(s: Session, ids: list[int], lines: tuple[str, ...]) -> OnFile | None:
    if not ids:
        return None
    row = s.get(InboundMessage, ids[0])
    if row is None:
        return None
    sent = store.aware(row.sent_at) or store.aware(row.received_at)
    assert sent is not None
    return OnFile(ids[0], sent, row.subject, lines, frozenset(ids[1:]))
