"""`pbem verify --mail`: orders held until the deadline that the deadline never applied, worked out again.

In a game that resolves at the deadline, pbem answers a message of valid orders "held until the deadline" and lists
them as on file; no input is recorded until the deadline, which applies each held message in arrival order
(`pbem.app.deadlines.decide_deadline`) and records an input naming it.  A held message no input names failed there:
its lines were refused at the state the deadline met.  That was the moderator's word (eighth round): he could tell
Alice her vote was on file, drop it at the deadline and let her default be applied, and every check passed ("not
compared").  What the deadline does with held lines is a pure function of the state, the player and the lines, so
once the seed is out the state is replayed and pbem's reading (`pbem.trust.refused.Reread`) run on the lines the
acknowledgement listed as on file: lines it accepts at every state the deadline's run of held inputs went through
were dropped, not refused.  Pure; one replay, at most `STATES` readings a message.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pbem.trust import refused, shown
from pbem.trust.quote import clip

STATES = 32  # states of one deadline's run read for one held message (as `pbem.trust.refused.STATES`)


@dataclass(frozen=True)
class Held:
    """An acknowledgement of orders held until the deadline whose message no input of the export applies."""

    name: str  # the mail's name, for the problem
    received: str  # when the export records the message it answers as received
    lines: list[str]  # the orders it listed as on file
    message: str = ""  # the Message-ID of the message it answers (`pbem.trust.receipts.message_key`)


def _when(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


class _Windows:
    """For each time a message was held since, the input positions whose states it may have met at its deadline: the
    inputs of the first deadline run after it (the held messages it applied, in arrival order, and its own input of
    defaults, all recorded at one time; a run whose held orders ended the step has no input of its own) and the input
    before them; None when no deadline came after it.  `held`: the Message-IDs of the held messages, as the export
    gives them.

    The chain's inputs are read once: a deadline's or a held message's input and its time, the running latest of
    those times (the first input at or after a time is the first where that latest reaches it, by bisection), and the
    held messages' inputs by their time.  Each held message and each notice read the whole chain again, held
    messages times the chain (500 and 2,000 steps of a held message: 0.19 and 3.28 s, costs10).  A time without a
    zone is read as UTC (compared with one that has, it raised)."""

    def __init__(self, rows: list[dict[str, Any]], held: set[str]) -> None:
        self.inputs = [i for i, row in enumerate(rows, 1) if "lines" in row]
        self.due: list[tuple[int, datetime]] = []  # (index in `inputs`, time) of each deadline's or held input
        self.latest: list[datetime] = []  # the latest of those times up to each
        self.runs: dict[datetime, list[int]] = {}  # a held message's input (index in `inputs`) by its time
        for k, i in enumerate(self.inputs):
            row = rows[i - 1]
            deadline = row.get("kind") == "deadline"
            if not deadline and not (row.get("kind") == "orders" and row.get("message_id") in held):
                continue
            at = _when(row.get("at"))
            if at is None:
                continue
            at = _utc(at)
            self.due.append((k, at))
            self.latest.append(max(at, self.latest[-1]) if self.latest else at)
            if not deadline:
                self.runs.setdefault(at, []).append(k)

    def of(self, received: datetime) -> list[int] | None:
        j = bisect_left(self.latest, _utc(received))
        if j == len(self.latest):
            return None
        first, when = self.due[j]
        run = self.runs.get(when, [])
        after = [self.inputs[k] for k in run[bisect_left(run, first) :]]
        # (the defaults' input comes after every held message)
        return [self.inputs[first - 1] if first > 0 else 0, *after]


def _utc(at: datetime) -> datetime:
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at


def untrue(
    doc: dict[str, Any], rows: list[dict[str, Any]], held: list[Held], seat: list[str], reread: refused.Reread
) -> tuple[list[str], int, int]:
    """(what differs for each held message whose lines pbem's reading accepts at every state its deadline may have
    met, the count compared, the count with no deadline after it).  Raises as `pbem.trust.shown.Replay`."""
    ids = {
        str(m.get("message_id"))
        for m in doc.get("messages") or ()
        if isinstance(m, dict) and m.get("outcome") == "held"
    }
    windows = []
    within = _Windows(rows, ids)
    for h in held:
        when = _when(h.received)
        windows.append(within.of(when) if when is not None else None)
    replay = shown.Replay(doc, rows, {q for w in windows if w for q in w[:STATES]})
    out: list[str] = []
    compared = 0
    for h, window in zip(held, windows, strict=True):
        if window is None or not h.lines:
            continue
        compared += 1
        if all(_accepts(replay, q, seat, h.lines, reread) for q in window[:STATES]):
            out.append(
                f"{h.name} put {clip('; '.join(h.lines))} on file until the deadline, but the deadline applied "
                "no input from that message, and pbem's reading of those lines accepts them at the state the deadline "
                "met: your held orders were dropped, not refused"
            )
    return out, compared, sum(1 for w in windows if w is None)


WHY = "Why each line could not be applied:"  # the held_failed notice's list of lines and reasons follows


def notice(text: str) -> list[tuple[str, str]] | None:
    """(line, reason) of each line a held_failed notice's text quotes ("  'TRIBUTE Gold 3': why"), in its order;
    None when the text is no such notice."""
    rows = text.split("\n")
    start = next((k for k, row in enumerate(rows) if row.rstrip() == WHY), None)
    if start is None:
        return None
    out = []
    for row in rows[start + 1 :]:
        line, sep, why = row.rstrip()[3:].partition("': ")
        if not row.startswith("  '") or not sep:
            break
        out.append((line, why))
    return out


def failed_untrue(
    doc: dict[str, Any],
    rows: list[dict[str, Any]],
    held: list[Held],
    notices: list[tuple[str, list[tuple[str, str]]]],
    seat: list[str],
    failed: refused.Failed,
) -> tuple[list[str], int]:
    """(what differs for each held_failed notice, by its name and its (line, reason) pairs, whose reasons are not
    pbem's reading of the held lines at any state the deadline may have met, the count compared).  A notice is
    compared with the held messages no input applies whose lines on file hold every line it quotes; one no such
    message holds is left out.  The reasons were the moderator's word: he could tell Alice her held vote "is not a
    legal choice now" when the deadline met a state where it was, or give any reason for a line pbem refused for
    another.  Raises as `pbem.trust.shown.Replay`."""
    ids = {
        str(m.get("message_id"))
        for m in doc.get("messages") or ()
        if isinstance(m, dict) and m.get("outcome") == "held"
    }
    cases = []
    within = _Windows(rows, ids)
    holding = _holding(held)
    windows: dict[int, list[int] | None] = {}  # each held message's, read once
    for name, said in notices:
        quoted = frozenset(_norm(line) for line, _ in said)
        pairs = []
        for k in holding(quoted) if quoted else []:
            if k not in windows:
                when = _when(held[k].received)
                windows[k] = within.of(when) if when is not None else None
            if (window := windows[k]) is not None:
                pairs.append((held[k], window))
        if pairs:
            cases.append((name, said, pairs))
    replay = shown.Replay(doc, rows, {q for _, _, pairs in cases for _, w in pairs for q in w[:STATES]})
    out: list[str] = []
    for name, said, pairs in cases:
        read: list[tuple[str, str]] = []
        for h, window in pairs:
            for q in window[:STATES]:
                got = _failed(replay, q, seat, h.lines, failed, said)
                if _same(got, said):
                    break
                read = read or got
            else:
                continue
            break
        else:
            out.append(_differs(name, said, read))
    return out, len(cases)


def unfiled(
    notices: list[tuple[str, list[tuple[str, str]]]], held: list[Held], waiting: set[str]
) -> tuple[list[str], list[str]]:
    """(what differs for each held_failed notice quoting a line that no held message of the player put on file, a
    note for each that the player's mail cannot settle).  pbem sends that notice only for a held message the
    deadline could not apply, quoting its lines on file (`pbem.app.deadlines.decide_deadline`), and such a message
    stays "held" in the export with no input naming it: `waiting`, their Message-IDs.  A notice whose lines no
    acknowledgement of those messages listed as on file, when every one of them is acknowledged in the player's
    mail, tells the player of orders they never had on file (or none held at all): the moderator's words, once
    "not compared".  When some such message has no acknowledgement in the mail, its lines are unknown: a note."""
    out: list[str] = []
    notes: list[str] = []
    holding = _holding(held)
    known = {h.message for h in held}
    every = waiting <= known  # every held message the deadline left is acknowledged in the mail
    listed = clip("; ".join(line for h in held for line in h.lines)) if every else ""
    unread = ", ".join(f"<{clip(key, 80)}>" for key in sorted(waiting - known)[:3])
    for name, said in notices:
        quoted = frozenset(_norm(line) for line, _ in said)
        if not quoted or holding(quoted):
            continue
        lines = clip("; ".join(line for line, _ in said))
        if every:
            out.append(
                f"{name} says your held orders {lines} could not be applied at the deadline, but no held message of "
                + (
                    f"yours put them on file (the held messages the deadline did not apply listed {listed})"
                    if held
                    else "yours was left unapplied at a deadline: the export records none"
                )
            )
        else:
            notes.append(
                f"{name} quotes held orders ({lines}) that no acknowledgement in this mail put on file: the export's "
                f"held message {unread}, never applied, may hold them, but its acknowledgement is not in this folder "
                "(not compared: give the folder that holds it)"
            )
    return out, notes


def _holding(held: list[Held]) -> Callable[[frozenset[str]], list[int]]:
    """The held messages (their indexes, in order) that put every one of a notice's lines on file, asked of those
    holding the line fewest of them hold, once for each set of lines.  `unfiled` compared every notice with every
    held message (and joined all their lines, and compared the messages waiting with those acknowledged, again for
    each notice): notices times held messages, 100 and 400 of each 1.9 and 27 ms (costs10); `failed_untrue` too."""
    filed = [frozenset(_norm(line) for line in h.lines) for h in held]
    having: dict[str, list[int]] = {}
    for i, lines in enumerate(filed):
        for line in lines:
            having.setdefault(line, []).append(i)
    known: dict[frozenset[str], list[int]] = {}

    def holding(quoted: frozenset[str]) -> list[int]:
        if quoted not in known:
            fewest = min((having.get(line, []) for line in quoted), key=len)
            known[quoted] = [i for i in fewest if quoted <= filed[i]]
        return known[quoted]

    return holding


def _norm(line: str) -> str:
    """A line as the notice and the acknowledgement's list of orders on file are compared: its words, any case."""
    return " ".join(line.split()).casefold()


def _same(got: list[tuple[str, str]], said: list[tuple[str, str]]) -> bool:
    return [(_norm(line), why) for line, why in got] == [(_norm(line), why) for line, why in said]


def _failed(
    replay: shown.Replay,
    q: int,
    seat: list[str],
    lines: list[str],
    failed: refused.Failed,
    said: list[tuple[str, str]],
) -> list[tuple[str, str]]:
    """pbem's (line, reason) pairs for `lines` at the state kept at `q`: `said` when they are that for some name of
    the seat, else the first name's."""
    state = json.loads(json.dumps(replay.states[q], sort_keys=True))  # (as the record stores and loads it)
    first: list[tuple[str, str]] | None = None
    for player in seat:
        try:
            got = failed(replay.reader(state), state, player, list(lines))
        except (KeyError, ValueError, TypeError, IndexError, AttributeError):
            continue
        if _same(got, said):
            return got
        first = got if first is None else first
    return first or []


def _differs(name: str, said: list[tuple[str, str]], read: list[tuple[str, str]]) -> str:
    """How a held_failed notice's reasons differ from pbem's reading at the state the deadline met, in one phrase."""
    lines = clip("; ".join(line for line, _ in said))
    if not read:
        return (
            f"{name} says your held orders {lines} could not be applied at the deadline, but pbem's reading of them "
            "accepts them at the state the deadline met: they were dropped, not refused"
        )
    theirs = {_norm(line): why for line, why in read}
    for line, why in said:
        if theirs.get(_norm(line)) != why:
            want = f'"{clip(theirs[_norm(line)])}"' if _norm(line) in theirs else "no reason (it refuses other lines)"
            return (
                f"{name} says your held line '{clip(line)}' could not be applied at the deadline because "
                f'"{clip(why)}", where pbem\'s reading at the state the deadline met gives {want}'
            )
    return f"{name} leaves out lines pbem's reading refuses at the state the deadline met: " + clip(
        "; ".join(f"'{line}': {why}" for line, why in read if (line, why) not in said)
    )


def _accepts(replay: shown.Replay, q: int, seat: list[str], lines: list[str], reread: refused.Reread) -> bool:
    """Whether pbem's reading of `lines` for some name of the seat accepts them at the state kept at `q`."""
    state = json.loads(json.dumps(replay.states[q], sort_keys=True))  # (as the record stores and loads it)
    for player in seat:
        try:
            text, _ = reread(replay.reader(state), state, player, list(lines))
        except (KeyError, ValueError, TypeError, IndexError, AttributeError):
            continue
        if refused.block(text) is None:
            return True
    return False
