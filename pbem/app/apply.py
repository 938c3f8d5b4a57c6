"""Writing a decision: the one place the poll, the deadlines and the commands change the record.

`apply` runs inside the caller's transaction (the caller commits): it
records the inbound message that caused the decision (if any, without its
code), then walks the effects in order: a new game with its first snapshot,
outbox rows, reports rendered at that point, events, accepted inputs with
their snapshot and next deadline, control actions, deadlines and seats, with
what becomes due (`pbem.record.due`): a deadline that opens or moves plans its
rows, a pause, an abandon or the end of the game closes them.

`apply` issues no SELECT: what it needs beyond the decision was read before,
by the load step (the game with its chain head) and by `prepare` (what the
decision's reports read, and the home's Message-ID key), and is kept up to
date in memory while the effects are written.  The mails are rendered here
from those facts (template, then MIME), because a mail's receipt is the chain
head at its place in the effects, which is known only as the entries are
linked; no mail is rendered from a second read of the record.

Every mail about the loaded game carries its receipt (`pbem.mail.outbound.outgoing.Receipt`):
the record's length and head at the mail's place in the effects, so the
acknowledgement of orders, queued after their input, carries the head that
includes the input and its events, and the input's own seq and hash.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from typing import Any

from pbem.app import views
from pbem.app.decision import (
    Control,
    Decision,
    DueHandled,
    Effect,
    Events,
    Input,
    NewDeadline,
    NewGame,
    NewSeat,
    Report,
)
from pbem.home.config import Config
from pbem.mail.inbound.fingerprint import sent_at
from pbem.mail.inbound.message import Inbound
from pbem.mail.outbound.outgoing import Mail, Receipt, outbox_row, thread_root
from pbem.record import due, outbox, recent, store
from pbem.record.db import Unit
from pbem.record.home_secrets import message_id_key
from pbem.record.models import ControlAction, Game, InboundMessage, Seat, Snapshot

#: The mails that tell a player the input just recorded for them, with its seq and hash (issue 13): the
#: acknowledgement of their orders or JOIN, and at a deadline the notice of their held orders or of the
#: default applied for them.  Each follows its input in the decision's effects.
RECEIPTED = frozenset({"ack", "join_ack", "held_applied", "deadline_applied"})


def record_inbound(s: Unit, msg: Inbound, raw: bytes, when: datetime, d: Decision, game_id: int | None = None) -> int:
    """Keep the inbound message with what became of it; returns its id.

    `raw` is already the bounded, redacted copy (`pbem.mail.inbound.storage.scrub`): never the code.
    """
    res = store.insert(
        s,
        InboundMessage,
        dict(
            message_id=msg.message_id,
            body_hash=msg.body_hash,
            sender=msg.sender,
            subject=msg.subject[:500],
            game_id=game_id,
            player=d.player,
            outcome=d.outcome,
            reason=d.reason,
            raw=raw,
            received_at=when,
            sent_at=sent_at(msg.date, when),
            duplicate_of=d.duplicate_of,
        ),
    )
    new_id: int = res.inserted_primary_key[0]
    return new_id


def prepare(s: Unit, d: Decision, loaded: store.Loaded | None) -> bytes:
    """The reads `apply` would otherwise make, before it: what `d`'s reports read (`pbem.record.recent`),
    the chain head of the loaded game, and the home's Message-ID key (returned)."""
    reports = [(r.player, r.since) for r in d.reports]
    if loaded is not None and not any(isinstance(e, NewGame) for e in d.effects):
        store.record_position(s, loaded)  # the head, if the game was not loaded with it
        if reports:
            recent.read(s, loaded, reports)
    return message_id_key(s)


def apply(
    s: Unit,
    cfg: Config,
    d: Decision,
    when: datetime,
    secret: bytes,
    loaded: store.Loaded | None = None,
    inbound: tuple[Inbound, bytes] | None = None,
) -> store.Loaded | None:
    """Write `d` in the session's transaction: INSERTs and UPDATEs only, in the order of its effects.
    `secret`: the home's Message-ID key (from `prepare`, which read what `d` needs); `inbound`: the message
    it decides (recorded first).  Returns the game as it stands after `d` (the new game, for a `NewGame`)."""
    game_id = loaded.game.id if (loaded is not None and d.game) else None
    inbound_id = record_inbound(s, inbound[0], inbound[1], when, d, game_id) if inbound else None
    pending: list[Report] = []
    recorded: tuple[int, str] | None = None  # (seq, hash) of the input this message was recorded as
    for effect in d.effects:
        if isinstance(effect, Report):
            pending.append(effect)
            continue
        if isinstance(effect, NewGame):
            loaded = new_game(s, effect, when)
            game_id = loaded.game.id
            continue
        _reports(s, cfg, loaded, pending, when, secret)
        if isinstance(effect, Mail):  # a mail about a game is filed with it
            gid = effect.game_id if effect.game_id is not None else game_id
            mail = _threaded(cfg, effect, loaded, secret) if gid is not None else effect
            receipt = _receipt(loaded, gid, recorded if effect.kind in RECEIPTED else None)
            outbox.queue(s, outbox_row(cfg, mail, when, secret, gid, receipt))
        elif isinstance(effect, DueHandled):
            due.handled(s, effect.ids, effect.again)
        else:
            message_id = inbound[0].message_id if inbound else None
            _one(s, effect, when, loaded, (inbound_id, message_id))
            if isinstance(effect, Input) and loaded:  # the mail that follows it tells its receipt
                recorded = loaded.last_input
    _reports(s, cfg, loaded, pending, when, secret)
    return loaded


