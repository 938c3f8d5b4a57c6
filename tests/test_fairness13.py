"""Thirteenth round of the fairness red team: what `pbem verify` still took on the moderator's word.

Each generator below forges as the moderator would (his own mail re-dated and rewritten; the export's inputs given
another player's signed mail) and passed on 271d97f; each is named now, and the honest games verify clean.

1. Two mails of one head were taken in the order of their Dates, which the moderator writes: a reminder telling
   Alice less time than the report that asked her, dated a minute before that report, was no deadline shrunk.  A
   state of the record has one deadline, so one player's mails in the same known state must state the same one,
   whatever their order (`pbem.trust.due.split`).
2. The public export lists no addresses, so the signed From of a player's input was compared with nothing: Bob's
   signed mail recorded as Alice's input passed.  pbem lets an address play one seat at a time, so one address
   signing inputs of two seats with no seat given between them is named (`pbem.trust.vouched.one_seat`).
3. Nothing looked for the seed in the record before the end: the moderator's message to every player, or a press
   from a seat he plays to a friend, holding the seed (or 16 hex digits of it) verified.  No entry before the end may
   hold 16 hex digits in a row of the seed or of the seed the game dealt from (`pbem.trust.leaked`).
4. The DKIM evidence of a player's applied mail left out of the export passed silently: the player's inputs read
   "unsigned", as a provider that does not sign gives.  A Sent copy that carries the provider's signature, of a
   mail an input applies, with no evidence in an export that shows evidence, is a WARNING of `--sent`
   (`pbem.trust.sent._unvouched`).
"""

from __future__ import annotations

import base64
import copy
import json
from datetime import datetime, timedelta
from email import message_from_bytes
from email.utils import format_datetime, parsedate_to_datetime
from functools import cache
from unittest import mock

import dkim as dkimpy
import pytest

from pbem.app import control
from pbem.app.say import say
from pbem.history.export import build
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from pbem.trust import chain, leaked, vouched
from pbem.trust.dkim import capture
from pbem.trust.receipts import lines, read_folder, verify_mail
from pbem.trust.sent import check_sent
from pbem.trust.verify import check
from tests.conftest import deliver, order_mail, signed
from tests.test_dkim_game import DER, PEM
from tests.test_export_verify import _rechain
from tests.test_fairness11 import _deadline_game, _later
from tests.test_history_golden import KINDS, seeded_export
from tests.test_moderator import new_game, run_poll

pytestmark = pytest.mark.xdist_group("fairness13")  # a unit per module, not one for all


# ------------------------------------------------------------------ 1. two mails of one head, re-dated


def _dated(raw: bytes, when: datetime) -> bytes:
    """The mail `raw` with its Date header set to `when` (its words and receipt as they were)."""
    was = str(message_from_bytes(raw)["Date"])
    return raw.replace(f"Date: {was}".encode(), f"Date: {format_datetime(when)}".encode(), 1)


def test_a_reminder_dated_before_the_report_that_asked_cannot_state_another_deadline(home, clock) -> None:
    """Gap (271d97f, fairness12's limit): a reminder telling Alice her deadline was 1, 6 or 20 hours earlier than the
    report that asked her stated, dated a minute before that report (the same head: nothing happened between) and
    its time left made to fit its new Date, passed: `due.shrunk` took the two in the order of their Dates, so the
    report's later deadline came "after" the reminder's.  The Date is the moderator's to write; the state is not:
    no entry that moves a deadline lies between them, so they must state the same deadline (`due.split`).
    Generator: 3 of 3 verified on 271d97f."""
    doc, mail = _deadline_game(home, clock)
    mine = mail["Alice"]
    honest = verify_mail(doc, mine, "Alice")
    states = [s[0] for s in honest.stated]
    assert honest.ok and len(set(states)) < len(states), (states, lines(honest))  # two mails of one state agree
    k = next(i for i, raw in enumerate(mine) if b"Reminder: orders due" in raw.split(b"\n\n", 1)[0])
    r = next(i for i, raw in enumerate(mine) if b"Turn 1, Alice to play" in raw.split(b"\n\n", 1)[0])
    assert message_from_bytes(mine[k])["X-Pbem-Record"] == message_from_bytes(mine[r])["X-Pbem-Record"]
    asked = parsedate_to_datetime(str(message_from_bytes(mine[r])["Date"]))
    for hours in (1, 6, 20):
        forged = _later(_dated(mine[k], asked - timedelta(minutes=1)), -hours)
        c = verify_mail(doc, [*mine[:k], forged, *mine[k + 1 :]], "Alice")
        (named,) = c.problems
        assert "whatever their Dates say" in named and "Reminder" in named and "Alice to play" in named, lines(c)


