"""Finishing a decision (pure): each `Report` it asks for becomes the finished mail, context and all.

The deciding functions (`intake`, `deadlines`, `control`, `games`, `join`) say who gets a report
and where in the effects; `finish` follows the effects on a copy of the loaded game, in memory (the
state after each input, the events with the seqs they will have, the deadline a new step opens, the
seats after a replacement), and at each report's place renders its context from what the load step
read (`Loaded.recent`: each reader's last report, the events since, the deadline, the seats' earlier
names).  So the decision that reaches `apply` holds every mail as data: template kind, context,
recipient, thread and key (`ReportMail`); `apply` adds the record's receipt as it links the chain, and
composes the MIME from the template when it queues the row.  No database, clock or thread here.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta
from typing import Any

from pbem.app import views
from pbem.app.decision import Decision, Effect, Events, Input, NewDeadline, NewGame, NewSeat, Report, ReportMail
from pbem.app.reporting import Look, report_mails
from pbem.engine.base import Event
from pbem.record.rows import Deadline, Game, GameEvent, Seat
from pbem.record.store import Loaded, Recent, plain


def finish(d: Decision, loaded: Loaded | None, look: Look) -> Decision:
    """`d` with each Report replaced by its mail, rendered at its place in the effects."""
    if not d.reports:
        return d
    game = _copy(loaded) if loaded is not None else None
    effects: list[Effect] = []
    pending: list[Report] = []
    for effect in d.effects:
        if isinstance(effect, Report):
            pending.append(effect)
            continue
        effects += _rendered(game, pending, look)
        game = _advance(game, effect, look.when)
        effects.append(effect)
    effects += _rendered(game, pending, look)
    return dataclasses.replace(d, effects=effects)


class Unread(Exception):
    """A report of the decision starts before the events the load step read: its reader resigned (they get no turn
    report, so `pbem.record.recent.read` leaves their last report out) and is reported to after all.  The shell
    reads the events from `since` (`pbem.record.recent.widen`) and finishes the decision again (`pbem.app.settle`)."""

    def __init__(self, since: int) -> None:
        super().__init__(f"a report reads the events after {since}, which were not loaded")
        self.since = since


def _rendered(game: Loaded | None, pending: list[Report], look: Look) -> list[Effect]:
    if not pending:
        return []
    assert game is not None and game.recent is not None, "a report is about a game"
    resigned = game.resigned if not game.over else frozenset()
    pending[:] = [r for r in pending if not (r.player in resigned and _turn_report(r))]
    seqs = game.recent.last_reports
    since = min((r.since if r.since is not None else seqs.get(r.player, 0) for r in pending), default=game.recent.after)
    if since < game.recent.after:
        raise Unread(since)
    mails = [ReportMail(m) for m in report_mails(look, game, pending)] if pending else []
    pending.clear()
    return list(mails)


def _turn_report(r: Report) -> bool:
    """A report of the game moving on, which a player who resigned no longer gets (they asked to leave; the seat's
    defaults apply until it is given): not one they asked for (STATUS), one answering their mail, a takeover, nor
    one the moderator sends them (`pbem game resend`: dropped, judges6)."""
    return r.purpose == "report" and r.ack is None and not r.takeover and r.code is None and not r.asked


def _copy(loaded: Loaded) -> Loaded:
    r = loaded.recent
    assert r is not None, "the load step read what the reports need (pbem.record.recent.read)"
    recent = Recent(dict(r.last_reports), r.deadline, list(r.events), r.after, dict(r.names), r.deal)
    return dataclasses.replace(loaded, seats=list(loaded.seats), recent=recent)


def _advance(game: Loaded | None, effect: Effect, when: datetime) -> Loaded | None:
    """The game after `effect`, as far as a later report reads it."""
    if isinstance(effect, NewGame):
        return _new_game(effect, when)
    if game is None:
        return None
    recent = game.recent
    assert recent is not None
    if isinstance(effect, Events):
        _events(game, game.seq, effect.events, when)
    elif isinstance(effect, Input):
        before = views.current_step(views.engine(game), game.state)
        game.seq += 1
        _events(game, game.seq, tuple(effect.outcome.events), when)
        game.state = effect.outcome.state
        step = views.current_step(views.engine(game), game.state)
        if step and (step != before or step == effect.reopen):  # a new step, or the same one opened again
            recent.deadline = _deadline(game, step, when + timedelta(seconds=game.game.deadline_seconds), when)
    elif isinstance(effect, NewDeadline):
        recent.deadline = _deadline(game, effect.step, effect.due_at, when)
    elif isinstance(effect, NewSeat):
        _seat(game, effect, when)
    return game


def _new_game(g: NewGame, when: datetime) -> Loaded:
    row: dict[str, Any] = dict(
        id=None,
        name=g.name,
        kind=g.kind,
        seed=g.seed,
        seed_commitment=g.seed_commitment,
        insecure_seed=g.insecure_seed,
        legacy_events=0,
        bindings=g.bindings,
        players_json=json.dumps(list(g.players)),
        options_json=json.dumps(g.options, sort_keys=True),
        deadline_seconds=g.deadline_seconds,
        resolve=g.resolve,
        created_at=when,
    )
    recent = Recent(last_reports={}, deadline=None, events=[], after=0, names={})
    return Loaded(plain(Game, row), [], g.state, 0, 0, head=g.seed_commitment, recent=recent)


def _events(game: Loaded, input_seq: int, events: tuple[Event, ...], when: datetime) -> None:
    assert game.recent is not None
    for ev in events:
        game.event_seq += 1
        vis = ev.visibility if isinstance(ev.visibility, str) else list(ev.visibility)
        row: dict[str, Any] = dict(
            game_id=game.game.id,
            seq=game.event_seq,
            input_seq=input_seq,
            kind=ev.kind,
            text=ev.text,
            visibility_json=json.dumps(vis),
            data_json=json.dumps(ev.data, sort_keys=True),
            created_at=when,
        )
        game.recent.events.append(plain(GameEvent, row))


def _deadline(game: Loaded, step: str, due_at: datetime, when: datetime) -> Deadline:
    row: dict[str, Any] = dict(game_id=game.game.id, step=step, due_at=due_at, reason="", created_at=when)
    deadline: Deadline = plain(Deadline, row)
    return deadline


def _seat(game: Loaded, seat: NewSeat, when: datetime) -> None:
    """The seat's row replaces the row of its position; its names gain the new one (`store.seat_names`)."""
    row: dict[str, Any] = dict(
        id=None,
        game_id=game.game.id,
        position=seat.position,
        player=seat.player,
        address=seat.address,
        display_name=seat.display_name,
        code_hash=seat.code_hash,
        since_seq=game.seq,
        thread=seat.thread,
        created_at=when,
    )
    before = next((st for st in game.seats if st.position == seat.position), None)
    game.seats = sorted([st for st in game.seats if st is not before] + [plain(Seat, row)], key=_position)
    assert game.recent is not None
    names = game.recent.names.pop(before.player, (before.player,)) if before is not None else ()
    game.recent.names[seat.player] = names if seat.player in names else (*names, seat.player)


def _position(seat: Seat) -> int:
    return seat.position
