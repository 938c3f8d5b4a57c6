"""Who is mailed a report when the game moves (pure): a mail only when it matters (issue 23).

Each player chooses how much mail they get with an order word (`MODES`); the moderator sets a game's
default (`pbem.record.modes`).  When a message or a deadline moves the game, `told` says which players
get a report now; the others' news waits for "what happened since your last mail" of their next one
(reports cover the events since the player's last report: `pbem.record.outbox.last_report_seqs`).

* ``WATCH``: every move they may see (pbem's behaviour before issue 23).
* ``NORMAL`` (the default): when they are asked to act (a new question; for the `mover`, any question
  still open after their own message, answered in the same mail), when a step they took part in
  resolves, when something is done to them that they must know before their next decision (what the
  engine's ``must_know`` declares: a card stolen from them, their meld taken, a war on a country they
  hold), and at the end of the game.  The mover's own message is answered anyway (`pbem.app.intake`).
* ``DIGEST``: when asked to act and at the end; a resolution or something done to them only if their
  last report is a day old (at most one such mail a day), and otherwise the poll's daily digest
  (`pbem.app.digests`: one report a day, when something new happened).

The record, the receipts and `pbem verify` do not depend on who was mailed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from pbem.engine.base import PUBLIC, Engine, Event

WATCH, NORMAL, DIGEST = "watch", "normal", "digest"
MODES = (WATCH, NORMAL, DIGEST)
DAY = timedelta(days=1)


def _asked(eng: Engine, state: dict[str, Any]) -> dict[str, str]:
    return {r.player: r.step for r in eng.requests(state) if not r.answered}


def _taking_part(eng: Engine, state: dict[str, Any]) -> dict[str, str]:
    return {r.player: r.step for r in eng.requests(state)}


def _done_to(eng: Engine, state: dict[str, Any], p: str, events: list[Event]) -> bool:
    """Something in `events` that `p` must know before their next decision: what the engine's
    `must_know` says (`pbem.engine.base.Game.must_know`); for an engine without it, an event only some
    players may see.  Kinds listed in ``urgent_events`` count for everyone who may see them."""
    urgent = set(getattr(eng, "urgent_events", ()))
    must_know = getattr(eng, "must_know", None)
    for e in events:
        if not e.visible_to(p):
            continue
        if e.kind in urgent:
            return True
        if must_know is not None:
            if must_know(state, e, p):
                return True
        elif e.visibility != PUBLIC and not isinstance(e.visibility, str):
            return True
    return False


def told(
    eng: Engine,
    before: dict[str, Any],
    after: dict[str, Any],
    everyone: list[str],
    events: Iterable[Event],
    modes: Mapping[str, str] | None = None,
    *,
    default: str = NORMAL,
    last_report: Mapping[str, datetime] | None = None,
    now: datetime | None = None,
    mover: str | None = None,
) -> list[str]:
    """The players to send a report now, in seat order (see the module docstring)."""
    evs = list(events)
    default = (modes or {}).get("", default)  # modes[""]: the game's default, if given there
    asked_before, asked_after = _asked(eng, before), _asked(eng, after)
    part_before, part_after = _taking_part(eng, before), _taking_part(eng, after)
    over = eng.result(after) is not None
    out = []
    for p in everyone:
        mode = (modes or {}).get(p, default)
        new_question = p in asked_after and (asked_after[p] != asked_before.get(p) or p == mover)
        if over or new_question:
            out.append(p)
            continue
        seen = any(e.visible_to(p) for e in evs)
        if mode == WATCH:
            if seen:
                out.append(p)
            continue
        resolved = p in part_before and part_after.get(p) != part_before[p]
        matters = resolved or _done_to(eng, after, p, evs)
        if mode == DIGEST and matters:
            last = (last_report or {}).get(p)
            matters = last is None or now is None or _naive(now) - _naive(last) >= DAY
        if matters:
            out.append(p)
    return out


def _naive(dt: datetime) -> datetime:
    return dt.replace(tzinfo=None)


PROMISES = {
    WATCH: "WATCH: from now on you get a report after every move you may see.",
    NORMAL: (
        "NORMAL: from now on you get mail when you are asked to act, when your mail is answered, when a step "
        "you took part in resolves, when something is done to you, and at the end; the rest waits for your next mail."
    ),
    DIGEST: (
        "DIGEST: from now on you get at most one mail a day, when something new happened, besides the mails "
        "that ask you to act and the end of the game; everything else waits for your next mail."
    ),
}


#: The note for a mode the player already had (players26: WATCH sent twice was promised WATCH "from now on" again).
ALREADY = {
    WATCH: "WATCH: you already get a report after every move you may see; nothing changed.",
    NORMAL: "NORMAL: you already get the mail of the default (when you are asked to act, when your mail is answered, "
    "when a step you took part in resolves, when something is done to you, and at the end); nothing changed.",
    DIGEST: "DIGEST: you already get at most one mail a day, besides the mails that ask you to act and the end of "
    "the game; nothing changed.",
}


def promise(mode: str, before: str = "") -> str:
    """What the acknowledgement says a mode gives; `before` the player's mode until now, said when it is the same."""
    return ALREADY[mode] if mode == before else PROMISES[mode]
