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
Without the seed (a game in progress) only 1-3 and 7 can be checked, with `partial`.  A player's or the
public export of a game in progress is a partial export (format version 2, `pbem.trust.partial`): its entries
numbered as its reader counts them, without salts or global numbers, its listing signed by the game key; it is
checked by `_partial`, and at the end against the final record by `earlier` (`pbem verify --earlier`).  One
written before version 2 lists them with their global numbers, with gaps: then 2 is that each list is in
increasing order (`_in_order`), and 7 that each listed entry whose place in the whole chain follows a listed
one's (`pbem.trust.chain.places`) is linked to it by its hash (`_listed_chain`).

Before any of these, the shape (`_shape`): every field verify reads, and every field
that could change what a reader takes from the export, has the type it must have; an
unknown field is refused, since nothing here would check it.  After the replay, the
fields outside the chain are checked against it (`_fields`): the final view is the
replayed one, the end time is the last entry's, the creation comes before the first
entry, the players are the seats the replay dealt, an accepted message is one
player's, and a seed weaker than pbem's rule is named, whatever `insecure_seed` says.

Exports made before the chain existed carry no hashes, and those whose first events
were recorded before it (`chain.legacy_events`) are matched fact by fact: both are
downgrades a forger could claim for a fresh export (no hashes to forge; draw trails
"missing" from legacy events), so they are refused unless the reader asks for them
(`legacy=True`, `pbem verify --legacy`), and then every report says what was not proven.
An abandoned game reveals its seed: it verifies up to the moderator's abandon event.

Then what only warns: a game without a join step was dealt from the moderator's seed alone (`NO_JOIN`); the
actions on the game besides the players' orders are counted, and each reroll named (`_interventions`); a
moderator's message to every player (`pbem game say`) is checked there too (`_message`: public, bounded, its
text the words the players were mailed), and refused otherwise.
Last, the DKIM evidence kept with the players' mail (`evidence`, `pbem.trust.vouched`): for every
player input, whether the player's provider vouches for it (``dkim: pass d=...``), it is ``unsigned``,
or the evidence does not match it (``FAIL``, which fails the verification and names the input).  The times the
providers signed bind the record's dates: a `process` event taken as from a record older than chained resignations
is refused when an input before it was signed after that (`pbem.trust.resigns.Resigned.dated_back`).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pbem import engine as registry
from pbem.engine.base import Engine, Event
from pbem.engine.rng import commitment
from pbem.engine.seats import RENAME
from pbem.engine.words import count
from pbem.orders.moderator import moved as moved_text
from pbem.orders.moderator import processed as processed_text
from pbem.orders.moderator import said as said_text
from pbem.orders.moderator import say_problem
from pbem.trust import arrived, asked, chain, due, folded, leaked, paced, resigns, signing, vouched
from pbem.trust import deal as joining
from pbem.trust import partial as partial_export
from pbem.trust.fold import UNDO, Fold
from pbem.trust.quote import Alike, apart, clip, difference, quote
from pbem.trust.seeds import seed_problem
from pbem.trust.sent import Reader

FORMAT = "pbem-history"
VERSION = 1
#: The partial export of a game in progress (a player's or the public one) since the hidden entries' count was
#: found in its numbering: its entries numbered as its reader counts them, without salts or global numbers, its
#: listing signed (`pbem.trust.partial`).  Version 1 still describes every full export, and older partial ones.
PARTIAL_VERSION = partial_export.VERSION
#: Events recorded by the moderator, not produced by the engine (press, pauses,
#: replacements): they are part of the history but not of the replay.
MODERATOR_KINDS = frozenset({"press", "moderator"})
#: Inputs the moderator records in either step, the join step or the game: an undo, a seat renamed (`pbem game replace`).
EITHER = frozenset({UNDO, RENAME})
#: A game dealt without a join step (`pbem game new --no-join`, the demo) is a pure function of the seed and the
#: seats, and the moderator chose the seed: he could try seeds offline until he liked the deal and every later draw
#: (second fairness red team).  Nothing in the export can show that he did not, so verify says it in every report.
NO_JOIN = (
    "WARNING: this game had no join step (created with --no-join): the deal and every later draw come from the "
    "moderator's seed alone, so he could have tried seeds until he liked them; the commitment proves only that "
    "he did not change the seed after the start. A game with a join step is stirred by each player's JOIN"
)


@dataclass
class Verification:
    ok: bool
    checked: list[str] = field(default_factory=list)
    problem: str = ""
    notes: list[str] = field(default_factory=list)  # what was not checked, and why
    vouched: list[str] = field(default_factory=list)  # per player input: what their provider vouches for
    shaped: bool = False  # every field of the type pbem writes it: a player's mail can be checked against it


class Refused(Exception):
    """The export fails a check; the message names the first problem."""


def check(doc: dict[str, Any], partial: bool = False, legacy: bool = False, read: Reader | None = None) -> Verification:
    v = Verification(ok=False)
    try:
        if not isinstance(doc, dict):
            raise Refused(f"an export is a JSON object, not a {type(doc).__name__}")
        _shape(doc)
        v.shaped = True
        _downgrades(doc, legacy, v)
        paces = None
        if doc.get("version") == PARTIAL_VERSION:  # a game in progress, as one reader may see it
            _partial(doc, partial, v)
        else:
            paces = _check(doc, partial, v)
        gone = _interventions(doc, v)
        v.notes += asked.declared(doc)  # a game that declares no bindings: the weaker checks apply (fairness26)
        v.notes += arrived.ran_inside(doc, partial_export.listed(doc))  # an outage while pbem ran (fairness27)
        if doc.get("version") != PARTIAL_VERSION:
            _signed(doc, legacy, v)
        _vouched(doc, v, read, gone)
        if paces is not None:  # last: a record forged otherwise is named by what it broke first
            _applied(*paces, v)
    except Refused as exc:
        v.problem = str(exc)
        return v
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        v.problem = f"the export is malformed: {type(exc).__name__} {exc}"
        return v
    v.ok = True
    return v


def _partial(doc: dict[str, Any], partial: bool, v: Verification) -> None:
    """A partial export (version 2, `pbem.trust.partial`): numbering, order, links and the signed listing."""
    if not partial:
        raise Refused("the seed is not revealed in this export (the game is not over yet); --partial checks the rest")
    try:
        v.checked += partial_export.check(doc)
        _links(doc["orders"], doc["messages"])
        v.checked.append("every player's input listed comes from a message the export lists as accepted")
        sig = partial_export.signed(doc)
    except partial_export.Broken as exc:
        raise Refused(str(exc)) from None
    if sig:
        v.checked.append(sig)
    else:
        v.notes.append(
            "this game has no signing key (made before pbem signed its receipts): nothing binds this listing "
            "until the end; compare record heads with other players"
        )
    v.notes.append(
        "the seed is secret until the game is over: nothing was replayed, and the listed hashes cannot be "
        "recomputed before it (their salts come from the seed); keep this export and, once the game is over, "
        "check it against the final one: pbem verify FINAL.json --earlier THIS.json"
    )


