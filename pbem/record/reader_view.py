"""The record as one reader may know it: what a receipt shown to a player states (issue 26).

A receipt (`X-Pbem-Record: <n> <head>`, "Record #n") shown to player P counts
only the entries of the chain P may see (P's own inputs, the moderator's and
the deadline's inputs, events public or visible to P) and states the chain's
head right after the newest of them.  So another player's secret revisions,
and hidden events, move neither P's number nor P's head until something P may
see follows them, and even then P's number grows by one per entry P sees: it
tells nothing about how many hidden entries lie between.  The head still binds
the whole chain up to there (hidden entries included, salted), so `verify
--mail` checks it against the export as before (`pbem.trust.receipts`), at the
position of P's n-th visible entry.

One statement on the orders' primary key (game_id, seq) and the events' readers (`event_readers`, by its key:
an event hidden from the reader is never read) for the game, counting only what was appended since the reader's
last count; the caller owns the transaction.

Across processes (every cron run is one) the counts travel with the game's snapshot: each snapshot row
keeps every player's (entries, head) at its position (`snapshot_json`, `snapshots.readers_json`), a cache
like the state beside it, and `cached` brings them up to the game's newest event when it is loaded.  So a
poll states its readers' receipts without counting the record, and a report late in a long game costs what
one early in it does in a new process too.  Where the snapshot holds none (a row written before, or not
every player's count known), the counts are read as above.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlmodel import Session

from pbem.engine.base import PUBLIC
from pbem.record.db import fetch

_PUBLIC_JSON = json.dumps(PUBLIC)

# One statement of index probes and range scans on the orders' primary key (game_id, seq) and on the key of
# `event_readers` (game_id, reader, seq): what `player` may see of the entries after order :o and event :e (all
# of them with 0 and 0), the game's newest order and event with their hashes, and the hashes of the entries at :o
# and :e (what was counted before).  The events a reader may see are their rows in `event_readers` and everyone's
# (`models.EVERYONE`), so an event hidden from them is never read: the visibility's JSON text, which no index
# reads, was matched with LIKE on every event of the game until costs12.
_VISIBLE_ORDER = "game_id = :g AND seq > :o AND (player = :p OR player = '')"
_SEEN = "game_id = :g AND seq > :e AND reader = "
_NEWEST_SEEN = (
    f"(SELECT max(seq) FROM (SELECT max(seq) AS seq FROM event_readers WHERE {_SEEN}''"
    f" UNION ALL SELECT max(seq) FROM event_readers WHERE {_SEEN}:p) AS m)"
)
_Q = text(
    f"""
SELECT
  (SELECT count(*) FROM orders WHERE {_VISIBLE_ORDER}),
  (SELECT count(*) FROM event_readers WHERE game_id = :g AND seq > :e AND reader IN ('', :p)),
  (SELECT seq FROM orders WHERE {_VISIBLE_ORDER} ORDER BY seq DESC LIMIT 1),
  (SELECT hash FROM orders WHERE {_VISIBLE_ORDER} ORDER BY seq DESC LIMIT 1),
  (SELECT input_seq FROM events WHERE game_id = :g AND seq = {_NEWEST_SEEN}),
  (SELECT hash FROM events WHERE game_id = :g AND seq = {_NEWEST_SEEN}),
  (SELECT seq FROM orders WHERE game_id = :g ORDER BY seq DESC LIMIT 1),
  (SELECT hash FROM orders WHERE game_id = :g ORDER BY seq DESC LIMIT 1),
  (SELECT seq FROM events WHERE game_id = :g ORDER BY seq DESC LIMIT 1),
  (SELECT hash FROM events WHERE game_id = :g ORDER BY seq DESC LIMIT 1),
  (SELECT hash FROM orders WHERE game_id = :g AND seq = :o),
  (SELECT hash FROM events WHERE game_id = :g AND seq = :e)
"""
)


@dataclass(frozen=True)
class _Counted:
    """What one reader may see of a game's record up to its newest order and event when last counted."""

    order: tuple[int, str]  # the newest order then (seq, hash); (0, "") for none
    event: tuple[int, str]  # the newest event then (seq, hash)
    inputs: int  # of the orders up to there, those the reader may see
    events: int
    last_order: tuple[int, str] | None  # the newest of those: (seq, hash)
    last_event: tuple[int, str] | None  # the newest visible event: (input_seq, hash)


MEMO = 4096  # readers (database, game, player) whose counts a process remembers, least recently used dropped
_memo: OrderedDict[tuple[str, int, str], _Counted] = OrderedDict()
_lock = threading.Lock()


def visible_record(
    s: Session, game_id: int, player: str, commitment: str, earlier: tuple[str, ...] = ()
) -> tuple[int, str]:
    """(entries `player` may see, the chain's head after the newest of them; `commitment` when none).

    `earlier`: the names `player`'s seat had before (`pbem game replace`): a newcomer reads the seat's record under
    them as their export lists it (its inputs, the events shown to it, its press), so their receipts count them too
    (`_earlier`; docs/security.md, "A replaced seat's newcomer").

    Counted once per reader and then only past what was counted: the entries after the game's newest order
    and event at the last count (range scans on the primary keys), so that a report late in a long game costs
    what one early in it does.  The last count is used only if the entries it ended at are still there with
    the same hashes: a hash binds the whole chain before it, so the entries counted are the same ones (a
    rolled-back transaction, a record restored from a backup or another home at the same path is recounted)."""
    conn = s.connection()
    key = (str(conn.engine.url), game_id, player)
    with _lock:
        before = _memo.get(key)
    got = _count(conn, game_id, player, before)
    if got is None:  # what was counted changed: count it all
        before = None
        got = _count(conn, game_id, player, None)
        assert got is not None
    with _lock:
        _memo[key] = got
        _memo.move_to_end(key)
        while len(_memo) > MEMO:
            _memo.popitem(last=False)
    n = got.inputs + got.events
    order, event = got.last_order, got.last_event
    if earlier:
        more, order, event = _earlier(conn, game_id, player, earlier, order, event)
        n += more
    if order is None and event is None:
        return n, commitment
    # chain order: an input before the events it produced (`pbem.trust.chain.position`)
    if event is None or (order is not None and order[0] > event[0]):
        assert order is not None
        return n, order[1]
    return n, event[1]


