"""Time: reminders before a deadline, the published default at the deadline.

Each step's deadline is the newest `Deadline` row of its game; what is due
when is in the `due` table (`pbem.record.due`), so a poll finds it with one
indexed query and loads only the games something is due for.  Before the
deadline, players who still owe orders get reminders (`reminder_times`, issue
16): at each configured offset before it, but none in the first half of the
step, at most one per poll, each once (a reminder's Message-ID is stable), and
one only for a short step.  When it passes, orders held for a "resolve at the
deadline" game are applied in the order they arrived, then the published
default of every request still open, recorded as a deadline input, stated in
every report and told to each player it was applied for (deadline_applied;
held orders: held_applied or held_failed); the join step's deadline defaults nobody in: the moderator is
told (`join.decide_join_deadline`).  Paused and abandoned games are left alone.
The deciding functions are pure; `run_deadlines` loads, decides and applies.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from itertools import groupby

from pbem import engine as registry
from pbem.app import absence, notify, paused, reading, refusals, silence, undelivered, views
from pbem.app.decision import Control, Decision, DueHandled, Effect, Input, Report
from pbem.app.join import decide_join_deadline, is_open
from pbem.app.lines import without_prose
from pbem.app.reminders import look_at_reminders, next_look, reminder_at
from pbem.app.settle import settle
from pbem.engine.base import Event, apply_defaults
from pbem.engine.words import count
from pbem.home.app import Home
from pbem.home.policy import Policy
from pbem.mail.outbound.compose import stable_message_id
from pbem.mail.outbound.outgoing import Mail
from pbem.record import due, lookups, modes, outbox, recent, store
from pbem.record.absence import rows as absence_rows
from pbem.record.db import Unit
from pbem.record.home_secrets import message_id_key
from pbem.record.outbox import NEWS
from pbem.record.rows import Deadline
from pbem.trust.deal import STEP as JOIN_STEP

log = logging.getLogger("pbem.deadlines")


@dataclass(frozen=True)
class Held:
    """Orders held for a resolve-at-deadline game: the message's record id, its player, its lines."""

    inbound_id: int
    player: str
    orders: tuple[str, ...]
    message_id: str = ""  # the held message's Message-ID (the chain's entry of its input names it)


def decide_deadline(
    loaded: store.Loaded, step: str, held: list[Held], due: datetime | None = None, mail: dict[str, str] | None = None
) -> Decision:
    """The deadline of `step` passed: held orders in arrival order, then the published defaults.

    Each player whose held orders were applied gets a held_applied notice quoting them; each player
    for whom the default was applied gets a deadline_applied notice with the step and the default lines.
    """
    eng, state = views.engine(loaded), loaded.state
    name, stamp = loaded.game.name, (f"{due:%Y-%m-%d %H:%M} UTC" if due is not None else "")
    d = Decision(game=name)
    events: list[Event] = []
    failed: list[tuple[str, dict[str, object]]] = []  # (player, its held_failed notice's context)
    for h in held:
        d.effects.append(Control("held-done", f"applied-at-deadline:{h.inbound_id}"))
        out = eng.apply(state, h.player, list(h.orders))
        kept, _, out = without_prose(eng, state, h.player, list(h.orders), out)  # as the intake read it when held
        seat = loaded.seat_for_player(h.player)
        if out.accepted:
            d.effects.append(Input("orders", h.player, tuple(kept), out, h.inbound_id, h.message_id))
            state, events = out.state, events + out.events
            if seat is not None:
                told: dict[str, object] = {"game_name": name, "due": stamp, "lines": kept}
                key: tuple[object, ...] = ("held-applied", h.inbound_id)
                d.effects.append(Mail(seat.address, "held_applied", told, NEWS, key, player=h.player))
            continue
        if seat is not None:
            told_why = refusals.agreeing(eng, state, h.player, out)  # worded as a refusal by mail is
            rejected = [{"line": r.line, "reason": r.reason} for r in told_why.lines if not r.ok]
            ctx = {"game_name": name, "rejected": rejected, "defaulted": False}  # True below: its default applied
            failed.append((h.player, ctx))
            d.effects.append(Mail(seat.address, "held_failed", ctx, NEWS, (h.inbound_id,), player=h.player))
    if views.current_step(eng, state) == step and eng.result(state) is None:
        prompts = {r.player: r.prompt for r in eng.requests(state) if not r.answered}
        out = apply_defaults(eng, state)
        d.effects.append(Input("deadline", "", (), out, reopen=step))
        told_defaults = defaulted(loaded, out.events, prompts, stamp, step)
        d.effects += told_defaults
        for player, ctx in failed:  # the held_failed notice says its default was applied instead (judges4)
            ctx["defaulted"] = any(isinstance(m, Mail) and m.player == player for m in told_defaults)
        state, events = out.state, events + out.events
    d.effects += [Report(p) for p in notify.told(eng, loaded.state, state, views.players(loaded), events, mail)]
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
        if seat is None or player in loaded.resigned:  # they asked to leave: the defaults are the seat's, untold
            continue
        ctx = {"game_name": loaded.game.name, "due": stamp, "prompt": prompts.get(player, step), "lines": applied}
        key = ("deadline-applied", loaded.game.name, loaded.seq, step, player)
        mails.append(Mail(seat.address, "deadline_applied", ctx, NEWS, key, player=player))
    return mails