def earlier(final: dict[str, Any], doc: dict[str, Any]) -> Verification:
    """`pbem verify FINAL --earlier PARTIAL`: the partial export `doc` checked alone, then against `final`, which
    must be a whole record (every entry, as the finished game's export or the moderator's) whose chain holds."""
    v = check(doc, partial=True)
    if not v.ok:
        return Verification(ok=False, problem=f"the earlier export: {v.problem}")
    out = Verification(ok=False)
    try:
        if doc.get("version") != PARTIAL_VERSION:
            raise Refused("the earlier export is not a partial one (format version 2): nothing to compare")
        if final.get("version") != VERSION or final.get("chain") is None:
            raise Refused("--earlier needs the whole record: the export of the finished game (or the moderator's)")
        rows = chain.sequence(final["orders"], final["events"])
        if len(rows) != final["chain"]["entries"]:
            raise Refused("--earlier needs the whole record: this export lists only some entries of the chain")
        bad, _ = chain.first_break(final["seed_commitment"], rows)
        if bad >= 0:
            raise Refused(f"the final export's chain breaks at entry {bad + 1}: verify it alone first")
        out.checked += partial_export.against_final(final, rows, doc)
        _earlier_view(final, rows, doc, out)
    except (partial_export.Broken, Refused) as exc:
        out.problem = str(exc)
        return out
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        out.problem = f"an export is malformed: {type(exc).__name__} {exc}"
        return out
    out.ok = True
    return out


def _earlier_view(final: dict[str, Any], rows: list[dict[str, Any]], doc: dict[str, Any], v: Verification) -> None:
    """The earlier export's `final_view` (the position its reader was shown when it was made) is that reader's view
    of the final record replayed to the export's place: after the reader's last listed entry, before their next
    (another player's hidden input may have been applied in between, so any of those states).  Needs the seed (the
    final export of a finished game).  The view is signed with the listing since branch `fairness6`
    (`pbem.trust.partial.signed` checked it): a mismatch is then proof; in an export made before, the holder's
    evidence."""
    if "final_view" not in doc:
        return
    if not final.get("seed"):
        v.notes.append("the earlier export's final view (the position then) was not compared: the seed is not revealed")
        return
    reader = str(doc["audience"])
    seen = partial_export.seen_in_final(final, reader, rows)
    n = len(partial_export.listed(doc))
    position = {id(r): i for i, r in enumerate(rows, 1)}
    at = position[id(seen[n - 1])] if n else 0
    upto = position[id(seen[n])] if n < len(seen) else len(rows) + 1
    eng: Engine = registry.get(final["game"]["kind"])
    players, seed, options = [str(p["name"]) for p in final["players"]], str(final["seed"]), final["game"]["options"]
    state = joining.open_state(players) if "salts" in final else eng.setup(players, seed, options)[0]
    fold = Fold(state, lambda st: joining.step_engine(eng, st, players, seed, options), seed)
    you = None if reader == "public" else reader

    def view(st: dict[str, Any]) -> Any:
        stored = json.loads(json.dumps(st, sort_keys=True))  # the state as the record stores and loads it
        return json.loads(json.dumps(fold.engine_for(stored).view(stored, you)))

    if not _shown_then(doc["final_view"], view, fold, state, rows[: upto - 1], at):
        raise Refused(
            f"the earlier export's final view (the position it showed {clip(reader)}) is not {clip(reader)}'s view of "
            f"the final record replayed to its entry {n}, nor to any input before their next entry: the position "
            "shown then was not the game's "
            + (
                "(the view is signed by the game key with the listing: that file is proof)"
                if partial_export.view_signed(doc)
                else "(the view is not signed in an export made before pbem signed it: that file is your evidence, "
                "not proof for others)"
            )
        )
    v.checked.append(
        f"the earlier export's final view is {clip(reader)}'s view of the final record replayed to its entry {n}"
    )


def _shown_then(
    want: Any,
    view: Callable[[dict[str, Any]], Any],
    fold: Fold,
    state: dict[str, Any],
    rows: list[dict[str, Any]],
    at: int,
) -> bool:
    """Whether `want` is the view of the state at the reader's last listed entry (`rows`' `at`th) or of one after it,
    `rows` replayed from `state`; every input replayed, each view compared as its state is reached (the state at the
    entry first, then the later ones in order, none after the first that matches).  One state is held at a time: on
    90a53973 every state between the entry and the reader's next was kept until the end (a gap of other players'
    hidden inputs held one state each: 4.0x the bytes at 4x the gap, costs23)."""
    shown, compared = False, False  # `compared`: the state at the entry was
    for i, row in enumerate(rows, 1):
        if "lines" not in row:
            continue
        if i > at and not compared:
            shown, compared = want == view(state), True
        out = fold.run(row["seq"], row["kind"], row["player"], row["lines"], state)
        if not out.accepted:
            raise Refused(f"input {row['seq']} of the final export is refused on replay: verify it alone first")
        state = out.state
        if i > at and not shown:
            shown = want == view(state)
    return shown or (not compared and want == view(state))


def _check(
    doc: dict[str, Any], partial: bool, v: Verification
) -> tuple[list[dict[str, Any]], dict[int, Any], tuple[timedelta, datetime]] | None:
    """A full export checked; (its chain's rows, the step open after each input, the step length chained) when it
    was replayed and chains a step length, for `_applied`."""
    if doc.get("version") != VERSION:
        raise Refused(
            f"export format version {doc.get('version')} is not supported (this pbem reads {VERSION} and {PARTIAL_VERSION})"
        )
    orders, events = doc["orders"], doc["events"]
    seed = doc.get("seed")
    if not seed and doc.get("audience") != "moderator":
        # a player's or the public export of a game in progress: it lists only what its audience may see
        if not partial:
            raise Refused(
                "the seed is not revealed in this export (the game is not over yet); --partial checks the rest"
            )
        _in_order(orders, events)
        v.checked.append(f"the {count(len(orders), 'input')} and {count(len(events), 'event')} listed are in order")
        _links(orders, doc["messages"])
        v.checked.append("every player's input listed comes from a message the export lists as accepted")
        _listed_chain(doc, orders, events, v)
        v.notes.append(
            "the seed is secret until the game is over: nothing was replayed; this export lists only what its "
            f"audience may see ({clip(str(doc.get('audience')))}), so the entries hidden from them are proven by the final export"
        )
        return None
    _numbering(orders, events)
    v.checked.append(f"inputs 1..{len(orders)} and events 1..{len(events)} are numbered without gaps or swaps")
    _links(orders, doc["messages"])
    v.checked.append("every player's input comes from a message the export lists as accepted")
    rows = chain.sequence(orders, events)
    if not seed:
        if partial:
            proven = _chain(doc, rows, v)
            v.checked.append(f"proven up to entry {len(rows)} of the chain (head {proven[:16]}...)")
            v.notes.append("the seed is secret until the game is over: nothing was replayed")
            return None
        raise Refused("the seed is not revealed in this export (the game is not over yet); --partial checks the rest")
    if commitment(seed) != doc["seed_commitment"]:
        raise Refused(
            f"SHA-256 of the seed is {commitment(seed)}, but the commitment is {quote(doc['seed_commitment'])}"
        )
    v.checked.append(f"SHA-256(seed) equals the commitment {doc['seed_commitment'][:16]}...")
    weak = seed_problem(seed)
    if doc["game"].get("insecure_seed"):
        v.notes.append("WARNING: the seed was chosen by hand with --insecure-seed: it is weaker than 128 bits")
    elif weak:
        v.notes.append(
            "WARNING: the revealed seed is weaker than pbem's rule (32 or more random hex digits without patterns), "
            "though the export does not mark it insecure: a player could have guessed it from the commitment"
        )
    eng = _engine(doc)
    older: list[int] = []
    reworded: list[int] = []
    # the steps up to the last deadline's defaults, for `_applied` (a record with none reads none: costs nothing)
    timed = _TIMED if paced.joins(rows) else ("deadline",)  # (and the join step's inputs, its moves chained)
    upto = max((n for n, r in enumerate(rows, 1) if r.get("kind") in timed and "lines" in r), default=0)
    steps: dict[int, Any] | None = {} if upto and paced.pace(rows) is not None else None
    state, engine_events = _replay(eng, doc, (orders, events, rows), older, reworded, (steps, upto))
    if older:
        v.notes.append(
            f"{count(len(older), 'event')} (the first is event {older[0]}) were recorded before pbem chained its record, with "
            "fewer facts in their data; their text, visibility and every fact they hold match the replay"
        )
    if reworded:
        v.notes.append(
            f"{count(len(reworded), 'event')} (the first is event {reworded[0]}) are worded as an earlier pbem wrote them; "
            "the replay gives the same event, with the same facts, in the words pbem uses since"
        )
    v.checked.append(f"replayed {count(len(orders), 'accepted input')} from the seed")
    if doc.get("salts") is not None:
        v.checked.append("the deal came from SHA-256(seed || salts), with the salts the players' JOIN inputs gave")
        _contributions(doc, events, v)
    elif "salts" not in doc:  # (null: a join step abandoned before its deal)
        v.notes.append(NO_JOIN)
    v.checked.append(
        f"all {count(engine_events, 'engine event')} reproduced exactly (every shuffle, draw and die roll)"
    )
    _result(eng, state, doc, rows, partial, v)
    _chain(doc, rows, v)
    _kept(seed, state, rows, v)
    _salted(seed, events, v)  # an entry moved or renumbered is named by the checks above
    _salted_inputs(seed, orders, v)
    found = _paced(rows, v)
    _fields(eng, state, doc, rows, v)
    return (rows, steps, found) if found is not None and steps is not None else None


