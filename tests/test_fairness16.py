"""Sixteenth round of the fairness red team: every step's deadline computed from the chain.

The game's step length is chained once (the first input's entry, `pace`), and every event that moves a deadline
states the new one in its chained data, so `pbem verify --mail` computes the deadline of the step open at each
report's head (`pbem.trust.paced`) and names a report or reminder stating another, from one player's mail alone:

1. Alice told, in the report that asked her and in her reminder, a deadline 1, 3 or 5 hours earlier than the
   game's: her own mail verified on f76a375 (fairness15 warned only past 6 hours).
2. A step's deadline shortened (or stretched) for every player with no event (the step length edited in the
   database for one step): every report stated it and the deadline's defaults came at it, so every mailbox
   verified on f76a375.
"""

from __future__ import annotations

import json
from datetime import timedelta
from email import message_from_bytes

import pytest
from sqlalchemy import text

from pbem.app import control, cron
from pbem.history.export import build
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from pbem.trust.receipts import lines, verify_mail
from pbem.trust.verify import check
from tests.conftest import deliver, order_mail, signed
from tests.test_fairness3 import _mails
from tests.test_fairness11 import _deadline_game, _mailbox
from tests.test_fairness12 import told_sooner
from tests.test_history_golden import KINDS, seeded_export
from tests.test_moderator import PLAYERS, new_game, run_poll

pytestmark = pytest.mark.xdist_group("fairness")

NAMED = "than the deadline the chain gives"


def stated(raw: bytes):
    """The deadline a report or a reminder states (None: neither)."""
    from email.utils import parsedate_to_datetime

    from pbem.trust import due, noticed, told

    text, sent = told.plain(raw), parsedate_to_datetime(str(message_from_bytes(raw)["Date"])).timestamp()
    return due.stated(text, sent) or noticed.reminder_due(text)


def _named(c) -> list[str]:
    return [p for p in c.problems if NAMED in p]


def _export(home, name: str) -> dict:
    with session(home.database_url) as s:
        return json.loads(json.dumps(build(s, store.game_by_name(s, name))))


@pytest.fixture(scope="module")
def told(tmp_path_factory) -> tuple[dict, dict[str, list[bytes]]]:
    """`_deadline_game`'s export and mail, played once for the module."""
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from tests.conftest import Clock

    path = init_home(tmp_path_factory.mktemp("told") / "home", address="moderator@pbem.test", name="Test Moderator")
    return _deadline_game(config_mod.load(path), Clock())


@pytest.mark.parametrize("hours", [1, 3, 5])
def test_a_deadline_told_hours_early_to_one_player_is_named_by_her_own_mail(told, hours) -> None:
    """Gap (f76a375): Alice told a deadline 1, 3 or 5 hours earlier than the game's, in the report that asked her and
    in her reminder (each time left made to fit its Date), verified with her mail alone (3 of 3; fairness15 warned
    only of more than 6 hours).  The step length is chained, so the deadline of the step open at each report's head
    is computed: both mails are named."""
    doc, mail = told
    honest = verify_mail(doc, mail["Alice"], "Alice")
    assert honest.ok and not _named(honest), lines(honest)
    c = verify_mail(doc, told_sooner(mail["Alice"], hours), "Alice")
    named = _named(c)
    assert not c.ok and len(named) == 2, lines(c)
    assert all(f"{hours:.1f} hours earlier" in n for n in named), named


def _bent(home, clock, by: timedelta) -> tuple[dict, dict[str, list[bytes]]]:
    """Alice answers her turn (the first input: it chains the step length); then the moderator edits the game's step
    length by `by` in the database while Bob's turn runs, so that Carol's turn opens with that much more (or less)
    time for everyone, and edits it back; polls every 6 hours until Carol's deadline has been applied.  (The
    abandoned game's export, each player's mail.)"""
    name = new_game(home, clock)
    run_poll(home, clock)
    clock.advance(hours=1)
    deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", "PASS")))
    run_poll(home, clock)
    length = int(home.default_deadline.total_seconds())
    with session(home.database_url) as s:
        s.connection().execute(text("UPDATE games SET deadline_seconds = :n"), {"n": length + by.total_seconds()})
        s.commit()
    for _ in range(9):  # Bob's deadline, 48 hours on: Carol's turn opens with the step length edited
        clock.advance(hours=6)
        run_poll(home, clock)
    with session(home.database_url) as s:
        s.connection().execute(text("UPDATE games SET deadline_seconds = :n"), {"n": length})
        s.commit()
    clock.advance(hours=15)
    for _ in range(7):  # polls at 10:00 on the 9th, when Carol's deadline falls if shortened, and at 22:00
        run_poll(home, clock)
        clock.advance(hours=6)
    control.abandon(Home.of(home), name, clock.now)
    doc = _export(home, name)
    assert sum(o["kind"] == "deadline" for o in doc["orders"]) >= 2, "Bob's and Carol's deadlines were applied"
    return doc, {p: _mailbox(home, address) for p, address in PLAYERS}