def decide_reminders(
    loaded: store.Loaded,
    dl: Deadline,
    when: datetime,
    offsets: Sequence[timedelta],
    held_players: set[str],
    queued: set[str],
    domain: str,
    secret: bytes,
) -> list[Mail]:
    """The reminder due at `when` (`reminder_at`) to each player who owes orders, each (deadline, time, player)
    once: its Message-ID is stable and `queued` holds those already queued."""
    due, opened = store.aware(dl.due_at), store.aware(dl.created_at)
    assert due is not None and opened is not None
    at = reminder_at(opened, due, offsets, when)
    if at is None:
        return []
    eng = views.engine(loaded)
    requests = eng.requests(loaded.state)
    owing = sorted({r.player for r in requests if not r.answered} - held_players)
    mails = []
    for player in owing:
        key = (loaded.game.name, dl.id, int((due - at).total_seconds()), player)
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
            "joining": is_open(loaded),  # no default: the moderator is told who has not joined
        }
        mails.append(Mail(seat.address, "reminder", ctx, "reminder", key, player=player, game_id=loaded.game.id))
    return mails


def _human(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:.0f} hours" if hours >= 1.5 else count(max(1, round(hours * 60)), "minute")


# --------------------------------------------------------------------------- the shell


def run_deadlines(
    home: Home, when: datetime, opened_before: datetime | None = None, due_by: datetime | None = None
) -> tuple[int, int]:
    """Apply due deadlines and queue due reminders, one game per transaction.  Returns (applied, reminded).

    What is due comes from one indexed query (`pbem.record.due`); a game is loaded only when something
    is due for it.  `opened_before`: the poll's start; no reminder for a step opened since (issue 16).
    `due_by`: only what fell due by then (the poll left mail unread: see `pbem.app.poll`); `when` otherwise.
    """
    applied = reminded = 0
    with home.units() as s:
        rows = due.due_now(s, when if due_by is None else min(due_by, when))
    for _gid, group in groupby(rows, key=lambda r: r.game_id):
        with home.units() as s:
            a, r = _due_for_game(s, home.policy, list(group), when, opened_before)
            s.commit()
        applied, reminded = applied + a, reminded + r
    return applied, reminded