def _kept(seed: str, state: dict[str, Any], rows: list[dict[str, Any]], v: Verification) -> None:
    """No entry before the end gives out the seed or the seed the game dealt from (`pbem.trust.leaked`)."""
    rng = state.get("rng")
    seeds = leaked.secret(seed, rng.get("seed") if isinstance(rng, dict) else None)
    if not seeds:
        return
    if problem := leaked.early(rows, seeds):
        raise Refused(problem)
    v.checked.append("no entry before the game's end gives out the seed (16 hex digits in a row of it)")


def _contributions(doc: dict[str, Any], events: list[dict[str, Any]], v: Verification) -> None:
    """Say whose contribution to the deal is missing or empty: the deal is then stirred only by the others' salts
    (and by none when nobody gave one: the moderator, who chose the seed, could have chosen the deal)."""
    dealt = next((e for e in events if e["kind"] == "salts"), None)
    if dealt is None:
        return
    weak = joining.weakness(dealt["data"])  # what its first report after the deal and its final one said too
    if weak:
        v.notes.append(f"WARNING: the deal: {weak}")
    else:
        v.checked.append("every player's JOIN was signed by their provider, and its signature stirred the deal")
    players = dealt["data"].get("players", [p["name"] for p in doc["players"]])
    salts = dealt["data"].get("salts", doc.get("salts") or [])
    missing = set(dealt["data"].get("missing", []))
    empty = [p for p, salt in zip(players, salts) if not salt]
    if not empty:
        v.checked.append(f"every player ({', '.join(players)}) stirred the deal with a salt of their own")
        return
    said = ", ".join(f"{p} ({'did not join' if p in missing else 'no salt'})" for p in empty)
    whole = len(empty) == len(players)
    v.notes.append(
        f"WARNING: the deal has no contribution from {said}"
        + (
            ": nobody stirred it, so the moderator, who chose the seed, could have chosen the deal"
            if whole
            else ": only the other players' salts stirred it"
        )
    )


def _interventions(doc: dict[str, Any], v: Verification) -> resigns.Resigned:
    """Say what the moderator did to the game, from its chained entries: undos (a reroll with a WARNING: he saw the
    draws he threw away, so each reroll is a chance to draw again until he likes it), deadline changes, pauses,
    replacements.  Each was mailed to every player when it was done; here they are counted in one line, so a
    player who missed a mail still sees them (second fairness red team)."""
    said: dict[str, int] = {}
    rerolls: list[str] = []
    for o in doc["orders"]:
        if o["kind"] == UNDO:
            said["undo"] = said.get("undo", 0) + 1
            if len(o["lines"]) == 3 and o["lines"][1] == "reroll":
                back = "a marked point" if o["lines"][0].startswith("mark:") else f"input {clip(o['lines'][0])}"
                rerolls.append(f"input {o['seq']} (back to {back}: {clip(o['lines'][2], 80)})")
        elif o["kind"] in ("start", "rename"):
            said[o["kind"]] = said.get(o["kind"], 0) + 1
    names = _Names(doc)
    gone = resigns.Resigned(doc, names.at)
    for e in doc["events"]:
        if e["kind"] == "moderator" and isinstance(e.get("data"), dict):
            action = str(e["data"].get("action", "?"))
            said[action] = said.get(action, 0) + 1
            if action == "say":
                _message(e)
            elif action == "address":
                _moved(doc, e, names)
            elif action == arrived.UNSENT:
                _unsent(e)
            elif action in resigns.READ and (
                problem := gone.read(e, _processed(doc, e, names) if action == "process" else [])
            ):
                raise Refused(problem)
    if note := gone.note():
        v.notes.append(note)
    if not said:
        v.checked.append("the moderator took no action in the game (no undo, extension, pause or replacement)")
        return gone
    v.checked.append(
        "actions on the game besides the players' orders (the moderator's, absences, outages), each in the chain and "
        "mailed to every player when done: "
        + ", ".join(f"{clip(k, 40)} {n}" for k, n in sorted(said.items()))
        + (
            " (join-missing: pbem's own, told to the moderator at once and to the players in their next report)"
            if paced.JOIN_MISSING in said
            else ""
        )
    )
    if rerolls:
        v.notes.append(
            f"WARNING: the moderator undid the game with new draws (--reroll) {count(len(rerolls), 'time')}: "
            + "; ".join(rerolls[:5])
            + ("; ..." if len(rerolls) > 5 else "")
            + ". He had seen the draws he threw away: read his reasons"
        )
    return gone


