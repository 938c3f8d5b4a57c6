"""Twelfth round of the fairness red team: what `pbem verify` still took on the moderator's word.

Each generator below forges as the moderator would (his own mail rewritten, the SQLite record edited by hand and
played on, the export re-chained and re-signed with a key of his own) and passed on 4adb736; each is named now,
and the honest games verify clean.  Played on the embedded defaults (real SQLite, real Maildirs, the real poll).

1. A reminder stating less time than the report that asked: `pbem.trust.due.shrunk` (a deadline stated for a step
   never earlier than one stated before it for the same step); an old report sent again later, its "in 2 days"
   no longer true: `pbem.trust.due.left_untrue` (the time left is counted from the mail's Date).
2. A deadline moved earlier by hand just before the seat whose turn it is was replaced: the renamed step is the
   same step (`pbem.trust.receipts._seated`), so the deadline stated before binds the one applied after.
3. A record dated back to take the path of records made before resignations were chained: a player's mail that
   their provider signed (DKIM `t=`) after `resigns.SINCE`, recorded before the `process` event, proves it was
   not (`pbem.trust.resigns.Resigned.dated_back`).
4. A deadline told to one player alone, the others told the game's: several mailboxes given together are compared
   where their mails were written in the same state of the record (`pbem.trust.due.apart`).
"""

from __future__ import annotations

import base64
import copy
import json
import re
from datetime import UTC, datetime, timedelta
from unittest import mock

import dkim as dkimpy
import pytest
from sqlmodel import select
from typer.testing import CliRunner

from pbem.app import control
from pbem.cli import app
from pbem.history.export import build
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from pbem.record.models import Deadline, Due
from pbem.trust import chain, receipts
from pbem.trust.dkim import capture
from pbem.trust.receipts import lines, parse_folder, verify_mail
from pbem.trust.verify import check
from tests.conftest import Clock, deliver, order_mail, signed
from tests.test_dkim_game import DER, PEM
from tests.test_export_verify import _rechain
from tests.test_fairness3 import _doc, _mails
from tests.test_fairness11 import _deadline_game, _later, _mailbox, _played, forged_resignations
from tests.test_history_golden import KINDS
from tests.test_moderator import PLAYERS, asked, new_game, run_poll

SHRUNK = "earlier than the one"


# ------------------------------------------------------------------ 1. a reminder stating less time


def test_a_reminder_stating_less_time_than_the_report_that_asked_is_named(home, clock) -> None:
    """Gap (4adb736, fairness11's limit): a reminder telling Alice her deadline was 1, 6, 12 or 20 hours earlier than
    the report that asked her stated, its time left made to fit its Date, passed: its words were pbem's for its own
    deadline, and an earlier deadline binds no deadline input.  pbem never moves a deadline back, so a deadline
    stated for a step is now compared with every one stated before it for the same step (`due.shrunk`).
    Generator: 4 of 4 verified on 4adb736."""
    doc, mail = _deadline_game(home, clock)
    mine = mail["Alice"]
    c = verify_mail(doc, mine, "Alice")
    assert c.ok, lines(c)
    k = next(i for i, raw in enumerate(mine) if b"Reminder: orders due" in raw.split(b"\n\n", 1)[0])
    for hours in (1, 6, 12, 20):
        c = verify_mail(doc, [*mine[:k], _later(mine[k], -hours), *mine[k + 1 :]], "Alice")
        (named,) = c.problems
        assert SHRUNK in named and "Reminder" in named and f"{hours:.1f} hours earlier" in named, (hours, lines(c))


def _again(raw: bytes, hours: int) -> bytes:
    """The mail `raw` sent again `hours` later: its Date and Message-ID new, its words and receipt as they were."""
    from email import message_from_bytes
    from email.utils import format_datetime, parsedate_to_datetime

    was = str(message_from_bytes(raw)["Date"])
    now = format_datetime(parsedate_to_datetime(was) + timedelta(hours=hours))
    again = raw.replace(f"Date: {was}".encode(), f"Date: {now}".encode(), 1)
    return re.sub(rb"^Message-ID: <", b"Message-ID: <again.", again, count=1, flags=re.M)


