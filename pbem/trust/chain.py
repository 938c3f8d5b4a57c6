"""The chained record: every entry of a game's history carries the hash of everything before it.

A game's history is one sequence of entries: each accepted input (a player's
orders, a deadline's defaults) and each event (engine events, press, the
moderator's public actions), in the order they were appended.  Each entry has

    hash = SHA-256(previous hash || canonical JSON of the entry)

where the previous hash is written as its 64 lowercase hex digits, the
canonical JSON is the entry's fields (below) in RFC 8785 form (sorted keys, no
spaces, UTF-8 text), and the chain starts from the seed commitment (the hash "before"
the first entry).  So no entry can be inserted, removed, reordered or
reworded without changing every later hash and the head, the last hash.

The order of the sequence follows from the entries themselves: input `k`
comes right before the events it produced (``input_seq = k``), and an event
recorded between inputs (press, a moderator action) carries the number of the
last input before it; so entries sort by ``(input_seq, input before events,
event seq)``.  Times are UTC ISO 8601, exactly as the export prints them.

This module is pure (no database); `pbem.record.store` appends with it and
`pbem.history.export.verify` checks with it.  The same few lines in any language
check an export (docs/export-format.md, "The chained record").
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
from datetime import UTC, datetime
from typing import Any

from pbem.trust.canonical import canonical as jcs


def iso(dt: datetime | None) -> str | None:
    """A time as the export prints it: UTC, ISO 8601 with the offset (naive times were stored as UTC)."""
    if dt is None:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).isoformat()


def canonical(entry: dict[str, Any]) -> bytes:
    """RFC 8785 (`pbem.trust.canonical`): the same bytes as sorted-key compact UTF-8 JSON for every entry."""
    return jcs(entry)


def link(previous: str, entry: dict[str, Any]) -> str:
    """The hash of `entry` following the hash `previous`."""
    return hashlib.sha256(previous.encode("ascii") + canonical(entry)).hexdigest()


def input_entry(
    seq: int,
    kind: str,
    player: str,
    lines: list[str],
    message_id: str | None,
    at: str | None,
    salt: str | None = None,
    pace: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An accepted input as chained (the fields of the export's `orders[]`, but its hash); `salt` when it has one,
    `pace` on a game's first input recorded since fairness16 (`paced`)."""
    return (
        ({"salt": salt} if salt else {})
        | ({"pace": pace} if pace else {})
        | {
            "entry": "input",
            "seq": seq,
            "kind": kind,
            "player": player,
            "lines": list(lines),
            "message_id": message_id,
            "at": at,
        }
    )


def entry_salt(seed: str, seq: int) -> str:
    """The salt of event `seq`: unknown to the players until the seed is revealed.

    Without it, a player holding the heads before and after a hidden event (the mail of their own orders
    brackets the events those orders caused) could hash every candidate (each card, each die, each time to
    the microsecond) until one matched, and learn what the event hides.  Public events get one too (games
    recorded before this rule salted only hidden ones): their entries hold the global numbers `seq` and
    `input_seq`, which the same guessing recovered from a mail's two heads, and those count every player's
    inputs, secret revisions included (docs/security.md)."""
    return hmac.new(seed.encode("utf-8"), f"pbem-entry-salt:{seq}".encode("ascii"), hashlib.sha256).hexdigest()[:32]


def input_salt(seed: str, seq: int) -> str:
    """The salt of input `seq`: every input is hidden from the other players until the end (orders hold ballots,
    discards, bids), and one that produces no hidden event would otherwise be bracketed by the heads before and
    after it, so another player could hash each guess of its lines until one matched.  Derived from the seed
    like `entry_salt`, under its own label."""
    return hmac.new(seed.encode("utf-8"), f"pbem-input-salt:{seq}".encode("ascii"), hashlib.sha256).hexdigest()[:32]


