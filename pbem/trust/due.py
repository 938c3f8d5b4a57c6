"""`pbem verify --mail`: no step's defaults applied before the deadline a report told the player.

A step's deadline is no entry of the chain: `pbem game extend`, a resume, an outage and an absence each record a
public moderator event, but a deadline edited in the database by hand leaves nothing, so defaults applied (and
orders refused as late) "after the deadline" could not be checked (second fairness red team, left open).  What
binds it is what each report states and what the chain records:

* every report states the deadline of the step then open ("Deadline: in 2 days, Wed 7 Jan 12:00 UTC.", or
  "Waiting for Bob; deadline ...", `pbem.render.asking.first_lines`), and so does a reminder ("Deadline:
  2026-01-07 12:00 UTC (in about 24 hours).", fairness11); its head places it on the chain;
* a deadline's defaults are a chained `deadline` input, whose `at` is when they were applied;
* pbem never moves a deadline back: a step opens with its deadline the game's step length after it opens (one
  length per game), an extension, a resume, an outage, an absence and a late report only move it later, an undo
  reopens a step a whole step length from then, a replaced seat keeps its due time.  One moderator action moves it
  to now, and records so: `pbem game process` (a public moderator event `process`, allowed only when the step
  asks nobody but players who resigned), after which the deadlines reports stated before it bind no more.

So in an honest record every `deadline` input of the same step after a report's head was applied no earlier than
the deadline that report stated (to the minute it prints).  Only of the same step: a step extended a week and
answered the next day is followed by one due two days later (fairness11: such an honest game was named).  One applied before is a mismatch: the deadline was moved earlier
outside the record.  The report's text is not signed (its head is), so it is the player's evidence, not proof for
others; the input's time is in the chain.  For the same reason no mail may state a step's deadline earlier than a
mail before it stated for the same step (`shrunk`): a reminder telling less time than the report that asked was
the moderator's word (fairness12); and, given several players' mail, mails written in the same state of the record
state the same deadline (`apart`), and so do one player's (`split`: their Dates do not order them).  The year, which a report does not print, is the one that puts the
stated weekday nearest the mail's own Date.  Pure; linear in the chain and the reports.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.trust.fold import UNDO
from pbem.trust.quote import clip

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
STATED = re.compile(
    r"(?:^Deadline: |; deadline )(?:in [^,\n]{1,40}, |now \(it was due )?"
    rf"({'|'.join(DAYS)}) (\d{{1,2}}) ({'|'.join(MONTHS)}) (\d\d):(\d\d) UTC",
    re.M,
)
MARK = "Private report for "
PROCESS = "process"  # the moderator event of a deadline moved to now (`pbem.app.processing`)


def stated(text: str, sent: float) -> datetime | None:
    """The deadline a report's opening lines state (before the line naming its reader), in the year that puts its
    weekday nearest `sent` (the mail's Date as a timestamp; 0 when unknown); None when it states none."""
    end = text.find(MARK)
    m = STATED.search(text, 0, end if end >= 0 else len(text))
    if m is None:
        return None
    day, month, hour, minute = int(m.group(2)), MONTHS.index(m.group(3)) + 1, int(m.group(4)), int(m.group(5))
    near = datetime.fromtimestamp(sent, UTC) if sent else None
    years = [near.year - 1, near.year, near.year + 1] if near else []
    found = []
    for year in years:
        try:
            when = datetime(year, month, day, hour, minute, tzinfo=UTC)
        except ValueError:
            continue
        if DAYS[when.weekday()] == m.group(1):
            found.append(when)
    if not found or near is None:
        return None
    return min(found, key=lambda w: abs(w - near))


def left_untrue(text: str, sent: float) -> str:
    """Why the time left a report's opening lines state ("in 2 days, Wed 7 Jan 12:00 UTC") is not what pbem counts
    from the mail's Date to the deadline they state ("" when it is, or when they state none or the Date is unknown).
    A report is rendered at its Date (`pbem.mail.outbound.outgoing`: "now" is the time it is written), so an old
    report sent again later under its true head, telling "in 2 days" where a day was left, is named (fairness12).
    The deadline is printed to the minute: each count from a deadline within that minute is pbem's."""
    end = text.find(MARK)
    m = STATED.search(text, 0, end if end >= 0 else len(text))
    when = stated(text, sent)
    if m is None or when is None:
        return ""
    from pbem.render.asking import due_phrase

    said = m.group(0).removeprefix("Deadline: ").removeprefix("; deadline ")
    ref = datetime.fromtimestamp(sent, UTC)
    counts = {due_phrase(when + timedelta(seconds=s), ref).removesuffix(")") for s in (0, 59.999)}
    if said in counts:
        return ""
    return f"it says the deadline is {said!r}, where from its Date pbem counts {sorted(counts)[0]!r}"


def windows(rows: list[dict[str, Any]]) -> list[int]:
    """For each k from 0 to len(rows): the position of the last input among the first k entries (0: none).  Two
    places with the same value have the same state: no input came between them."""
    out = [0]
    for position, row in enumerate(rows, 1):
        out.append(position if "lines" in row else out[-1])
    return out


def early(
    rows: list[dict[str, Any]], reports: list[tuple[int, str, datetime]], step: Callable[[int], object] | None = None
) -> list[tuple[int, str]]:
    """Each (position, what) of a `deadline` input of `rows` (the chain, in order) applied before the latest
    deadline a report of `reports` ((head's position, mail name, deadline stated)) stated for the same step, among
    those whose head comes before it and after the last `process` event and undo before it; and the first `deadline`
    input after a `process` event that defaulted a player the event did not name (it may move a deadline only for
    players who resigned).  `step(k)`: the step open once the first k entries are applied (the seed replays it);
    without it, the state itself (`windows`): a report binds a deadline input only when no input came between.
    A deadline stated binds its own step alone: a step extended a week that the players answered the next day is
    followed by one whose deadline is two days after that, earlier than the one stated."""
    ordered = sorted(reports, key=lambda r: r[0])
    key = step or windows(rows).__getitem__
    out = []
    i, processed = 0, None
    latest: dict[object, tuple[int, str, datetime]] = {}  # per step: the report that stated its latest deadline
    for position, row in enumerate(rows, 1):
        i = _take(ordered, i, position, key, latest)
        data: dict[str, Any] = row["data"] if isinstance(row.get("data"), dict) else {}
        if row.get("kind") == "moderator" and data.get("action") == PROCESS:
            latest = {}  # the deadline moved to now in the record: the deadlines stated before bind no more
            processed = {str(p) for p in data.get("players") or ()}
            continue
        if row.get("kind") == UNDO and "lines" in row:
            latest = {}  # a step opened again has a whole step length from the undo, whatever was stated of it
        if row.get("kind") != "deadline" or "lines" not in row:
            continue
        if processed is not None and (others := sorted(_defaulted(rows, position) - processed)):
            named = f"{', '.join(others)}, whom the moderator's process event before it did not name"
            why = "it moves a deadline to now only when the step asks nobody but players who resigned"
            out.append((position, f"the defaults of input {row['seq']} (the deadline) were applied for {named}: {why}"))
        processed = None
        if (bound := latest.get(key(position - 1))) is not None and (said := _before(row, bound)):
            out.append((position, said))
    return out


def shrunk(
    rows: list[dict[str, Any]],
    reports: list[tuple[int, str, datetime, float]],
    step: Callable[[int], object] | None = None,
) -> list[tuple[int, str]]:
    """Each (head's position, what) of a mail of `reports` ((head's position, mail name, deadline stated, Date as a
    timestamp)) stating, for a step, a deadline earlier than a mail before it stated for the same step, with no
    `process` event or undo between their heads (`step` as for `early`).  pbem never moves a deadline back, so a
    reminder stating less time than the report that asked (fairness12: a reminder is the moderator's word until
    its deadline falls) is a deadline shrunk outside the record.  Mails in the order of their heads, then Dates."""
    key = step or windows(rows).__getitem__
    resets = [n for n, row in enumerate(rows, 1) if _resets(row)]
    latest: dict[object, tuple[int, str, datetime]] = {}
    out, j = [], 0
    for at, name, when, _ in sorted(reports, key=lambda r: (r[0], r[3])):
        while j < len(resets) and resets[j] <= at:
            latest, j = {}, j + 1
        k = key(at)
        was = latest.get(k)
        if was is not None and when < was[2]:
            out.append(
                (
                    at,
                    f"{name} stated the deadline {when:%a %d %b %Y %H:%M} UTC, {span(was[2] - when)} earlier than "
                    f"the one {was[1]} stated before it for the same step ({was[2]:%a %d %b %Y %H:%M} UTC), "
                    "and pbem never moves a deadline back",
                )
            )
        elif was is None or when > was[2]:
            latest[k] = (at, name, when)
    return out


#: How long after a deadline an order may still be signed and read in its step honestly: pbem reads the mail that
#: came before it applies a deadline, in the first poll after it (a poll every few minutes, an hour allowed).
LAG = timedelta(hours=1)
#: How long after a deadline pbem applies it at the latest with `[games] outage_after` at its default: a longer gap
#: between two runs is an outage, recorded as a moderator event that moves the deadline later.
OUTAGE = timedelta(hours=6)
#: The moderator events that keep a step's deadline (the others may move it later: an extension, a pause and its
#: resume, an outage, an absence, a report held, a process event).
KEEPS = frozenset({"say", "address", "replace", "resign", "abandon"})


def late(
    rows: list[dict[str, Any]],
    reports: list[tuple[int, str, datetime]],
    signed: dict[int, int],
    step: Callable[[int], object] | None = None,
) -> list[tuple[int, str]]:
    """Each (position, what) of an input of `rows` applied too late for the latest deadline a report of `reports`
    ((head's position, mail name, deadline stated)) stated for its step, with no entry between that may move the
    deadline later (a moderator event not of `KEEPS`, an undo), or later than the deadline such an event states
    (an extension, an outage, an absence, a report held, a resume: the new deadline is in its chained data).  `step`
    as for `early`.  Two ways (fairness15):

    * an input whose player's provider signed it (`signed`: position -> the signature's t=,
      `pbem.trust.dkim.stated_at`) more than `LAG` after that deadline: a late order accepted, read as an input with
      no `deadline` input defaulting its player first; the deadline was stretched for one player outside the record
      (a due time edited in the database, the poll held).  Any player's reports that state the step's deadline
      ("Waiting for Alice; deadline ...") bind it;
    * a `deadline` input applied more than `OUTAGE` after it: the reader was told an earlier deadline than the game
      had (another player may have been told the true one), which their own mail alone showed nowhere.

    Warnings, not proof: pbem holds a deadline itself, with nothing in the record, while a report is undelivered,
    while its clock is found ahead, and while it is down with `[games] outage_after` off or longer."""
    ordered = sorted(reports, key=lambda r: r[0])
    key = step or windows(rows).__getitem__
    latest: dict[object, tuple[int, str, datetime]] = {}
    out, i = [], 0
    for position, row in enumerate(rows, 1):
        i = _take(ordered, i, position, key, latest)
        data: dict[str, Any] = row["data"] if isinstance(row.get("data"), dict) else {}
        if (row.get("kind") == "moderator" and data.get("action") not in KEEPS) or _resets(row):
            latest = {}  # the deadline may have moved later in the record: those stated before bind no more
            if (moved := _at({"at": data.get("deadline")})) is not None and not _resets(row):
                latest[key(position)] = (  # chained: named by its place on the export (a mail, by its Record #)
                    position,
                    f"the moderator's {data.get('action')} event (entry #{position} of the export)",
                    moved,
                )
        bound = latest.get(key(position - 1)) if "lines" in row else None
        if bound is not None and (said := _late_by(row, signed.get(position), bound)):
            out.append((position, said))
    return out


def _late_by(row: dict[str, Any], t: int | None, bound: tuple[int, str, datetime]) -> str:
    """Why input `row` (signed at `t`, None: not known) came too late for the deadline `bound` stated ("" if not)."""
    if row.get("kind") == "deadline":
        when, allowed = _at(row), OUTAGE
        what = f"the defaults of input {row['seq']} (the deadline) were applied"
        why = "with no entry between that moved it: you were told an earlier deadline than the game had (were the "
        why += "other players told this one?)"
    else:
        when, allowed = _stamp(t), LAG
        what = f"input {row['seq']} ({row.get('player')}) was signed by its provider"
        why = "yet it was applied, and no entry between moved the deadline: a late order accepted, the deadline "
        why += "stretched for one player"
    if when is None or when - bound[2] <= allowed:  # (a difference: a deadline of the year 9999 plus `allowed` raised)
        return ""
    return (
        f"{what} at {when:%Y-%m-%d %H:%M} UTC, {span(when - bound[2])} after the deadline "
        f"{bound[2]:%a %d %b %Y %H:%M} UTC that {bound[1]} stated for its step, {why}"
    )


def _stamp(t: int | None) -> datetime | None:
    """The signing time `t` (seconds since the epoch) as a UTC time; None when there is none or it is out of range."""
    try:
        return datetime.fromtimestamp(t, UTC) if t is not None else None
    except (OverflowError, OSError, ValueError):
        return None


def epochs(rows: list[dict[str, Any]]) -> list[int]:
    """For each k from 0 to len(rows): how many entries among the first k may have moved the deadline (an input, any
    of which may open a step, reopen one or undo; a moderator event: an extension, a pause or resume, an outage, an
    absence, a report held, a process event).  Two places with the same value had the same deadline."""
    out = [0]
    for row in rows:
        out.append(out[-1] + ("lines" in row or row.get("kind") == "moderator"))
    return out


def apart(boxes: list[tuple[str, list[tuple[int, int, str, datetime]]]]) -> list[str]:
    """What differs between the deadlines several players' mail stated in the same state ((whose mail, its stated
    deadlines as (`epochs` value, head's position, mail name, deadline)) per mailbox): one line per state where two
    mailboxes part.  Every change of a deadline comes with an entry of `epochs` and a game has one deadline at a
    time, so every mail written while none came between states the same one, whoever it went to: a player told
    less time (or more) than the others is named, which their own mail alone cannot show (fairness12)."""
    first: dict[int, tuple[str, int, str, datetime]] = {}
    out = []
    for whose, reports in boxes:
        for epoch, at, name, when in reports:
            was = first.setdefault(epoch, (whose, at, name, when))
            if was[0] != whose and was[3] != when:
                first[epoch] = (whose, at, name, when)  # one line a state
                out.append(
                    f"{whose}'s {name} stated the deadline {when:%a %d %b %Y %H:%M} UTC and {was[0]}'s "
                    f"{was[2]} {was[3]:%a %d %b %Y %H:%M} UTC, with no entry between them that "
                    "moves a deadline: a game has one deadline at a time, so one of them was told another deadline "
                    "than the game had"
                )
    return out


def split(stated: list[tuple[int, int, str, datetime]]) -> list[tuple[int, str, tuple[str, str]]]:
    """Each (head's position, what, the two mails' names) of a mail of one mailbox stating another deadline than a mail before it in the
    same known state ((`epochs` value, head's position, mail name, deadline), `receipts._pinned`).  `shrunk` takes
    two mails of one head in the order of their Dates, which the moderator writes: a reminder telling less time,
    dated before the report that asked, was no deadline shrunk (fairness13).  A state has one deadline whatever the
    mails' order, so any two that differ are named, as `apart` names them across mailboxes."""
    first: dict[int, tuple[int, int, str, datetime]] = {}
    out = []
    for row in stated:
        was = first.setdefault(row[0], row)
        if was[3] != row[3]:
            out.append(
                (
                    row[1],
                    f"{row[2]} stated the deadline {row[3]:%a %d %b %Y %H:%M} UTC and {was[2]} "
                    f"{was[3]:%a %d %b %Y %H:%M} UTC, with no entry between them that moves a "
                    "deadline, whatever their Dates say: a game has one deadline at a time",
                    (row[2], was[2]),
                )
            )
    return out


def unasked(
    rows: list[dict[str, Any]],
    reports: list[tuple[int, str, datetime]],
    step: Callable[[int], object],
    seat: list[str],
) -> list[tuple[int, str]]:
    """Each (position, what) of a `deadline` input of `rows` that applied the defaults of a name of `seat` (the reader's
    names, theirs first) in a step that none of `reports` (the reader's mails, as (head's position, mail name, any))
    with its head before that input was written in (`step`, the replayed game's, as for `early`).  pbem mails every player a step asks the report that asks them, and reminds
    them before its deadline; a report withheld that listed no event (`told.untold` names one that listed some)
    leaves nothing in their mail but the defaults applied for them (twentieth round).  A name that resigned before
    the input is owed nothing.  Pure; linear in the chain and the reports."""
    ordered = sorted(reports, key=lambda r: r[0])
    names, resigned, told_of = set(seat), set(), set()
    out, i = [], 0
    for position, row in enumerate(rows, 1):
        while i < len(ordered) and ordered[i][0] < position:
            told_of.add(step(ordered[i][0]))
            i += 1
        data = row.get("data")
        if row.get("kind") == "moderator" and isinstance(data, dict) and data.get("action") == "resign":
            resigned.add(str(data.get("player")))
        if row.get("kind") != "deadline" or "lines" not in row or step(position - 1) in told_of:
            continue
        if mine := sorted((_defaulted(rows, position) & names) - resigned):
            out.append(
                (
                    position,
                    f"the defaults of input {row['seq']} (the deadline) were applied at {_when(row)} for "
                    f"{', '.join(mine)}, but none of your mails before it (no report, no reminder, no answer) was "
                    "written in that step",
                )
            )
    return out


#: What a report says first when its step asks nothing of its reader (`pbem.render.asking.first_lines`).
NOTHING = re.compile(r"^Nothing is asked of you now\.$", re.M)


def asks_nothing(text: str) -> bool:
    """Whether the report `text` says, in its opening lines (before the line naming its reader, which are pbem's own:
    `stated`), that nothing is asked of its reader: written while no step asked them, it tells them of no step that
    did.  Without the seed (a running game's export) the replay cannot say where the step that applied a player's
    defaults opened, and `unasked_unseeded` took such a report, written after the last restart but before the
    step that asked them opened (a turn passed round the table), as telling them of it (fairness22's limit,
    fairness27)."""
    end = text.find(MARK)
    return end >= 0 and NOTHING.search(text, 0, end) is not None


def unasked_unseeded(
    rows: list[dict[str, Any]],
    reports: list[tuple[int, str, datetime]],
    seat: list[str],
    spans: list[tuple[int, int]] | None = None,
) -> list[tuple[int, str]]:
    """`unasked` without the seed (a running game's export: no replay, so no step): each `deadline` input of `rows`
    that applied the defaults of a name of `seat` when none of `reports` has its head from the last entry that
    started a step again before it (a `deadline` input or an undo: pbem's pace rule, `paced.computed`) up to it.
    The step that input closed opened within that span, so a mail written in the step lies in it: what this names,
    `unasked` names once the seed is out.  Weaker: a step opened after a mail the span holds is not named, unless the
    caller leaves out the reports that asked the reader nothing (`asks_nothing`).  `spans`: each mail's place as
    (first, last) possible entry numbers, both rising (`pbem.trust.receipts._placed`, the public export, where a head
    after an entry hidden from the public is not listed): a mail that may lie in the span counts as written in it.
    Pure; linear in the chain and the reports."""
    if spans is None:
        spans = [(r[0], r[0]) for r in sorted(reports, key=lambda r: r[0])]
    names, resigned = set(seat), set()
    out, since, i = [], 0, 0
    for position, row in enumerate(rows, 1):
        data = row.get("data")
        if row.get("kind") == "moderator" and isinstance(data, dict) and data.get("action") == "resign":
            resigned.add(str(data.get("player")))
        if "lines" not in row or row.get("kind") not in ("deadline", UNDO):
            continue
        while i < len(spans) and spans[i][1] < since:
            i += 1
        told = i < len(spans) and spans[i][0] < position
        if (
            row.get("kind") == "deadline"
            and not told
            and (mine := sorted((_defaulted(rows, position) & names) - resigned))
        ):
            out.append(
                (
                    position,
                    f"the defaults of input {row['seq']} (the deadline) were applied at {_when(row)} for "
                    f"{', '.join(mine)}, but none of your mails (no report, no reminder, no answer) was written since "
                    "the step was last started again",
                )
            )
        since = position
    return out


def _take(
    ordered: list[tuple[int, str, datetime]],
    i: int,
    position: int,
    key: Callable[[int], object],
    latest: dict[object, tuple[int, str, datetime]],
) -> int:
    """Each report of `ordered` from the `i`th whose head lies before `position` kept in `latest` when it states its
    step's (`key`) latest deadline so far; the index of the first report not taken."""
    while i < len(ordered) and ordered[i][0] < position:
        k = key(ordered[i][0])
        if k not in latest or ordered[i][2] > latest[k][2]:
            latest[k] = ordered[i]
        i += 1
    return i


def _resets(row: dict[str, Any]) -> bool:
    """Whether entry `row` ends what was stated of deadlines before it: a `process` event or an undo."""
    data = row.get("data")
    if row.get("kind") == "moderator" and isinstance(data, dict) and data.get("action") == PROCESS:
        return True
    return row.get("kind") == UNDO and "lines" in row


def _defaulted(rows: list[dict[str, Any]], position: int) -> set[str]:
    """The players whose defaults the events right after the input at `position` (1-based) state: the `default`
    event everyone sees ("Bob sent no orders for this step by the deadline; the published default was applied.",
    `pbem.engine.base.apply_defaults`) or the `default-orders` event its player alone sees (fairness28: the public
    export lists the first only, and was read as naming nobody).  Read by index: a slice copied the rest of the chain
    for each input after a `process` event, chain times inputs (costs10)."""
    players = set()
    for at in range(position, len(rows)):
        row = rows[at]
        if "visibility" not in row:  # the next input: the events of this one are over
            break
        if row.get("kind") in ("default", "default-orders") and isinstance(row.get("data"), dict):
            players.add(str(row["data"].get("player")))
    return players


def _before(row: dict[str, Any], latest: tuple[int, str, datetime]) -> str:
    """Why the `deadline` input `row` was applied too early for the deadline `latest` stated ("" if it was not)."""
    at = _at(row)
    if at is None or at >= latest[2]:
        return ""
    return (
        f"the defaults of input {row['seq']} (the deadline) were applied at {at:%Y-%m-%d %H:%M} UTC, "
        f"{span(latest[2] - at)} before the deadline {latest[2]:%a %d %b %Y %H:%M} UTC that {latest[1]} stated, "
        "and pbem never moves a deadline back"
    )


def _when(row: dict[str, Any]) -> str:
    at = _at(row)
    return f"{at:%Y-%m-%d %H:%M} UTC" if at is not None else clip(str(row.get("at")))


def _at(row: dict[str, Any]) -> datetime | None:
    """When entry `row` was applied (its chained `at`, UTC when it names no zone); None when unreadable."""
    try:
        at = datetime.fromisoformat(str(row.get("at")))
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def span(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:.1f} hours" if hours < 48 else f"{hours / 24:.1f} days"
