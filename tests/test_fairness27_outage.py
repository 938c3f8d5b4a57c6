"""An outage claimed when nobody else was mailed: what the export and the players' mail can say of it.

Two records excuse a mail late or never written: the outage rule's `outage` event ("pbem did not run from X to Y":
deadlines move later by the gap, `pbem.app.outages`) and the twenty-second round's `unsent` claim ("pbem's mail
server could not take mail from X to Y", `pbem.app.unsent`).  Both are the moderator's word, chained and public.
Neither can be refuted from one player's mail and the export when the record shows nobody else mailed or read in the
window: an honest outage with only that player's mail waiting (a reminder, the report of their turn) leaves the same
record, the same Dates and the same `Received` stamps (docs/security.md, the twenty-seventh round).  What can be said:

* an `outage` says pbem did not run, and only a run of pbem reads mail and sends it (`pbem poll`: the moderator's
  `pbem game` commands queue mail, they send none): `pbem verify` warns of a player's message the export records as
  read, or a player's input applied, well inside the window (`arrived.ran_inside`: more than an hour after its start,
  15 minutes before its end), and `verify --mail` of a mail dated and delivered well inside it
  (`arrived.sent_inside`: a mail written before it may be held by a relay, greylisting, and delivered inside it);
* for an `unsent` claim that excuses one of the reader's mails, `verify --mail` says who else the record shows pbem
  wrote to inside it (`arrived.witnesses`: a message of theirs read, an input applied, a deadline), whose mail bears
  it out or belies it, or that nobody was: then the claim rests on the moderator's word alone.

Counted with ``PBEM_FAIRNESS27_OUTAGE_FULL=1 python3 -m pytest tests/test_fairness27_outage.py -s -q -n 0`` (the same
file runs on ab18255d, where the pure cases fail):

* forged outages (`decide_outage` over a window of a played Habsburg game, Bob's mail held back): over the poll that
  read Alice's order and mailed her, named by `pbem verify` and by her `--mail` (0 on ab18255d); over idle polls, or
  over Bob's reminders that he got only after it, nobody was read or mailed inside: not named (the limit);
* fairness22's eight honest games with one mail held 3-9 hours and a covering `unsent` claim: the held mail's reader
  is told who else was mailed inside it in 7 of 8 and that nobody was in 1 (0 of 8 said on ab18255d);
* honest outages: fairness16's game (pbem down over a deadline) and tests/test_outages.py verify with no such warning.

The suite runs the pure cases.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import pytest

from pbem.trust import arrived

FULL = os.environ.get("PBEM_FAIRNESS27_OUTAGE_FULL") == "1"
START = datetime(2026, 12, 8, 10, 0, tzinfo=UTC)
CLAIM = arrived.Claim(5, START, START + timedelta(hours=4))
PLAYERS = [{"name": p} for p in ("Alice", "Bob", "Carol")]


def _at(hours: float) -> str:
    return (START + timedelta(hours=hours)).isoformat()


@pytest.mark.parametrize(
    ("messages", "rows", "want"),
    [
        ([{"player": "Bob", "received": _at(1)}], [], ["Bob"]),  # Bob's mail read inside: answered inside
        ([{"player": "Bob", "received": _at(5)}, {"player": "Alice", "received": _at(2)}], [], []),  # after; her own
        ([], [{"kind": "deadline", "lines": [], "player": "", "at": _at(3)}], ["Bob", "Carol"]),  # the next reports
        ([], [{"kind": "order", "lines": ["PASS"], "player": "Carol", "at": _at(0.5)}], ["Carol"]),  # her ack
        ([], [{"kind": "moderator", "text": "x", "at": _at(1)}], []),  # an event: no input, no mail of its own
        ([{"player": None, "received": "not a time"}], [{"kind": "order", "lines": [], "at": "?"}], []),  # unreadable
    ],
)
def test_who_else_was_mailed_inside_a_claimed_outage(messages: list, rows: list, want: list) -> None:
    doc = {"players": PLAYERS, "messages": messages}
    assert arrived.witnesses(CLAIM, doc, rows, "Alice") == want


@pytest.mark.skipif(not FULL, reason="fairness22's eight held mails: PBEM_FAIRNESS27_OUTAGE_FULL=1")
@pytest.mark.parametrize("n", [1, 2, 3, 6, 11, 13, 14, 15])
def test_a_claim_excusing_a_held_mail_says_who_else_it_held(home, clock, monkeypatch, n: int) -> None:
    import tests.test_fairness22 as t22
    from pbem.trust.receipts import verify_mail

    doc, boxes, victim = t22._withheld(home, clock, monkeypatch, n, "covering")
    assert victim and t22._claims(doc)
    c = verify_mail(doc, boxes[victim], victim)
    alone = [x for x in c.notes if "rests on the moderator's word alone" in x]
    others = [x for x in c.notes if "bears it out" in x]
    belied = sum(1 for p, box in boxes.items() for x in verify_mail(doc, box, p).notes if "inside the outage" in x)
    print(f"fairness27 outage {n}: {victim}: alone {len(alone)}, others {len(others)}, belied elsewhere {belied}")
    assert len(alone) + len(others) >= 1, c.notes


def _outage(a: float, b: float) -> dict:
    return {"seq": 3, "kind": "moderator", "at": _at(b), "data": {"action": "outage", "from": _at(a), "to": _at(b)}}


@pytest.mark.parametrize(
    ("messages", "rows", "named"),
    [
        ([{"player": "Bob", "message_id": "m1", "received": _at(3)}], [], True),  # Bob's mail read while "down"
        ([], [{"seq": 2, "kind": "order", "lines": ["PASS"], "player": "Carol", "at": _at(5)}], True),  # applied
        ([{"player": "Bob", "message_id": "m1", "received": _at(0.5)}], [], False),  # the run that began the gap
        ([{"player": "Bob", "message_id": "m1", "received": _at(7.9)}], [], False),  # the run that ended it
        ([{"player": None, "message_id": "m1", "received": _at(3)}], [], False),  # a stranger's: pbem read no game
        (
            [],
            [{"seq": 2, "kind": "moderator", "text": "x", "at": _at(3)}],
            False,
        ),  # `pbem game ...` while cron was down
    ],
)
def test_an_outage_the_export_shows_pbem_running_in_is_named(messages: list, rows: list, named: bool) -> None:
    doc = {"players": PLAYERS, "messages": messages}
    said = arrived.ran_inside(doc, [*rows, _outage(0, 8)])
    assert len(said) == named, said


def test_a_mail_that_reached_its_reader_inside_an_outage_is_named() -> None:
    rows = [_outage(0, 8)]

    def mail(written: float, reached: float) -> tuple[str, float, datetime]:
        return ("a", (START + timedelta(hours=written)).timestamp(), START + timedelta(hours=reached))

    # dated and delivered inside; delivered before, at the end, after; written before it and held by a relay
    mails = [mail(3, 3), mail(0.2, 0.5), mail(7.9, 7.9), mail(8, 9), mail(0.1, 3)]
    assert [a for _, a, _ in arrived.sent_inside(rows, mails)] == [START + timedelta(hours=3)]


#: The window of a forged outage (pbem "did not run"), hours after Alice's order was mailed at hour 0 (it is read by
#: the poll at hour 6): one over the poll that read it and mailed everyone, one over polls that read and mailed
#: nothing, one over the reminders' polls of Bob's turn.
WINDOWS = {"over Alice's order": (1, 13), "over idle polls": (13, 23), "over Bob's reminders": (25, 47)}


def _forged_outage(home, clock, shape: str) -> tuple[dict, dict[str, list[bytes]], int]:
    """Habsburg: Alice answers at hour 0; polled every 6 hours to hour 48, Bob's mail from hour 6 on held back (his
    turn's report, its reminders: they reach him at hour 48); then the moderator records an outage over `shape`'s
    window with pbem's own `decide_outage`, the deadline moving later by it, to excuse what Bob did not get.  The
    final export (abandoned), every player's mail, and how many mails or messages the window holds."""
    import json
    from datetime import timedelta
    from email import message_from_bytes

    import tests.test_fairness20 as t20
    from pbem.app import control
    from pbem.app.control import Command
    from pbem.app.outages import decide_outage
    from pbem.home.app import Home
    from tests.conftest import deliver, order_mail, signed
    from tests.test_fairness16 import _export
    from tests.test_moderator import PLAYERS, new_game

    name = new_game(home, clock)
    provider = t20.Provider(home)
    t20._poll(home, clock, provider)
    zero = clock.now
    deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", "NO EVENT")))

    def held(raw: bytes) -> bool:
        return (message_from_bytes(raw)["To"] or "").endswith("<bob@players.test>")

    for _ in range(8):
        clock.advance(hours=6)
        t20.cron.run_poll(home, clock=clock)
        provider.arrive(clock.now, hold=held)
    provider.arrive(clock.now)
    a, b = WINDOWS[shape]
    start, end = zero + timedelta(hours=a), zero + timedelta(hours=b)
    with Home.of(home).units() as s:
        c = Command(s, name)
        assert c.step is not None and c.due is not None
        d, _ = decide_outage(c.loaded, c.step, c.due, start, end)
        c.apply(Home.of(home).policy, d, clock.now)
    t20._poll(home, clock, provider, 1)
    control.abandon(Home.of(home), name, clock.now)
    doc = json.loads(json.dumps(_export(home, name)))
    return doc, {p: provider.box(addr) for p, addr in PLAYERS}, 0


@pytest.mark.skipif(not FULL, reason="three forged outages in a played game: PBEM_FAIRNESS27_OUTAGE_FULL=1")
@pytest.mark.parametrize("shape", list(WINDOWS))
def test_an_outage_claimed_while_pbem_ran_is_named_where_the_record_or_a_mail_shows_it_ran(home, clock, shape) -> None:
    from pbem.trust.receipts import lines, verify_mail
    from pbem.trust.verify import check

    doc, boxes, _ = _forged_outage(home, clock, shape)
    v = check(doc)
    assert v.ok, v.problem
    by_verify = [x for x in v.notes if "says pbem did not run" in x]
    by_mail = {
        p: [x for x in verify_mail(doc, box, p).notes if "says pbem did not run in" in x] for p, box in boxes.items()
    }
    if FULL:
        print(
            f"fairness27 forged outage {shape}: verify {len(by_verify)}, mail {dict((p, len(x)) for p, x in by_mail.items())}"
        )
    if shape == "over Alice's order":  # her order read and answered inside: the export and her mailbox say so
        assert by_verify and by_mail["Alice"], (v.notes, {p: lines(verify_mail(doc, b, p)) for p, b in boxes.items()})