def _message(e: dict[str, Any]) -> None:
    """A moderator's message to every player (`pbem game say`, SAY): public, its data the action and the text
    alone, the text within pbem's bounds (`pbem.orders.moderator.say_problem`: at most `SAY_MAX` characters, no
    control character, nothing shaped like a player code), and the event's text exactly the words the players were
    mailed it in (`said`).  Records made before the message existed hold none: nothing changes for them."""
    where = f"event {e.get('seq', '?')} (the moderator's message to every player)"
    data, text = e["data"], e["data"].get("text")
    if e["visibility"] != "public":
        raise Refused(f"{where} is not public: every player was mailed it")
    if sorted(data) != ["action", "text"] or not isinstance(text, str):
        raise Refused(f"{where}: its data holds {quote(sorted(data))}; a message's holds its action and text only")
    if problem := say_problem(text):
        raise Refused(f"{where}: {problem}")
    if e["text"] != said_text(text):
        raise Refused(f"{where} says {quote(e['text'])} where its text is {quote(said_text(text))}")


def _unsent(e: dict[str, Any]) -> None:
    """A claim that pbem's mail server could not take mail (`pbem.app.unsent`): public, its data the action and the
    times it failed from and to, from before to and to no later than the event itself, and its text the one pbem
    writes (`arrived.unsent_text`).  What it excuses is `verify --mail`'s (`arrived.Claims`)."""
    where = f"event {e.get('seq', '?')} (pbem's mail server could not take mail)"
    _public(e, where, ["action", "from", "to"], "its action, from and to only")
    window = arrived.claim_of(e)
    if window is None:
        raise Refused(f"{where}: from {quote(e['data']['from'])} to {quote(e['data']['to'])} is no time it can claim")
    if e["text"] != (text := arrived.unsent_text(*window)):
        raise Refused(f"{where} says {quote(e['text'])} where its text is {quote(text)}")


_HEX64 = re.compile(r"\A[0-9a-f]{64}")  # a move's binding of its address (``to``, `pbem.trust.asked.moved_to`)


def _public(e: dict[str, Any], where: str, keys: list[str], holds: str) -> dict[str, Any]:
    """The data of moderator event `e`, which every player was told of: refused unless it is public and its data holds
    exactly `keys` (sorted; `holds` says so)."""
    if e["visibility"] != "public":
        raise Refused(f"{where} is not public: every player was told of it")
    if sorted(e["data"]) != keys:
        raise Refused(f"{where}: its data holds {quote(sorted(e['data']))}; {holds}")
    data: dict[str, Any] = e["data"]
    return data


def _moved(doc: dict[str, Any], e: dict[str, Any], names: _Names) -> None:
    """A seat's mail moved to a new address (ADDRESS by mail, `pbem game address`): public, its data the action, the
    seat, the player who held it at that point of the record (`_Names`) and who moved it ("player": the new
    address sent back its word; "moderator"), and the event's text exactly the one pbem writes (`moved`)."""
    where = f"event {e.get('seq', '?')} (a seat's mail moved to a new address)"
    keys = ["action", "by", "player", "seat", "to"] if "to" in e["data"] else ["action", "by", "player", "seat"]
    data = _public(e, where, keys, "a move's holds its action, by, player and seat (and the player's, to)")
    if data["by"] not in ("player", "moderator"):
        raise Refused(f"{where}: it was done by {quote(data['by'])}; a move is the player's or the moderator's")
    if "to" in data and not (data["by"] == "player" and isinstance(data["to"], str) and _HEX64.fullmatch(data["to"])):
        raise Refused(f"{where}: its binding {quote(data['to'])} is not the SHA-256 pbem writes for a player's move")
    if data["by"] == "player" and "to" not in data and signing.marked(doc["game"]):
        raise Refused(
            f"{where} is the player's own, but holds no binding of its address (to): pbem writes one for every "
            "player's move of a game that declares its bindings, as this one does (game.bindings)"
        )
    seat, player = data["seat"], data["player"]
    name = names.at(doc, e, seat) if isinstance(seat, int) and not isinstance(seat, bool) else None
    if name is None or player != name:
        held = f"seat {clip(str(seat))} was {name}'s then" if name else f"the game has no seat {quote(seat)}"
        raise Refused(f"{where} moves the mail of {quote(player)}, but {held}")
    if e["text"] != moved_text(player):
        raise Refused(f"{where} says {quote(e['text'])} where its text is {quote(moved_text(player))}")


def _processed(doc: dict[str, Any], e: dict[str, Any], names: _Names) -> list[str]:
    """A step's deadline applied at once (PROCESS, `pbem game process`): public, its data the action, the step, the
    new deadline and the players the step still asked (the names of seats at that point of the record, `_Names`,
    each once), and the event's text exactly the one pbem writes (`processed`); returns them.  That each resigned
    before it is `pbem.trust.resigns`'s check."""
    where = f"event {e.get('seq', '?')} (a step's deadline applied now)"
    data = _public(e, where, ["action", "deadline", "players", "step"], "its action, deadline, players and step only")
    players = data["players"]
    if not isinstance(players, list) or not players or len({*map(str, players)}) != len(players):
        raise Refused(f"{where}: its players are {quote(players)}; a list of seats' names, each once")
    seats = {names.at(doc, e, p.get("seat", i)) for i, p in enumerate(doc["players"])}
    if stray := [p for p in players if not isinstance(p, str) or p not in seats]:
        raise Refused(f"{where} names {quote(stray)}, who held no seat then")
    if e["text"] != processed_text(players):
        raise Refused(f"{where} says {quote(e['text'])} where its text is {quote(processed_text(players))}")
    return [str(p) for p in players]