def test_an_old_report_sent_again_later_is_named_by_the_time_left_it_states(home, clock) -> None:
    """Gap (4adb736): the report that asked Alice, sent to her again 6, 24 or 40 hours later under its true head (no
    entry came between, so the head was still the newest), told "in 2 days" where a day or less was left: nothing
    compared the time left with the mail's Date, and she could take her time and miss the deadline.  A report is
    rendered at its Date, so the time left its opening lines state must be the one pbem counts from it
    (`due.left_untrue`).  Generator: 3 of 3 verified on 4adb736."""
    doc, mail = _deadline_game(home, clock)
    mine = mail["Alice"]
    k = next(i for i, raw in enumerate(mine) if b"Turn 1, Alice to play" in raw.split(b"\n\n", 1)[0])
    for hours in (6, 24, 40):
        c = verify_mail(doc, [*mine, _again(mine[k], hours)], "Alice")
        (named,) = c.problems
        assert "it says the deadline is 'in 2 days, " in named and "an old report sent again?" in named, lines(c)


def _deadline_checks(kind: str, name: str, address: str) -> tuple[int, receipts.MailCheck]:
    """The deadline checks of `verify --mail` (`receipts._deadlines`) of a seeded game's player: (how many steps had
    two deadlines or more stated to them, the check)."""
    doc = _doc(kind)
    mails = sorted(parse_folder(_mails(kind, address)).mails, key=lambda m: (m.sort_key, m.record or (0, "")))
    c = receipts.MailCheck(ok=False, player=name, mails=len(mails))
    ch = receipts._Chain.of(doc)
    c.reader = receipts.reader_of(ch, doc, mails, name)
    receipts._deadlines(ch, doc, mails, receipts._texts(ch, mails, c), c)
    step = receipts._steps(doc, ch.rows, [at for _, at, _, _ in c.stated])
    assert step is not None
    stated: dict[object, int] = {}
    for _, at, _, _ in c.stated:
        stated[step(at)] = stated.get(step(at), 0) + 1
    return sum(n > 1 for n in stated.values()), c


@pytest.mark.parametrize("kind", KINDS)
def test_no_honest_deadline_is_named_in_the_seeded_games(kind: str) -> None:
    """The honest seeded game of each title: every player's stated deadlines (reports and reminders), compared step by
    step with the step's players as seats and their time left with their Dates, name nothing; nor do the mailboxes
    compared together.  In the games of turns a step was stated to the first player several times; every game's
    mailboxes share states to compare."""
    doc = _doc(kind)
    checks = [(p["name"], _deadline_checks(kind, p["name"], p["address"])) for p in doc["players"]]
    for name, (_, c) in checks:
        assert not c.problems and c.stated, (kind, name, c.problems)
    assert checks[0][1][0] >= (4 if kind in ("habsburg", "sixteen-thirty") else 0), (kind, checks[0][1][0])
    boxes = [(name, c) for name, (_, c) in checks]
    assert not receipts.apart(boxes), receipts.apart(boxes)
    shared = {s[0] for s in boxes[0][1].stated} & {s[0] for s in boxes[1][1].stated}
    assert shared, (kind, "no state of the deadline is stated in two mailboxes")


# ------------------------------------------------------------------ 2. a deadline moved as a seat is replaced


def _replaced_game(home, clock, earlier: int) -> tuple[dict, dict[str, list[bytes]]]:
    """A Sixteen Thirty game past its placements, Alice's trade step open (its id names her); the moderator moves its
    deadline `earlier` hours earlier by hand (0: not at all), replaces Alice by Dora ten minutes later, and the poll
    runs every six hours until the deadline has fallen.  (The abandoned game's export, each player's mail.)"""
    name = new_game(home, clock, kind="sixteen-thirty", name="st1")
    run_poll(home, clock)
    for _ in range(3):
        (req, *_), _ = asked(home, name)
        deliver(
            home,
            order_mail(f"{req.player} <{req.player.lower()}@players.test>", name, signed(req.player, req.default[0])),
        )
        run_poll(home, clock)
    (req, *_), _ = asked(home, name)
    assert req.player == "Alice" and req.step.split(".")[1] == "Alice", req
    if earlier:
        with session(home.database_url) as s:  # as a moderator who knows the schema would
            row = s.exec(select(Deadline).order_by(Deadline.id.desc())).first()  # type: ignore[union-attr]
            assert row is not None
            row.due_at = row.due_at - timedelta(hours=earlier)
            s.add(row)
            for due in s.exec(select(Due).where(Due.game_id == row.game_id, Due.done == False)):  # noqa: E712
                due.due_at, due.deadline_at = (
                    due.due_at - timedelta(hours=earlier),
                    due.deadline_at - timedelta(hours=earlier),
                )
                s.add(due)
            s.commit()
    clock.advance(minutes=10)
    control.replace(Home.of(home), name, "Alice", ("Dora", "dora@players.test"), clock.now)
    for _ in range(9):
        run_poll(home, clock)
        clock.advance(hours=6)
    control.abandon(Home.of(home), name, clock.now)
    with session(home.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, name))))
    assert any(o["kind"] == "deadline" for o in doc["orders"]), "the trade step's deadline fell"
    return doc, {p: _mailbox(home, address) for p, address in [*PLAYERS, ("Dora", "dora@players.test")]}


