"""Writing a decision: the one place the poll, the deadlines and the commands change the record.

`apply` runs inside the caller's transaction (the caller commits): it
records the inbound message that caused the decision (if any, without its
code), then walks the effects in order: a new game with its first snapshot,
outbox rows, reports rendered at that point, events, accepted inputs with
their snapshot and next deadline, control actions, deadlines and seats, with
what becomes due (`pbem.record.due`): a deadline that opens or moves plans its
rows, a pause, an abandon or the end of the game closes them.

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

from sqlmodel import Session

from pbem.app import views
from pbem.app.decision import (
    Control,
    Decision,
    DueHandled,
    Effect,
    Events,
    Input,
    MailModeSet,
    NewDeadline,
    NewGame,
    NewSeat,
    Report,
)
from pbem.home.config import Config
from pbem.mail.inbound.fingerprint import sent_at
from pbem.mail.inbound.message import Inbound
from pbem.mail.outbound.outgoing import Mail, Receipt, outbox_row, thread_root
from pbem.record import due, modes, outbox, store
from pbem.record.home_secrets import message_id_key
from pbem.record.models import ControlAction, Deadline, Game, InboundMessage, Seat, Snapshot

#: The mails that tell a player the input just recorded for them, with its seq and hash (issue 13): the
#: acknowledgement of their orders or JOIN, and at a deadline the notice of their held orders or of the
#: default applied for them.  Each follows its input in the decision's effects.
RECEIPTED = frozenset({"ack", "join_ack", "held_applied", "deadline_applied"})


def record_inbound(
    s: Session, msg: Inbound, raw: bytes, when: datetime, d: Decision, game_id: int | None = None
) -> int:
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


def apply(
    s: Session,
    cfg: Config,
    d: Decision,
    when: datetime,
    loaded: store.Loaded | None = None,
    inbound: tuple[Inbound, bytes] | None = None,
) -> store.Loaded | None:
    """Write `d` in the session's transaction.  `inbound`: the message it decides (recorded first).

    Returns the game as it stands after `d` (the new game, for a `NewGame` decision)."""
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
        _reports(s, cfg, loaded, pending, when, recorded)
        if isinstance(effect, Mail):  # a mail about a game is filed with it
            gid = effect.game_id if effect.game_id is not None else game_id
            mail = _threaded(cfg, effect, loaded, message_id_key(s)) if gid is not None else effect
            receipt = _receipt(s, loaded, gid, recorded if effect.kind in RECEIPTED else None)
            outbox.queue(s, outbox_row(cfg, mail, when, message_id_key(s), gid, receipt))
        elif isinstance(effect, DueHandled):
            due.handled(s, effect.ids, effect.again)
        else:
            _one(s, cfg, effect, when, loaded, inbound_id)
            if isinstance(effect, Input) and loaded:  # the mail that follows it tells its receipt
                recorded = loaded.last_input
    _reports(s, cfg, loaded, pending, when, recorded)
    return loaded


def new_game(s: Session, g: NewGame, when: datetime) -> store.Loaded:
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
    return store.Loaded(game, [], g.state, 0, 0)


def _threaded(cfg: Config, mail: Mail, loaded: store.Loaded | None, secret: bytes) -> Mail:
    """A notice about a game that answers no message references the player's first report (their thread)."""
    if mail.in_reply_to or mail.references or loaded is None:
        return mail
    seat = loaded.seat_for_address(mail.to)
    root = thread_root(cfg, seat.thread, secret) if seat is not None else None
    return dataclasses.replace(mail, references=(root,)) if root else mail


def _receipt(
    s: Session, loaded: store.Loaded | None, game_id: int | None, recorded: tuple[int, str] | None = None
) -> Receipt | None:
    """The loaded game's record as a mail about it is rendered now (None for a mail about no or another game)."""
    if loaded is None or game_id is None or loaded.game.id != game_id:
        return None
    entries, head = store.record_position(s, loaded)
    return Receipt(entries, head, recorded)


def _reports(
    s: Session,
    cfg: Config,
    loaded: store.Loaded | None,
    pending: list[Report],
    when: datetime,
    recorded: tuple[int, str] | None = None,
) -> None:
    """The pending reports' mails; one that tells the acknowledgement of an input carries its receipt too."""
    if pending and loaded is not None:
        from pbem.app.reporting import report_mails

        receipt = _receipt(s, loaded, loaded.game.id)
        acked = dataclasses.replace(receipt, input=recorded) if (receipt is not None and recorded) else receipt
        mails = report_mails(s, cfg, loaded, pending)
        rows = [
            outbox_row(cfg, m, when, message_id_key(s), receipt=acked if m.context.get("ack_applied") else receipt)
            for m in mails
        ]
        outbox.queue(s, rows)
    pending.clear()


def _one(
    s: Session, cfg: Config, effect: Effect, when: datetime, loaded: store.Loaded | None, inbound_id: int | None
) -> None:
    assert loaded is not None and loaded.game.id is not None, "a game effect needs its game"
    gid = loaded.game.id
    if isinstance(effect, Events):
        store.append_events(s, loaded, loaded.seq, list(effect.events), when)
    elif isinstance(effect, Input):
        source = effect.inbound_id if effect.inbound_id is not None else inbound_id
        lines = list(effect.lines)
        store.append_input(s, loaded, effect.kind, effect.player, lines, effect.outcome, source, when)
        if effect.reopen and views.current_step(views.engine(loaded), loaded.state) == effect.reopen:
            store.open_deadline(s, loaded, effect.reopen, when)  # nothing moved: do not fire again at once
        elif not views.current_step(views.engine(loaded), loaded.state) or loaded.over:
            due.end(s, gid)  # the game is over: nothing more is due (a new step's deadline plans its own rows)
    elif isinstance(effect, Control):
        store.insert(s, ControlAction, dict(game_id=gid, action=effect.action, detail=effect.detail, created_at=when))
        if effect.action in ("pause", "abandon"):
            due.end(s, gid)  # stopped: nothing is due until resumed (which moves the deadline)
    elif isinstance(effect, NewDeadline):
        row = dict(game_id=gid, step=effect.step, due_at=effect.due_at, reason=effect.reason, created_at=when)
        store.insert(s, Deadline, row)
        due.plan(s, gid, when, effect.due_at)
    elif isinstance(effect, MailModeSet):
        modes.set_mode(s, gid, effect.player, effect.mode, when)
    elif isinstance(effect, NewSeat):
        store.insert(
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
        loaded.seats = store.current_seats(s, gid)