class _Names:
    """The name of each seat at each point of a record: its set-up name, as each replacement before that point renamed
    it (in a whole record the inputs of kind rename, which the replay checked; a player's partial export lists only
    their own inputs, so its public `replace` events; an undo never takes one back).  The replacements are read once,
    on the first question, and each seat's name after each of them kept, so a question bisects: every `process`,
    `resign` and `address` event sorted the whole record again for every seat, 2,000 `process` events 1.05 s (15
    times 500's, costs11)."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.keys: list[Any] | None = None  # the replacements' positions, in order (read on the first question)
        self.seats: list[tuple[Any, str, list[str]]] = []  # each seat, its set-up name, its name after each

    def _read(self) -> list[Any]:
        doc, partial = self.doc, self.doc.get("version") == PARTIAL_VERSION
        if partial:
            given = [
                (x["seq"], x["data"].get("player"), x["data"].get("newcomer"))
                for x in sorted(doc["events"], key=lambda x: x["seq"])
                if x["kind"] == "moderator" and isinstance(x.get("data"), dict) and x["data"].get("action") == "replace"
            ]  # fmt: skip
        else:
            given = [
                (o["seq"], o["player"], o["lines"][0])
                for o in sorted(doc["orders"], key=lambda o: o["seq"])
                if o["kind"] == RENAME and o["lines"]
            ]
        for i, p in enumerate(doc["players"]):
            name, after = str(p["name"]), []
            for _, old, new in given:
                name = str(new) if old == name and new else name
                after.append(name)
            self.seats.append((p.get("seat", i), str(p["name"]), after))
        return [g[0] for g in given]

    def at(self, doc: dict[str, Any], e: dict[str, Any], seat: int) -> str | None:
        """The name of seat `seat` at event `e` of the record read (`doc`); None: the game has no such seat."""
        keys = self.keys = self._read() if self.keys is None else self.keys
        held = next((s for s in self.seats if s[0] == seat), None)
        if held is None:
            return None
        k = (
            bisect_left(keys, e["seq"])
            if doc.get("version") == PARTIAL_VERSION
            else bisect_right(keys, e.get("input_seq", 0))
        )
        return held[2][k - 1] if k else held[1]


def _signed(doc: dict[str, Any], legacy: bool, v: Verification) -> None:
    """The export's head is signed by the game's key (`pbem.trust.signing`): then its header (name, kind, options,
    insecure_seed, players, commitment) is bound too, and a player's signed receipts can be compared with it.
    A game without a key was made before pbem's migration 0012, which also began salting inputs: an export whose
    first input is salted but that has no key had its key removed, and is refused unless `legacy`."""
    key, sig = doc["game"].get("key"), doc.get("signature")
    if key is None:
        if sig is not None:
            raise Refused("the export carries a signature but no game key to check it with")
        first = doc["orders"][0] if doc["orders"] else None
        if first is not None and first["seq"] == 1 and "salt" in first:
            said = (
                "the export has no game key, but its first input carries a salt, as only the inputs of games made "
                "since pbem signed its receipts do: its key and signature were removed"
            )
            if not legacy:
                raise Refused(f"{said}; --legacy checks it anyway (a game upgraded before its first input)")
            v.notes.append(f"NOT PROVEN (--legacy): {said}, or the game was upgraded before its first input")
        v.notes.append(
            "this game has no signing key (made before pbem signed its receipts): nothing proves that other "
            "players were shown the same history; compare record heads with them"
        )
        return
    if doc.get("chain") is None:
        raise Refused("the game has a signing key, but the export has no chain for it to sign")
    if not isinstance(sig, dict) or not all(isinstance(sig.get(k), t) for k, t in _SIGNATURE.items()):
        raise Refused("the game has a signing key, but the export's head is not signed (signature is missing)")
    if not isinstance(key, str) or len(key) != 64:
        raise Refused("the game key must be 64 hex digits (an Ed25519 public key)")
    h = signing.header_of_export(doc)
    if sig["header"] != h:
        raise Refused(
            "the game's fields outside the chain (name, kind, options, insecure_seed, players, commitment) are not "
            "the ones the export's signature was made for: they were edited"
        )
    if (sig["entries"], sig["head"]) != (doc["chain"]["entries"], doc["chain"]["head"]):
        raise Refused("the export's signature is for another head than its chain's")
    if not signing.valid(key, signing.statement(doc["game"]["name"], h, sig["entries"], sig["head"]), sig["sig"]):
        raise Refused("the signature of the export's head is not the game key's")
    v.checked.append(
        f"the head and the game's fields are signed by the game key, fingerprint {signing.fingerprint(key)} "
        "(compare it with the one in your invitation)"
    )


_SIGNATURE = {"entries": int, "head": str, "header": str, "sig": str}


def _vouched(doc: dict[str, Any], v: Verification, read: Reader | None, gone: resigns.Resigned) -> None:
    """Per player input, what the player's provider vouches for; evidence that does not match fails.  The times its
    providers signed bind the record's dates: a `process` event taken as older than chained resignations must not
    follow an input signed since (`resigns.Resigned.dated_back`)."""
    found = vouched.check(doc, read)
    v.vouched = [*found.lines, found.summary]
    v.notes += found.notes
    if found.failures:
        raise Refused(
            f"the DKIM evidence of {found.failures[0]}"
            + (f" (and {len(found.failures) - 1} more inputs)" if len(found.failures) > 1 else "")
        )
    if problem := gone.dated_back(found.signed):
        raise Refused(problem)


def _salted_inputs(seed: str, orders: list[dict[str, Any]], v: Verification) -> None:
    """Each input's salt is the one the seed gives; once inputs are salted (from migration 0012 on) every later
    one is, so stripping salts is not a way back to guessable inputs."""
    salted = 0
    for o in orders:
        if "salt" not in o:
            if salted:
                raise Refused(f"input {o['seq']} carries no salt, though the inputs before it do")
            continue
        if o["salt"] != chain.input_salt(seed, o["seq"]):
            raise Refused(
                f"the salt of input {o['seq']} is not the one the seed gives ({chain.input_salt(seed, o['seq'])})"
            )
        salted += 1
    if salted:
        v.checked.append(f"the salts of {count(salted, 'input')} come from the seed")


def _paced(rows: list[dict[str, Any]], v: Verification) -> tuple[timedelta, datetime] | None:
    """The game's step length is chained in its first input alone (`pbem.trust.paced`: every step's deadline is
    computed from it), in the form pbem writes: one stated later would bend the deadlines after it.  Returns it
    (None: the record chains none, as before fairness16)."""
    inputs = [row for row in rows if "lines" in row]
    if any("pace" in row for row in inputs[1:]):
        later = next(row for row in inputs[1:] if "pace" in row)
        raise Refused(f"input {later['seq']} chains a step length (pace), which only a game's first input does")
    if not inputs or "pace" not in inputs[0]:
        return None
    found = paced.pace(rows)
    if found is None:
        raise Refused(f"the step length input {inputs[0]['seq']} chains (pace) is not a number of seconds and a time")
    setup = {
        paced.at_of(r) for r in rows if "text" in r and r.get("input_seq") == 0 and r["kind"] not in MODERATOR_KINDS
    }
    first = paced.at_of(rows[0])
    if setup - {found[1]} or (first is not None and found[1] > first):
        raise Refused(
            f"input {inputs[0]['seq']} chains that the game's first step opened at {found[1]:%Y-%m-%d %H:%M:%S} UTC, "
            "but the game was set up at another time (its set-up events, or the first entry of its chain, say so)"
        )
    return found


#: The inputs whose time `_applied` compares with the deadline the chain gives: a deadline's defaults, and the join
#: step's JOIN and start once its moves are chained (`paced.joins`).
_TIMED = ("deadline", *joining.KINDS)


def _applied(
    rows: list[dict[str, Any]], steps: dict[int, Any], found: tuple[timedelta, datetime], v: Verification
) -> None:
    """No deadline's defaults came before the deadline the chain gives their step (`paced.computed`; pbem applies a
    deadline once its time has come, by the same clock that timed it): a step shortened for every player with no
    event, its defaults applied then, is named without anyone's mail; defaults applied more than `due.OUTAGE` after
    it are warned of (a longer gap is a recorded outage: fairness16)."""
    last = due.windows(rows)
    join = paced.joins(rows)
    dues = paced.computed(rows, lambda k: steps.get(last[k]), found, join)
    if join:
        problem, warnings = paced.join_kept(rows, lambda k: steps.get(last[k]), dues, found[0])
        if problem:
            raise Refused(problem)
        v.notes += warnings
    late = Alike("deadlines applied long after the deadline the chain gives")  # at most `ALIKE` whole (costs19)
    try:
        _defaults_timed(rows, dues, late)
    finally:  # the warnings before a refusal are said with it, as they were
        v.notes += late.out()
    v.checked.append(
        f"every step's deadline follows from the step length ({due.span(found[0])}) chained in the first input, and "
        "no deadline's defaults came before it"
    )


def _defaults_timed(rows: list[dict[str, Any]], dues: list[paced.Due | None], late: Alike) -> None:
    """Each deadline's defaults against the deadline the chain gives their step: refused before it, `late` after
    `due.OUTAGE`."""
    for k, row in enumerate(rows, 1):
        d, at = dues[k - 1], paced.at_of(row)
        if row.get("kind") != "deadline" or "lines" not in row or d is None or at is None:
            continue
        if d.when - at > paced.SLACK:  # (a difference: a sum could pass the year 9999)
            raise Refused(
                f"the defaults of input {row['seq']} (the deadline) were applied at {at:%Y-%m-%d %H:%M} UTC, "
                f"{due.span(d.when - at)} before the deadline the chain gives its step, {d.when:%Y-%m-%d %H:%M} UTC "
                f"({d.how}, plus the step length chained in the first input; no event moved it): the deadline was "
                "moved earlier outside the record"
            )
        if at - d.when > due.OUTAGE and late.room(f"input {row['seq']}"):
            late.lines.append(
                f"WARNING: the defaults of input {row['seq']} (the deadline) were applied at {at:%Y-%m-%d %H:%M} UTC, "
                f"{due.span(at - d.when)} after the deadline the chain gives its step, {d.when:%Y-%m-%d %H:%M} UTC "
                f"({d.how}), with no event between that moved it: the deadline was stretched outside the record, "
                "unless pbem held it itself (down with outage_after off or longer, a report undelivered, its clock ahead)"
            )


def _fields(
    eng: Engine, state: dict[str, Any], doc: dict[str, Any], rows: list[dict[str, Any]], v: Verification
) -> None:
    """The fields outside the chain agree with the replay and the chain (see the module docstring)."""
    audience = doc.get("audience", "moderator")
    if "final_view" in doc:
        you = None if audience in ("public", "moderator") else audience
        stored = json.loads(json.dumps(state, sort_keys=True))  # the state as the record stores and loads it
        want = json.loads(json.dumps(eng.view(stored, you)))
        if doc["final_view"] != want:
            raise Refused("the final view (the position shown at the end) is not the replayed one: it was edited")
    first = rows[0]["at"] if rows else None
    if doc["game"].get("created") and first and doc["game"]["created"] > first:
        raise Refused(
            f"the game is said to be created at {clip(str(doc['game']['created']))}, after its first entry ({clip(str(first))})"
        )
    if doc["game"].get("over") and doc.get("finished") != (rows[-1]["at"] if rows else None):
        raise Refused(
            f"the game is said to end at {clip(str(doc.get('finished')))}, but its last entry is dated {clip(str(rows[-1]['at']))}"
        )
    names = [p["name"] for p in doc["players"]]
    if [p["seat"] for p in doc["players"]] != list(range(len(names))) or len(set(names)) != len(names):
        raise Refused("the players must be listed once each, in seat order 0, 1, 2, ...")
    if audience != "moderator" and any("address" in p for p in doc["players"]):
        raise Refused("an export for players lists no addresses; this one does (it is not what pbem wrote)")
    if wrong := partial_export.wrong_holder(doc, rows):
        raise Refused(wrong)
    seen: set[str] = set()
    for m in doc["messages"]:
        if m["message_id"] in seen:
            raise Refused(f"message {quote(m['message_id'])} is listed twice")
        seen.add(m["message_id"])
    v.checked.append("the final view, the players, the messages and the times agree with the replay and the chain")


_OPTIONAL = object()
_STR, _INT, _BOOL = (str,), (int,), (bool,)
_STR_OR_NONE = (str, type(None))
#: field: allowed types (a tuple) or a nested shape (a dict); `_OPTIONAL` first in a tuple: may be absent.
_TOP: dict[str, Any] = {
    "format": _STR,
    "version": _INT,
    "audience": (_OPTIONAL, str),
    "game": {
        "name": _STR,
        "kind": _STR,
        "title": (_OPTIONAL, str),
        "created": (_OPTIONAL, str, type(None)),
        "options": (dict,),
        "over": _BOOL,
        "abandoned": (_OPTIONAL, bool),
        "insecure_seed": (_OPTIONAL, bool),
        "key": (_OPTIONAL, str),
        "bindings": (_OPTIONAL, int),
    },
    "players": (list,),
    "seed_commitment": _STR,
    "seed": (_OPTIONAL, str, type(None)),
    "messages": (list,),
    "orders": (list,),
    "events": (list,),
    "result": (_OPTIONAL, dict, type(None)),
    "final_view": (_OPTIONAL, dict),
    "chain": (_OPTIONAL, dict),
    "salts": (_OPTIONAL, list, type(None)),
    "finished": (_OPTIONAL, str, type(None)),
    "signature": (_OPTIONAL, dict),
    "evidence": (_OPTIONAL, list),
    "deal": (_OPTIONAL, dict),
}
_ROWS: dict[str, dict[str, Any]] = {
    "players": {"name": _STR, "seat": _INT, "holder": (_OPTIONAL, str), "address": (_OPTIONAL, str)},
    "messages": {
        "message_id": _STR,
        "player": _STR_OR_NONE,
        "received": _STR_OR_NONE,
        "outcome": _STR,
        "reason": (_OPTIONAL, str, type(None)),
    },
    "orders": {
        "seq": _INT,
        "kind": _STR,
        "player": _STR,
        "lines": (list,),
        "message_id": _STR_OR_NONE,
        "at": _STR_OR_NONE,
        "hash": (_OPTIONAL, str),
        "salt": (_OPTIONAL, str),
        "pace": (_OPTIONAL, dict),
    },
    "events": {
        "seq": _INT,
        "input_seq": _INT,
        "kind": _STR,
        "text": _STR,
        "visibility": (str, list),
        "data": (dict,),
        "at": _STR_OR_NONE,
        "hash": (_OPTIONAL, str),
        "salt": (_OPTIONAL, str),
    },
}
#: A partial export's rows (version 2): numbered as the reader counts, no salts, `input_seq` only on set-up events.
_PARTIAL_ROWS: dict[str, dict[str, Any]] = {
    "players": _ROWS["players"],
    "messages": _ROWS["messages"],
    "orders": {k: t for k, t in _ROWS["orders"].items() if k != "salt"} | {"hash": _STR},
    "events": {k: t for k, t in _ROWS["events"].items() if k != "salt"} | {"input_seq": (_OPTIONAL, int), "hash": _STR},
}
_EVIDENCE = {
    "message_id": _STR,
    "domain": _STR,
    "selector": _STR,
    "verified": _BOOL,
    "headers": _STR,
    "body": _STR_OR_NONE,
    "key": _STR,
}
_CHAIN = {"start": _STR, "head": _STR, "entries": _INT, "legacy_events": (_OPTIONAL, int)}
_RESULT = {"scores": (dict,), "winners": (list,), "summary": _STR}


def _fits(where: str, obj: dict[str, Any], shape: dict[str, Any]) -> None:
    unknown = sorted(set(obj) - set(shape))
    if unknown:
        raise Refused(f"{where} holds the field {quote(unknown[0])}, which this pbem does not know and so cannot check")
    for key, want in shape.items():
        if isinstance(want, dict):
            if not isinstance(obj.get(key), dict):
                raise Refused(f"{where}.{key} must be an object")
            _fits(f"{where}.{key}", obj[key], want)
            continue
        if key not in obj:
            if want[0] is _OPTIONAL:
                continue
            raise Refused(f"{where} has no field {key!r}")
        kinds = tuple(t for t in want if t is not _OPTIONAL)
        value = obj[key]
        # bool is an int to Python, never to JSON: "version": true is not version 1
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join("null" if t is type(None) else t.__name__ for t in kinds)
            raise Refused(f"{where}.{key} must be {names}, not {json.dumps(value)[:40]}")


def _shape(doc: dict[str, Any]) -> None:
    """Every field has the type it must have, and none is unknown (see the module docstring)."""
    if doc.get("format") != FORMAT:
        raise Refused(f"not a pbem history export (format {str(doc.get('format'))[:40]!r})")
    _fits("the export", doc, _TOP)
    rows = _PARTIAL_ROWS if doc.get("version") == PARTIAL_VERSION else _ROWS
    for key, shape in rows.items():
        for i, row in enumerate(doc[key], 1):
            if not isinstance(row, dict):
                raise Refused(f"{key}[{i}] must be an object")
            _fits(f"{key}[{i}]", row, shape)
            if key == "orders" and not all(isinstance(line, str) for line in row["lines"]):
                raise Refused(f"every line of orders[{i}] must be text")
            if (
                key == "events"
                and isinstance(row["visibility"], list)
                and not all(isinstance(p, str) for p in row["visibility"])
            ):
                raise Refused(f"the visibility of events[{i}] must list names")
    for i, row in enumerate(doc.get("evidence") or [], 1):
        if not isinstance(row, dict):
            raise Refused(f"evidence[{i}] must be an object")
        _fits(f"evidence[{i}]", row, _EVIDENCE)
    if doc.get("chain") is not None:
        _fits("the chain", doc["chain"], _CHAIN)
    if doc.get("result") is not None:
        _fits("the result", doc["result"], _RESULT)
    if doc.get("salts") is not None and not all(isinstance(x, str) for x in doc["salts"]):
        raise Refused("every salt must be text")


def _downgrades(doc: dict[str, Any], legacy: bool, v: Verification) -> None:
    """A chain-less or legacy-marked export is accepted only when the reader asks (see the module docstring)."""
    rows = doc["orders"] + doc["events"]
    chainless = doc.get("chain") is None and not any("hash" in r for r in rows)
    marked = bool(doc.get("chain") and doc["chain"].get("legacy_events"))
    if not (chainless or marked):
        return
    what = (
        "carries no hash chain (an export made before pbem chained its record)"
        if chainless
        else f"marks its first {doc['chain']['legacy_events']} events as recorded before the chain (matched fact by fact)"
    )
    if not legacy:
        raise Refused(
            f"this export {what}: a forger could claim the same for a made-up history, so it is refused; "
            "--legacy checks it anyway and says what is not proven"
        )
    v.notes.append(f"NOT PROVEN (--legacy): this export {what}")


def _salted(seed: str, events: list[dict[str, Any]], v: Verification) -> None:
    """Each event's salt is the one the seed gives (docs/export-format.md, "The chained record").  Hidden events
    carry one since migration 0010, public ones since their numbers were found guessable from a mail's heads;
    once a public event is salted every later event is, so stripping salts is not a way back to guessable
    entries."""
    salted, public_salted = 0, 0
    for e in events:
        if "salt" not in e:
            if public_salted:
                raise Refused(f"event {e['seq']} carries no salt, though the public events before it do")
            continue
        public_salted += e["visibility"] == "public"
        if e["salt"] != chain.entry_salt(seed, e["seq"]):
            raise Refused(
                f"the salt of event {e['seq']} is not the one the seed gives ({chain.entry_salt(seed, e['seq'])})"
            )
        salted += 1
    if salted:
        v.checked.append(f"the salts of {count(salted, 'event')} come from the seed")


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


def _in_order(orders: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    """The numbering of an export that lists only some entries: each list in increasing order, every event naming
    an input, never going back (the gaps are entries hidden from the export's audience)."""
    for what, rows in (("input", orders), ("event", events)):
        last = 0
        for row in rows:
            if row["seq"] <= last:
                raise Refused(f"{what} {row['seq']} is listed after {what} {last}: {what}s are repeated or swapped")
            last = row["seq"]
    last = 0
    for e in events:
        if e["input_seq"] < last or e["input_seq"] < 0:
            raise Refused(f"event {e['seq']} names input {e['input_seq']}, after an event of input {last}")
        last = e["input_seq"]


def _listed_chain(
    doc: dict[str, Any], orders: list[dict[str, Any]], events: list[dict[str, Any]], v: Verification
) -> None:
    """The chain of an export that lists only some entries: each listed entry whose position is known
    (`pbem.trust.chain.places`) and whose predecessor in the whole chain is listed too (or is the commitment)
    must follow from it by its hash; the last entry of the chain, when listed, is the head; times never go back."""
    summary = doc.get("chain")
    rows = chain.sequence(orders, events)
    if summary is None:
        if any("hash" in r for r in rows):
            raise Refused("the export's entries carry hashes but its chain summary (start, head, entries) is missing")
        v.notes.append("this export was made before pbem chained its record (no hashes): nothing of it is proven")
        return
    if summary["start"] != doc["seed_commitment"]:
        raise Refused(f"the chain starts from {quote(summary['start'])}, not from the seed commitment")
    total = summary["entries"]
    at, previous, linked, last = 0, str(doc["seed_commitment"]), 0, 0
    for row, place in chain.places(orders, events):
        what = f"event {row['seq']}" if "text" in row else f"input {row['seq']}"
        if place is not None and (place <= last or place > total):
            raise Refused(
                f"{what} stands at entry {place} of the chain, "
                + (f"after entry {last}" if place <= last else f"but the chain holds {total} entries")
            )
        if place is not None and place == at + 1:
            want = chain.link(previous, chain.entry_of(row))
            if row.get("hash") != want:
                raise Refused(
                    f"the chain breaks at entry {place} ({what}): its hash should be {want[:16]}..., the export says "
                    f"{str(row.get('hash'))[:16]}... (this entry or the one before it was changed)"
                )
            linked += 1
        at, previous, last = (place or -1), str(row.get("hash")), max(last, place or 0)
        if place == total and row.get("hash") != summary["head"]:
            raise Refused(f"the last entry of the chain ({what}) does not end at the head the export states")
    times = [r["at"] for r in rows]
    for i in range(1, len(times)):
        if times[i] < times[i - 1]:
            raise Refused(
                f"{_said(rows[i])} is dated {clip(times[i])}, before {_said(rows[i - 1])} ({clip(times[i - 1])})"
            )
    v.checked.append(
        f"the export lists {len(rows)} of the chain's {total} entries (the others are hidden from its audience "
        f"until the end); {linked} of them follow by their hash from the entry before them; proven where listed, "
        f"up to entry {last}"
    )


def _said(row: dict[str, Any]) -> str:
    return f"event {row['seq']}" if "text" in row else f"input {row['seq']}"


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
            raise Refused(
                f"input {o['seq']} ({quote(o['player'])}) names message {quote(mid)}, which the export does not list"
            )
        if outcome[mid] not in ("accepted", "held"):
            raise Refused(
                f"input {o['seq']} ({quote(o['player'])}) was applied from message {quote(mid)}, "
                f"but the export marks that message {clip(outcome[mid])}"
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
        raise Refused(f"the chain starts from {quote(summary['start'])}, not from the seed commitment")
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
            raise Refused(
                f"entry {i + 1} of the chain is dated {clip(times[i])}, before entry {i} ({clip(times[i - 1])})"
            )
    v.checked.append(
        f"the chain of {len(rows)} entries holds from the seed commitment to the head {head[:16]}...: "
        f'once the game is over, every player\'s last report ends with "Record #{len(rows)}, {head[:16]}...", '
        "and every player's copy of the export must give this same line: compare them"
    )
    return head


def _engine(doc: dict[str, Any]) -> Engine:
    try:
        return registry.get(doc["game"]["kind"])
    except registry.UnknownKind as exc:
        raise Refused(str(exc)) from None


def _replay(
    eng: Engine,
    doc: dict[str, Any],
    record: tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]],
    older: list[int],
    reworded: list[int],
    paces: tuple[dict[int, Any] | None, int] = (None, 0),
) -> tuple[dict[str, Any], int]:
    """Replay every input (`record`: the orders, the events and the chain's rows); each must produce exactly the
    engine events the export attributes to it.  With `--mail` the fold is the one the mailboxes take on
    (`folded.started`): the record folded once for both.  `paces`: (a dict filled with the step open after each
    input up to a position, by its position in the chain, 0 the start, for the deadlines computed (`paced`); that
    position); the mailboxes take them on."""
    orders, events, rows = record
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
            f"input 1 ({quote(orders[0]['kind'])}) belongs to a join step, but the export has no salts: the deal of a game "
            "with a join step is made from SHA-256(seed || salts)"
        )
    state, setup = (joining.open_state(players), []) if join else eng.setup(players, seed, options)
    seen = _Seen(eng, older, reworded, legacy)
    _same("the set-up", setup, by_input.get(0, []), seen)
    count = len(setup)
    dealt: list[list[str]] = []
    fold = Fold(state, lambda st: joining.step_engine(eng, st, players, seed, options), seed)
    inputs = [r for r in rows if "lines" in r]
    same = len(inputs) == len(orders) and all(a is b for a, b in zip(inputs, orders, strict=True))
    shared = folded.started(doc, rows) if same else None
    steps, upto = paces
    where = iter(n for n, r in enumerate(rows, 1) if "lines" in r)  # where each input stands in the chain
    if steps is not None:
        steps[0] = paced.step_of(joining.step_engine(eng, state, players, seed, options), state)
    for order in orders:
        # the moderator's undo and a seat given to someone else (`rename`) belong to either step: `pbem game undo`
        # and `pbem game replace` take them while the join step is open too (an undo there was refused before)
        if order["kind"] not in EITHER and (order["kind"] in joining.KINDS) != joining.is_joining(state):
            raise Refused(
                f"input {order['seq']} ({quote(order['kind'])}) does not fit the join step: "
                + ("the game is not dealt yet" if joining.is_joining(state) else "no join step is open")
                + ("" if join else " (the export has no salts)")
            )
        step = joining.step_engine(eng, state, players, seed, options)
        if shared is None:
            out = fold.run(order["seq"], order["kind"], order["player"], order["lines"], state)
        else:
            out = shared.next_input()
        if not out.accepted:
            bad = next(r for r in out.lines if not r.ok)
            raise Refused(
                f"order {order['seq']} ({quote(order['player'])}: {quote(bad.line)}) is rejected on replay: "
                f"{clip(str(bad.reason), 200)}"
            )
        state = out.state
        if steps is not None and (at := next(where, upto + 1)) <= upto:
            steps[at] = paced.step_of(joining.step_engine(eng, state, players, seed, options), state)
        _same(f"input {order['seq']}", out.events, by_input.get(order["seq"], []), seen)
        count += len(out.events)
        dealt.extend(e.data["salts"] for e in out.events if e.kind == "salts" and step is not eng)
    if join:
        _salts(doc["salts"], dealt[0] if dealt else None)
    if shared is not None and steps:
        shared.steps.update(steps)  # for the mailboxes' checks (`receipts._steps`)
    return state, count