@pytest.mark.parametrize("earlier", [0, 23])
def test_a_deadline_stated_before_a_seat_was_replaced_binds_the_step_after(home, clock, earlier: int) -> None:
    """Gap (4adb736, fairness11's limit): replacing the seat whose turn it is renames the step (its id names the
    player) and keeps its deadline, so a deadline stated before bound no input after: the moderator moved Alice's
    trade deadline 23 hours earlier by hand, then gave her seat to Dora, whose report stated the deadline he had set;
    the defaults fell 18 hours before the deadline Bob and Carol had been told, and both their mails verified on
    4adb736 (2 of 2).  A step's id is now compared with its players as seats (`receipts._seated`).  Honest (no
    edit): every player's mail verifies, Dora's and Alice's included (found here: Alice's acknowledgement of her own
    placement, read as her seat's newest name's, was "an input the export does not hold" on 4adb736)."""
    doc, mail = _replaced_game(home, clock, earlier)
    for player in ("Alice", "Bob", "Carol", "Dora"):
        c = verify_mail(doc, mail[player], player)
        if not earlier:
            assert c.ok, (player, lines(c))
            continue
        if player == "Dora":  # told only the deadline he had set: since fairness16 named by the one the chain gives
            assert not c.ok and all("than the deadline the chain gives" in p for p in c.problems), lines(c)
            continue
        (named,) = c.problems
        assert "before the deadline" in named and "Alice to play" in named and "moved earlier" in named, lines(c)


# ------------------------------------------------------------------ 3. a record dated back before SINCE


def _evidence(doc: dict, seq: int) -> dict:
    """The DKIM evidence a signing provider gives input `seq` of `doc` (its lines, in reply), signed at its `at`."""
    o = next(o for o in doc["orders"] if o["seq"] == seq)
    address = next(p["address"] for p in doc["players"] if p["name"] == o["player"])
    mid = o["message_id"].strip("<>")
    raw = (
        f"From: {o['player']} <{address}>\r\nTo: moderator@pbem.test\r\nSubject: Re: [pbem {doc['game']['name']}] "
        f"orders\r\nMessage-ID: <{mid}>\r\n\r\n" + "\r\n".join(o["lines"]) + "\r\n"
    ).encode()
    t = datetime.fromisoformat(o["at"]).timestamp()
    dns = {b"s1._domainkey.players.test.": b"v=DKIM1; k=rsa; p=" + base64.b64encode(DER)}
    with mock.patch.object(dkimpy.time, "time", lambda: t):  # the provider's clock then, and pbem's at arrival
        sig = dkimpy.sign(raw, b"s1", b"players.test", PEM, include_headers=[b"from", b"subject", b"message-id"])
        ev = capture(sig + raw, lambda name, timeout=5: dns.get(name))
    assert ev is not None and ev.verified
    return ev.to_json(mid)


