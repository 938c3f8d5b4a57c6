"""Absence: a player writes `AWAY UNTIL 2026-12-24` (or `AWAY 5`, days) and `BACK`; the game waits.

While a step's deadline passes with an away player still asked, the deadline moves
to their return instead of applying their default, capped per player per game by
`[games] max_away` (default 14 days in all).  Every player is told the game waits
and until when (a public moderator event of action `away`, which `verify` replays
like an extension, and a notice to each seat).  Standing orders still apply: an
away player may send orders for later steps before leaving.  The moderator can set
and clear an absence (`pbem game away NAME PLAYER UNTIL|back`).  BACK ends an
absence from then on; a deadline already moved stays where everyone was told it is.

The deciding functions are pure: `absences` and `used` fold the record's rows
(pbem/record/absence.py), `decide_declared` answers an AWAY or BACK line, and
`decide_wait` decides what a passing deadline does for away players.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from pbem.app.answers import Outgoing, short
from pbem.app.control import announce
from pbem.app.decision import Control, Decision, Effect, NewDeadline
from pbem.home.app import Home
from pbem.orders.away import MAX_DAYS, Away
from pbem.orders.extract import Extracted
from pbem.record.absence import AbsenceRow
from pbem.record.absence import rows as away_rows
from pbem.record.outbox import NEWS
from pbem.record.rows import Deadline, Seat
from pbem.record.store import Loaded
from pbem.trust.chain import iso


def stamp(at: datetime) -> str:
    return f"{at:%a %d %b %Y %H:%M} UTC"


def until_of(away: Away, when: datetime) -> datetime | None:
    """When an AWAY line says the player is back (None for BACK)."""
    if away.back:
        return None
    if away.until is not None:
        return datetime.combine(away.until, time(0), tzinfo=UTC)
    assert away.days is not None
    return when + timedelta(days=away.days)


def problem_of(away: Away, when: datetime) -> str:
    """Why an AWAY line cannot be taken now ("" when it can)."""
    back = until_of(away, when)
    if back is None:
        return ""
    if back <= when:
        return f'"{away.line}": that day has begun or passed; write a later date, or the number of days'
    if back > when + timedelta(days=MAX_DAYS):
        return f'"{away.line}": at most {MAX_DAYS} days ahead'
    return ""


def absences(rows: list[AbsenceRow], when: datetime) -> dict[str, datetime]:
    """Each player away at `when`, with their return (the newest AWAY or BACK of each player counts)."""
    state: dict[str, datetime | None] = {}
    for r in rows:
        player = str(r.detail.get("player", ""))
        if r.action == "away" and player:
            try:
                state[player] = datetime.fromisoformat(str(r.detail["until"]))
            except (KeyError, ValueError):
                continue
        elif r.action == "back" and player:
            state[player] = None
    return {p: u for p, u in state.items() if u is not None and u > when}


def used(rows: list[AbsenceRow]) -> dict[str, timedelta]:
    """How long the game has already waited for each player's absences."""
    out: dict[str, timedelta] = {}
    for r in rows:
        if r.action == "wait":
            for player, seconds in r.detail.items():
                if isinstance(seconds, int | float):
                    out[player] = out.get(player, timedelta(0)) + timedelta(seconds=seconds)
    return out


def declared(player: str, away: Away, when: datetime, by: str = "player") -> Control:
    """The control row an AWAY or BACK line (`by` "player") or `pbem game away` ("moderator") writes."""
    back = until_of(away, when)
    if back is None:
        return Control("back", json.dumps({"player": player, "by": by}))
    return Control("away", json.dumps({"player": player, "until": back.isoformat(), "by": by}))


def askers(rows: list[AbsenceRow]) -> dict[str, str]:
    """Who set each player's newest absence: "player" (their AWAY) or "moderator" (`pbem game away`); a row written
    before fairness24 names nobody and is left out."""
    out: dict[str, str] = {}
    for r in rows:
        player, by = str(r.detail.get("player", "")), r.detail.get("by")
        if r.action == "away" and player and by in ("player", "moderator"):
            out[player] = str(by)
        elif r.action == "away" and player:
            out.pop(player, None)
    return out


