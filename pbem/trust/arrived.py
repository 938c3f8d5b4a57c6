"""`pbem verify --mail`: when each mail reached the player, by their own provider's stamp, against its Date and the chain.

Every time pbem holds is the moderator's clock: an entry's `at`, a mail's Date.  A moderator who holds a report back
(written, then sent hours later) or sets the clock back (`pbem poll --trust-clock` accepts a clock behind the record's
last run; an entry dated earlier than it was made hides a late order) leaves every such time consistent with every
other (twentieth fairness round).  One time is not his: the topmost `Received` field of a mail in the player's own
folder, which the player's provider stamped when the mail reached it (a provider adds its field above those the mail
came with, so the topmost is the last hop's).  Three readings, each a warning, since each has an honest cause too:

* `late`: a mail that arrived more than `LATE` after its Date was written, then held (the moderator, or pbem's outbox
  retrying while the mail server was down), or pbem's clock was behind: a report held back leaves its reader less
  time than it says;
* `ahead`: a mail that arrived more than `SKEW` before its Date was dated by a clock ahead of the provider's: the
  record's times (deadlines applied, orders read) are that much late;
* `rewound`: a mail dated more than `SKEW` after the next entry its reader may see (which its head does not hold)
  was written after that entry was dated: the record's clock was set back between them.  Times never go back along
  the chain (`pbem verify` refuses that), and pbem writes a mail after the entries its head holds and before the next
  one its reader may see, so no honest clock gives it.  Needs no `Received` field.

A `late` mail written while pbem's mail server could not take mail is pbem's to explain: when its outbox sends again
after failing for longer than `LATE`, every running game gets a public moderator event of action `unsent` stating
when sending failed from and to (`claims`; `pbem.app.unsent`).  A late mail written in such a window and arrived
within `LATE` of its end is noted with it (`excused`), not warned of; one it does not cover still is.  The claim is
the moderator's word, chained and dated, told to every player: a mail of the reader's written inside it that reached
them before its end was sent while the claim says nothing could be (`belied`), a WARNING (twenty-second round).

Pure; linear in the mails (a bounded look at each mail's header) and the chain.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

from pbem.trust.due import span, windows

#: A mail reaches its reader's provider within minutes of being sent; pbem sends what a poll wrote in that poll.
LATE = timedelta(hours=1)
#: How far two honest clocks (pbem's, a provider's) and one poll's run may part: NTP keeps clocks within seconds, and
#: the entries and mails of one poll are dated within its run.
SKEW = timedelta(minutes=15)
#: Bytes of a mail read for its header (pbem's headers are a few KB; a provider's Received fields add a few hundred).
MAX_HEAD = 64 * 1024
_END = re.compile(rb"\r?\n\r?\n")
_RECEIVED = re.compile(rb"^received:([^\n]*(?:\n[ \t][^\n]*)*)", re.I | re.M)


def arrival(raw: bytes) -> datetime | None:
    """When the mail `raw` reached the player's provider: the date after the last ";" of its topmost `Received` field,
    in UTC; None when it has none or it does not parse."""
    head = raw[:MAX_HEAD]
    end = _END.search(head)
    m = _RECEIVED.search(head, 0, end.start() if end else len(head))
    if m is None:
        return None
    stamp = " ".join(m[1].decode("latin-1").rpartition(";")[2].split())
    try:
        when = parsedate_to_datetime(stamp) if stamp else None
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return when.astimezone(UTC)


Dated = tuple[str, float, datetime | None]  # (mail name, Date as a timestamp (0: none), arrival)


def _date(stamp: float) -> datetime | None:
    try:
        return datetime.fromtimestamp(stamp, UTC) if stamp else None
    except (OverflowError, OSError, ValueError):
        return None


def late(mails: Iterable[Dated]) -> list[tuple[str, datetime, datetime]]:
    """(name, Date, arrival) of each mail that arrived more than `LATE` after its Date."""
    return [(name, d, a) for name, stamp, a in mails if a and (d := _date(stamp)) and a - d > LATE]


def ahead(mails: Iterable[Dated]) -> list[tuple[str, datetime, datetime]]:
    """(name, Date, arrival) of each mail that arrived more than `SKEW` before its Date."""
    return [(name, d, a) for name, stamp, a in mails if a and (d := _date(stamp)) and d - a > SKEW]


def at(row: dict[str, Any]) -> datetime | None:
    """An entry's chained `at` (UTC when it names no zone)."""
    try:
        when = datetime.fromisoformat(str(row.get("at")))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def rewound(
    rows: list[dict[str, Any]], mails: list[tuple[int, str, float]], seen: list[int]
) -> list[tuple[int, str, datetime, int, datetime]]:
    """(head's position, name, Date, entry's position, its `at`) of each mail of `mails` ((head's position, name,
    Date as a timestamp)) dated more than `SKEW` after the first entry after its head that its reader may see (`seen`,
    sorted), or the input that entry is an event of (an input and its events are written at once, at one time: a
    moderator event dated later after another player's hidden input is not one of its events, and taking that
    input's time named an honest answer written between them, fairness23)."""
    last, end, out = windows(rows), len(rows) + 1, []
    for head, name, stamp in mails:
        i = bisect.bisect_right(seen, head)
        if i == len(seen) or (d := _date(stamp)) is None:
            continue
        nxt = seen[i]
        if last[nxt] > head and at(rows[last[nxt] - 1]) == at(rows[nxt - 1]):  # the input written with it, at once
            nxt = last[nxt]  # (an event written later, a moderator's, is not the hidden input's before it: fairness23)
        if nxt < end and (when := at(rows[nxt - 1])) is not None and d - when > SKEW:
            out.append((head, name, d, nxt, when))
    return out


