"""`pbem verify` and `--mail`: the deadline of every step computed from the chain (fairness16).

A deadline was no entry of the chain: a report's text states it, but the moderator can tell one player an earlier
one than the others, or bend a step's deadline for everyone, and every mail agrees with itself (fifteenth round,
item 2).  What binds it now:

* the game's step length, chained once, in the game's first input (`pace`: `chain.paced`, with when the game was
  created, which opened its first step);
* every step opens with its deadline the step length after the `at` of the input that opens it (`pbem.record.store.
  append_input`: the first request's step changed), and a deadline's defaults or an undo reopen the step open after
  them from their own `at` (`pbem.app.apply`'s `reopen`, `pbem.app.undo`);
* every other move is a public moderator event stating the new deadline in its chained data (`extend`, `resume`,
  `outage`, `held`, `wait`, `process`: `data.deadline`); a seat replaced renames the step and keeps its deadline
  (the steps are compared seat by seat, `seated`).

So the deadline in force at each place of the chain follows from the chain and the replay (`computed`), and a report
or reminder stating another one for the step open at its head is named.  Old records (no `pace`) are not checked so.

The join step (fairness17): it opens with the game, so its first deadline is `opened` plus the step length too; when
it passes with players missing pbem tells the moderator and moves it a step length on from then, and that move is a
public moderator event stating the new deadline (`join-missing`, `pbem.app.join.decide_join_deadline`).  A record
whose first input's `pace` says so (`JOINS`) has its join deadline computed like any other: an invitation or a
reminder stating another is named, and `join_kept` reads what the moderator did with it (a start or a seat given
away before it, a JOIN taken long after it with no event, a `join-missing` event pbem would not write).  Pure; linear in the chain.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.engine.base import Engine
from pbem.trust.chain import JOINS
from pbem.trust.deal import STEP as JOIN
from pbem.trust.due import OUTAGE, span
from pbem.trust.fold import UNDO
from pbem.trust.quote import Alike

#: How much earlier than the deadline the chain gives a deadline's defaults may be applied: none (pbem applies a
#: deadline once its own clock has reached it, the clock that timed it), but for the rounding of a time written.
SLACK = timedelta(minutes=1)

#: The longest step length read (the longest `timedelta`, some 2.7 million years): a longer one chained is unreadable
#: (`verify` refuses it as not a number of seconds), where it raised OverflowError out of `pbem verify` (costs16).
LONGEST = int(timedelta.max.total_seconds())

#: The latest time there is: a deadline past it (a step opened in the year 9999, a step length of millennia) is read
#: as this, where adding them raised OverflowError out of `pbem verify` (costs16).
LATEST = datetime.max.replace(tzinfo=UTC)

#: The moderator event that moves the join deadline when it passes with players missing.
JOIN_MISSING = "join-missing"


@dataclass(frozen=True)
class Due:
    """The deadline in force at a place of the chain, and what set it: the entry at `at` (0: the game's creation)."""

    when: datetime
    at: int
    how: str


def pace(rows: list[dict[str, Any]]) -> tuple[timedelta, datetime] | None:
    """(the step length, when the first step opened) as the game's first input of `rows` chains them; None when it
    chains none (a record made before fairness16, or no input yet) or they are unreadable."""
    first = next((row for row in rows if "lines" in row), None)
    chained = first.get("pace") if first is not None else None
    if not isinstance(chained, dict):
        return None
    seconds, opened = chained.get("step_seconds"), _time(chained.get("opened"))
    if not isinstance(seconds, int) or isinstance(seconds, bool) or not 0 < seconds <= LONGEST or opened is None:
        return None
    return timedelta(seconds=seconds), opened


def joins(rows: list[dict[str, Any]]) -> bool:
    """Whether the record's first input chains that the join step's deadline moves are chained (`JOINS`)."""
    first = next((row for row in rows if "lines" in row), None)
    chained = first.get("pace") if first is not None else None
    return isinstance(chained, dict) and all(chained.get(k) == v for k, v in JOINS.items())


def seated(step: str, state: dict[str, Any]) -> tuple[str, ...]:
    """A step id with each part naming a player (`pbem.engine.seats`: ``t5.Carol.trade``) given as their seat, so
    that a seat replaced while its step is open, which renames the step and keeps its deadline
    (`pbem.app.control.decide_replace`), is still the same step: a deadline stated before binds it (fairness12)."""
    players = state.get("players")
    seats = {str(p): n for n, p in enumerate(players)} if isinstance(players, list) else {}
    return tuple(f"seat {seats[part]}" if part in seats else part for part in step.split("."))


def step_of(eng: Engine, state: dict[str, Any]) -> tuple[str, ...] | None:
    """The step open in `state` (its first request's, `seated`), as pbem reads it when it opens a deadline
    (`pbem.record.store.current_step`); None when nobody is asked (the game over)."""
    asked = eng.requests(state)
    return seated(asked[0].step, state) if asked else None


def open_step(step: object, join: bool = False) -> bool:
    """Whether `step` (`receipts._steps`' value: a seat-wise step id, or a marker) is a step with a computed deadline:
    not "no step" (the game over), and not the join step unless `join` (its moves are chained: `joins`)."""
    return isinstance(step, tuple) and bool(step) and step[0] != "no step" and (join or step != (JOIN,))


def computed(
    rows: list[dict[str, Any]], step: Callable[[int], object], paced: tuple[timedelta, datetime], join: bool = False
) -> list[Due | None]:
    """For each k from 0 to len(rows): the deadline in force once the first k entries of `rows` are applied (None: no
    step with a computed deadline is open).  `step(k)`: the step open then (the replay's, `receipts._steps`); `join`:
    the join step's deadline is computed too (`joins`)."""
    length, opened = paced
    first = Due(_plus(opened, length), 0, "the game's first step opened then")
    now: Due | None = first if open_step(step(0), join) else None
    out = [now]
    for k, row in enumerate(rows, 1):
        if "lines" in row:
            here, at = step(k), _time(row.get("at"))
            if not open_step(here, join) or at is None:
                now = None
            elif row.get("kind") in ("deadline", UNDO) or here != step(k - 1) or now is None:
                what = "reopened" if here == step(k - 1) else "opened"
                now = Due(_plus(at, length), k, f"the step {what} by input {row.get('seq')} at {at:%Y-%m-%d %H:%M} UTC")
        elif row.get("kind") == "moderator" and isinstance(data := row.get("data"), dict) and "deadline" in data:
            moved = _time(data.get("deadline"))
            if moved is not None and open_step(step(k), join):
                now = Due(moved, k, f"the moderator's {data.get('action')} event (entry #{k} of the export)")
        out.append(now)
    return out


class Told:
    """`computed`'s deadlines indexed by place: the places with none, and the places of each deadline to the minute,
    each in order, so that a mail's window of places is searched by bisection.  `unlike` scanned the window for each
    mail: a hostile export whose reader sees no entry for a long stretch, and a mailbox of many reports with their
    heads before it, cost the reports times the stretch (costs16)."""

    def __init__(self, dues: list[Due | None]) -> None:
        self.dues = dues
        self.none = [k for k, d in enumerate(dues) if d is None]
        self.places: dict[datetime, list[int]] = {}
        for k, d in enumerate(dues):
            if d is not None:
                self.places.setdefault(d.when.replace(second=0, microsecond=0), []).append(k)

    def unlike(self, at: int, upto: int, stated: datetime) -> Due | None:
        """The deadline in force at `at` when the deadline `stated` (to the minute) is none of those in force from
        `at` to before `upto` (a mail written after the entries up to its head, before the next its reader may see),
        else None.  A place with none computed (the game over; the join step of a record that does not chain its
        moves) accepts any."""
        end = min(max(upto, at + 1), len(self.dues))
        if _within(self.none, at, end) or _within(self.places.get(stated, []), at, end):
            return None
        return self.dues[at]


def _within(places: list[int], start: int, end: int) -> bool:
    """Whether one of the sorted `places` is from `start` to before `end`."""
    i = bisect.bisect_left(places, start)
    return i < len(places) and places[i] < end


def join_kept(
    rows: list[dict[str, Any]], step: Callable[[int], object], dues: list[Due | None], length: timedelta
) -> tuple[str, list[str]]:
    """What the moderator did with the join step's deadline (`computed` with `join`), from the record alone: (why the
    record is refused, "" if it is not; warnings).  Refused: a `join-missing` event before the deadline in force, or
    moving it elsewhere than a step length after itself (pbem writes it when the deadline has passed, and moves it so).
    Warned of: the moderator's start, or his giving away the seat of a player who had not joined, before the deadline
    the players were told (they had until then; once it has passed pbem asks him to start or replace, so either
    before the next move is his to make); and a JOIN or a start taken more than `OUTAGE` after the deadline in force
    with no event that moved it (the step kept open outside the record: pbem chains each move)."""
    gone, early, late = (Alike(w) for w in (GIVEN_AWAY, STARTED_EARLY, TAKEN_LATE))  # at most `ALIKE` each, costs19
    joined: set[object] = set()
    salts = [j for j, row in enumerate(rows) if row.get("kind") == "salts"]
    for k, row in enumerate(rows, 1):
        d, at = dues[k - 1], at_of(row)
        if d is None or at is None or step(k - 1) != (JOIN,):
            continue
        data = row.get("data") if row.get("kind") == "moderator" else None
        action = data.get("action") if isinstance(data, dict) else None
        if row.get("kind") == "join":
            joined.add(row.get("player"))
        if action == JOIN_MISSING and isinstance(data, dict):
            if how := _moved_untrue(k, at, d, _time(data.get("deadline")), length):
                return how, [*gone.out(), *early.out(), *late.out()]
        elif action == "replace" and isinstance(data, dict) and d.when - at > SLACK and not _passed(rows, d):
            if (who := data.get("player")) not in joined and gone.room(f"entry #{k}"):
                gone.lines.append(
                    f"WARNING: the moderator gave {who!s:.80}'s seat to {data.get('newcomer')!s:.80} (entry #{k} "
                    f"of the export) at "
                    f"{at:%Y-%m-%d %H:%M} UTC, {span(d.when - at)} before the join deadline the chain gives, "
                    f"{d.when:%Y-%m-%d %H:%M} UTC ({d.how}), before they had joined: they had been told they had until "
                    "then (unless they asked to leave)"
                )
        elif row.get("kind") == "start" and d.when - at > SLACK and not _passed(rows, d):
            if early.room(f"input {row.get('seq')}"):
                early.lines.append(_started_early(rows, salts, k, row, at, d))
        elif row.get("kind") in ("join", "start") and at - d.when > OUTAGE and late.room(f"input {row.get('seq')}"):
            late.lines.append(
                f"WARNING: input {row.get('seq')} ({row.get('kind')} {row.get('player') or 'by the moderator'}) was taken at "
                f"{at:%Y-%m-%d %H:%M} UTC, {span(at - d.when)} after the join deadline the chain gives, "
                f"{d.when:%Y-%m-%d %H:%M} UTC ({d.how}), with no event between that moved it: the join step was kept "
                "open outside the record (pbem chains each move of its deadline), unless pbem held it itself (down with "
                "outage_after off, its clock ahead)"
            )
    return "", [*gone.out(), *early.out(), *late.out()]


#: What `join_kept`'s warnings of each kind are, in the line counting those not shown.
GIVEN_AWAY = "seats given away before the join deadline"
STARTED_EARLY = "starts before the join deadline"
TAKEN_LATE = "JOINs or starts taken after the join deadline"


def _started_early(
    rows: list[dict[str, Any]], salts: list[int], k: int, row: dict[str, Any], at: datetime, d: Due
) -> str:
    """The warning of the moderator's start at entry #k, before the join deadline `d`: whose salt it went without."""
    # the first salts entry after this one, by bisection: a scan of the rest for each start was n squared (costs18)
    i = bisect.bisect_left(salts, k)
    missing = rows[salts[i]]["data"].get("missing") if i < len(salts) else None
    who = ", ".join(map(str, missing)) if isinstance(missing, list) and missing else "nobody"
    return (
        f"WARNING: the moderator started the game (input {row.get('seq')}) at {at:%Y-%m-%d %H:%M} UTC, "
        f"{span(d.when - at)} before the join deadline the chain gives, {d.when:%Y-%m-%d %H:%M} UTC "
        f"({d.how}), without the salt of {who}, who had been told they had until then"
    )


def _passed(rows: list[dict[str, Any]], d: Due) -> bool:
    """Whether the join deadline `d` was set by a `join-missing` event: the deadline the players were told had passed
    (pbem then tells the moderator to start or replace the missing, and a start before the next is his to make)."""
    data = rows[d.at - 1].get("data") if d.at > 0 else None
    return isinstance(data, dict) and data.get("action") == JOIN_MISSING


def _moved_untrue(k: int, at: datetime, d: Due, moved: datetime | None, length: timedelta) -> str:
    """Why the `join-missing` event at entry #k of the export is not one pbem writes ("" when it is): pbem writes it
    once the join deadline in force, `d`, has passed, and moves it one step length on from then."""
    said = f"the {JOIN_MISSING} event (entry #{k} of the export, {at:%Y-%m-%d %H:%M} UTC) says the join deadline "
    said += "passed"
    if d.when - at > SLACK:  # (a difference: a sum could pass the year 9999)
        return (
            f"{said}, {span(d.when - at)} before the join deadline the chain gives, {d.when:%Y-%m-%d %H:%M} UTC "
            f"({d.how}, plus the step length chained in the first input): the join step was closed early outside "
            "the record"
        )
    if moved != _plus(at, length):
        to = f"{moved:%Y-%m-%d %H:%M} UTC" if moved else "no time"
        return (
            f"{said} and moves it to {to}, but pbem moves it one step length ({span(length)}) on, to "
            f"{_plus(at, length):%Y-%m-%d %H:%M} UTC"
        )
    return ""


def at_of(row: dict[str, Any]) -> datetime | None:
    """When entry `row` was applied (its chained `at`); None when unreadable."""
    return _time(row.get("at"))


def _plus(at: datetime, length: timedelta) -> datetime:
    """`at` and `length` after it, or `LATEST` when that is past the latest time there is."""
    return at + length if LATEST - at > length else LATEST


def _time(value: object) -> datetime | None:
    try:
        at = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)