@dataclass(frozen=True)
class Wait:
    """What a passing deadline does for away players: the new deadline and the time charged to each."""

    deadline: datetime
    charged: dict[str, timedelta]


def wait_for(
    deadline: datetime, waiting: list[str], away: dict[str, datetime], spent: dict[str, timedelta], max_away: timedelta
) -> Wait | None:
    """The deadline `deadline` passed while `waiting` were still asked: wait for those away, within their allowance."""
    charged: dict[str, timedelta] = {}
    for player in waiting:
        back = away.get(player)
        if back is None or back <= deadline:
            continue
        left = max_away - spent.get(player, timedelta(0))
        wait = min(back - deadline, left)
        if wait > timedelta(0):
            charged[player] = wait
    if not charged:
        return None
    return Wait(deadline + max(charged.values()), charged)


def decide_wait(
    loaded: Loaded, step: str, w: Wait, away: dict[str, datetime], by: dict[str, str] | None = None
) -> Decision:
    """The game waits for away players: the deadline moves, everyone is told until when.  The event names who set
    each absence (``asked``, `askers`: the player's AWAY, or the moderator's): the moderator's is his intervention,
    and a player's own is one their Sent folder must hold (`pbem.trust.asked`, fairness24)."""
    who = sorted(w.charged)
    names = ", ".join(f"{p} (away until {stamp(away[p])})" for p in who)
    text = f"The game waits for {names}; the deadline moves to {stamp(w.deadline)}."
    facts: dict[str, object] = {"step": step, "deadline": iso(w.deadline), "players": who}
    if by is not None:
        facts["asked"] = {p: by[p] for p in who if p in by}
    detail = json.dumps({p: int(t.total_seconds()) for p, t in w.charged.items()}, sort_keys=True)
    effects: list[Effect] = [NewDeadline(step, w.deadline, "waiting for " + ", ".join(who))]
    effects += announce(loaded, "wait", text, detail, facts=facts, due=stamp(w.deadline), away=names)
    return Decision(game=loaded.game.name, effects=effects)


def at_deadline(
    rows: list[AbsenceRow], loaded: Loaded, dl: Deadline, when: datetime, max_away: timedelta
) -> Decision | None:
    """A step's deadline `dl` passed at `when`: wait for the away players it still asks, or None (apply it).
    The join step waits for nobody (nobody is defaulted into a game)."""
    from pbem.app import views
    from pbem.trust.deal import STEP as JOIN_STEP

    step, deadline = dl.step, dl.due_at if dl.due_at.tzinfo else dl.due_at.replace(tzinfo=UTC)
    away = absences(rows, when)
    if step == JOIN_STEP:
        return None
    if not away:
        return None
    asked = [p for p in views.waiting(views.engine(loaded), loaded.state) if p not in loaded.resigned]  # left: no wait
    w = wait_for(deadline, asked, away, used(rows), max_away)
    return decide_wait(loaded, step, w, away, askers(rows)) if w is not None else None