def new_game(s: Unit, g: NewGame, when: datetime) -> store.Loaded:
    """The game row and its first snapshot; the game as loaded, for the effects that follow."""
    row: dict[str, Any] = dict(
        name=g.name,
        kind=g.kind,
        seed=g.seed,
        seed_commitment=g.seed_commitment,
        insecure_seed=g.insecure_seed,
        legacy_events=0,
        players_json=json.dumps(list(g.players)),
        options_json=json.dumps(g.options, sort_keys=True),
        deadline_seconds=g.deadline_seconds,
        resolve=g.resolve,
        created_at=when,
    )
    game = Game(id=store.insert(s, Game, row).inserted_primary_key[0], **row)
    state_json = json.dumps(g.state, sort_keys=True)
    snap = dict(game_id=game.id, seq=0, step=g.step, over=False, state_json=state_json, created_at=when)
    store.insert(s, Snapshot, snap)
    loaded = store.Loaded(game, [], g.state, 0, 0, head=g.seed_commitment)  # no entry yet: the head is the commitment
    recent.fresh(loaded)
    return loaded


def _threaded(cfg: Config, mail: Mail, loaded: store.Loaded | None, secret: bytes) -> Mail:
    """A notice about a game that answers no message references the player's first report (their thread)."""
    if mail.in_reply_to or mail.references or loaded is None:
        return mail
    seat = loaded.seat_for_address(mail.to)
    root = thread_root(cfg, seat.thread, secret) if seat is not None else None
    return dataclasses.replace(mail, references=(root,)) if root else mail


def _receipt(
    loaded: store.Loaded | None, game_id: int | None, recorded: tuple[int, str] | None = None
) -> Receipt | None:
    """The loaded game's record as a mail about it is rendered now (None for a mail about no or another game)."""
    if loaded is None or game_id is None or loaded.game.id != game_id:
        return None
    assert loaded.head, "the game's chain head is read with it (store.load) or by prepare"
    return Receipt(loaded.seq + loaded.event_seq, loaded.head, recorded)


def _reports(
    s: Unit, cfg: Config, loaded: store.Loaded | None, pending: list[Report], when: datetime, secret: bytes
) -> None:
    if pending and loaded is not None:
        from pbem.app.reporting import report_mails

        receipt = _receipt(loaded, loaded.game.id)
        mails = report_mails(cfg, loaded, pending, secret)
        outbox.queue(s, [outbox_row(cfg, m, when, secret, receipt=receipt) for m in mails])
    pending.clear()


def _one(
    s: Unit, effect: Effect, when: datetime, loaded: store.Loaded | None, source: tuple[int | None, str | None]
) -> None:
    assert loaded is not None and loaded.game.id is not None, "a game effect needs its game"
    gid = loaded.game.id
    if isinstance(effect, Events):
        store.append_events(s, loaded, loaded.seq, list(effect.events), when)
    elif isinstance(effect, Input):
        inbound_id, message_id = (effect.inbound_id, effect.message_id) if effect.inbound_id is not None else source
        lines = list(effect.lines)
        store.append_input(s, loaded, effect.kind, effect.player, lines, effect.outcome, inbound_id, when, message_id)
        if effect.reopen and views.current_step(views.engine(loaded), loaded.state) == effect.reopen:
            store.open_deadline(s, loaded, effect.reopen, when)  # nothing moved: do not fire again at once
        elif not views.current_step(views.engine(loaded), loaded.state) or loaded.over:
            due.end(s, gid)  # the game is over: nothing more is due (a new step's deadline plans its own rows)
    elif isinstance(effect, Control):
        store.insert(s, ControlAction, dict(game_id=gid, action=effect.action, detail=effect.detail, created_at=when))
        if effect.action in ("pause", "abandon"):
            due.end(s, gid)  # stopped: nothing is due until resumed (which moves the deadline)
    elif isinstance(effect, NewDeadline):
        store.add_deadline(s, loaded, effect.step, effect.due_at, effect.reason, when)
    elif isinstance(effect, NewSeat):
        res = store.insert(
            s,
            Seat,
            dict(
                game_id=gid,
                position=effect.position,
                player=effect.player,
                address=effect.address,
                display_name=effect.display_name,
                code_hash=effect.code_hash,
                since_seq=loaded.seq,
                thread=effect.thread,
                created_at=when,
            ),
        )
        _seated(loaded, effect, res.inserted_primary_key[0], when)


def _seated(loaded: store.Loaded, seat: NewSeat, seat_id: int, when: datetime) -> None:
    """The current seats after `seat`'s row (it replaces the row of its position), kept in memory."""
    assert loaded.game.id is not None
    row = Seat.model_construct(
        id=seat_id,
        game_id=loaded.game.id,
        position=seat.position,
        player=seat.player,
        address=seat.address,
        display_name=seat.display_name,
        code_hash=seat.code_hash,
        since_seq=loaded.seq,
        thread=seat.thread,
        created_at=when,
    )
    before = next((st for st in loaded.seats if st.position == seat.position), None)
    loaded.seats = sorted([st for st in loaded.seats if st is not before] + [row], key=lambda st: st.position)
    if loaded.recent is not None:  # the seat's names, oldest first (`store.seat_names`)
        names = loaded.recent.names.pop(before.player, (before.player,)) if before is not None else ()
        loaded.recent.names[seat.player] = names if seat.player in names else (*names, seat.player)
