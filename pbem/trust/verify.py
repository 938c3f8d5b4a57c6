"""`pbem verify` without mail: every field of an export is checked, and the first problem is named.

In order:

1. the format and version;
2. numbering: `orders[].seq` and `events[].seq` run 1, 2, 3, ... in the order listed;
   each event names an input that exists (`input_seq`), never going back;
3. links: each player's input names the accepted (or held) message it came from;
4. the seed: SHA-256(seed) is the commitment;
5. the replay: for a game with a join step (the export has `salts`), the JOIN inputs are replayed
   and the deal is made from SHA-256(seed || salts) (`pbem.trust.deal.deal_seed`); the export's salts
   must be the JOIN inputs' salts.  Then every input is accepted again, and produces exactly the engine events
   the export attributes to it (kind, text, visibility, data), in order;
6. the result: present exactly when the replay is over, equal to the replayed result
   (scores, winners, summary); a finished game's export ends with the game's end;
   a history whose replay does not reach the end is refused as incomplete, unless
   `partial`, where the report says up to which entry it is proven;
7. the chain (`pbem.trust.chain`): every entry's hash follows from the previous one,
   from the seed commitment to the head the export states, and times never go back.
   Press and moderator events are not replayed, but the chain holds them like the rest.
Without the seed (a game in progress) only 1-3 and 7 can be checked, with `partial`.

Exports made before the chain existed carry no hashes: they verify with a note
saying that the chain (and with it the completeness of the record) could not be checked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pbem import engine as registry
from pbem.engine.base import Engine, Event
from pbem.engine.rng import commitment
from pbem.engine.words import count
from pbem.trust import chain
from pbem.trust import deal as joining
from pbem.trust.fold import UNDO, Fold

FORMAT = "pbem-history"
VERSION = 1
#: Events recorded by the moderator, not produced by the engine (press, pauses,
#: replacements): they are part of the history but not of the replay.
MODERATOR_KINDS = frozenset({"press", "moderator"})


@dataclass
class Verification:
    ok: bool
    checked: list[str] = field(default_factory=list)
    problem: str = ""
    notes: list[str] = field(default_factory=list)  # what was not checked, and why


class Refused(Exception):
    """The export fails a check; the message names the first problem."""


def check(doc: dict[str, Any], partial: bool = False) -> Verification:
    v = Verification(ok=False)
    try:
        _check(doc, partial, v)
    except Refused as exc:
        v.problem = str(exc)
        return v
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        v.problem = f"the export is malformed: {type(exc).__name__} {exc}"
        return v
    v.ok = True
    return v


def _check(doc: dict[str, Any], partial: bool, v: Verification) -> None:
    if doc.get("format") != FORMAT:
        raise Refused(f"not a pbem history export (format {doc.get('format')!r})")
    if doc.get("version") != VERSION:
        raise Refused(f"export format version {doc.get('version')} is not supported (this pbem reads {VERSION})")
    orders, events = doc["orders"], doc["events"]
    _numbering(orders, events)
    v.checked.append(f"inputs 1..{len(orders)} and events 1..{len(events)} are numbered without gaps or swaps")
    _links(orders, doc["messages"])
    v.checked.append("every player's input comes from a message the export lists as accepted")
    rows = chain.sequence(orders, events)
    seed = doc.get("seed")
    if not seed:
        if partial:
            proven = _chain(doc, rows, v)
            v.checked.append(f"proven up to entry {len(rows)} of the chain (head {proven[:16]}...)")
            v.notes.append("the seed is secret until the game is over: nothing was replayed")
            return
        raise Refused("the seed is not revealed in this export (the game is not over yet); --partial checks the rest")
    if commitment(seed) != doc["seed_commitment"]:
        raise Refused(f"SHA-256 of the seed is {commitment(seed)}, but the commitment is {doc['seed_commitment']}")
    v.checked.append(f"SHA-256(seed) equals the commitment {doc['seed_commitment'][:16]}...")
    if doc["game"].get("insecure_seed"):
        v.notes.append("the seed was chosen by hand with --insecure-seed: it is weaker than 128 bits")
    eng = _engine(doc)
    older: list[int] = []
    state, engine_events = _replay(eng, doc, orders, events, older)
    if older:
        v.notes.append(
            f"{count(len(older), 'event')} (the first is event {older[0]}) were recorded before pbem chained its record, with "
            "fewer facts in their data; their text, visibility and every fact they hold match the replay"
        )
    v.checked.append(f"replayed {count(len(orders), 'accepted input')} from the seed")
    if doc.get("salts") is not None:
        v.checked.append("the deal came from SHA-256(seed || salts), with the salts the players' JOIN inputs gave")
    v.checked.append(
        f"all {count(engine_events, 'engine event')} reproduced exactly (every shuffle, draw and die roll)"
    )
    _result(eng, state, doc, rows, partial, v)
    _chain(doc, rows, v)
    _salted(seed, events, v)  # last: an entry moved or renumbered is named by the checks above


def _salted(seed: str, events: list[dict[str, Any]], v: Verification) -> None:
    """Each salt of a hidden event is the one the seed gives (docs/export-format.md, "The chained record")."""
    salted = 0
    for e in events:
        if "salt" not in e:
            continue
        if e["visibility"] == "public":
            raise Refused(f"event {e['seq']} is public but carries a salt")
        if e["salt"] != chain.entry_salt(seed, e["seq"]):
            raise Refused(
                f"the salt of event {e['seq']} is not the one the seed gives ({chain.entry_salt(seed, e['seq'])})"
            )
        salted += 1
    if salted:
        v.checked.append(f"the salts of {count(salted, 'hidden event')} come from the seed")


def _numbering(orders: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    for i, o in enumerate(orders, 1):
        if o["seq"] != i:
            raise Refused(f"input {i} of the list carries seq {o['seq']}: inputs are missing, added or reordered")
    last = 0
    for i, e in enumerate(events, 1):
        if e["seq"] != i:
            raise Refused(
                f"event {i} of the list carries seq {e['seq']}: events are missing, added or swapped "
                "(verify needs a complete record: the moderator's export, or any export of a finished game)"
            )
        if not 0 <= e["input_seq"] <= len(orders):
            raise Refused(f"event {e['seq']} names input {e['input_seq']}, which the export does not hold")
        if e["input_seq"] < last:
            raise Refused(f"event {e['seq']} names input {e['input_seq']}, after an event of input {last}")
        last = e["input_seq"]


def _links(orders: list[dict[str, Any]], messages: list[dict[str, Any]]) -> None:
    outcome: dict[str, str] = {}
    for m in messages:  # one Message-ID may be listed twice (a stranger reusing it): the applied one counts
        if outcome.get(m["message_id"]) not in ("accepted", "held"):
            outcome[m["message_id"]] = m["outcome"]
    for o in orders:
        if o["kind"] in ("deadline", "start"):
            what = "a deadline default" if o["kind"] == "deadline" else "the moderator's start"
            if o["message_id"] is not None or o["player"] or o["lines"]:
                raise Refused(f"input {o['seq']} is {what} but names a player, lines or a message")
            continue
        if o["kind"] == UNDO:  # the moderator took the game back (pbem game undo): no player, no message
            if o["message_id"] is not None or o["player"] or len(o["lines"]) != 3:
                raise Refused(f"input {o['seq']} is an undo but names a player or a message, or not its three lines")
            continue
        if o["kind"] == "rename":  # a seat given to a new player by the moderator (pbem game replace)
            if o["message_id"] is not None or not o["player"] or len(o["lines"]) != 1:
                raise Refused(f"input {o['seq']} renames a seat but names a message, or not one old and one new name")
            continue
        mid = o["message_id"]
        if mid not in outcome:
            raise Refused(f"input {o['seq']} ({o['player']}) names message {mid!r}, which the export does not list")
        if outcome[mid] not in ("accepted", "held"):
            raise Refused(
                f"input {o['seq']} ({o['player']}) was applied from message {mid!r}, "
                f"but the export marks that message {outcome[mid]}"
            )


def _chain(doc: dict[str, Any], rows: list[dict[str, Any]], v: Verification) -> str:
    """Check the hash chain; returns the proven head.  Exports without hashes get a note instead."""
    summary = doc.get("chain")
    if summary is None and not any("hash" in r for r in rows):
        v.notes.append(
            "this export was made before pbem chained its record (no hashes): the order and completeness of "
            "its entries rest on the replay alone"
        )
        return str(doc["seed_commitment"])
    if summary is None:
        raise Refused("the export's entries carry hashes but its chain summary (start, head, entries) is missing")
    if summary["start"] != doc["seed_commitment"]:
        raise Refused(f"the chain starts from {summary['start']}, not from the seed commitment")
    bad, head = chain.first_break(doc["seed_commitment"], rows)
    if bad >= 0:
        row = rows[bad]
        what = f"event {row['seq']}" if "text" in row else f"input {row['seq']}"
        raise Refused(
            f"the chain breaks at entry {bad + 1} ({what}): its hash should be {head[:16]}..., the export says "
            f"{str(row.get('hash'))[:16]}... (this entry or one before it was changed, added, moved or removed)"
        )
    if len(rows) != summary["entries"] or head != summary["head"]:
        raise Refused(
            f"the chain of the {len(rows)} entries listed ends at {head[:16]}..., but the export states "
            f"{summary['entries']} entries ending at {str(summary['head'])[:16]}...: entries are missing"
        )
    times = [r["at"] for r in rows]
    for i in range(1, len(times)):
        if times[i] < times[i - 1]:
            raise Refused(f"entry {i + 1} of the chain is dated {times[i]}, before entry {i} ({times[i - 1]})")
    v.checked.append(f"the chain of {len(rows)} entries holds from the seed commitment to the head {head[:16]}...")
    return head


def _engine(doc: dict[str, Any]) -> Engine:
    try:
        return registry.get(doc["game"]["kind"])
    except registry.UnknownKind as exc:
        raise Refused(str(exc)) from None


def _replay(
    eng: Engine, doc: dict[str, Any], orders: list[dict[str, Any]], events: list[dict[str, Any]], older: list[int]
) -> tuple[dict[str, Any], int]:
    """Replay every input; each must produce exactly the engine events the export attributes to it."""
    by_input: dict[int, list[dict[str, Any]]] = {}
    for e in events:
        if e["kind"] not in MODERATOR_KINDS:
            by_input.setdefault(e["input_seq"], []).append(e)
    # An export made before the chain: every event came from an earlier engine.
    legacy = doc["chain"].get("legacy_events", 0) if "chain" in doc else len(events)
    players, seed, options = [p["name"] for p in doc["players"]], doc["seed"], doc["game"]["options"]
    join = "salts" in doc  # a game with a join step: dealt from the seed and the players' salts
    if not join and orders and orders[0]["kind"] in joining.KINDS:
        raise Refused(
            f"input 1 ({orders[0]['kind']}) belongs to a join step, but the export has no salts: the deal of a game "
            "with a join step is made from SHA-256(seed || salts)"
        )
    state, setup = (joining.open_state(players), []) if join else eng.setup(players, seed, options)
    _same("the set-up", setup, by_input.get(0, []), older, legacy)
    count = len(setup)
    dealt: list[list[str]] = []
    fold = Fold(state, lambda st: joining.step_engine(eng, st, players, seed, options))
    for order in orders:
        if (order["kind"] in joining.KINDS) != joining.is_joining(state):
            raise Refused(
                f"input {order['seq']} ({order['kind']}) does not fit the join step: "
                + ("the game is not dealt yet" if joining.is_joining(state) else "no join step is open")
                + ("" if join else " (the export has no salts)")
            )
        step = joining.step_engine(eng, state, players, seed, options)
        out = fold.run(order["seq"], order["kind"], order["player"], order["lines"], state)
        if not out.accepted:
            bad = next(r for r in out.lines if not r.ok)
            raise Refused(f"order {order['seq']} ({order['player']}: {bad.line!r}) is rejected on replay: {bad.reason}")
        state = out.state
        _same(f"input {order['seq']}", out.events, by_input.get(order["seq"], []), older, legacy)
        count += len(out.events)
        dealt.extend(e.data["salts"] for e in out.events if e.kind == "salts" and step is not eng)
    if join:
        _salts(doc["salts"], dealt[0] if dealt else None)
    return state, count


def _salts(stated: list[str] | None, replayed: list[str] | None) -> None:
    """The export's `salts` are the ones the JOIN inputs gave, that the replay dealt from."""
    if stated != replayed:
        raise Refused(
            f"the export's salts {stated!r} are not the salts of its JOIN inputs {replayed!r}: the deal was made "
            "from SHA-256(seed || the JOIN inputs' salts)"
        )