def decide_set_by_moderator(
    loaded: Loaded,
    control: str,
    player: str,
    away: Away,
    when: datetime,
    max_away: timedelta,
    away_now: dict[str, datetime] | None = None,
) -> Decision:
    """`pbem game away NAME PLAYER UNTIL|back`: the row, and the player told (as if they had written it); not in
    a game that is over or abandoned."""
    from pbem.app.decision import GameError, check_open
    from pbem.app.game_names import seat_named
    from pbem.mail.outbound.outgoing import Mail

    check_open(loaded, control, allow_paused=True)
    seat = loaded.seat_for_player(seat_named(loaded, player))
    assert seat is not None
    problem = problem_of(away, when)
    if problem:
        raise GameError(problem.split(": ", 1)[-1])
    back = until_of(away, when)
    if back is None and away_now is not None and seat.player not in away_now:  # `back` for a player not away
        raise GameError(f"{seat.player} is not away in {loaded.game.name}: nothing was changed")
    if back is not None and away_now is not None and away_now.get(seat.player) == back:
        raise GameError(f"{seat.player} is already away until {stamp(back)} in {loaded.game.name}: nothing was changed")
    ctx = {
        "game_name": loaded.game.name,
        "subject_in": "",
        "back": back is None,
        "until": stamp(back) if back else "",
        "max_days": max(1, round(max_away.total_seconds() / 86400)),
        "by_moderator": True,
        **was_away(away_now, seat.player, back),
    }
    key = ("away", loaded.game.name, seat.player, when.isoformat())
    mail = Mail(seat.address, "away_ack", ctx, NEWS, key, player=seat.player, game_id=loaded.game.id)
    return Decision(
        game=loaded.game.name, player=seat.player, effects=[declared(seat.player, away, when, "moderator"), mail]
    )


def set_away(home: Home, name: str, player: str, spec: str, when: datetime) -> tuple[str, datetime | None]:
    """Set (or with `back`, clear) a player's absence; returns the player (as `player_named` reads what was typed)
    and when they are back (None: cleared).  ValueError for an UNTIL that is no date, day count (1 to MAX_DAYS)
    or back; GameError for what the game refuses."""
    from pbem.app.control import Command
    from pbem.orders.away import MAX_DAYS, read_away

    away = read_away("BACK" if spec.strip().lower() == "back" else f"AWAY {spec}")
    if away.problem:
        raise ValueError(f"{spec!r}: give a date (2026-12-24), a number of days from 1 to {MAX_DAYS}, or back")
    with home.units() as s:
        c = Command(s, name)
        now = absences(away_rows(s, c.gid), when)
        d = decide_set_by_moderator(c.loaded, c.control, player, away, when, home.policy.max_away, now)
        c.apply(home.policy, d, when)
    return d.player or player, until_of(away, when)


def was_away(away_now: dict[str, datetime] | None, player: str, back: datetime | None) -> dict[str, object]:
    """The `away_ack` context's account of what the line changed: `unchanged` for BACK from a player who was not
    away ("you were not away; nothing changed") and for AWAY to the day they are already away until; `was_until`
    the return an AWAY moved (players26: BACK when not away was answered "Welcome back: you are no longer away").
    None: who is away is not known (nothing said of it)."""
    if away_now is None:
        return {"unchanged": False, "was_until": ""}
    before = away_now.get(player)
    unchanged = before == back
    return {"unchanged": unchanged, "was_until": stamp(before) if before is not None and not unchanged else ""}


def by_mail(
    d: Decision,
    out: Outgoing,
    loaded: Loaded,
    seat: Seat,
    ex: Extracted,
    when: datetime | None,
    max_away: timedelta,
    away_now: dict[str, datetime] | None = None,
) -> None:
    """An AWAY or BACK line: the absence is recorded and the player told what it does (issue 28); a line that
    changes nothing (BACK when not away, AWAY to the day already given) writes no row and says so."""
    assert ex.away is not None and when is not None
    problem = problem_of(ex.away, when)
    if problem:
        ex.problems.append(problem)
        ex.away = None
        return
    back = until_of(ex.away, when)
    told = was_away(away_now, seat.player, back)
    if not told["unchanged"]:
        d.effects.append(declared(seat.player, ex.away, when))
    if out.admit(d, seat.address, player=seat.player, to_name=seat.display_name):
        ctx = {
            "game_name": loaded.game.name,
            "subject_in": short(out.msg.subject),
            "back": back is None,
            "until": stamp(back) if back else "",
            "max_days": max(1, round(max_away.total_seconds() / 86400)),
            "by_moderator": False,
            **told,
        }
        d.effects.append(out.mail(seat.address, "away_ack", "notice", ctx, player=seat.player))
