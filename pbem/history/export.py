"""History export (JSON, text record, HTML page) and verification.

JSON format "pbem-history", version 1 (documented in docs/export-format.md):
the game, its players, the seed commitment, the seed once the game is over,
every inbound message's outcome, every accepted order with the message it
came from, every event with its visibility, and the final result.

`verify` replays the accepted orders from the revealed seed with the same
engine, checks SHA-256(seed) against the commitment and that every event is
reproduced exactly, and names the first difference.

Visibility: the moderator's export is full; `as_player` keeps only what
that player could see; `public` only what every player saw.  While the game
runs those two are partial exports (version 2, `counted`): numbered as their
reader counts, so that they do not count the entries hidden from the reader.  Once the game
is over, the seed and moderator-only set-up facts (deck order) are revealed
to all, as the end of the game reveals them.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlmodel import Session

from pbem.engine.base import Event
from pbem.history.formats import FORMATS, render
from pbem.history.text import text_record
from pbem.record import evidence, listing, store
from pbem.record.rows import Game, OrderInput
from pbem.trust import chain, signing
from pbem.trust.sent import Reader
from pbem.trust.verify import FORMAT, MODERATOR_KINDS, PARTIAL_VERSION, VERSION, Verification, check

__all__ = ["FORMATS", "build", "render", "text_record", "verify"]


def _iso(dt: datetime | None) -> str | None:
    return chain.iso(dt)


def build(s: Session, game: Game, as_player: str | None = None, public: bool = False) -> dict[str, Any]:
    """The export document for `game`, filtered to what the audience may know."""
    loaded = store.load(s, game)
    eng = loaded.engine
    result = eng.result(loaded.state)
    over = result is not None
    assert game.id is not None
    # an abandoned game will never end: its seed is revealed as a finished game's is, and with it every secret
    abandoned = not over and store.control_state(s, game.id) == "abandoned"
    audience = "moderator" if (as_player is None and not public) else ("public" if public else as_player)
    full = audience == "moderator" or over or abandoned
    event_rows = store.events_for(s, game.id)
    events = [store.event_of(r) for r in event_rows]
    inputs = {o.seq: o for o in store.inputs(s, game.id)}
    messages = listing.received(s, game.id)  # never the mails' bytes
    msg_ids: dict[int | None, str] = {m.id: m.message_id for m in messages}

    # a replaced seat's newcomer knows what the seat knew under its earlier names (and counts it: their receipts);
    # a player replaced in turn, what it knew up to them
    names: tuple[str, ...] = (str(audience),)
    if as_player:
        seats = store.seat_names(s, game.id).values()
        names = next((seen[: seen.index(as_player) + 1] for seen in seats if as_player in seen), (as_player,))

    def visible(ev: Event) -> bool:
        return full or (ev.visible_to(None) if audience == "public" else any(ev.visible_to(n) for n in names))

    if full:  # every entry, numbered in the whole chain, with its salt: what `verify` replays
        orders, listed = _entries(game, list(inputs.values()), event_rows, events, msg_ids)
        entries, head = len(inputs) + len(event_rows), store.chain_head(s, game)
    else:  # a game in progress, for a player or the public: numbered as the reader counts, no salt, no global number
        # Orders can hold secrets (ballots, discards): a player sees their own, and those of no player (deadlines)
        seen_input = (lambda o: o.player == "") if audience == "public" else (lambda o: o.player in ("", *names))
        orders, listed, entries, head = counted(
            [o for o in inputs.values() if seen_input(o)],
            [(r, ev) for r, ev in zip(event_rows, events) if visible(ev)],
            msg_ids,
            game.seed_commitment,
        )
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION if full else PARTIAL_VERSION,
        "audience": audience,
        "game": {
            "name": game.name,
            "kind": game.kind,
            "title": eng.title,
            "created": _iso(game.created_at),
            "options": json.loads(game.options_json),
            "over": over,
            "abandoned": abandoned,
            "insecure_seed": bool(game.insecure_seed),
        }
        | ({"bindings": game.bindings} if game.bindings else {}),
        "players": [
            {"name": p, "seat": i}
            | ({"holder": st.player} if st and st.player != p else {})  # the seat given since (walk8)
            | ({"address": st.address} if audience == "moderator" and st else {})
            for i, p in enumerate(json.loads(game.players_json))  # the names of the set-up, which verify replays
            for st in [next((seat for seat in loaded.seats if seat.position == i), None)]
        ],
        "seed_commitment": game.seed_commitment,
        "seed": game.seed if (over or abandoned) else None,
        "messages": [
            {
                "message_id": m.message_id,
                "player": m.player,
                "received": _iso(m.received_at),
                "outcome": m.outcome,
                "reason": m.reason if (audience == "moderator" or m.player in names) else "",
            }
            for m in messages
            if audience == "moderator" or over or abandoned or m.player in names
        ],
        "orders": orders,
        "events": listed,
        "result": None
        if result is None
        else {"scores": result.scores, "winners": list(result.winners), "summary": result.summary},
        "final_view": eng.view(loaded.state, None if audience in ("public", "moderator") else audience),
        "chain": {
            "start": game.seed_commitment,
            "head": head,
            "entries": entries,
            "legacy_events": game.legacy_events,
        },
    }
    kept = evidence.of_game(s, game.id)  # what the players' providers vouch for (issue 25, pbem.trust.dkim)
    if kept:
        shown = {
            m.id: m.message_id for m in messages if audience == "moderator" or over or abandoned or m.player in names
        }
        doc["evidence"] = evidence.as_export(kept, shown)
    if store.join_opened(s, game.id):  # published with the deal, in seat order (None before it)
        doc["salts"] = next((list(ev.data["salts"]) for ev in events if ev.kind == "salts"), None)  # a copy
    if over:
        doc["finished"] = doc["events"][-1]["at"] if doc["events"] else None
    private = signing.private_of(game)
    if private:  # the game's key signs the export's head as it signs every receipt
        doc["game"]["key"] = signing.public_key(private)
        # a partial export's listing, JSON as written (its entries cannot be recomputed until the end): signed
        doc["signature"] = signing.export_signature(private, json.loads(json.dumps(doc)), partial=not full)
    return doc


def _entries(
    game: Game, inputs: list[OrderInput], event_rows: list[Any], events: list[Event], msg_ids: dict[Any, str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every input and event of the game as the moderator's (or a finished game's) export lists them."""
    orders = [
        {
            "seq": o.seq,
            "kind": o.kind,
            "player": o.player,
            "lines": json.loads(o.lines_json),
            "message_id": msg_ids.get(o.inbound_id),
            "at": _iso(o.created_at),
            "hash": o.hash,
        }
        | ({"salt": o.salt} if o.salt else {})
        | ({"pace": pace} if o.seq == 1 and (pace := _pace(game, o, msg_ids.get(o.inbound_id), event_rows)) else {})
        for o in inputs
    ]
    listed = [
        {"seq": r.seq, "input_seq": r.input_seq, "at": _iso(r.created_at), **ev.to_json(), "hash": r.hash}
        | ({"salt": r.salt} if r.salt else {})
        for r, ev in zip(event_rows, events, strict=True)
    ]
    return orders, listed


