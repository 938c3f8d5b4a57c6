"""Fifteenth round of the fairness red team: a deadline bent for one player.

1. A late order accepted for a friend: Alice's order, signed by her provider (DKIM `t=`) hours after the deadline
   every report stated for her step, applied as her input with no `deadline` input defaulting her first (the poll
   held, or the due time edited in the database), verified silently with every player's mail on 10a295e.  Each
   player's `verify --mail` now warns of it (`pbem.trust.due.late`): the signature's time is her provider's, the
   deadline the one the reader's own reports stated for that step ("Deadline: ...", "Waiting for Alice; deadline
   ...").  A warning, not a failure: pbem holds a deadline itself, with nothing in the record, while a report is
   undelivered, while its clock is found ahead, and while it is down with `[games] outage_after` off or longer.
2. A deadline told to one player alone, checked with that player's mail alone: Alice told, in her report and her
   reminder, a deadline 10 or 30 hours earlier than the game's verified on 10a295e (the mail of two players given
   together named it: fairness12).  The deadline's defaults applied more than 6 hours (`[games] outage_after`'s
   default: a longer gap is an outage, recorded) after the deadline her mail stated, with nothing between that
   moves it, is now a warning of her own `verify --mail` (`pbem.trust.due.late`).  Told under 6 hours less: not
   named from her mail alone.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from datetime import datetime, timedelta

import pytest

from pbem.app import control
from pbem.history.export import build
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from pbem.trust import due
from pbem.trust.receipts import lines, verify_mail
from pbem.trust.verify import check
from tests.conftest import deliver, order_mail, signed
from tests.test_fairness3 import _mails
from tests.test_fairness11 import _mailbox
from tests.test_fairness13 import _signature
from tests.test_history_golden import KINDS, seeded_export
from tests.test_moderator import PLAYERS, new_game, run_poll

ALICE = "alice@players.test"


def _late_game(home, clock, late: timedelta, extend: timedelta = timedelta(0)) -> tuple[dict, dict[str, list[bytes]]]:
    """Alice's turn opens (each player's report states its deadline; with `extend`, the moderator extends it); nobody
    polls until `late` after the deadline the reports stated (the moderator holding the poll, `[games]
    outage_after` set past it), and Alice's PASS, arriving a minute before that poll, is applied by it.  (The
    export with her provider's evidence of that mail, signed when it left; each player's received mail.)"""
    home.outage_after = timedelta(days=30)
    name = new_game(home, clock)
    run_poll(home, clock)
    if extend:
        control.extend(Home.of(home), name, extend, clock.now)
    stated = [when for raw in _mailbox(home, ALICE) if (when := due.stated(raw.decode(), clock.now.timestamp()))]
    clock.advance(seconds=(max(stated) - clock.now + late).total_seconds())
    deliver(home, order_mail(f"Alice <{ALICE}>", name, signed("Alice", "PASS")))
    run_poll(home, clock)
    control.abandon(Home.of(home), name, clock.now)
    with session(home.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, name))))
    o = next(o for o in doc["orders"] if o["player"] == "Alice" and o.get("message_id"))
    assert o["lines"] == ["PASS"] and not any(x["kind"] == "deadline" for x in doc["orders"])
    when = (datetime.fromisoformat(o["at"]) - timedelta(minutes=1)).isoformat()
    mid = o["message_id"].strip("<>")
    doc["evidence"] = [copy.deepcopy(_signature(doc["game"]["name"], mid, tuple(o["lines"]), when, ALICE))]
    return doc, {p: _mailbox(home, a) for p, a in PLAYERS}


LATE = (timedelta(hours=2), timedelta(hours=5), timedelta(days=1, hours=2))
NAMED = "(Alice) was signed by its provider at"


@pytest.mark.parametrize("late", LATE, ids=lambda d: f"{d.total_seconds() / 3600:g}h")
def test_a_late_order_accepted_for_one_player_is_named_by_every_players_mail(home, clock, late) -> None:
    """Gap (10a295e): Alice's order signed by her provider 2, 5 or 26 hours after the deadline every report stated,
    applied with no deadline input before it (the poll held past the deadline), verified: the export passes (its
    evidence holds) and so did each of the three players' mail, 9 of 9 on 10a295e.  Each player's `verify --mail`
    warns of it now, Bob's and Carol's too (their reports said "Waiting for Alice; deadline ...")."""
    doc, mail = _late_game(home, clock, late)
    assert check(doc).ok
    for player, mine in mail.items():
        c = verify_mail(doc, mine, player)
        (named,) = [n for n in c.notes if NAMED in n]
        hours = f"{late.total_seconds() / 3600 - 1 / 60:.1f} hours after the deadline"
        assert (
            named.startswith("WARNING: input 1 (Alice)")
            and hours in named
            and "late order accepted, the deadline stretched for one player, outside the record" in named
        ), (
            player,
            named,
        )
        assert c.ok, lines(c)  # a warning: pbem may hold a deadline itself, with nothing in the record


def test_a_late_order_past_an_extended_deadline_is_named_by_the_extensions_chained_deadline(home, clock) -> None:
    """Gap (10a295e): the moderator extended the deadline two days (a public event whose chained data states the new
    deadline), and Alice's order, signed 3 hours after that, was applied: it verified.  An event that moves the
    deadline binds the inputs after it by the deadline it states."""
    doc, mail = _late_game(home, clock, timedelta(days=2, hours=3), timedelta(days=2))
    c = verify_mail(doc, mail["Bob"], "Bob")
    (named,) = [n for n in c.notes if NAMED in n]
    assert "3.0 hours after the deadline" in named, named
    assert re.search(r"that the moderator's extend event \(entry #\d+ of the export\) stated for its step", named), (
        named
    )


@pytest.mark.parametrize(
    ("late", "extend"), [(timedelta(minutes=30), timedelta(0)), (timedelta(days=1, hours=2), timedelta(days=2))]
)
def test_an_order_read_in_the_polls_lag_or_after_an_extension_is_honest(home, clock, late, extend) -> None:
    """No false alarm: an order signed half an hour after the deadline and read by the first poll after it (pbem
    reads the mail that came before it applies a deadline), and one signed a day after the deadline the reports
    stated once the moderator extended it two days (a public `extend` event between)."""
    doc, mail = _late_game(home, clock, late, extend)
    for player, mine in mail.items():
        c = verify_mail(doc, mine, player)
        assert c.ok and not any(NAMED in n for n in c.notes), (player, lines(c))


def _stamped(doc: dict) -> dict:
    """`doc` with evidence of every player input whose signature's t= is a minute before the input was applied (as
    it left just before the poll that read it): its `t=` alone, unsigned (`verify --mail` reads the time, `pbem
    verify` checks the signature: an RSA signature for each of Sixteen Thirty's 273 inputs took 2 s)."""
    out = copy.deepcopy(doc)
    out["evidence"] = []
    for o in doc["orders"]:
        if o.get("message_id") and o.get("player"):
            t = int(datetime.fromisoformat(o["at"]).timestamp()) - 60
            head = f"DKIM-Signature: v=1; a=rsa-sha256; d=players.example; s=s1; t={t}; h=from; bh=AA; b=AA\r\n"
            headers = base64.b64encode((head + "From: <x@players.example>\r\n").encode()).decode()
            out["evidence"].append({"message_id": o["message_id"].strip("<>"), "headers": headers})
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_every_seeded_game_verifies_with_its_inputs_signed_as_they_arrived(kind: str) -> None:
    """No false alarm: each title's seeded game, every input signed a minute before it was applied, verifies against
    its last player's mail (Sixteen Thirty's first sixth of it, for time; all of every player's verified so too) with no late order named."""
    doc = _stamped(seeded_export(kind))
    player = doc["players"][-1]
    mine = _mails(kind, player["address"])
    c = verify_mail(doc, mine[: len(mine) // 6] if kind == "sixteen-thirty" else mine, player["name"])
    assert c.ok and not any(NAMED in n for n in c.notes), lines(c)
    assert c.stated, "its reports stated deadlines, which bind the inputs' signing times"


# ------------------------------------------------------------------ 2. a deadline told to one player alone


def test_a_deadline_told_to_one_player_alone_is_named_by_her_own_mail(home, clock) -> None:
    """Gap (10a295e, fairness12's limit): Alice told, in the report that asked her and in her reminder, a deadline 10
    or 30 hours earlier than the game's (each time left made to fit its Date) verified with her mail alone: 2 of 2 on
    10a295e.  Her `verify --mail` now warns that the defaults came hours after the deadline she was told, with
    nothing between that moved it; her honest mail says nothing of it."""
    from tests.test_fairness11 import _deadline_game
    from tests.test_fairness12 import told_sooner

    doc, mail = _deadline_game(home, clock)
    honest = verify_mail(doc, mail["Alice"], "Alice")
    assert honest.ok and not any("WARNING" in n for n in honest.notes), lines(honest)
    for hours in (10, 30):
        c = verify_mail(doc, told_sooner(mail["Alice"], hours), "Alice")
        (named,) = [n for n in c.notes if n.startswith("WARNING")]
        assert f"{hours:.1f} hours after the deadline" in named and "told an earlier deadline" in named, named


def test_the_signing_time_is_read_whatever_order_the_kept_fields_are_in() -> None:
    """The evidence's signing time is read as `recheck` reads it: with the signature first (as pbem keeps it), and
    after another field (a moderator reordering the kept fields cannot hide it); none from fields without one."""
    from pbem.trust import dkim

    ev = _signature("hh1", "m1@players.test", ("PASS",), "2026-01-07T14:00:00+00:00", ALICE)
    t = dkim.recheck(ev).signed_at
    assert t is not None and dkim.stated_at(ev) == t
    sig, rest = base64.b64decode(ev["headers"]).split(b"\r\nFrom:", 1)
    moved = dict(ev, headers=base64.b64encode(b"From:" + rest + sig + b"\r\n").decode())
    assert dkim.recheck(moved).ok and dkim.stated_at(moved) == t
    assert dkim.stated_at(dict(ev, headers=base64.b64encode(b"From: x\r\n").decode())) is None