def _same(what: str, produced: list[Event], recorded: list[dict[str, Any]], older: list[int], legacy: int) -> None:
    """The recorded events of one input are the replayed ones, exactly.  Events up to `legacy` were recorded
    before the chain, by an engine whose data held fewer facts: each fact they hold must match (see `_legacy`)."""
    for want, got in zip(recorded, produced):
        got_json = json.loads(json.dumps(got.to_json(), sort_keys=True))
        want_json = json.loads(json.dumps({k: want[k] for k in ("kind", "text", "visibility", "data")}, sort_keys=True))
        if got_json != want_json and want["seq"] <= legacy and _legacy(want_json, got_json):
            older.append(want["seq"])
            continue
        if got_json != want_json:
            raise Refused(
                f"event {want['seq']} differs: the export says {want['text']!r}, the replay of {what} gives "
                f"{got.text!r}"
            )
    if len(recorded) != len(produced):
        extra = recorded[len(produced) :]
        where = f" (event {extra[0]['seq']} is attributed to {what}, which did not produce it)" if extra else ""
        raise Refused(
            f"the export attributes {count(len(recorded), 'event')} to {what}, the replay gives {len(produced)}{where}"
        )


def _legacy(want: dict[str, Any], got: dict[str, Any]) -> bool:
    """A pre-chain event matches its replay: same kind, text and visibility; each data field it holds equals the
    replayed one, or is a list the Italian Wars `reveal` bug shortened (every card in it is in the replay's)."""
    if any(want[k] != got[k] for k in ("kind", "text", "visibility")) or not set(want["data"]) <= set(got["data"]):
        return False
    for key, value in want["data"].items():
        new = got["data"][key]
        shortened = want["kind"] == "reveal" and isinstance(value, list) and isinstance(new, list)
        if value != new and not (shortened and all(value.count(c) <= new.count(c) for c in value)):
            return False
    return True