def _back(bad: dict, days: int, upto: int = 1 << 30) -> dict:
    """`bad` with every date of its game, of its inputs up to `upto`, their messages and events set back `days` days
    (those of the day of its `process` event), re-chained."""
    out = copy.deepcopy(bad)
    (proc,) = [e for e in out["events"] if (e.get("data") or {}).get("action") == "process"]
    day = proc["at"][:10]
    moved = {o.get("message_id") for o in out["orders"] if o["seq"] <= upto}
    for row in [*out["orders"], *out["events"], *out["messages"], out["game"]]:
        if row is out["game"] or (row.get("input_seq", row.get("seq", 0)) <= upto and "received" not in row):
            key = "at"
        elif "received" in row and row.get("message_id") in moved:
            key = "received"
        else:
            continue
        for k in ("created", "ended", key) if row is out["game"] else (key,):
            if isinstance(row.get(k), str) and row[k][:10] == day:
                row[k] = (datetime.fromisoformat(row[k]) - timedelta(days=days)).isoformat()
        # the chained times of deadlines too (fairness16): the step length's start, each moved deadline
        for times, k in ((row.get("pace"), "opened"), (row.get("data"), "deadline")):
            if key == "at" and isinstance(times, dict) and isinstance(times.get(k), str) and times[k][:10] == day:
                times[k] = (datetime.fromisoformat(times[k]) - timedelta(days=days)).isoformat()
    return _rechain(out)


def dated_back(doc: dict) -> list[tuple[str, dict]]:
    """The honest export `doc` (a resignation, a `process` event, an input signed before it) with the resignation
    taken out and its dates set back before `resigns.SINCE`, three ways, re-chained."""
    _, bad, _ = next(forged_resignations(doc))  # a message in place of the resignation, re-chained
    (proc,) = [e for e in bad["events"] if (e.get("data") or {}).get("action") == "process"]
    return [
        ("the whole record three days back", _back(bad, 3)),
        ("the whole record a month back", _back(bad, 31)),
        ("only the entries up to the process event back", _back(bad, 3, proc["input_seq"])),
    ]


def test_a_record_dated_back_cannot_pass_for_one_made_before_resignations_were_chained(home) -> None:
    """Gap (4adb736, fairness11's limit): a record with no `resign` event whose `process` events are dated before
    `resigns.SINCE` is taken as made before pbem chained resignations, with one note.  The dates are the moderator's
    to write: he took Bob's resignation out and set the dates back (the whole record, or up to the process event),
    re-chained and re-signed: 3 of 3 verified on 4adb736, with the note.  What binds the dates is what the players'
    providers signed: Alice's order, before the process event, was signed (DKIM t=) on 8 December, after SINCE, so
    the event cannot be older (`Resigned.dated_back`).  The honest export, with that evidence, verifies clean."""
    doc = _played(home, Clock(datetime(2026, 12, 8, 12, 0, tzinfo=UTC)))
    (order,) = [o for o in doc["orders"] if o.get("message_id")]
    doc["evidence"] = [_evidence(doc, order["seq"])]
    later = datetime(2026, 12, 20, tzinfo=UTC).timestamp()  # verified after the game (the test's clock is ahead)
    with mock.patch.object(dkimpy.time, "time", lambda: later):
        honest = check(copy.deepcopy(doc))
        assert honest.ok and not any("moderator's word" in n for n in honest.notes), honest.problem or honest.notes
        assert any("dkim: pass" in line for line in honest.vouched), honest.vouched
        for what, bad in dated_back(doc):
            v = check(bad)
            assert not v.ok and "the record was dated back" in v.problem, (what, v.problem, v.notes)
            assert (
                f"input {order['seq']}, before it in the chain, was signed by Alice's provider at 2026-12-08"
                in v.problem
            )


def test_a_game_upgraded_after_an_unchained_process_event_may_chain_a_later_resignation(home) -> None:
    """An honest game begun before resignations were chained: Bob's resignation was a control row, the moderator
    processed his turn before `resigns.SINCE`; pbem was upgraded, and Carol resigned later (a `resign` event).  The
    old `process` event has no resignation before it, and a later one says nothing of it: the record verifies with
    the note (it was refused on 4adb736, which took any `resign` event anywhere as the mark of a new record)."""
    from pbem.orders.moderator import resigned

    doc = _played(home, Clock(datetime(2026, 12, 8, 12, 0, tzinfo=UTC)))
    _, bad, _ = next(forged_resignations(doc))  # what pbem wrote before: no resignation in the chain
    (proc,) = [e for e in bad["events"] if (e.get("data") or {}).get("action") == "process"]
    old = _back(bad, 3, proc["input_seq"])
    at = old["events"].index(next(e for e in old["events"] if e["seq"] == proc["seq"])) + 1
    carol = next(p["seat"] for p in old["players"] if p["name"] == "Carol")
    later = dict(
        old["events"][at],
        kind="moderator",
        visibility="public",
        text=resigned("Carol"),
        data={"action": "resign", "player": "Carol", "seat": carol, "word": "482193"},  # (fairness25: with its word)
    )
    old["events"].insert(at, later)
    for n, e in enumerate(old["events"], 1):
        e["seq"], e["salt"] = n, chain.entry_salt(old["seed"], n)
    v = check(_rechain(old))
    assert v.ok, v.problem
    (note,) = [n for n in v.notes if "moderator's word" in n]
    assert "(Bob)" in note, note


