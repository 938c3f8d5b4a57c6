"""Time: reminders before a deadline, the published default at the deadline.

Each step's deadline is the newest `Deadline` row of its game.  Before it,
players who still owe orders get a reminder at each configured offset (once:
a reminder's Message-ID is stable, so a second run finds it queued).  When it
passes, orders held for a "resolve at the deadline" game are applied in the
order they arrived, then the published default of every request still open,
recorded as a deadline input and stated in every report.  Paused and
abandoned games are left alone.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlmodel import Session, select

from . import outbox
from .config import Config
from .engine.base import apply_defaults
from .engine.words import count
from .mail.compose import stable_message_id
from .record import store
from .record.db import session
from .record.home_secrets import message_id_key
from .record.models import Deadline, Game, InboundMessage, OrderInput, OutboxMessage

log = logging.getLogger("pbem.deadlines")


def run_deadlines(cfg: Config, when: datetime) -> tuple[int, int]:
    """Returns (deadlines applied, reminders queued)."""
    applied = reminded = 0
    with session(cfg.database_url) as s:
        ids = [gid for gid in store.open_game_ids(s) if store.control_state(s, gid) == "running"]
    for gid in ids:
        with session(cfg.database_url) as s:
            game = s.get(Game, gid)
            dl = store.current_deadline(s, gid)
            if dl is None or not _due_or_reminding(cfg, dl, when):
                continue  # nothing to do: the game need not be loaded
            loaded = store.load(s, game)
            if store.current_step(loaded) != dl.step or loaded.engine.result(loaded.state) is not None:
                continue
            if store.aware(dl.due_at) <= when:
                _apply_deadline(s, cfg, loaded, dl, when)
                applied += 1
            else:
                reminded += _remind(s, cfg, loaded, dl, when)
            s.commit()
    return applied, reminded


def _due_or_reminding(cfg: Config, dl: Deadline, when: datetime) -> bool:
    due = store.aware(dl.due_at)
    return due <= when or any(due - offset <= when < due for offset in cfg.reminders)


def _remind(s: Session, cfg: Config, loaded: store.Loaded, dl: Deadline, when: datetime) -> int:
    due = store.aware(dl.due_at)
    sent = 0
    owing = sorted({r.player for r in loaded.engine.requests(loaded.state) if not r.answered})
    held = _held_players(s, loaded.game.id) if loaded.game.resolve == "deadline" else set()
    for offset in sorted(cfg.reminders, reverse=True):
        if not (due - offset <= when < due):
            continue
        for player in owing:
            if player in held:
                continue
            key = ("reminder", loaded.game.name, dl.id, int(offset.total_seconds()), player)
            mid = stable_message_id(cfg.domain, "reminder", *key, secret=message_id_key(s))
            if s.exec(select(OutboxMessage.id).where(OutboxMessage.message_id == mid)).first():
                continue
            seat = loaded.seat_for_player(player)
            reqs = [r for r in loaded.engine.requests(loaded.state) if r.player == player]
            lines = [
                f"Reminder: game {loaded.game.name} is waiting for your orders.",
                f"Deadline: {due:%Y-%m-%d %H:%M} UTC (in about {_human(due - when)}).",
                "",
            ]
            for r in reqs:
                lines += [
                    f"Asked of you: {r.prompt}",
                    "Legal orders now:",
                    *[f"    {x}" for x in r.legal],  # engines bound their lists (pbem.engine.choices)
                    "If nothing arrives by the deadline the published default is applied:",
                    *[f"    {x}" for x in r.default],
                    "",
                ]
            lines.append("Send STATUS for your full report, HELP for the handbook.")
            outbox.queue_notice(
                s,
                cfg,
                to=seat.address,
                subject=f"[pbem {loaded.game.name}] Reminder: orders due",
                body="\n".join(lines),
                when=when,
                key=key,
                game_id=loaded.game.id,
                player=player,
                purpose="reminder",
            )
            sent += 1
    return sent


def _human(delta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:.0f} hours" if hours >= 1.5 else count(max(1, round(hours * 60)), "minute")


def _held(s: Session, game_id: int) -> list[InboundMessage]:
    used = {o.inbound_id for o in s.exec(select(OrderInput).where(OrderInput.game_id == game_id)).all()}
    rows = s.exec(
        select(InboundMessage)
        .where(InboundMessage.game_id == game_id, InboundMessage.outcome == "held")
        .order_by(InboundMessage.id)
    ).all()
    return [r for r in rows if r.id not in used and f"applied-at-deadline:{r.id}" not in _notes(s, game_id)]


def _notes(s: Session, game_id: int) -> set[str]:
    from .record.models import ControlAction

    return {
        c.detail
        for c in s.exec(
            select(ControlAction).where(ControlAction.game_id == game_id, ControlAction.action == "held-done")
        ).all()
    }


def _held_players(s: Session, game_id: int) -> set[str]:
    return {r.player for r in _held(s, game_id)}


def _apply_deadline(s: Session, cfg: Config, loaded: store.Loaded, dl: Deadline, when: datetime) -> None:
    from .mail.message import parse
    from .moderator import asked_steps, players_to_report
    from .orders.extract import extract
    from .record.models import ControlAction

    eng = loaded.engine
    before = asked_steps(loaded)
    events = []
    for row in _held(s, loaded.game.id) if loaded.game.resolve == "deadline" else []:
        held = parse(row.raw)
        orders = extract(held.text, held.subject, eng.order_words).orders
        out = eng.apply(loaded.state, row.player, orders)
        s.add(
            ControlAction(
                game_id=loaded.game.id, action="held-done", detail=f"applied-at-deadline:{row.id}", created_at=when
            )
        )
        if out.accepted:
            store.append_input(s, loaded, "orders", row.player, orders, out, row.id, when)
            events += out.events
        else:
            seat = loaded.seat_for_player(row.player)
            why = "; ".join(f"{r.line!r}: {r.reason}" for r in out.lines if not r.ok)
            outbox.queue_notice(
                s,
                cfg,
                to=seat.address,
                subject=f"[pbem {loaded.game.name}] Held orders not applied",
                body=f"At the deadline your held orders could no longer be applied: {why}.",
                when=when,
                key=("held", row.id),
                game_id=loaded.game.id,
                player=row.player,
            )
    if store.current_step(loaded) == dl.step and eng.result(loaded.state) is None:
        out = apply_defaults(eng, loaded.state)
        store.append_input(s, loaded, "deadline", "", [], out, None, when)
        events += out.events
        if store.current_step(loaded) == dl.step:  # nothing moved: do not fire again at once
            store.open_deadline(s, loaded, dl.step, when)
    log.info("deadline of %s step %s applied", loaded.game.name, dl.step)
    outbox.queue_reports(s, cfg, loaded, players_to_report(loaded, events, before), when)