def _result(
    eng: Engine, state: dict[str, Any], doc: dict[str, Any], rows: list[dict[str, Any]], partial: bool, v: Verification
) -> None:
    result = eng.result(state)
    stated = doc.get("result")
    if result is None:
        if stated is not None or doc["game"].get("over"):
            raise Refused(
                "the export states a result, but replaying its inputs does not end the game: the history stops "
                "early (entries are missing) or the result is forged"
            )
        if not partial:
            raise Refused(
                f"the history is incomplete: replaying its {len(doc['orders'])} inputs does not reach the end of "
                "the game; --partial checks what is there"
            )
        v.checked.append(f"proven up to entry {len(rows)} of the chain (the game is not over there)")
        return
    if stated is None or not doc["game"].get("over"):
        raise Refused("replaying the inputs ends the game, but the export has no result (it was deleted)")
    want = {"scores": dict(result.scores), "winners": list(result.winners), "summary": result.summary}
    for key, value in want.items():
        if stated.get(key) != value:
            raise Refused(f"the result's {key} is {stated.get(key)!r}, the replay gives {value!r}")
    v.checked.append(f"the result is the replayed one: {result.summary}")
    last = rows[-1] if rows else None
    if last is None or "text" not in last or last["kind"] in MODERATOR_KINDS or last["input_seq"] != len(doc["orders"]):
        raise Refused("the export of a finished game must end with the game's end (its last engine event)")
    v.checked.append("the export ends with the game's end")
