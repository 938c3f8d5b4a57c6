"""Writing a decision: the one place the poll, the deadlines and the commands change the record.

`apply` runs inside the caller's transaction (the caller commits): it
records the inbound message that caused the decision (if any, without its
code), then walks the effects in order: a new game with its first snapshot,
outbox rows, reports rendered at that point, events, accepted inputs with
their snapshot and next deadline, control actions, deadlines and seats, with
what becomes due (`pbem.record.due`): a deadline that opens or moves plans its
rows, a pause, an abandon or the end of the game closes them.

`apply` only writes (one small writer per effect type, `_WRITERS`) and issues
no SELECT: the decision holds every mail finished (`pbem.app.finish` rendered
each report's context from what the load step read), and the game was loaded
with its chain head (`prepare` reads it otherwise, with the home's Message-ID
key).  Here each mail gets its receipt, the chain head at its place in the
effects, known only as the entries are linked, and is composed (template
text, then MIME) into its outbox row.

Every mail about the loaded game carries its receipt (`pbem.mail.outbound.outgoing.Receipt`):
the record's length and head at the mail's place in the effects, so the
acknowledgement of orders, queued after their input, carries the head that
includes the input and its events, and the input's own seq and hash.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.app import stamping, views
from pbem.app.decision import (
    BounceRun,
    Control,
    Decision,
    DueHandled,
    Events,
    Input,
    MailModeSet,
    NewDeadline,
    NewGame,
    NewSeat,
    PressCounted,
    Report,
    ReportMail,
)
from pbem.home.policy import Policy
from pbem.mail.inbound.fingerprint import sent_at
from pbem.mail.inbound.message import Inbound
from pbem.mail.outbound.outgoing import Mail, outbox_row
from pbem.record import bounced, due, models, modes, outbox, press_budget, reader_view, rows, sealing, store
from pbem.record.db import Unit
from pbem.record.home_secrets import message_id_key
from pbem.record.models import ControlAction, InboundMessage, Snapshot
from pbem.trust import signing


def record_inbound(s: Unit, msg: Inbound, raw: bytes, when: datetime, d: Decision, game_id: int | None = None) -> int:
    """Keep the inbound message with what became of it; returns its id.

    `raw` is already the bounded, redacted copy (`pbem.mail.inbound.storage.scrub`): never the code.
    """
    new_id = store.insert(
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
    assert new_id is not None
    return new_id


def prepare(s: Unit, loaded: store.Loaded | None, d: Decision | None = None) -> bytes:
    """What `apply` reads before it writes: the chain head of the loaded game (if it was not loaded with
    it), what each player `d` mails (a newcomer it seats included) may see of the record while the game runs
    (`pbem.record.reader_view`: their receipts; the appends keep it up to date), and the home's Message-ID
    key (returned; read once per unit of work)."""
    if loaded is not None:
        store.record_position(s, loaded)
        if not loaded.over and loaded.game.id is not None:
            fresh = sorted(_readers(loaded, d) - set(loaded.readers))  # a newcomer: with their seat's old names
            renames = [e for e in (d.effects if d else ()) if isinstance(e, Input) and e.kind == "rename"]
            loaded.readers |= store.receipts_of(s, loaded, fresh, [(e.player, e.lines[0]) for e in renames])
    return message_id_key(s)


def _readers(loaded: store.Loaded, d: Decision | None) -> set[str]:
    """The players `d` mails (a report, a notice, a newcomer's first report): whose receipts it states.
    Without the decision, or with an input (its snapshot keeps every player's count for the polls after this
    one: `pbem.record.reader_view.snapshot_json`): every player."""
    if d is None:
        return set(store.players(loaded))
    names = set(store.players(loaded)) if any(isinstance(e, Input) for e in d.effects) else set()
    for e in d.effects:
        if isinstance(e, (Report, NewSeat)):
            names.add(e.player)
        elif isinstance(e, (Mail, ReportMail)):
            mail = e.mail if isinstance(e, ReportMail) else e
            seat = loaded.seat_for_address(mail.to)
            names.add(mail.player or (seat.player if seat is not None else ""))
    return names - {""}


@dataclass
class _Writing:
    """One decision being written: the transaction, the game as it stands, and what the mails carry."""

    s: Unit
    policy: Policy
    when: datetime
    secret: bytes
    loaded: store.Loaded | None
    game_id: int | None
    source: tuple[int | None, str | None]  # the inbound message's record id and Message-ID
    recorded: tuple[int, str] | None = None  # (seq, hash) of the input this message was recorded as
    rows: list[dict[str, Any]] = field(default_factory=list)  # finished reports, queued as one INSERT

    def game(self) -> store.Loaded:
        assert self.loaded is not None and self.loaded.game.id is not None, "a game effect needs its game"
        return self.loaded

    def flush(self) -> None:
        outbox.queue(self.s, self.rows)
        self.rows = []


def apply(
    s: Unit,
    policy: Policy,
    d: Decision,
    when: datetime,
    secret: bytes,
    loaded: store.Loaded | None = None,
    inbound: tuple[Inbound, bytes] | None = None,
) -> store.Loaded | None:
    """Write `d` in the session's transaction: INSERTs and UPDATEs only, one writer per effect type, in the
    order of its effects.  `secret`: the home's Message-ID key (`prepare`); `inbound`: the message it
    decides (recorded first).  Returns the game as it stands after `d` (the new game, for a `NewGame`)."""
    assert not d.reports, "a decision's reports are finished before it is written (pbem.app.finish)"
    game_id = loaded.game.id if (loaded is not None and d.game) else None
    inbound_id = record_inbound(s, inbound[0], inbound[1], when, d, game_id) if inbound else None
    w = _Writing(s, policy, when, secret, loaded, game_id, (inbound_id, inbound[0].message_id if inbound else None))
    for effect in d.effects:
        if not isinstance(effect, ReportMail):
            w.flush()
        _WRITERS[type(effect)](w, effect)
    w.flush()
    return w.loaded


def _sealed(private_hex: str, game: str, home: Path | None) -> str:
    """The game's key as the record keeps it: sealed with the home's wrapping key (`pbem.record.sealing`); a
    policy made without a home (a unit test's) keeps it as it is."""
    return sealing.seal(private_hex, game, home) if home is not None else private_hex


def _new_game(w: _Writing, g: NewGame) -> None:
    """The game row and its first snapshot; the game as loaded, for the effects that follow."""
    row: dict[str, Any] = dict(
        name=g.name,
        kind=g.kind,
        seed=g.seed,
        seed_commitment=g.seed_commitment,
        insecure_seed=g.insecure_seed,
        legacy_events=0,
        bindings=g.bindings,
        # signs every receipt of the game (issue 25, `pbem.trust.signing`); sealed: `pbem.record.sealing`
        signing_key=_sealed(signing.new_key(), g.name, w.policy.home),
        players_json=json.dumps(list(g.players)),
        options_json=json.dumps(g.options, sort_keys=True),
        deadline_seconds=g.deadline_seconds,
        resolve=g.resolve,
        created_at=w.when,
    )
    game = rows.Game(id=store.insert(w.s, models.Game, row), **row)
    state_json = store.state_text(g.state)  # (with its digest: `pbem.record.kept_state`)
    # no entry yet: the commitment; and nobody has seen any entry
    readers = {p: (0, g.seed_commitment) for p in g.players}
    seen = reader_view.snapshot_json(readers, list(g.players), 0)
    snap = dict(game_id=game.id, seq=0, step=g.step, over=False, state_json=state_json, created_at=w.when)
    store.insert(w.s, Snapshot, {**snap, "readers_json": seen})
    w.loaded = store.Loaded(game, [], g.state, 0, 0, head=g.seed_commitment, readers=readers)
    w.game_id = game.id


def _mail(w: _Writing, mail: Mail) -> None:
    """A mail about a game is filed with it, threaded into the player's game and carries its receipt."""
    gid = mail.game_id if mail.game_id is not None else w.game_id
    if gid is not None:
        mail = stamping.threaded(w.policy, mail, w.loaded, w.secret)
    receipt = stamping.receipt(
        w.loaded, gid, w.recorded if mail.kind in stamping.RECEIPTED else None, stamping.reader(w.loaded, mail)
    )
    outbox.queue(w.s, outbox_row(w.policy, mail, w.when, w.secret, gid, receipt))


def _report(w: _Writing, r: ReportMail) -> None:
    """A finished report: it carries the record as it stands (its thread is in the mail already)."""
    loaded = w.game()
    gid = r.mail.game_id if r.mail.game_id is not None else loaded.game.id
    mail = dataclasses.replace(r.mail, game_id=gid)
    acked = w.recorded if r.mail.context.get("ack_applied") else None  # an ack at its top tells the input's receipt
    receipt = stamping.receipt(loaded, loaded.game.id, acked, stamping.reader(loaded, mail))
    w.rows.append(outbox_row(w.policy, mail, w.when, w.secret, receipt=receipt))


def _due(w: _Writing, effect: DueHandled) -> None:
    due.handled(w.s, effect.ids, effect.again)


def _events(w: _Writing, effect: Events) -> None:
    loaded = w.game()
    store.append_news(w.s, loaded, list(effect.events), w.when)


def _input(w: _Writing, effect: Input) -> None:
    loaded = w.game()
    inbound_id, message_id = (effect.inbound_id, effect.message_id) if effect.inbound_id is not None else w.source
    lines = list(effect.lines)
    store.append_input(w.s, loaded, effect.kind, effect.player, lines, effect.outcome, inbound_id, w.when, message_id)
    if effect.reopen and views.current_step(views.engine(loaded), loaded.state) == effect.reopen:
        store.open_deadline(w.s, loaded, effect.reopen, w.when)  # nothing moved: do not fire again at once
    elif not views.current_step(views.engine(loaded), loaded.state) or loaded.over:
        assert loaded.game.id is not None
        due.end(w.s, loaded.game.id)  # the game is over: nothing more is due (a new step plans its own rows)
    w.recorded = loaded.last_input  # the mail that follows it tells its receipt


def _control(w: _Writing, effect: Control) -> None:
    gid = w.game().game.id
    assert gid is not None
    store.insert(w.s, ControlAction, dict(game_id=gid, action=effect.action, detail=effect.detail, created_at=w.when))
    if effect.action in ("pause", "abandon"):  # stopped: nothing due until resumed (which moves the deadline); an
        due.end(w.s, gid)  # abandoned game's mail queued and not sent never goes out, its end notice does (walk8)
        _ = effect.action == "abandon" and outbox.withdraw(w.s, gid)


def _deadline(w: _Writing, effect: NewDeadline) -> None:
    store.add_deadline(w.s, w.game(), effect.step, effect.due_at, effect.reason, w.when)


def _seat(w: _Writing, effect: NewSeat) -> None:
    """A seat row appended; the current seats kept in memory (it replaces the row of its position)."""
    loaded = w.game()
    fields: dict[str, Any] = dict(
        game_id=loaded.game.id,
        position=effect.position,
        player=effect.player,
        address=effect.address,
        display_name=effect.display_name,
        code_hash=effect.code_hash,
        since_seq=loaded.seq,
        thread=effect.thread,
        created_at=effect.given_at or w.when,
    )
    seat_id = store.insert(w.s, models.Seat, fields)
    row = store.plain(rows.Seat, {"id": seat_id, **fields})
    before = [st for st in loaded.seats if st.position != effect.position]
    loaded.seats = sorted([*before, row], key=lambda st: st.position)


def _mode(w: _Writing, effect: MailModeSet) -> None:
    """A player's mail mode (WATCH, NORMAL, DIGEST), appended (`pbem.record.modes`)."""
    gid = w.game().game.id
    assert gid is not None
    modes.set_mode(w.s, gid, effect.player, effect.mode, w.when)


_WRITERS: dict[type, Callable[[_Writing, Any], None]] = {
    NewGame: _new_game,
    Mail: _mail,
    ReportMail: _report,
    DueHandled: _due,
    Events: _events,
    Input: _input,
    Control: _control,
    NewDeadline: _deadline,
    NewSeat: _seat,
    MailModeSet: _mode,
    PressCounted: lambda w, e: press_budget.record(w.s, e.address, e.mails, w.when),
    BounceRun: lambda w, e: bounced.keep(w.s, e.run),
}  # no Report: a report reaches apply only finished (`pbem.app.finish`; a KeyError else)