def said(delta: timedelta) -> str:
    """A span as the warnings print it (minutes under an hour)."""
    return span(delta) if delta >= timedelta(hours=1) else f"{int(delta.total_seconds() // 60)} minutes"


#: The action of the public moderator event claiming that pbem's mail server could not take mail (`pbem.app.unsent`).
UNSENT = "unsent"


def unsent_text(start: datetime, end: datetime) -> str:
    """The words of an `unsent` event, as pbem writes them and `pbem verify` requires them."""
    return (
        f"pbem's mail server could not take mail from {start:%Y-%m-%d %H:%M} UTC to {end:%Y-%m-%d %H:%M} UTC: "
        "mail written in that time was sent only then."
    )


@dataclass(frozen=True)
class Claim:
    """A chained claim that pbem's mail server could not take mail from `start` to `end` (entry `place`, 1-based)."""

    place: int
    start: datetime
    end: datetime


def _iso(value: object) -> datetime | None:
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return when.astimezone(UTC) if when is not None and when.tzinfo is not None else None


def claim_of(row: dict[str, Any]) -> tuple[datetime, datetime] | None:
    """(from, to) of an `unsent` event `row`, when it is one in pbem's form: two times with their zone, from before
    to, and to no later than the event's own `at` (by `SKEW`): nobody can say the server came back after saying so."""
    data = row.get("data")
    if row.get("kind") != "moderator" or not isinstance(data, dict) or data.get("action") != UNSENT:
        return None
    start, end, when = _iso(data.get("from")), _iso(data.get("to")), at(row)
    ok = start is not None and end is not None and when is not None and start < end <= when + SKEW
    return (start, end) if ok and start is not None and end is not None else None