# ------------------------------------------------------------------ 2. another player's signed mail as an input


def _signed_by(doc: dict, seq: int, address: str) -> dict:
    """The DKIM evidence of input `seq` of `doc` as the provider of `address` signed it (its Message-ID and lines, in
    reply), at the input's time: the player's own mail when `address` is theirs, another's when not."""
    o = next(o for o in doc["orders"] if o["seq"] == seq)
    return copy.deepcopy(
        _signature(doc["game"]["name"], o["message_id"].strip("<>"), tuple(o["lines"]), o["at"], address)
    )


@cache
def _signature(game: str, mid: str, lines: tuple[str, ...], at: str, address: str) -> dict:
    """`_signed_by`'s evidence, made once (an RSA signature and its check each)."""
    raw = (
        f"From: <{address}>\r\nTo: moderator@pbem.test\r\nSubject: Re: [pbem {game}] orders\r\n"
        f"Message-ID: <{mid}>\r\n\r\n" + "\r\n".join(lines) + "\r\n"
    ).encode()
    t = datetime.fromisoformat(at).timestamp()
    dns = {b"s1._domainkey.players.example.": b"v=DKIM1; k=rsa; p=" + base64.b64encode(DER)}
    with mock.patch.object(dkimpy.time, "time", lambda: t):
        sig = dkimpy.sign(raw, b"s1", b"players.example", PEM, include_headers=[b"from", b"subject", b"message-id"])
        ev = capture(sig + raw, lambda name, timeout=5: dns.get(name))
    assert ev is not None and ev.verified
    return ev.to_json(mid)


def _inputs(doc: dict, player: str) -> list[int]:
    return [o["seq"] for o in doc["orders"] if o["player"] == player and o.get("message_id")]


def _public(doc: dict, by: dict[int, str]) -> dict:
    """`doc` with the evidence of each input of `by` (seq -> the address whose provider signed it), its addresses
    left out as in the public export."""
    out = copy.deepcopy(doc)
    out["evidence"] = [_signed_by(doc, seq, address) for seq, address in by.items()]
    for p in out["players"]:
        p.pop("address", None)
    return out


def _honest(doc: dict, n: int = 3) -> dict[int, str]:
    """Up to `n` inputs of every player, each signed by its player's own provider."""
    addresses = {p["name"]: p["address"] for p in doc["players"]}
    return {seq: addresses[p] for p in addresses for seq in _inputs(doc, p)[:n]}