_Q_EARLIER_ORDERS = text("SELECT seq, player, hash FROM orders WHERE game_id = :g AND player <> '' ORDER BY seq")
_Q_EARLIER_EVENTS = text(
    "SELECT seq, input_seq, visibility_json, hash FROM events WHERE game_id = :g AND visibility_json <> :pub ORDER BY seq"
)
_Q_EVENT_SEQ = text("SELECT seq FROM events WHERE game_id = :g AND hash = :h")


def _earlier(
    conn: Any,
    game_id: int,
    player: str,
    earlier: tuple[str, ...],
    order: tuple[int, str] | None,
    event: tuple[int, str] | None,
) -> tuple[int, tuple[int, str] | None, tuple[int, str] | None]:
    """The entries of the seat under its `earlier` names that `player`'s own count left out (inputs sent under
    them, events shown to them and not to `player`), and the newest order and event of both counts together.
    A newcomer is counted from the start once (the appends then keep their count), so this reads the game's
    player inputs and hidden events once per count: linear in the record."""
    names = set(earlier) - {player}
    more = 0
    for seq, who, head in fetch(conn, _Q_EARLIER_ORDERS, {"g": game_id}):
        if who in names:
            more += 1
            if order is None or seq > order[0]:
                order = (int(seq), str(head))
    newest: tuple[int, int, str] | None = None  # (input_seq, seq, hash) of the newest event counted here
    for seq, input_seq, visibility_json, head in fetch(conn, _Q_EARLIER_EVENTS, {"g": game_id, "pub": _PUBLIC_JSON}):
        vis = json.loads(visibility_json)
        if isinstance(vis, list) and player not in vis and names.intersection(vis):
            more += 1
            newest = (int(input_seq), int(seq), str(head))
    if newest is not None:
        if event is None or newest[0] > event[0]:
            event = (newest[0], newest[2])
        elif newest[0] == event[0]:  # the same input's events: the later event by its number
            rows = fetch(conn, _Q_EVENT_SEQ, {"g": game_id, "h": event[1]})
            if not rows or int(rows[0][0]) < newest[1]:
                event = (newest[0], newest[2])
    return more, order, event


def _count(conn: Any, game_id: int, player: str, before: _Counted | None) -> _Counted | None:
    """`before` brought up to date by one statement, or None if its entries are no longer the same."""
    o, e = (before.order[0], before.event[0]) if before is not None else (0, 0)
    params = {"g": game_id, "p": player, "o": o, "e": e}
    inputs, events, o_seq, o_hash, e_input, e_hash, top_o, top_oh, top_e, top_eh, at_o, at_e = fetch(conn, _Q, params)[
        0
    ]
    if before is not None and (
        (o and (not before.order[1] or at_o != before.order[1]))
        or (e and (not before.event[1] or at_e != before.event[1]))
    ):
        return None
    return _Counted(
        order=(int(top_o or 0), str(top_oh or "")),
        event=(int(top_e or 0), str(top_eh or "")),
        inputs=int(inputs or 0) + (before.inputs if before else 0),
        events=int(events or 0) + (before.events if before else 0),
        last_order=(int(o_seq), str(o_hash)) if o_seq is not None else (before.last_order if before else None),
        last_event=(int(e_input), str(e_hash)) if e_input is not None else (before.last_event if before else None),
    )


def forget() -> None:
    """Every remembered count dropped (tests)."""
    with _lock:
        _memo.clear()


def snapshot_json(readers: dict[str, tuple[int, str]], players: list[str], event_seq: int) -> str | None:
    """What a snapshot keeps of the readers' counts at its position (the game's newest event `event_seq`), or
    None unless every one of `players` is among them (a later poll could not count on the rest)."""
    if not players or any(p not in readers for p in players):
        return None
    return json.dumps({"event_seq": event_seq, "readers": {p: list(v) for p, v in readers.items()}})


_Q_EVENTS_SINCE = text("SELECT visibility_json, hash FROM events WHERE game_id = :g AND seq > :e ORDER BY seq")


def cached(conn: Any, game_id: int, stored: str, event_seq: int) -> dict[str, tuple[int, str]]:
    """The readers' counts kept with the game's newest snapshot (`snapshot_json`), brought up to the game's
    newest event `event_seq`; {} if there are none or they cannot be right.

    The caller checked that no input was recorded after the snapshot, so what came after it is events only
    (press, moderator notices), each newer in the chain than anything counted: a reader who may see one
    counts it and takes its hash as their head, as `store.append_events` does."""
    try:
        doc = json.loads(stored)
        upto = int(doc["event_seq"])
        readers = {str(p): (int(v[0]), str(v[1])) for p, v in doc["readers"].items()}
    except (ValueError, KeyError, TypeError, IndexError):
        return {}
    if upto > event_seq:  # a snapshot ahead of the record: not this record's
        return {}
    if upto < event_seq:
        for visibility_json, head in fetch(conn, _Q_EVENTS_SINCE, {"g": game_id, "e": upto}):
            vis = json.loads(visibility_json)
            for reader, (n, _) in readers.items():
                if vis == PUBLIC or (isinstance(vis, list) and reader in vis):  # ("mod" is not in "moderator")
                    readers[reader] = (n + 1, str(head))
    return readers