# ------------------------------------------------------------------ 4. a deadline told to one player alone


def _sooner(raw: bytes, hours: int) -> bytes:
    """The report `raw` stating its deadline `hours` earlier, its time left counted from its Date as pbem counts it
    (so `due.left_untrue` passes), in both parts."""
    from email import message_from_bytes
    from email.utils import parsedate_to_datetime

    from pbem.render.asking import due_phrase
    from pbem.trust import due, told
    from tests.test_fairness3 import _html_edited
    from tests.test_fairness9 import _swapped

    text = told.plain(raw)
    sent = parsedate_to_datetime(str(message_from_bytes(raw)["Date"]))
    was = due.STATED.search(text)
    when = due.stated(text, sent.timestamp())
    assert was is not None and when is not None
    old = was.group(0).removeprefix("Deadline: ").removeprefix("; deadline ")
    new = due_phrase(when - timedelta(hours=hours), sent).removesuffix(")")
    return _html_edited(_swapped(raw, old, new), lambda page: page.replace(old, new, 1))


def told_sooner(mine: list[bytes], hours: int) -> list[bytes]:
    """Alice's mailbox of `_deadline_game` with the report that asked her and her reminder stating a deadline `hours`
    earlier than the game's, each time left made to fit its Date."""
    k = next(i for i, raw in enumerate(mine) if b"Turn 1, Alice to play" in raw.split(b"\n\n", 1)[0])
    r = next(i for i, raw in enumerate(mine) if b"Reminder: orders due" in raw.split(b"\n\n", 1)[0])
    box = list(mine)
    box[k], box[r] = _sooner(mine[k], hours), _later(mine[r], -hours)
    return box


def test_a_deadline_told_to_one_player_alone_is_named_by_the_mail_of_two(home, clock, tmp_path) -> None:
    """Gap (4adb736): the moderator told Alice, in the report that asked her and in her reminder, a deadline 10 (or
    30) hours earlier than the game's, each time left made to fit its Date; Bob and Carol were told the true one.
    Each mailbox verified alone, and together (`--mail A --mail B`) only their heads were compared: 2 of 2 passed.
    A game has one deadline at a time and every change of it is an entry of the chain, so every mail at the same head
    states the same deadline: the mailboxes given together are now compared (`receipts.apart`)."""
    doc, mail = _deadline_game(home, clock)
    honest = [(p, verify_mail(doc, mail[p], p)) for p in ("Alice", "Bob", "Carol")]
    assert all(c.ok for _, c in honest) and not receipts.apart(honest), [lines(c) for _, c in honest]
    for hours in (10, 30):
        box = told_sooner(mail["Alice"], hours)
        alice = verify_mail(doc, box, "Alice")
        # her own mail agrees with itself; since fairness16 it names both mails by the deadline the chain gives
        assert not alice.ok and all("than the deadline the chain gives" in p for p in alice.problems), lines(alice)
        (named,) = receipts.apart([("Alice", alice), *honest[1:]])
        assert named.startswith("Bob's ") and "and Alice's the mail of" in named and "one deadline at a time" in named
    folders = []
    for player, raws in (("Alice", box), ("Bob", mail["Bob"])):  # as `pbem verify` is given them
        folders += ["--mail", str(folder := tmp_path / player)]
        folder.mkdir()
        for n, raw in enumerate(raws):
            (folder / f"{n}.eml").write_bytes(raw)
    (export := tmp_path / "hh1.json").write_text(json.dumps(doc))
    got = CliRunner().invoke(app, ["verify", str(export), *folders])
    assert got.exit_code != 0 and "MISMATCH: Bob's the mail of" in got.output, got.output