@pytest.mark.parametrize("by", [timedelta(hours=-3), timedelta(hours=5)], ids=["shortened", "stretched"])
def test_a_deadline_bent_for_every_player_with_no_event_is_named_by_each_players_mail(home, clock, by) -> None:
    """Gap (f76a375): Carol's step opened with 3 hours less (or 5 more) for everyone, no event in the record, its
    defaults applied at that deadline: every mailbox agreed with itself and the others, and verified (2 games of 2,
    3 mailboxes each).  Each player's mail now names the reports stating it."""
    doc, mail = _bent(home, clock, by)
    v = check(doc)  # the export alone: the defaults came before the deadline the chain gives, or hours after it
    if by < timedelta(0):
        assert not v.ok and "3.0 hours before the deadline the chain gives its step" in str(v.problem), v.problem
    else:
        assert v.ok and any("9.0 hours after the deadline the chain gives its step" in n for n in v.notes), v.notes
    hours = f"{abs(by.total_seconds()) / 3600:.1f} hours {'earlier' if by < timedelta(0) else 'later'}"
    for player in ("Bob", "Carol"):  # Alice was mailed nothing of Carol's step (she took no part in it)
        c = verify_mail(doc, mail[player], player)
        named = _named(c)
        assert not c.ok and named and all(hours in n for n in named), (player, lines(c))
    assert verify_mail(doc, mail["Alice"], "Alice").ok


# ------------------------------------------------------------------ honest games


@pytest.mark.parametrize("kind", KINDS)
def test_every_seeded_game_verifies_with_its_deadlines_computed(kind: str) -> None:
    """No false alarm: each title's seeded game chains its step length, and its last player's mail (Sixteen Thirty's
    first sixth, for time) verifies with every deadline it states computed from the chain."""
    doc = seeded_export(kind)
    assert doc["orders"][0].get("pace"), "the first input chains the step length"
    player = doc["players"][-1]
    mine = _mails(kind, player["address"])
    c = verify_mail(doc, mine[: len(mine) // 6] if kind == "sixteen-thirty" else mine, player["name"])
    assert c.ok and not _named(c), lines(c)
    assert c.stated, "its reports stated deadlines"


MOVES = ("extend", "resume", "outage")


def _status(home, clock, name: str) -> None:
    clock.advance(hours=1)
    deliver(home, order_mail("Carol <carol@players.test>", name, signed("Carol", "STATUS")))
    cron.run_poll(home, clock=clock)


def test_a_game_extended_paused_resumed_and_moved_by_an_outage_verifies(home, clock) -> None:
    """No false alarm: the moderator extends Alice's turn, pauses and resumes the game, pbem is down for 40 hours over
    Bob's deadline (an outage moves it), and the defaults apply at the deadlines: every player's mail verifies."""
    name = new_game(home, clock)
    cron.run_poll(home, clock=clock)
    control.extend(Home.of(home), name, timedelta(days=1), clock.now)
    _status(home, clock, name)  # Carol's report states the extended deadline
    clock.advance(hours=2)
    control.pause(Home.of(home), name, clock.now)
    clock.advance(hours=5)
    control.resume(Home.of(home), name, clock.now)
    _status(home, clock, name)  # and the deadline the resume moved
    deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", "PASS")))
    cron.run_poll(home, clock=clock)
    for _ in range(4):
        clock.advance(hours=4)
        cron.run_poll(home, clock=clock)
    clock.advance(hours=40)  # pbem down over Bob's deadline: an outage moves it (a run of cron's records each run)
    cron.run_poll(home, clock=clock)
    for _ in range(16):
        clock.advance(hours=4)
        cron.run_poll(home, clock=clock)
    control.abandon(Home.of(home), name, clock.now)
    doc = _export(home, name)
    actions = {e["data"].get("action") for e in doc["events"] if e["kind"] == "moderator"}
    assert {"extend", "pause", "resume", "outage"} <= actions, actions
    moved = {e["data"]["deadline"][:16] for e in doc["events"] if e["data"].get("action") in MOVES}
    told = {f"{w:%Y-%m-%dT%H:%M}" for _, a in PLAYERS for raw in _mailbox(home, a) if (w := stated(raw))}
    assert moved <= told, (moved, told)  # the reports and reminders stated the moved deadlines, which are checked
    assert any(o["kind"] == "deadline" for o in doc["orders"])
    for player, address in PLAYERS:
        c = verify_mail(doc, _mailbox(home, address), player)
        assert c.ok and not _named(c), (player, lines(c))