def _due_for_game(
    s: Unit, policy: Policy, rows: list[due.DueRow], when: datetime, opened_before: datetime | None
) -> tuple[int, int]:
    if all(r.kind == "paused" for r in rows):  # a paused game's weekly reminder to the moderator (months4)
        paused.remind(s, policy, rows, when)
        return 0, 0
    ids = tuple(r.id for r in rows)
    deadline = any(r.kind == "deadline" for r in rows)
    look = rows[-1]
    if not deadline:
        if opened_before is not None and look.opened_at >= opened_before:
            return 0, 0  # the step opened in this poll: its reminders wait for a later one
        send, _ = look_at_reminders(look.opened_at, look.deadline_at, policy.reminders, look.due_at, when)
        if send is None:  # nothing new (the middle of a long step): look again later
            _write(s, policy, Decision(effects=[DueHandled(ids, _again(policy, look, when))]), when)
            return 0, 0
    game = store.game_by_id(s, look.game_id)
    dl = store.current_deadline(s, look.game_id)
    if game is None or dl is None or store.control_state(s, look.game_id) != "running":
        _write(s, policy, Decision(effects=[DueHandled(ids)]), when)  # paused or gone: resuming plans again
        return 0, 0
    loaded = store.load(s, game)
    recent.left(s, loaded)  # who resigned: no notice of the deadline for them
    eng = views.engine(loaded)
    if views.current_step(eng, loaded.state) != dl.step or eng.result(loaded.state) is not None:
        _write(s, policy, Decision(effects=[DueHandled(ids)]), when, loaded)
        return 0, 0
    held = held_orders(s, look.game_id, registry.get(game.kind).order_words) if game.resolve == "deadline" else []
    waits = absence.at_deadline(absence_rows(s, look.game_id), loaded, dl, when, policy.max_away) if deadline else None
    if waits is not None:  # an away player is still asked: the game waits for them (issue 28)
        _write(s, policy, Decision(effects=[*waits.effects, DueHandled(ids)], game=game.name), when, loaded)
        return 0, 0
    late = undelivered.at_deadline(s, policy, loaded, dl, rows, when) if deadline and dl.step != JOIN_STEP else None
    if late is not None:  # a player it would default never got the step's report: held, or moved (issue 26)
        _write(s, policy, late, when, loaded)
        return 0, 0
    if deadline:
        recent.read(s, loaded, [(p, None) for p in views.players(loaded)])  # what the reports it causes read
        joining = dl.step == JOIN_STEP  # nobody is defaulted into a game: the moderator is told
        d = decide_join_deadline(loaded, dl, when, policy.moderator_address) if joining else None
        d = d or decide_deadline(loaded, dl.step, held, store.aware(dl.due_at), modes.mailing(s, look.game_id).modes())
        d.effects += [] if joining else silence.told(s, policy, loaded, d, when)  # a game or seat gone silent
        d.effects.append(DueHandled(ids))
        _write(s, policy, d, when, loaded)
        log.info("deadline of %s step %s applied", game.name, dl.step)
        return 1, 0
    secret = message_id_key(s)
    quiet = {h.player for h in held} | loaded.resigned  # orders on file; resigned by mail
    mails = decide_reminders(loaded, dl, when, policy.reminders, quiet, set(), policy.domain, secret)
    ids_of = {stable_message_id(policy.domain, m.purpose, *m.key, secret=secret): m for m in mails}
    already = outbox.queued_ids(s, ids_of)
    mails = [m for mid, m in ids_of.items() if mid not in already]
    effects: list[Effect] = [*mails, DueHandled(ids, _again(policy, look, when))]
    _write(s, policy, Decision(game=game.name, effects=effects), when, loaded)
    return 0, len(mails)


def _write(s: Unit, policy: Policy, d: Decision, when: datetime, loaded: store.Loaded | None = None) -> None:
    settle(s, policy, d, when, loaded)


def _again(policy: Policy, look: due.DueRow, when: datetime) -> due.DueRow | None:
    at = next_look(look.opened_at, look.deadline_at, policy.reminders, when)
    return None if at is None else replace(look, due_at=at)


def held_orders(s: Unit, game_id: int, order_words: tuple[str, ...]) -> list[Held]:
    """Messages held for the deadline and not yet applied, oldest first, with their order lines."""
    held = []
    for row in lookups.held_messages(s, game_id):
        held.append(Held(row.id, row.player, reading.stored_orders(s, row.raw, game_id, order_words), row.message_id))
    return held
