"""Reading what the revision rules need (`pbem.app.revisions`): a message's first copy, a player's revision on file.

Also the games a sender holds a seat in, for a code from another game's player (`pbem.app.misuse`).

Shell side of the pure rules: one indexed lookup by Message-ID per message,
and for a player's order mail in a step they have already answered, the
record row of their newest revision and the ids of the ones it replaced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.app import reading, views
from pbem.app.decision import Decision
from pbem.app.facts import Facts
from pbem.app.revisions import FirstCopy, OnFile
from pbem.engine.base import Engine
from pbem.mail.inbound.message import Inbound
from pbem.record import lookups, store
from pbem.record.db import Unit
from pbem.record.rows import Seat


@dataclass(frozen=True)
class Seen:
    """What the record holds with `msg`'s Message-ID."""

    same: str | None  # the outcome of a byte-identical copy (a run killed before filing it): not recorded again
    first: FirstCopy | None  # the first copy from the same sender: `msg` is a duplicate of it
    taken: bool  # the Message-ID is in the record at all (outgoing ids are then keyed by the bytes too)


def seen(s: Unit, msg: Inbound) -> Seen:
    rows = lookups.copies(s, msg.message_id)
    same = next((c.outcome for c in rows if c.body_hash == msg.body_hash), None)
    sender = msg.sender.lower()
    first = next((FirstCopy(c.id, c.outcome, c.player) for c in rows if c.sender.lower() == sender), None)
    return Seen(same, first, bool(rows))


def games_of(s: Unit, address: str) -> list[str]:
    """The games `address` holds a seat in (a player of another game writing to this one)."""
    return lookups.games_of(s, address)


def revision_on_file(s: Unit, loaded: store.Loaded, player: str) -> OnFile | None:
    """`player`'s newest revision for the current step (held, or applied and still revisable), if any."""
    assert loaded.game.id is not None
    if loaded.game.resolve == "deadline":
        return _held(s, loaded, player)
    eng = views.engine(loaded)
    if not any(r.player == player and r.answered for r in eng.requests(loaded.state)):
        return None
    ids = lookups.revision_ids(s, loaded.game.id, player, views.current_step(eng, loaded.state))
    return _on_file(s, ids, tuple(views.on_file(eng, loaded.state, player)))


def earlier_orders(s: Unit, loaded: store.Loaded, player: str) -> OnFile | None:
    """`player`'s newest applied order message, of an earlier step (when the current one has none on file): a
    message written before it cannot be meant for any later step (a phone's copy of an old turn's reply)."""
    assert loaded.game.id is not None
    newest = lookups.newest_orders(s, loaded.game.id, player)
    return None if newest is None else OnFile(newest[0], newest[2], newest[1], ())


def _held(s: Unit, loaded: store.Loaded, player: str) -> OnFile | None:
    """Resolve-at-the-deadline: the player's held messages not yet applied, newest first."""
    assert loaded.game.id is not None
    ids = lookups.held_ids(s, loaded.game.id, player)
    newest = lookups.stored_message(s, ids[0]) if ids else None
    if newest is None:
        return None
    lines = reading.stored_orders(s, newest.raw, loaded.game.id, views.engine(loaded).order_words)
    return OnFile(newest.id, newest.sent, newest.subject, lines, frozenset(ids[1:]))


def _on_file(s: Unit, ids: list[int], lines: tuple[str, ...]) -> OnFile | None:
    row = lookups.stored_message(s, ids[0]) if ids else None
    if row is None:
        return None
    return OnFile(row.id, row.sent, row.subject, lines, frozenset(ids[1:]))


def closed(s: Unit, facts: Facts, seat: Seat | None, d: Decision | None = None) -> bool:
    """Read when the step open at the sending of the mail a reply answers closed (`pbem.app.closing`), once, into
    `facts`, and what the player was asked in it (the steps of their requests, from its snapshot): whether it
    closed (the intake then decides again).  For a reply the intake would apply (`d` not refused, `closing.stale`), the
    state at the mail's sending is read first (one read): a player asked the same then as now (two thirds of the
    replies of a sequential game, whose every move opens a step) keeps the decision, with nothing more read."""
    facts.closed_read = True
    loaded, reply = facts.loaded, facts.reply
    if seat is None or loaded is None or loaded.game.id is None or reply is None or reply.created_at is None:
        return False
    eng = views.engine(loaded)
    if d is not None and d.outcome != "rejected":
        asked = _asked(eng, lookups.state_at(s, loaded.game.id, reply.created_at), seat.player)
        if not asked or asked == _asked(eng, loaded.state, seat.player):
            return False  # `closing.changed` would say no: the reply stands as decided
    facts.closed = lookups.closed_after(s, loaded.game.id, seat.player, reply.created_at)
    then = lookups.snapshot_state(s, loaded.game.id, facts.closed.opened) if facts.closed is not None else None
    facts.asked_then = _asked(eng, then, seat.player)
    return facts.closed is not None


def _asked(eng: Engine, state: dict[str, Any] | None, player: str) -> tuple[str, ...]:
    """The steps of `player`'s requests in `state` (none without one), as `closing.changed` compares them."""
    return tuple(sorted(r.step for r in eng.requests(state) if r.player == player)) if state else ()
