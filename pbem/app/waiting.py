"""`pbem game waiting`: who every running game waits for, at a glance (the Judge's late list, for every game).

A moderator of many games asked `pbem game show` game by game who had not answered.  Here every game that is
running or paused and waits for someone is one block: its deadline (or that it is paused), then each player it
waits for with what they are asked, when they last wrote to the game (a player silent for days is the one to
write to, or to replace), whether they are away and how many deadlines applied their defaults so far (the Judge
keeps such a count of each player's missed turns); the games whose deadline has passed first (the next poll
applies the defaults, unless the step's report to someone is undelivered: `pbem outbox list`), then by deadline.
It reads the record and changes nothing (no trail: tests/test_moderator_trail.py).

`rows` decides (pure, on plain values); `waiting` loads each open game once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from pbem.app import bounced, views
from pbem.app.absence import absences
from pbem.home.app import Home
from pbem.record import absence, listing, store
from pbem.record.db import Unit


@dataclass(frozen=True)
class Awaited:
    """One player a game waits for."""

    player: str
    asked: str  # what they are asked, the request's first line
    heard: datetime | None  # their newest mail to the game (None: never wrote)
    away: datetime | None  # away until then (None: not away)
    missed: int = 0  # deadlines that applied their default orders in this game so far
    resigned: datetime | None = None  # resigned by mail then (RESIGN, confirmed): the seat is to be given
    bounced: str = ""  # their address's mail bounces: what to say of it (`pbem.app.bounced.bouncing_line`, months4)


@dataclass(frozen=True)
class Waiting:
    """One game that waits for someone."""

    game: str
    kind: str
    state: str  # running or paused
    step: str
    due: datetime | None
    awaited: tuple[Awaited, ...]
    paused_at: datetime | None = None  # paused since then (`pbem game pause`; months4: a forgotten pause said when)

    def late(self, now: datetime) -> bool:
        return self.state == "running" and self.due is not None and self.due <= now


def order(games: list[Waiting], now: datetime, within: timedelta | None = None) -> list[Waiting]:
    """Past their deadline first, then by deadline, the paused last; with `within`, only those due by now + within
    (the late ones always)."""
    kept = [
        g for g in games if within is None or (g.state == "running" and g.due is not None and g.due <= now + within)
    ]
    far = datetime.max.replace(tzinfo=now.tzinfo)
    return sorted(kept, key=lambda g: (g.state != "running", g.due or far, g.game))


def waiting(home: Home, now: datetime, within: timedelta | None = None) -> list[Waiting]:
    """Every game running or paused that waits for someone, as `order` lists them."""
    with home.units() as s:
        return waiting_in(s, now, within)


def waiting_in(s: Unit, now: datetime, within: timedelta | None = None) -> list[Waiting]:
    """`waiting` in the transaction `s` (WAITING by mail: the moderator's message's)."""
    out: list[Waiting] = []
    for gid in store.open_game_ids(s):
        game = store.game_by_id(s, gid)
        state = store.control_state(s, gid)
        if game is None or state == "abandoned":
            continue
        loaded = store.load(s, game)
        if loaded.over:
            continue
        eng = views.engine(loaded)
        asked = {r.player: r for r in eng.requests(loaded.state) if not r.answered}
        if not asked:
            continue
        dl = store.current_deadline(s, gid)
        heard, missed = listing.last_heard(s, gid), listing.deadlines_missed(s, gid)
        away = absences(absence.rows(s, gid), now)
        gone = listing.resigned(s, gid)
        addresses = {p: st.address for p in asked if (st := loaded.seat_for_player(p)) is not None}
        dead = {p: bounced.bouncing_line(game.name, p, r) for p, r in bounced.bouncing(s, addresses, now).items()}
        awaited = tuple(
            Awaited(
                p,
                (asked[p].prompt.strip().splitlines() or [""])[0],
                heard.get(p),
                away.get(p),
                missed.get(p, 0),
                gone.get(p),
                dead.get(p, ""),
            )
            for p in views.players(loaded)
            if p in asked
        )
        step = next(iter(asked.values())).step
        since = listing.paused_at(s, gid) if state == "paused" else None
        out.append(Waiting(game.name, game.kind, state, step, store.aware(dl.due_at) if dl else None, awaited, since))
    return order(out, now, within)


ASKED = 60  # characters of what a player is asked shown
MAIL_LINES = 200  # lines of WAITING lists one moderator's mail holds at most (its other games: counted, not listed)


def listed(games: list[Waiting], now: datetime, most: int | None = None) -> list[str]:
    """The lines `pbem game waiting` prints: a line per game, then one per player it waits for, then a total.  With
    `most` (WAITING by mail: the acknowledgement was as large as the list, 1,000 games 140 KB), the games whose
    lines would pass `most` lines are left out, and a line before the total counts them and says where to see them."""
    out: list[str] = []
    shown = 0
    for g in games:
        if most is not None and len(out) + 1 + len(g.awaited) > most:
            break
        shown += 1
        out.append(f"{g.game} ({g.kind}): {_when(g, now)}")
        for a in g.awaited:
            asked = a.asked if len(a.asked) <= ASKED else a.asked[: ASKED - 1] + "…"
            heard = f"last mail {_stamp(a.heard)} ({_span(now - a.heard)} ago)" if a.heard else "never wrote"
            away = f"; away until {_stamp(a.away)}" if a.away else ""
            missed = f"; missed {a.missed} deadline(s)" if a.missed else ""
            gone = f"; RESIGNED {_stamp(a.resigned)}: give the seat (pbem game replace)" if a.resigned else ""
            dead = f"; {a.bounced}" if a.bounced else ""
            out.append(f"  {a.player}: {heard}{away}{missed}{gone}{dead}; asked: {asked}")
    if shown < len(games):
        rest = games[shown:]
        out.append(
            f"... and {len(rest)} more game(s), waiting for {sum(len(g.awaited) for g in rest)} player(s), not "
            "listed in this mail (every one: pbem game waiting)"
        )
    late = sum(g.late(now) for g in games)
    players = sum(len(g.awaited) for g in games)
    total = f"{len(games)} game(s) wait for {players} player(s)"
    return [*out, total + (f"; {late} past the deadline" if late else "")]


def _when(g: Waiting, now: datetime) -> str:
    if g.state == "paused":
        since = f" since {_stamp(g.paused_at)} ({_span(now - g.paused_at)} ago)" if g.paused_at else ""
        return f"paused{since}, no deadline passes (pbem game resume {g.game})"
    if g.due is None:
        return "no deadline"
    if g.late(now):
        return (
            f"LATE: the deadline passed at {_stamp(g.due)}, {_span(now - g.due)} ago (the next pbem poll applies the "
            "defaults, unless a report to one of them is undelivered: pbem outbox list)"
        )
    only = g.awaited and all(a.resigned for a in g.awaited)
    now_too = f"; it asks only players who resigned: pbem game process {g.game} applies it now" if only else ""
    return f"deadline {_stamp(g.due)}, in {_span(g.due - now)}{now_too}"


def _stamp(at: datetime) -> str:
    return f"{at:%Y-%m-%d %H:%M} UTC"


def _span(d: timedelta) -> str:
    """A time span as a person says it: "2 d 3 h", "5 h 10 min", "40 min"."""
    minutes = max(int(d.total_seconds() // 60), 0)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {mins} min" if mins else f"{hours} h"
    return f"{mins} min"
