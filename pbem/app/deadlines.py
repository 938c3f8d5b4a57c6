"""Time: reminders before a deadline, the published default at the deadline.

Each step's deadline is the newest `Deadline` row of its game.  Before it,
players who still owe orders get a reminder at each configured offset (once:
a reminder's Message-ID is stable, and the shell passes the ones already
queued).  When it passes, orders held for a "resolve at the deadline" game
are applied in the order they arrived (each player told: held_applied or
held_failed), then the published default of every request still open,
recorded as a deadline input, stated in every report and told to each player
it was applied for (deadline_applied, quoting the default lines).
Paused and abandoned games are left alone.  `decide_deadline` and
`decide_reminders` are pure; `run_deadlines` loads, decides and applies.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from .. import engine as registry
from ..config import Config
from ..engine.base import Event, apply_defaults
from ..engine.words import count
from ..mail.compose import stable_message_id
from ..mail.message import parse
from ..mail.outgoing import Mail
from ..orders.extract import extract
from ..record import store
from ..record.db import session
from ..record.home_secrets import message_id_key
from ..record.models import ControlAction, Deadline, Game, InboundMessage, OrderInput, OutboxMessage
from . import views
from .apply import apply
from .decision import Control, Decision, Effect, Input, Report

log = logging.getLogger("pbem.deadlines")


@dataclass(frozen=True)
class Held:
    """Orders held for a resolve-at-deadline game: the message's record id, its player, its lines."""

    inbound_id: int
    player: str
    orders: tuple[str, ...]


def decide_deadline(loaded: store.Loaded, step: str, held: list[Held], due: datetime | None = None) -> Decision:
    """The deadline of `step` passed: held orders in arrival order, then the published defaults.

    Each player whose held orders were applied gets a held_applied notice quoting them; each player
    for whom the default was applied gets a deadline_applied notice with the step and the default lines.
    """
    eng, state = views.engine(loaded), loaded.state
    before = views.asked_steps(eng, state)
    name, stamp = loaded.game.name, (f"{due:%Y-%m-%d %H:%M} UTC" if due is not None else "")
    d = Decision(game=name)
    events: list[Event] = []
    for h in held:
        d.effects.append(Control("held-done", f"applied-at-deadline:{h.inbound_id}"))
        out = eng.apply(state, h.player, list(h.orders))
        seat = loaded.seat_for_player(h.player)
        if out.accepted:
            d.effects.append(Input("orders", h.player, h.orders, out, inbound_id=h.inbound_id))
            state, events = out.state, events + out.events
            if seat is not None:
                told: dict[str, object] = {"game_name": name, "due": stamp, "lines": list(h.orders)}
                key: tuple[object, ...] = ("held-applied", h.inbound_id)
                d.effects.append(Mail(seat.address, "held_applied", told, "notice", key, player=h.player))
            continue
        if seat is not None:
            rejected = [{"line": r.line, "reason": r.reason} for r in out.lines if not r.ok]
            ctx = {"game_name": name, "rejected": rejected}
            d.effects.append(Mail(seat.address, "held_failed", ctx, "notice", (h.inbound_id,), player=h.player))
    if views.current_step(eng, state) == step and eng.result(state) is None:
        prompts = {r.player: r.prompt for r in eng.requests(state) if not r.answered}
        out = apply_defaults(eng, state)
        d.effects.append(Input("deadline", "", (), out, reopen=step))
        d.effects += defaulted(loaded, out.events, prompts, stamp, step)
        state, events = out.state, events + out.events
    d.effects += [Report(p) for p in views.players_to_report(eng, state, views.players(loaded), events, before)]
    return d


def defaulted(
    loaded: store.Loaded, events: list[Event], prompts: dict[str, str], stamp: str, step: str
) -> list[Effect]:
    """A deadline_applied notice to each player the default was applied for: what they were asked, the lines."""
    lines: dict[str, list[str]] = {}
    for ev in events:
        if ev.kind == "default-orders" and isinstance(ev.data.get("player"), str):
            lines.setdefault(ev.data["player"], []).extend(str(x) for x in ev.data.get("lines", []))
    mails: list[Effect] = []
    for player, applied in lines.items():
        seat = loaded.seat_for_player(player)
        if seat is None:
            continue
        ctx = {"game_name": loaded.game.name, "due": stamp, "prompt": prompts.get(player, step), "lines": applied}
        key = ("deadline-applied", loaded.game.name, loaded.seq, step, player)
        mails.append(Mail(seat.address, "deadline_applied", ctx, "notice", key, player=player))
    return mails