def event_entry(
    seq: int,
    input_seq: int,
    kind: str,
    text: str,
    visibility: Any,
    data: dict[str, Any],
    at: str | None,
    salt: str | None = None,
) -> dict[str, Any]:
    """An event as chained (the fields of the export's `events[]`, but its hash); `salt` only when it has one."""
    vis = visibility if isinstance(visibility, str) else list(visibility)
    return ({"salt": salt} if salt else {}) | {
        "entry": "event",
        "seq": seq,
        "input_seq": input_seq,
        "kind": kind,
        "text": text,
        "visibility": vis,
        "data": data,
        "at": at,
    }


#: `pace`'s mark that the join step's deadline moves are chained (`join-missing` events, fairness17): a game recorded
#: before chained the step length but moved its join deadline with no event, so its join deadline is not computed.
JOINS: dict[str, Any] = {"join": "chained"}


def paced(seconds: int, opened: datetime, join: bool = False) -> dict[str, Any]:
    """The game's step length as its first input chains it (`pace`): every step's deadline is computed from it
    (`pbem.trust.paced`), so that a deadline told to one player, or bent for every player with no event, is named
    (fairness16).  `opened`: when the game was created, its first step opened.  `join`: the game opened with a join
    step, whose deadline moves are chained (`paced.JOINS`, fairness17; a game without one keeps the form before)."""
    return {"step_seconds": int(seconds), "opened": iso(opened)} | (JOINS if join else {})


def from_export_order(o: dict[str, Any]) -> dict[str, Any]:
    return input_entry(
        o["seq"], o["kind"], o["player"], o["lines"], o["message_id"], o["at"], o.get("salt"), o.get("pace")
    )


def from_export_event(e: dict[str, Any]) -> dict[str, Any]:
    return event_entry(
        e["seq"], e["input_seq"], e["kind"], e["text"], e["visibility"], e["data"], e["at"], e.get("salt")
    )


def position(entry: dict[str, Any]) -> tuple[int, int, int]:
    """Where an entry stands in the sequence: inputs before the events they produced."""
    if entry["entry"] == "input":
        return (entry["seq"], 0, 0)
    return (entry["input_seq"], 1, entry["seq"])


def sequence(orders: list[dict[str, Any]], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The export's orders and events as one list of export rows, in chain order."""
    rows = [(position(from_export_order(o)), o) for o in orders] + [(position(from_export_event(e)), e) for e in events]
    return [row for _, row in sorted(rows, key=lambda r: r[0])]


def places(orders: list[dict[str, Any]], events: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int | None]]:
    """The rows of an export that lists only some entries (what its audience may see), in chain order, each with its
    1-based position in the whole chain, or None where hidden entries make it unknown.

    An event's position is its `input_seq` + its `seq`: every input up to the one it names and every earlier event
    come before it, nothing else does.  Input k's is k + the number of events before it (those naming an input
    before k): known when the listed event after it directly follows the listed event before it (or is event 1).
    `events` must be in `seq` order with `input_seq` never going back."""
    named = [e["input_seq"] for e in events]
    out: list[tuple[dict[str, Any], int | None]] = []
    for row in sequence(orders, events):
        if "text" in row:
            out.append((row, row["input_seq"] + row["seq"]))
            continue
        j = bisect.bisect_left(named, row["seq"])
        before = events[j - 1]["seq"] if j else 0
        known = j < len(events) and events[j]["seq"] == before + 1
        out.append((row, row["seq"] + before if known else None))
    return out


def entry_of(row: dict[str, Any]) -> dict[str, Any]:
    """The chained entry of one export row (an order has `lines`, an event `text`)."""
    return from_export_event(row) if "text" in row else from_export_order(row)


def first_break(start: str, rows: list[dict[str, Any]]) -> tuple[int, str]:
    """Follow the chain over `rows` (in chain order): (index of the first row whose hash is wrong or -1, head)."""
    head = start
    for i, row in enumerate(rows):
        head = link(head, entry_of(row))
        if row.get("hash") != head:
            return i, head
    return -1, head