def _salts(stated: list[str] | None, replayed: list[str] | None) -> None:
    """The export's `salts` are the ones the JOIN inputs gave, that the replay dealt from."""
    if stated != replayed:
        raise Refused(
            f"the export's salts {quote(stated)} are not the salts of its JOIN inputs {quote(replayed)}: the deal was made "
            "from SHA-256(seed || the JOIN inputs' salts)"
        )


@dataclass
class _Seen:
    """What the replay noted while matching events: `older` pre-chain events (those up to `legacy`), matched fact
    by fact (`_legacy`); `reworded` events recorded in one of the engine's `earlier_forms`."""

    eng: Engine
    older: list[int]
    reworded: list[int]
    legacy: int


def _same(what: str, produced: list[Event], recorded: list[dict[str, Any]], seen: _Seen) -> None:
    """The recorded events of one input are the replayed ones, exactly, or in a form an earlier engine wrote
    (`Engine.earlier_forms`: the same facts, reworded).  Events up to `seen.legacy` were recorded before the
    chain, by an engine whose data held fewer facts: each fact they hold must match (see `_legacy`)."""
    for want, got in zip(recorded, produced):
        got_json = json.loads(json.dumps(got.to_json(), sort_keys=True))
        want_json = json.loads(json.dumps({k: want[k] for k in ("kind", "text", "visibility", "data")}, sort_keys=True))
        if got_json != want_json and want["seq"] <= seen.legacy and _legacy(want_json, got_json):
            seen.older.append(want["seq"])
            continue
        if got_json != want_json and any(
            json.loads(json.dumps(e.to_json(), sort_keys=True)) == want_json
            for e in (*seen.eng.earlier_forms(got), *joining.earlier_salts(got))
        ):
            seen.reworded.append(want["seq"])
            continue
        if got_json != want_json:
            where, said, gives = difference(want_json, got_json) or ("", want_json, got_json)
            ours, theirs = (
                apart(said, gives) if isinstance(said, str) and isinstance(gives, str) else (quote(said), quote(gives))
            )
            raise Refused(
                f"event {want['seq']} differs in {where or 'its fields'}: the export says {ours}, the replay "
                f"of {what} gives {theirs} (the event: {quote(want['text'], 60)})"
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
        if doc["game"].get("abandoned"):
            last = rows[-1] if rows else None
            if last is None or last.get("kind") != "moderator" or last.get("data", {}).get("action") != "abandon":
                raise Refused(
                    "the export says the game was abandoned, but its last entry is not the moderator's abandon"
                )
            v.checked.append(f"the game was abandoned: proven up to entry {len(rows)}, the moderator's abandon")
            return
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
        if key == "summary" and stated.get(key) in result.earlier:  # worded by an earlier pbem (walk8: HH-R3 named)
            continue
        if stated.get(key) != value:
            raise Refused(f"the result's {key} is {quote(stated.get(key))}, the replay gives {quote(value)}")
    v.checked.append(f"the result is the replayed one: {result.summary}")
    last = rows[-1] if rows else None
    if last is None or "text" not in last or last["kind"] in MODERATOR_KINDS or last["input_seq"] != len(doc["orders"]):
        raise Refused("the export of a finished game must end with the game's end (its last engine event)")
    v.checked.append("the export ends with the game's end")