def chained(s: Session, game: Game) -> list[dict[str, Any]]:
    """The game's whole chain, in chain order, as its moderator's export lists it (what `chain.first_break` follows
    from the seed commitment), without loading the game's state: `pbem move-record` checks each game's so."""
    assert game.id is not None
    event_rows = store.events_for(s, game.id)
    msg_ids: dict[Any, str] = {m.id: m.message_id for m in listing.received(s, game.id)}
    events = [store.event_of(r) for r in event_rows]
    orders, listed = _entries(game, store.inputs(s, game.id), event_rows, events, msg_ids)
    return chain.sequence(orders, listed)


def _pace(game: Game, first: OrderInput, message_id: str | None, event_rows: list[Any]) -> dict[str, Any] | None:
    """The step length the game's first input chains (`chain.paced`), or None when it chains none (recorded before
    fairness16): the stored hash says which, since the entry without it hashes otherwise; and whether it marks the
    join step's moves chained (a game opened with a join step since fairness17)."""
    before = [r.hash for r in event_rows if r.input_seq == 0]
    previous = before[-1] if before else game.seed_commitment
    lines, salt = json.loads(first.lines_json), first.salt or None
    for join in (True, False):
        pace = chain.paced(game.deadline_seconds, game.created_at, join)
        entry = chain.input_entry(1, first.kind, first.player, lines, message_id, _iso(first.created_at), salt, pace)
        if first.hash and chain.link(previous, entry) == first.hash:
            return pace
    return None


def counted(
    inputs: list[OrderInput], events: list[tuple[Any, Event]], msg_ids: dict[Any, str], commitment: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int, str]:
    """The entries a reader may see of a game in progress, as a partial export (version 2) lists them: in chain
    order, numbered 1, 2, 3, ... as the reader's receipts count them (`X-Pbem-Record`, `pbem.record.reader_view`),
    each with its hash, without its salt and without the global numbers `seq` and `input_seq` of the chain (their
    gaps counted the hidden entries: docs/security.md).  A set-up event (an engine event before any input) keeps
    `input_seq` 0, which every reader knows.  Returns (orders, events, entries, head): the head is the hash of the
    last entry listed, the commitment when there is none (as a receipt states it)."""
    placed: list[tuple[tuple[int, int, int], Any, Event | None]] = [((o.seq, 0, 0), o, None) for o in inputs]
    placed += [((r.input_seq, 1, r.seq), r, ev) for r, ev in events]
    placed.sort(key=lambda p: p[0])
    orders: list[dict[str, Any]] = []
    shown: list[dict[str, Any]] = []
    head = commitment
    for n, (_, row, ev) in enumerate(placed, 1):
        if ev is None:
            orders.append(
                {
                    "seq": n,
                    "kind": row.kind,
                    "player": row.player,
                    "lines": json.loads(row.lines_json),
                    "message_id": msg_ids.get(row.inbound_id),
                    "at": _iso(row.created_at),
                    "hash": row.hash,
                }
            )
        else:
            setup = {"input_seq": 0} if row.input_seq == 0 and ev.kind not in MODERATOR_KINDS else {}
            shown.append({"seq": n, **setup, "at": _iso(row.created_at), **ev.to_json(), "hash": row.hash})
        head = row.hash or head
    return orders, shown, len(placed), head


def verify(
    doc: dict[str, Any], partial: bool = False, legacy: bool = False, read: Reader | None = None
) -> Verification:
    """Check every field of an export: its chain, numbering, links, replay, result and completeness.

    A history that stops before the game's end is refused unless `partial`: then the
    verification says up to which entry it is proven.  `read`: how a player's mail's order lines are read
    (`pbem.trust.sent.Reader`).  See `pbem.trust.verify`.
    """
    return check(doc, partial, legacy, read)
