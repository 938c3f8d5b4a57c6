"""`pbem verify`: what the players' providers vouch for, input by input (issue 25).

The export's `evidence` lists, per message, the DKIM evidence kept at arrival
(`pbem.trust.dkim`).  For every input that names a player's message, one line:

- ``dkim: pass d=DOMAIN`` the provider's signature holds, offline, with the key
  as fetched at arrival; its Message-ID is the input's, its From the player's
  address (when the export states it), its subject names the game; and, when
  the body was kept, the body read as pbem reads orders gives exactly the
  input's lines.  ``(headers only ...)`` when the mail carried a code, whose
  body pbem does not keep: then the lines rest on the player's acknowledgement;
- ``unsigned``: no evidence (the provider does not sign, or the moderator left
  it out: a player whose provider signs knows which);
- ``FAIL ...``: the evidence does not hold or does not match the input.  This is
  what a moderator who substituted an order, or forged a JOIN carrying a
  signature, is caught by; `pbem verify` fails and names the input.

A JOIN's ``DKIM <hex>`` line (its contribution to the deal, `pbem.trust.deal`)
must be SHA-256 of the signature its evidence holds, and a JOIN whose evidence
verifies must carry it.  A player with signed inputs and also unsigned ones is
named: if they did not send that one unsigned, it is not theirs.  A signed mail whose
signature's ``t=`` (the provider's clock, bound by the signature) lies more than an hour
before a deadline input it is recorded as arriving after gets a WARNING (`held_back`):
held back by the moderator, or slow to arrive.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pbem import engine as registry
from pbem.engine.seats import RENAME
from pbem.engine.words import count
from pbem.orders.closings import footer_keys
from pbem.orders.typed import cleaned
from pbem.trust import deal as joining
from pbem.trust import dkim
from pbem.trust import when_sent as when
from pbem.trust.quote import Alike, clip
from pbem.trust.receipts import visible
from pbem.trust.sent import HELD_BACK, Reader, answering, known_words, read_plain, set_aside


@dataclass
class Vouched:
    lines: list[str] = field(default_factory=list)  # one per player input
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summary: str = ""
    signed: dict[int, tuple[str, int]] = field(default_factory=dict)  # input seq -> (player, the provider's t=)


def _mid(value: object) -> str:
    return "".join(str(value or "").split()).strip("<>").lower()


def _words(doc: dict[str, Any]) -> tuple[str, ...]:
    try:
        words = tuple(registry.get(doc["game"]["kind"]).order_words)
    except registry.UnknownKind:
        words = ()
    return words + joining.ORDER_WORDS


def _as_applied(order: dict[str, Any]) -> list[str]:
    """The lines the player wrote, as the input holds them: a JOIN's pbem-added DKIM line left out, and
    ``JOIN SALT x`` on one line read as JOIN, then SALT x (`pbem.trust.deal.split_join`)."""
    out = []
    for line in order["lines"]:
        if order["kind"] == "join" and joining.signature_line([line]):
            continue
        out.append(line)
    return out


def check(doc: dict[str, Any], read: Reader | None = None) -> Vouched:
    """Re-check the evidence of every player input of `doc` (offline); a signed mail's order lines read by `read`
    (`pbem.trust.sent.Reader`: as the poll read them), else from its plain part."""
    out = Vouched()
    evidence = {_mid(e.get("message_id")): e for e in doc.get("evidence") or [] if isinstance(e, dict)}
    addresses = {str(p["name"]): str(p.get("address", "")).lower() for p in doc["players"]}
    tag = visible(f"[pbem {doc['game']['name']}]").lower()
    words = _words(doc)
    known = known_words(doc)
    signed_by: dict[str, list[int]] = {}
    unsigned_by: dict[str, list[int]] = {}
    whole = headers_only = 0
    stamped: list[tuple[str, str, int]] = []  # (Message-ID, player, the provider's t=) of each signature that holds
    senders: dict[str, list[tuple[int, str, int | None]]] = {}  # the signed From -> (input seq, player, t=) it signed
    rechecked, footers = _footprints(doc, evidence)
    for o in doc["orders"]:
        if not o.get("message_id") or not o.get("player"):
            continue
        where = f"input {o['seq']} ({clip(str(o['player']))})"
        entry = evidence.get(_mid(o["message_id"]))
        if entry is not None and not entry.get("headers") and not joining.signature_line(o["lines"]):
            unsigned_by.setdefault(o["player"], []).append(o["seq"])  # a code in a signed field: nothing kept
            out.lines.append(f"{where}: dkim: unsigned (its signed header fields held the player's code: not kept)")
            continue
        if entry is None:
            unsigned_by.setdefault(o["player"], []).append(o["seq"])
            if o["kind"] == "join" and joining.signature_line(o["lines"]):
                out.failures.append(f"{where}: its JOIN carries a DKIM contribution but the export keeps no evidence")
                out.lines.append(f"{where}: dkim: FAIL the DKIM contribution has no evidence")
            else:
                out.lines.append(f"{where}: dkim: unsigned")
            continue
        problem, r = _problem(
            o, entry, addresses.get(o["player"], ""), (tag, words, known), read, out.notes, (rechecked, footers)
        )
        if problem:
            out.failures.append(f"{where}: {problem}")
            out.lines.append(f"{where}: dkim: FAIL {problem}")
            continue
        signed_by.setdefault(o["player"], []).append(o["seq"])
        if r.sender:
            senders.setdefault(r.sender, []).append((int(o["seq"]), str(o["player"]), r.signed_at))
        if r.signed_at is not None:
            stamped.append((_mid(o["message_id"]), str(o["player"]), r.signed_at))
            out.signed[o["seq"]] = (str(o["player"]), r.signed_at)
        if r.whole:
            whole += 1
            out.lines.append(f"{where}: dkim: pass d={entry['domain']}")
        else:
            headers_only += 1
            out.lines.append(
                f"{where}: dkim: pass d={entry['domain']} (headers only: the mail carried a code, so pbem kept not its "
                "body; its order lines rest on the player's acknowledgement)"
            )
    for player, seqs in unsigned_by.items():
        if player in signed_by:
            out.notes.append(
                f"WARNING: {player}'s provider signed {count(len(signed_by[player]), 'input')} of theirs but not input "
                f"{', '.join(map(str, seqs[:5]))}{' ...' if len(seqs) > 5 else ''}: if {player} did not send it "
                "unsigned, it is not theirs"
            )
    out.failures += one_seat(doc, senders)
    named = {_mid(o.get("message_id")) for o in doc["orders"] if o.get("message_id")}
    for mid, entry in evidence.items():  # a signed mail no input applies (refused, ignored: too late?)
        if mid not in named and (r := dkim.recheck(entry)).ok and r.signed_at is not None and r.message_id == mid:
            stamped.append((mid, _sender(doc, mid), r.signed_at))
    out.notes += held_back(doc, stamped)
    total = whole + headers_only + sum(map(len, unsigned_by.values())) + len(out.failures)
    out.summary = (
        f"dkim: {whole + headers_only} of {count(total, 'player input')} vouched for by the player's provider "
        f"({whole} with their text, {headers_only} headers only); {sum(map(len, unsigned_by.values()))} unsigned; "
        f"{len(out.failures)} FAIL"
        if total
        else f"dkim: no player input to check: {none_listed(doc)}"
    )
    return out


def none_listed(doc: dict[str, Any]) -> str:
    """Why an export lists no input that names a player's mail (its DKIM line said "0 of 0 player inputs" before
    walk11, of a public export of 40 inputs as of a new game: a figure with nothing to count)."""
    listed = count(len(doc.get("orders") or []), "input")
    audience = str(doc.get("audience") or "")
    if doc.get("version") == 2 and audience == "public":
        return (
            f"a public export of a game in progress lists no player's input ({listed} listed: deadlines' and the "
            "moderator's); each player's own export lists theirs, the moderator's every one"
        )
    if doc.get("version") == 2 and audience != "moderator":
        return f"this export lists {clip(audience)}'s own inputs and the deadlines' ({listed} listed): none is a mail of theirs yet"
    return f"none of the {listed} of the record is a player's mail yet (deadlines' defaults, the moderator's)"


MOVES = frozenset({"replace", "address"})  # the moderator events that give a seat an address


def one_seat(doc: dict[str, Any], senders: dict[str, list[tuple[int, str, int | None]]]) -> list[str]:
    """Each pair of inputs one From address signed (`senders`: address -> (input seq, player, the provider's t=)) for
    two seats, with no event of each seat between them that gives it an address (`replace`; `address`: its mail
    moved).  The public export lists no addresses, so a signed mail's From is compared with its player's only in the
    moderator's; but pbem lets an address play one seat at a time (a game's addresses differ, and `pbem game replace`
    refuses an address already playing), so Bob's signed reply recorded as Alice's input is named from the export
    alone (fairness13).  An address that left one seat and was given another (an event of each between) is honest,
    if it signed for the new seat after it signed for the old one (`_signed_before`)."""
    seat = {str(p["name"]): int(p.get("seat", i)) for i, p in enumerate(doc["players"])}
    seats: dict[int, int] = {}  # input seq -> the seat its player held then
    for o in sorted(doc["orders"], key=lambda o: int(o["seq"])):
        seats[int(o["seq"])] = seat.get(str(o.get("player")), -1)
        if o.get("kind") == RENAME and o.get("lines") and str(o.get("player")) in seat:
            seat[str(o["lines"][0])] = seat.pop(str(o["player"]))
    given: dict[int, list[float]] = {}  # seat -> where each event giving it an address lies: after that input
    listed = doc.get("version") == 2  # a partial export numbers inputs and events in one count, no `input_seq`
    for e in doc["events"]:
        data = e.get("data") if isinstance(e.get("data"), dict) else {}
        if e.get("kind") == "moderator" and data.get("action") in MOVES and isinstance(data.get("seat"), int):
            where = int(e.get("seq") or 0) - 0.5 if listed else int(e.get("input_seq") or 0)
            given.setdefault(data["seat"], []).append(where)
    for places in given.values():
        places.sort()  # each pair asks for one between by a search, not a scan (costs13: pairs times moves)
    out = []
    for address, signed in senders.items():
        signed.sort(key=lambda s: s[0])
        domain = clip(address.rpartition("@")[2])
        for (a, one, _), (b, two, _) in itertools.pairwise(signed):
            s1, s2 = seats.get(a, -1), seats.get(b, -1)
            if s1 == s2 or all(_between(given.get(one_of, []), a, b) for one_of in (s1, s2)):
                continue
            out.append(
                f"input {a} ({clip(one)}) and input {b} ({clip(two)}): one From address (@{domain}) signed "
                "both, each for another seat, and neither seat was given another address between them: pbem lets an "
                "address play one seat, so one of them is another player's mail recorded as theirs"
            )
            break  # one line an address
        else:
            out += _signed_before(signed, seats, domain)
    return out


def _between(places: list[float], a: int, b: int) -> bool:
    """Whether the sorted `places` hold one at least `a` and under `b`."""
    i = bisect.bisect_left(places, a)
    return i < len(places) and places[i] < b


SKEW = 300  # seconds one provider's signing servers' clocks may differ: an earlier t= within it is not named


def _signed_before(signed: list[tuple[int, str, int | None]], seats: dict[int, int], domain: str) -> list[str]:
    """The first input of `signed` (one address's, in the record's order) whose provider signed it (t=) before an
    earlier-recorded input of another seat (fairness14).  An address given a new seat after leaving its old one
    signed the new seat's mail after its old seat's last mail arrived, so after its provider signed that; a mail it
    signed while it still played the old seat (one the moderator never applied), recorded for the new seat after
    two `replace` events, is not the new seat's.  Both times are the provider's, bound by its signatures; one
    earlier by at most `SKEW` is not named (two of the provider's servers may sign).  The latest of another seat is
    one of the two seats' latest that are latest (`top`): every seat's was looked at for each input, an address
    that signed for n seats cost n squared (2,000 seats 0.11 s, 15 times 500's; costs14)."""
    latest: dict[int, tuple[int, int, str]] = {}  # seat -> (the latest t= of its inputs so far, that input, player)
    top: list[tuple[tuple[int, int, str], int]] = []  # the two seats whose latest are latest: (latest, seat)
    for b, two, t in signed:
        s2 = seats.get(b, -1)
        if t is not None:
            old = next((v for v, s in top if s != s2), None)
            if old is not None and t < old[0] - SKEW:
                a, one = old[1], old[2]
                return [
                    f"input {b} ({clip(two)}) was signed by its provider (@{domain}) at {_utc(t)}, before input {a} "
                    f"({clip(one)}), recorded earlier for another seat, that the same From address signed at "
                    f"{_utc(old[0])}: the address left that seat before it took this one, so this mail was written "
                    "while it played the other seat: it is not this seat's input"
                ]
            latest[s2] = max(latest.get(s2, (t, b, two)), (t, b, two))
            top = sorted([(v, s) for v, s in top if s != s2] + [(latest[s2], s2)], reverse=True)[:2]
    return []


def _utc(t: int) -> str:
    try:
        return f"{datetime.fromtimestamp(t, UTC):%Y-%m-%d %H:%M:%S} UTC"
    except (OverflowError, OSError, ValueError):
        return f"t={t}"


def _sender(doc: dict[str, Any], mid: str) -> str:
    return next((str(m.get("player") or "") for m in doc["messages"] if _mid(m.get("message_id")) == mid), "")


def held_back(doc: dict[str, Any], stamped: list[tuple[str, str, int]]) -> list[str]:
    """A WARNING per signed mail that its provider signed more than `HELD_BACK` before a deadline input that the
    export records it as arriving after: the defaults were applied while it was on its way or held (the first
    `quote.ALIKE` whole, the others counted in one line: costs19).  The provider's
    t= is bound by its signature (the moderator cannot move it); the arrival is the moderator's word, and a slow
    provider can be the cause too, so it is a warning, for everyone who reads the export, not a failure."""
    cutoffs = {o["seq"]: o for o in doc["orders"] if o["kind"] in when.CUTOFFS}
    deadlines = sorted((at, seq) for seq, o in cutoffs.items() if (at := when.iso(o["at"])))
    if not deadlines:
        return []
    arrived = {_mid(m.get("message_id")): m.get("received") for m in doc["messages"]}
    applied = {_mid(o.get("message_id")): o.get("at") for o in doc["orders"] if o.get("message_id")}
    out = Alike("signed mails recorded as arriving after a deadline they were signed long before")  # costs19
    for mid, player, t in stamped:
        came = when.iso(arrived.get(mid) or applied.get(mid))
        try:
            signed = datetime.fromtimestamp(t, UTC)
        except (OverflowError, OSError, ValueError):
            continue
        i = bisect.bisect_right(deadlines, (signed + HELD_BACK, 1 << 62))
        if came is None or i == len(deadlines) or not deadlines[i][0] < came or not out.room(f"<{clip(mid, 80)}>"):
            continue
        at, seq = deadlines[i]
        out.lines.append(
            f"WARNING: {clip(player) or 'a player'}'s mail <{clip(mid, 80)}> was signed by their provider at "
            f"{signed:%Y-%m-%d %H:%M} UTC, {(at - signed).total_seconds() / 3600:.1f} hours before "
            f"{when.cutoff(cutoffs[seq])} ({at:%Y-%m-%d %H:%M} UTC), but the export records it as arriving at "
            f"{came:%Y-%m-%d %H:%M} UTC, after it: {when.CUTOFFS[cutoffs[seq]['kind']]} while it was on its way. The "
            "signature's time is the provider's and cannot be moved; the arrival is the moderator's word: either "
            "the provider took that long to deliver it, or the moderator held it back"
        )
    return out.out()


def _footprints(
    doc: dict[str, Any], evidence: dict[str, dict[str, Any]]
) -> tuple[dict[str, dkim.Rechecked], Callable[[str], frozenset[str]]]:
    """The accepted mails whose signed body the export keeps, rechecked (by Message-ID), and for each the lines of
    the same player's other such mails that no input applied (`closings.footer_keys`): the footers the intake may
    have learnt from them (players29, `pbem.app.footprints`; as `pbem.trust.sent._footprints` for a Sent folder)."""
    lines: dict[str, tuple[str, ...]] = {}
    for o in doc["orders"]:
        if o.get("message_id"):
            lines[_mid(o["message_id"])] = lines.get(_mid(o["message_id"]), ()) + tuple(str(x) for x in o["lines"])
    rechecked: dict[str, dkim.Rechecked] = {}
    own: dict[str, tuple[str, frozenset[str]]] = {}
    counts: dict[tuple[str, str], int] = {}
    for m in doc.get("messages") or []:
        mid, entry = _mid(m.get("message_id")), evidence.get(_mid(m.get("message_id")))
        if m.get("outcome") != "accepted" or entry is None or not entry.get("body"):
            continue
        r = rechecked[mid] = dkim.recheck(entry)
        if r.ok and r.whole:
            keys = footer_keys([(r.text, lines.get(mid, ()))], cleaned)
            own[mid] = (str(m.get("player", "")), keys)
            for k in keys:
                counts[(own[mid][0], k)] = counts.get((own[mid][0], k), 0) + 1

    def footers(mid: str) -> frozenset[str]:  # asked only for a mail whose lines the input did not apply as written
        player, keys = own.get(mid, ("", frozenset()))
        return frozenset(k for (p, k), n in counts.items() if p == player and n > (k in keys))

    return rechecked, footers


def _plain(r: dkim.Rechecked, words: tuple[str, ...]) -> list[str]:
    """A signed mail's order lines read from its plain part, as `pbem.trust.sent.read_plain` reads a sent one."""
    return read_plain(r.text, r.subject, words, answering(r.raw))


def _problem(
    o: dict[str, Any],
    entry: dict[str, Any],
    address: str,
    game: tuple[str, tuple[str, ...], set[str]],
    read: Reader | None,
    notes: list[str],
    learnt: tuple[dict[str, dkim.Rechecked], Callable[[str], frozenset[str]]] | None = None,
) -> tuple[str, dkim.Rechecked]:
    """Why `entry` does not vouch for input `o` ("" when it does), and the recheck; `game`: its tag, order words and
    the words of the export's inputs.  Lines the intake sets aside (a footer, a repeat: `pbem.trust.sent.set_aside`)
    that the input left out are noted in `notes`, as `pbem verify --sent` notes them; `learnt`: the signed mails
    already rechecked, by Message-ID, and the player's footers their other signed mails show (`_footprints`)."""
    tag, words, known = game
    r = (learnt[0].get(_mid(o["message_id"])) if learnt else None) or dkim.recheck(entry)
    if not r.ok:
        return f"the provider's signature does not hold: {r.why}", r
    if r.message_id and r.message_id != _mid(o["message_id"]):
        return f"the signed Message-ID is <{r.message_id}>, not the input's <{_mid(o['message_id'])}>", r
    if address and r.sender and r.sender != address:
        return f"the signed mail is from {r.sender}, not the player's address {address}", r
    if r.subject and tag not in visible(r.subject).lower():
        return f"the signed subject {r.subject[:80]!r} names another game", r
    if o["kind"] == "join":
        stated, signed = joining.signature_line(o["lines"]), dkim.contribution(entry)
        if stated != signed:
            what = "carries no DKIM line" if not stated else "carries a DKIM line that is not its signature's"
            return f"the signed JOIN {what}: the deal was not stirred by the provider's signature", r
    if r.whole and o["kind"] in ("orders", "join"):
        lines = list(read(r.raw, words)) if read is not None else _plain(r, words)
        wrote, applied = joining.split_join(lines), _as_applied(o)
        footers = learnt[1](_mid(o["message_id"])) if learnt and wrote != applied else frozenset()
        aside = set_aside(wrote, applied, known, footers=footers) if wrote != applied else []
        if aside:
            notes.append(
                f"input {o['seq']} ({clip(str(o['player']))}) applied the signed mail's lines without "
                f"{clip('; '.join(aside))}: a footer, a closing or a repeat of a line above, which pbem sets aside"
            )
        elif wrote != applied:
            said = clip(str("; ".join(wrote))) or "(no orders)"
            took = clip(str("; ".join(applied))) or "(nothing)"
            return f"SUBSTITUTED: the signed mail says {said}, the input applied {took}", r
    return "", r