def forged_senders(doc: dict) -> list[tuple[str, dict[int, str]]]:
    """An input of Alice's whose evidence is a mail Bob's provider signed (the moderator recorded Bob's mail as
    hers), placed among, before and after Bob's own signed inputs."""
    alice, bob = _inputs(doc, "Alice"), _inputs(doc, "Bob")
    bob = bob[len(bob) // 3 : 2 * len(bob) // 3 + 1]  # Bob's signed inputs: the middle third of his
    bob_at = next(p["address"] for p in doc["players"] if p["name"] == "Bob")
    mid = next(a for a in alice if bob[0] < a < bob[-1])
    first, last = alice[0] if alice[0] < bob[0] else None, next((a for a in alice if a > bob[-1]), None)
    cases = [("among Bob's", mid), ("before Bob's", first), ("after Bob's", last)]
    return [(what, {**{b: bob_at for b in bob}, seq: bob_at}) for what, seq in cases if seq is not None]


def test_another_players_signed_mail_recorded_as_an_input_is_named_without_addresses() -> None:
    """Gap (271d97f): the public export lists no addresses, so the signed From of an input's evidence was compared
    with the player's only in the moderator's export: Alice's input whose evidence was a mail Bob's provider signed
    verified (`dkim: pass`) among, before and after Bob's own signed inputs.  pbem lets an address play one seat at a
    time, so one From signing inputs of two seats with no seat given between is named (`vouched.one_seat`).
    Generator: the seeded Habsburg and Sixteen Thirty games, 3 places each: 6 of 6 verified on 271d97f; one of them
    through the whole `pbem verify`."""
    for kind in ("habsburg", "sixteen-thirty"):
        doc = seeded_export(kind)
        forged = forged_senders(doc)
        assert len(forged) == 3, kind
        for what, given in forged:
            found = vouched.check(_public(doc, given))
            (named,) = found.failures
            assert "(Alice)" in named and "(Bob)" in named and "one From address (@players.example)" in named, (
                kind,
                what,
                named,
            )
    v = check(_public(seeded_export("habsburg"), forged_senders(seeded_export("habsburg"))[0][1]))
    assert not v.ok and "another player's mail recorded as theirs" in v.problem, v.problem


@pytest.mark.parametrize("kind", KINDS)
def test_every_players_own_signed_inputs_verify_in_the_seeded_games(kind: str) -> None:
    """No false alarm: each player's inputs signed by their own provider, in the public export of every title."""
    doc = seeded_export(kind)
    found = vouched.check(_public(doc, mine := _honest(doc)))
    assert not found.failures and found.summary.startswith(f"dkim: {len(mine)} of"), (found.failures, found.summary)


def _replaced(doc: dict, seat: int, after: int, action: str = "replace") -> dict:
    """A public `replace` event of `seat` right after input `after` (`pbem game replace`), or an `address` event (its
    mail moved to a new address), `doc` re-chained."""
    out = copy.deepcopy(doc)
    at = next(n for n, e in enumerate(out["events"]) if e["input_seq"] > after)
    player = out["players"][seat]["name"]
    data = {"action": action, "player": player, "seat": seat} | ({"newcomer": player} if action == "replace" else {})
    text = f"A new player takes over the seat of {player}."
    out["events"].insert(at, dict(out["events"][at], kind="moderator", visibility="public", text=text, data=data))
    out["events"][at]["input_seq"] = after
    for n, e in enumerate(out["events"], 1):
        e["seq"] = n
    return _rechain(out)


def test_an_address_given_another_seat_after_leaving_its_own_is_honest() -> None:
    """An address that signed Alice's inputs, then, after both seats were given to someone else (two `replace`
    events, or Alice's mail moved and Bob's seat given), Bob's (Alice came back for Bob's seat under his name), is
    honest; without the two events, or with one, it is named."""
    doc = seeded_export("italian-wars")
    alice, bob = _inputs(doc, "Alice"), _inputs(doc, "Bob")
    a = alice[0]
    b = next(s for s in bob if s > a + 1)
    alice_at = doc["players"][0]["address"]
    both = {a: alice_at, b: alice_at}
    cases = (((), True), ((0,), True), ((1,), True), ((0, 1), False), ((0, "address", 1), False))
    for events, named in cases:
        out, action = doc, "replace"
        for seat in events:
            if isinstance(seat, str):
                action = seat
                continue
            out, action = _replaced(out, seat, a, action), "replace"
        found = vouched.check(_public(out, both))
        assert bool(found.failures) is named, (events, found.failures)


# ------------------------------------------------------------------ 3. the seed given out before the end

SEED = "3f9c0a7be21d48c6951f0e7a2b6d8c4019e5a73fd2c86b0e4a1f9d3c7b52e08a"


def _said_early(home, clock, how: str) -> dict:
    """A Habsburg game of a secure seed in which, before the end, the seed was given out `how`: "" (not at all),
    "say" (the moderator's message to every player, its first half), "press" (Alice's press to Bob: 16 hex digits
    of it, from the middle, in capitals) or "press-split" (two halves of 8, which give 32 bits each: not named);
    then abandoned (the seed revealed).  The export."""
    name = new_game(home, clock, seed=SEED)
    run_poll(home, clock)
    if how == "say":
        say(Home.of(home), name, f"For the record: {SEED[:32]}", clock.now)
    elif how.startswith("press"):
        part = SEED[20:36].upper() if how == "press" else f"{SEED[20:28]} and {SEED[28:36]}"
        deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", f"PRESS TO Bob: try {part}")))
    run_poll(home, clock)
    control.abandon(Home.of(home), name, clock.now)
    with session(home.database_url) as s:
        return json.loads(json.dumps(build(s, store.game_by_name(s, name))))


@pytest.mark.parametrize("how", ["", "say", "press", "press-split"])
def test_a_seed_given_out_before_the_end_is_named(home, clock, how: str) -> None:
    """Gap (271d97f): the moderator's message to every player (`game say`) holding half the seed, and Alice's press to
    Bob holding 16 of its hex digits (a seat the moderator plays, passing it to a friend), verified: 2 of 2 on
    271d97f.  Both are named now (`pbem.trust.leaked`); the honest game, and 8 hex digits twice, are not."""
    doc = _said_early(home, clock, how)
    assert any(e["kind"] == "press" for e in doc["events"]) is how.startswith("press")
    v = check(doc)
    if how in ("", "press-split"):
        assert v.ok and any("gives out the seed" in line for line in v.checked), (v.problem, v.checked)
        return
    assert not v.ok and "the seed was given out early" in v.problem, v.problem
    assert ("(moderator, seen by every player)" if how == "say" else "(press, seen by Alice, Bob)") in v.problem


def _headed(raw: bytes, line: bytes) -> bytes:
    """The mail `raw` with the header line `line` added after its first (its words and receipt as they were)."""
    first, rest = raw.split(b"\n", 1)
    return first + b"\n" + line + (b"\r\n" if first.endswith(b"\r") else b"\n") + rest


def test_a_seed_given_to_one_player_in_a_header_of_their_mail_is_named(home, clock) -> None:
    """Gap (271d97f): the moderator added a header holding half the seed (or 16 digits of it in capitals, or the
    whole) to one of Bob's reports before the end; its words are compared once the seed is out, its headers are not,
    and Bob's mail verified: 3 of 3 on 271d97f.  No mail written before the end (its head before the entry that
    ends the game) may hold 16 hex digits in a row of the seed (`receipts._early_seed`); the honest mail verifies."""
    from tests.test_fairness11 import _mailbox

    doc = _said_early(home, clock, "")
    bob = _mailbox(home, "bob@players.test")
    honest = verify_mail(doc, bob, "Bob")
    assert honest.ok, lines(honest)
    k = next(i for i, raw in enumerate(bob) if b"Turn 1" in raw.split(b"\n\n", 1)[0])
    for value in (SEED[:32], SEED[8:24].upper(), SEED):
        box = [*bob[:k], _headed(bob[k], f"X-Moderator-Note: {value}".encode()), *bob[k + 1 :]]
        c = verify_mail(doc, box, "Bob")
        (named,) = c.problems
        assert "written before the game's end" in named and "given to you early" in named, lines(c)


@pytest.mark.parametrize("kind", KINDS)
def test_no_seeded_game_holds_its_seed_before_its_end(kind: str) -> None:
    """No false alarm: the seeded games' seeds are short ones typed by hand, so their whole text is looked for, in
    every entry before the end: none holds it (Sixteen Thirty's `reveal-seed` event, at the end, does); of the mail
    the players received, in its bytes or its text, only the final reports do."""
    from pbem.trust import told
    from tests.test_fairness3 import _sent

    doc = seeded_export(kind)
    rows = chain.sequence(doc["orders"], doc["events"])
    seed = doc["seed"].lower()
    with mock.patch.object(leaked, "WINDOW", len(seed)):
        assert leaked.early(rows, [seed]) == ""
        held = [
            b"] Final report: " in raw.split(b"\n\n", 1)[0]
            for raw in _sent(kind)
            if leaked.found_in(raw.decode("latin-1").lower(), [seed])
            or leaked.found_in(told.plain(raw).lower(), [seed])
        ]
        assert held == [True] * len(doc["players"]), held  # the final reports alone: no mail before the end
    held_at = [r["kind"] for r in rows if seed in leaked._said(r)]
    assert held_at == (["reveal-seed"] if kind == "sixteen-thirty" else []), held_at


# ------------------------------------------------------------------ 4. the evidence of a signed mail left out


@pytest.fixture(scope="module")
def alice_sent(tmp_path_factory) -> tuple[dict, list[bytes]]:
    """The seeded Italian Wars game's export and Alice's Sent folder, each copy stamped with her provider's DKIM
    signature (its `t=` the mail's arrival), as a provider that signs leaves it."""
    from tests.test_fairness import _sent_box
    from tests.test_history_golden import seeded_home

    doc = seeded_export("italian-wars")
    folder = _sent_box(seeded_home("italian-wars"), b"alice@players.example", tmp_path_factory.mktemp("sent") / "a")
    arrived = {m["message_id"].strip("<>"): m["received"] for m in doc["messages"]}
    raws = []
    for raw in read_folder(folder):
        mid = str(message_from_bytes(raw)["Message-ID"]).strip().strip("<>")
        t = int(datetime.fromisoformat(arrived[mid]).timestamp())
        raws.append(f"DKIM-Signature: v=1; a=rsa-sha256; d=players.example; s=s1; t={t}; b=AA\r\n".encode() + raw)
    return doc, raws


def test_the_evidence_of_a_signed_mail_left_out_is_named_by_the_sent_folder(alice_sent) -> None:
    """Gap (271d97f, fairness12's limit): the export of a game whose players' provider signs, with the DKIM evidence
    of one of Alice's applied mails (or of all) taken out, passed `--sent` silently: her inputs read "unsigned", as a
    provider that does not sign gives, and a record dated back had nothing but her own mail's dates against it.  pbem
    keeps the evidence of every signed mail it reads, so her Sent copy signed by her provider, applied by an input,
    with no evidence in the export, is named (2 of 2 passed on 271d97f).  Honest: the export with every evidence, and
    a Sent folder her provider did not sign, say nothing."""
    doc, raws = alice_sent
    alice_at = doc["players"][0]["address"]
    mine = {o["seq"]: alice_at for o in doc["orders"] if o["player"] == "Alice" and o.get("message_id")}
    honest = dict(copy.deepcopy(doc), evidence=[_signed_by(doc, seq, alice_at) for seq in mine])
    unsigned = [raw.split(b"\r\n", 1)[1] for raw in raws]
    for export, folder in ((honest, raws), (doc, unsigned)):
        c = check_sent(export, folder)
        assert c.ok and not any("DKIM evidence" in n for n in c.notes), (c.problems, c.notes)
    for left_out in (1, len(mine)):
        forged = dict(copy.deepcopy(honest), evidence=honest["evidence"][left_out:])
        named = [n for n in check_sent(forged, raws).notes if "keeps no DKIM evidence" in n]
        assert len(named) == left_out and "d=players.example" in named[0], named
