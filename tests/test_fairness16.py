"""Sixteenth round of the fairness red team: every step's deadline computed from the chain.

The game's step length is chained once (the first input's entry, `pace`), and every event that moves a deadline
states the new one in its chained data, so `pbem verify --mail` computes the deadline of the step open at each
report's head (`pbem.trust.paced`) and names a report or reminder stating another, from one player's mail alone:

1. Alice told, in the report that asked her and in her reminder, a deadline 1, 3 or 5 hours earlier than the
   game's: her own mail verified on f76a375 (fairness15 warned only past 6 hours).
2. A step's deadline shortened (or stretched) for every player with no event (the step length edited in the
   database for one step): every report stated it and the deadline's defaults came at it, so every mailbox
   verified on f76a375, and so did the export alone.  Now Bob's and Carol's mail names it (Alice was mailed
   nothing of that step), and `pbem verify` alone refuses defaults applied before the deadline the chain gives
   (shortened) or warns of defaults applied 9 hours after it (stretched).
3. Generator over the four titles: the first report of each seeded game's last player that states a deadline,
   told an hour earlier: 4 of 4 verified on f76a375; each is named now.

Honest: each title's seeded game chains its step length (its mail is verified with the deadlines computed by
`tests/test_fairness15.py`'s seeded test), and a game with a join step, an extension, a pause and resume, a wait for
absent players, an outage and an undo verifies with every player's mail.
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
from pbem.trust import chain, paced
from pbem.trust.receipts import lines, verify_mail
from pbem.trust.verify import check
from tests.conftest import deliver, order_mail, signed
from tests.test_fairness11 import _deadline_game, _mailbox
from tests.test_fairness12 import told_sooner
from tests.test_history_golden import KINDS, seeded_export
from tests.test_moderator import PLAYERS, new_game, run_poll

pytestmark = pytest.mark.xdist_group("fairness16")  # a unit per module, not one for all

NAMED = "than the deadline the chain gives"


def stated(raw: bytes):
    """The deadline a report or a reminder states (None: neither)."""
    from email.utils import parsedate_to_datetime

    from pbem.trust import due, noticed, told

    text, sent = told.plain(raw), parsedate_to_datetime(str(message_from_bytes(raw)["Date"])).timestamp()
    return due.stated(text, sent) or noticed.reminder_due(text)


def told_text(raw: bytes) -> str:
    from pbem.trust import told

    return told.plain(raw)


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
def test_every_seeded_game_chains_its_step_length(kind: str) -> None:
    """Each title's seeded game chains its step length in its first input, so its deadlines are computed: its play
    verified (`pbem.cli.demo.run`: `pbem verify`, no defaults before the deadline the chain gives), and its last
    player's mail verifies with every deadline stated computed (`tests/test_fairness15.py`'s seeded games)."""
    doc = seeded_export(kind)
    rows = chain.sequence(doc["orders"], doc["events"])
    assert paced.pace(rows) is not None and "pace" not in doc["orders"][1], doc["orders"][:2]


@pytest.mark.parametrize("kind", KINDS)
def test_a_report_of_any_title_telling_an_hour_less_is_named(kind: str) -> None:
    """Generator over the four titles (4 of 4 verified on f76a375): the first report of the seeded game's last player
    that states a deadline, told an hour earlier (its time left made to fit its Date).  Her mail names it."""
    from tests.test_fairness3 import _mails
    from tests.test_fairness12 import _sooner

    doc = seeded_export(kind)
    player = doc["players"][-1]
    mine = _mails(kind, player["address"])
    k = next(i for i, raw in enumerate(mine) if "Private report for" in told_text(raw) and stated(raw))
    c = verify_mail(doc, [*mine[:k], _sooner(mine[k], 1)], player["name"])  # her mail up to it, for time
    assert not c.ok and any("1.0 hours earlier" in p for p in _named(c)), lines(c)


def _hour_after(at: str) -> str:
    from datetime import datetime

    return (datetime.fromisoformat(at) + timedelta(hours=1)).isoformat()


def test_the_step_length_is_chained_once_in_the_first_input_as_pbem_writes_it() -> None:
    """The moderator re-chaining the record with the step length elsewhere, in another form, or the first step
    opened at another time than the game was set up, is refused (`verify._paced`); stripped, the chain breaks."""
    import copy

    from tests.test_export_verify import _rechain

    doc = seeded_export("habsburg")
    pace = doc["orders"][0]["pace"]
    moved = copy.deepcopy(doc)
    moved["orders"][1]["pace"] = moved["orders"][0].pop("pace")
    forged = {
        "on a later input": (moved, "only a game's first input does"),
        "not seconds": (dict(pace, step_seconds="48h"), "is not a number of seconds"),
        "opened later": (dict(pace, opened=_hour_after(pace["opened"])), "but the game was set up at another time"),
    }
    for what, (bad, said) in forged.items():
        if "orders" not in bad:
            bad = copy.deepcopy(doc) | {"orders": [dict(doc["orders"][0], pace=bad), *doc["orders"][1:]]}
        v = check(_rechain(copy.deepcopy(bad)))
        assert not v.ok and said in str(v.problem), (what, v.problem)
    stripped = copy.deepcopy(doc)
    del stripped["orders"][0]["pace"]
    v = check(stripped)
    assert not v.ok and "the chain breaks at entry" in str(v.problem), v.problem


MOVES = ("extend", "resume", "outage")  # (the players away over the wait were reminded of nothing)


def _mail(home, clock, name: str, player: str, body: str) -> None:
    clock.advance(hours=1)
    deliver(home, order_mail(f"{player} <{dict(PLAYERS)[player]}>", name, signed(player, body)))
    cron.run_poll(home, clock=clock)


def test_a_joined_game_extended_paused_resumed_waiting_moved_by_an_outage_and_undone_verifies(home, clock) -> None:
    """No false alarm: a game with a join step (its first step opens with the deal); the moderator extends the first
    turn, pauses and resumes the game (Carol asks STATUS after each: her report states the deadline moved); every
    player is away over the next deadline (the game waits: a `wait` event); pbem is down for 40 hours over a
    deadline (an outage moves it); the moderator undoes the last input (the step reopens from the undo); the
    defaults apply at the deadlines.  Every player's mail verifies, and so does the export."""
    from pbem.app import absence, games, undo
    from tests.conftest import CODES

    name = "hh1"
    games.create_game(Home.of(home), "habsburg", name, PLAYERS, seed="fairness16", clock=clock, codes=CODES,
                      table=games.Table(join=True))  # fmt: skip
    for player, _ in PLAYERS:
        _mail(home, clock, name, player, "JOIN")
    control.extend(Home.of(home), name, timedelta(days=1), clock.now)
    _mail(home, clock, name, "Carol", "STATUS")  # her report states the extended deadline
    control.pause(Home.of(home), name, clock.now)
    clock.advance(hours=5)
    control.resume(Home.of(home), name, clock.now)
    _mail(home, clock, name, "Carol", "STATUS")  # and the deadline the resume moved
    for player, _ in PLAYERS:
        absence.set_away(Home.of(home), name, player, "4", clock.now)
    for _ in range(20):
        clock.advance(hours=4)
        cron.run_poll(home, clock=clock)
    clock.advance(hours=40)  # pbem down over the next deadline: an outage moves it
    for _ in range(6):
        cron.run_poll(home, clock=clock)
        clock.advance(hours=4)
    with session(home.database_url) as s:
        last = store.inputs(s, store.game_by_name(s, name).id)[-1].seq
    undo.undo(Home.of(home), name, last - 1, "a mistake", False, clock.now)
    for _ in range(14):
        clock.advance(hours=4)
        cron.run_poll(home, clock=clock)
    control.abandon(Home.of(home), name, clock.now)
    doc = _export(home, name)
    actions = {e["data"].get("action") for e in doc["events"] if e["kind"] == "moderator"}
    kinds = [o["kind"] for o in doc["orders"]]
    assert {"extend", "pause", "resume", "outage", "wait"} <= actions and "undo" in kinds, (actions, kinds)
    assert kinds.index("undo") < len(kinds) - 1 and kinds[-1] == "deadline", kinds
    v = check(doc)
    assert v.ok and any("every step's deadline follows" in line for line in v.checked), v.problem
    assert not [n for n in v.notes if "says pbem did not run" in n], v.notes  # the honest outage (fairness27)
    moved = {e["data"]["deadline"][:16] for e in doc["events"] if e["data"].get("action") in MOVES}
    told = {f"{w:%Y-%m-%dT%H:%M}" for _, a in PLAYERS for raw in _mailbox(home, a) if (w := stated(raw))}
    assert moved <= told, (moved, told)  # the reports and reminders stated the moved deadlines, which are checked
    for player, address in PLAYERS:
        c = verify_mail(doc, _mailbox(home, address), player)
        assert c.ok and not _named(c), (player, lines(c))
        assert not [n for n in c.notes if "says pbem did not run" in n], (player, lines(c))