def decide_reminders(
    loaded: store.Loaded,
    dl: Deadline,
    when: datetime,
    offsets: list[timedelta],
    held_players: set[str],
    queued: set[str],
    domain: str,
    secret: bytes,
) -> list[Mail]:
    """Reminders due at `when` to players who owe orders, each (deadline, offset, player) once."""
    due = store.aware(dl.due_at)
    assert due is not None
    eng = views.engine(loaded)
    requests = eng.requests(loaded.state)
    owing = sorted({r.player for r in requests if not r.answered} - held_players)
    mails = []
    for offset in sorted(offsets, reverse=True):
        if not (due - offset <= when < due):
            continue
        for player in owing:
            key = (loaded.game.name, dl.id, int(offset.total_seconds()), player)
            seat = loaded.seat_for_player(player)
            if seat is None or stable_message_id(domain, "reminder", *key, secret=secret) in queued:
                continue
            asked = [
                {"prompt": r.prompt, "legal": list(r.legal), "default": list(r.default)}  # engines bound their lists
                for r in requests
                if r.player == player
            ]
            ctx = {
                "game_name": loaded.game.name,
                "due": f"{due:%Y-%m-%d %H:%M} UTC",
                "left": _human(due - when),
                "asked": asked,
            }
            mails.append(Mail(seat.address, "reminder", ctx, "reminder", key, player=player, game_id=loaded.game.id))
    return mails


def _human(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:.0f} hours" if hours >= 1.5 else count(max(1, round(hours * 60)), "minute")


def due_or_reminding(offsets: list[timedelta], dl: Deadline, when: datetime) -> bool:
    due = store.aware(dl.due_at)
    assert due is not None
    return due <= when or any(due - offset <= when < due for offset in offsets)


# --------------------------------------------------------------------------- the shell


def run_deadlines(cfg: Config, when: datetime) -> tuple[int, int]:
    """Apply due deadlines and queue due reminders, one game per transaction.  Returns (applied, reminded)."""
    applied = reminded = 0
    with session(cfg.database_url) as s:
        ids = [gid for gid in store.open_game_ids(s) if store.control_state(s, gid) == "running"]
    for gid in ids:
        with session(cfg.database_url) as s:
            dl = store.current_deadline(s, gid)
            game = s.get(Game, gid)
            if dl is None or game is None or not due_or_reminding(cfg.reminders, dl, when):
                continue  # nothing to do: the game need not be loaded
            loaded = store.load(s, game)
            eng = views.engine(loaded)
            if views.current_step(eng, loaded.state) != dl.step or eng.result(loaded.state) is not None:
                continue
            held = held_orders(s, gid, registry.get(game.kind).order_words) if game.resolve == "deadline" else []
            due = store.aware(dl.due_at)
            if due is not None and due <= when:
                apply(s, cfg, decide_deadline(loaded, dl.step, held, due), when, loaded)
                log.info("deadline of %s step %s applied", game.name, dl.step)
                applied += 1
            else:
                queued = _reminders_queued(s, gid, dl)
                mails = decide_reminders(
                    loaded, dl, when, cfg.reminders, {h.player for h in held}, queued, cfg.domain, message_id_key(s)
                )
                effects: list[Effect] = list(mails)
                apply(s, cfg, Decision(game=game.name, effects=effects), when, loaded)
                reminded += len(mails)
            s.commit()
    return applied, reminded


def _reminders_queued(s: Session, game_id: int, dl: Deadline) -> set[str]:
    q = select(OutboxMessage.message_id).where(
        OutboxMessage.game_id == game_id, OutboxMessage.purpose == "reminder", OutboxMessage.created_at >= dl.created_at
    )
    return set(s.exec(q).all())


def held_orders(s: Session, game_id: int, order_words: tuple[str, ...]) -> list[Held]:
    """Messages held for the deadline and not yet applied, oldest first, with their order lines."""
    used = set(s.exec(select(OrderInput.inbound_id).where(OrderInput.game_id == game_id)).all())
    done = set(
        s.exec(
            select(ControlAction.detail).where(ControlAction.game_id == game_id, ControlAction.action == "held-done")
        ).all()
    )
    rows = s.exec(
        select(InboundMessage)
        .where(InboundMessage.game_id == game_id, InboundMessage.outcome == "held")
        .order_by(col(InboundMessage.id))
    ).all()
    mails = [(r, parse(r.raw)) for r in rows]
    return [
        Held(r.id, r.player, tuple(extract(m.text, m.subject, order_words).orders))
        for r, m in mails
        if r.id is not None and r.id not in used and f"applied-at-deadline:{r.id}" not in done
    ]