class Claims:
    """Every `unsent` claim of the chain (`pbem verify` refuses one not in pbem's form), sorted by start, indexed so
    that each mail is held against them by one bisection: linear in the mails, however many claims."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        found = [Claim(k, *c) for k, row in enumerate(rows, 1) if (c := claim_of(row)) is not None]
        self.said = sorted(found, key=lambda c: (c.start, c.end))
        self._early = [c.start - SKEW for c in self.said]  # the failing run's own mail is dated a little before
        self._late = [c.start + SKEW for c in self.said]
        self._longest: list[Claim] = []  # of the claims up to each, the one ending last
        for x in self.said:
            self._longest.append(x if not self._longest or x.end > self._longest[-1].end else self._longest[-1])

    def excused(self, d: datetime, a: datetime) -> Claim | None:
        """The claim a mail dated `d` that reached its reader at `a` waited through: the latest starting before its
        Date, which it was written within and whose end it reached its reader within `LATE` of."""
        i = bisect.bisect_right(self._early, d)
        c = self.said[i - 1] if i else None
        return c if c is not None and d <= c.end and a - c.end <= LATE else None

    def belied(self, mails: Iterable[Dated]) -> list[tuple[str, datetime, datetime, Claim]]:
        """(name, Date, arrival, claim) of each mail written inside a claim (`SKEW` after its start) that reached its
        reader before its end (by `SKEW`): sent while the claim says nothing could be.  Each mail is held against
        the claim ending last of those started before it."""
        out = []
        for name, stamp, a in mails:
            if a is None or (d := _date(stamp)) is None or not (i := bisect.bisect_right(self._late, d)):
                continue
            c = self._longest[i - 1]
            if d < c.end and a < c.end - SKEW:
                out.append((name, d, a, c))
        return out


def witnesses(claim: Claim, doc: dict[str, Any], rows: list[dict[str, Any]], reader: str) -> list[str]:
    """The other players the record shows pbem wrote to inside `claim`'s window (their mails were held by the same
    outage, so their own mail can bear it out or belie it): each whose message the export lists as read inside it
    (pbem answers a player's mail about the game) or whose input a chain entry dated inside it applies (its
    acknowledgement), and everyone when a deadline was applied inside it (the reports of the next step).  Sorted,
    each once.  Empty: the record shows no mail to anyone else written inside the window, and the claim, excusing
    the reader's late mail, rests on the moderator's word alone (twenty-seventh round: an honest outage with only
    the reader's mail queued looks the same, so this is a note, not a warning).  Linear in the messages and rows."""
    names: set[str] = set()
    for m in doc.get("messages") or []:
        if isinstance(m, dict) and (read := _iso(m.get("received"))) is not None and claim.start <= read <= claim.end:
            names.add(str(m.get("player") or ""))
    for row in rows:
        when = at(row)
        if "lines" not in row or when is None or not claim.start <= when <= claim.end:
            continue
        if row.get("kind") == "deadline":
            names |= {str(p.get("name", "")) for p in doc.get("players") or [] if isinstance(p, dict)}
        names.add(str(row.get("player") or ""))
    return sorted(n for n in names if n and n != reader)


#: The moderator event of the outage rule (`pbem.app.outages`): pbem did not run from ``from`` to ``to``.
OUTAGE = "outage"


def gaps(rows: list[dict[str, Any]]) -> list[Claim]:
    """Each `outage` event of the chain as a Claim (entry `place`, 1-based): pbem says it did not run in that window,
    so it read no mail and sent none then (the outbox is sent by `pbem poll` alone)."""
    out = []
    for k, row in enumerate(rows, 1):
        data = row.get("data")
        if row.get("kind") == "moderator" and isinstance(data, dict) and data.get("action") == OUTAGE:
            start, end = _iso(data.get("from")), _iso(data.get("to"))
            if start is not None and end is not None and start < end:
                out.append(Claim(k, start, end))
    return out


def _inside(gap: Claim, when: datetime | None) -> bool:
    """Whether `when` lies well inside `gap`: more than `LATE` after its start (the run that started it may read and
    send for a while) and more than `SKEW` before its end."""
    return when is not None and gap.start + LATE < when < gap.end - SKEW


def ran_inside(doc: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    """WARNINGs for each `outage` whose window the export itself shows pbem running in: a player's message it read
    (``messages[].received``) or a player's input it applied well inside it (only `pbem poll` reads mail).  The
    outage rule moves deadlines later and excuses a report not written in that time; one claimed while pbem ran
    excuses a mail held or not written to one player (twenty-seventh round).  Linear in the messages and rows."""
    out = []
    for gap in gaps(rows):
        read = [
            str(m.get("message_id") or "")
            for m in doc.get("messages") or []
            if isinstance(m, dict) and m.get("player") and _inside(gap, _iso(m.get("received")))
        ]
        applied = [str(r.get("seq")) for r in rows if "lines" in r and r.get("player") and _inside(gap, at(r))]
        if read or applied:
            what = [f"{len(read)} message(s) of players read"] * bool(read) + [
                f"input(s) {', '.join(applied[:5])} applied"
            ] * bool(applied)
            out.append(
                f"WARNING: entry #{gap.place} says pbem did not run from {gap.start:%Y-%m-%d %H:%M} to "
                f"{gap.end:%Y-%m-%d %H:%M} UTC (an outage: deadlines moved later by the gap), but the export records "
                f"{' and '.join(what)} inside it: only a run of pbem reads mail, so it ran then, and the outage "
                "excuses a mail held or never written"
            )
    return out


def sent_inside(rows: list[dict[str, Any]], mails: Iterable[Dated]) -> list[tuple[str, datetime, Claim]]:
    """(name, arrival, outage) of each mail dated and delivered well inside an `outage` window (`_inside`): pbem
    wrote and sent it while the record says pbem did not run (the outbox is sent by `pbem poll` alone).  Both: a mail
    written before the window may reach its reader inside it, held by a relay (greylisting, a queue) after pbem sent
    it; one written inside it by a `pbem game` command waits for the next poll."""
    found = gaps(rows)
    if not found:
        return []
    return [
        (name, a, g)
        for name, stamp, a in mails
        for g in found
        if a is not None and _inside(g, a) and _inside(g, _date(stamp))
    ]
