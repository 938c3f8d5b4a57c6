"""Seventeenth round of the fairness red team: the join step's deadline computed from the chain.

fairness16 computed every step's deadline from the step length chained in the first input, but not the join step's:
pbem moved it, with no entry in the chain, each time it passed with players missing.  Probed on a0540ce (a game with
a join step, its export and every player's mail):

1. closed early: an hour after inviting, the moderator gives Carol's seat (she had not joined) to Dora and starts
   the game without Bob's and Dora's salts (they were told "Join by" two days on): the export verified with no word
   of either;
2. closed early with no event: the join step opened with 24 hours less than the step length the record chains, its
   invitations and reminders stating it, and the moderator started once it passed: the export and all three
   mailboxes verified;
3. kept open for a late friend, moved with no event: the join deadline moved on, unchained, when it passed without
   Bob (as a0540ce itself moved it); Carol's STATUS stated the moved deadline; Bob joined 30 hours after the first
   one: the export and Carol's mail verified;
4. one player told another join deadline: in probe 1's game, Bob's invitation stating 24 hours more than the
   others' (he saw no hurry, and the deal was made without him), in both parts or in its HTML part: his mail
   verified, both times.

9 checks of 9 passed on a0540ce; each is named now (the export alone: 1 and 3 warned of, 2 refused).  Honest: a join
step that passes its deadline with Bob missing (the move is now a public `join-missing` event), then Bob's late JOIN,
verifies with every player's mail (Bob's own failed on a0540ce: a false alarm); and a step that a deadline's defaults
leave open (which none of the four titles makes) restarts its deadline as `pbem verify` computes it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy import text
from sqlmodel import select

from pbem.app import control, cron, games
from pbem.engine.base import LineResult, Outcome
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from pbem.record.models import Deadline
from pbem.trust import chain, paced
from pbem.trust.receipts import _steps, lines, verify_mail
from pbem.trust.verify import check
from tests.conftest import CODES
from tests.test_fairness11 import _mailbox
from tests.test_fairness16 import NAMED, _export, _mail
from tests.test_moderator import PLAYERS, new_game, run_poll

NAME = "hh1"
STEP = timedelta(hours=48)


def _polls(home, clock, hours: int, every: int = 6) -> None:
    for _ in range(hours // every):
        clock.advance(hours=every)
        cron.run_poll(home, clock=clock)


def _joining(home, clock, length: timedelta = STEP) -> None:
    games.create_game(Home.of(home), "habsburg", NAME, PLAYERS, seed="fairness17", clock=clock, codes=CODES,
                      table=games.Table(join=True, deadline=length))  # fmt: skip
    cron.run_poll(home, clock=clock)


def _done(home, clock, name: str = NAME) -> tuple[dict, dict[str, list[bytes]]]:
    control.abandon(Home.of(home), name, clock.now)
    return _export(home, name), {p: _mailbox(home, address) for p, address in PLAYERS}


def _warned(doc: dict, words: str) -> list[str]:
    v = check(doc)
    assert v.ok, v.problem
    return [n for n in v.notes if words in n]


def _late_friend(home, clock) -> tuple[dict, dict[str, list[bytes]]]:
    """Alice and Carol join; the join deadline passes without Bob (pbem moves it on and tells the moderator); Carol
    asks STATUS; Bob joins 30 hours after the first deadline, which deals; the game is abandoned."""
    _joining(home, clock)
    _mail(home, clock, NAME, "Alice", "JOIN")
    _mail(home, clock, NAME, "Carol", "JOIN")
    _polls(home, clock, 48)  # the join deadline (48 hours on) passes without Bob
    _mail(home, clock, NAME, "Carol", "STATUS")  # "The others have until ..." : the moved deadline
    _polls(home, clock, 24)
    _mail(home, clock, NAME, "Bob", "JOIN")
    return _done(home, clock)


# ------------------------------------------------------------------ the probes


def test_a_join_step_closed_early_by_the_moderators_start_is_warned_of_and_a_later_deadline_told_is_named(
    home, clock
) -> None:
    """Probe 1 (verified on a0540ce with no word of it): an hour after Alice joined the moderator gives Carol's seat to
    Dora and starts, without Bob's and Dora's salts, though every invitation said "Join by" two days on.  `pbem
    verify` warns of both.
    Probe 4 (Bob's mail verified on a0540ce): Bob's invitation stating a join deadline 24 hours later than the
    others' (he saw no hurry, and the deal was made without him): his mail names it; the honest mailboxes verify."""
    _joining(home, clock)
    _mail(home, clock, NAME, "Alice", "JOIN")
    clock.advance(hours=1)
    control.replace(Home.of(home), NAME, "Carol", ("Dora", "dora@players.test"), clock.now)
    assert control.start(Home.of(home), NAME, clock.now) == ["Bob", "Dora"]
    doc, mail = _done(home, clock)
    given, started = _warned(doc, "before the join deadline the chain gives")
    assert "gave Carol's seat to Dora" in given and "46.0 hours before" in given, given
    assert "started the game" in started and "46.0 hours before" in started and "Bob, Dora" in started, started
    for player, _ in PLAYERS:
        assert verify_mail(doc, mail[player], player).ok, player
    for html_only in (False, True):  # (both parts, or the HTML part alone)
        c = verify_mail(doc, _later_join(mail["Bob"], 24, html_only), "Bob")
        assert not c.ok and any(NAMED in p and "24.0 hours later" in p for p in c.problems), lines(c)


def test_a_join_step_opened_shorter_than_the_chained_step_length_is_refused_and_named_by_every_mailbox(
    home, clock
) -> None:
    """Probe 2 (export and 3 mailboxes verified on a0540ce): the join step opened with a 24-hour deadline, every
    invitation and reminder stating it, then the step length edited to 48 hours before the first JOIN chained it; the
    deadline passed at 24 hours and the moderator started.  The export alone is refused (pbem's `join-missing` event
    came before the deadline the chain gives) and each player's mail names the deadlines it stated."""
    _joining(home, clock, timedelta(hours=24))
    with session(home.database_url) as s:
        s.connection().execute(text("UPDATE games SET deadline_seconds = :n"), {"n": int(STEP.total_seconds())})
        s.commit()
    _mail(home, clock, NAME, "Alice", "JOIN")
    _polls(home, clock, 24)
    control.start(Home.of(home), NAME, clock.now)
    doc, mail = _done(home, clock)
    v = check(doc)
    assert not v.ok and "23.0 hours before the join deadline the chain gives" in v.problem, v.problem
    for player in ("Alice", "Bob", "Carol"):
        c = verify_mail(doc, mail[player], player)
        named = [p for p in c.problems if NAMED in p]
        assert not c.ok and named and all("24.0 hours earlier" in n for n in named), (player, lines(c))


def test_a_join_step_kept_open_for_a_late_friend_with_no_event_is_named(home, clock, monkeypatch) -> None:
    """Probe 3 (export and Carol's mail verified on a0540ce, where pbem itself moved the join deadline with no event):
    the join deadline moved on, unchained, when it passed without Bob; Carol's STATUS stated the moved deadline; Bob
    joined 30 hours after the first.  The export warns of Bob's JOIN; Carol's mail names her STATUS."""
    from pbem.app import deadlines, join

    def unchained(*args, **kw):  # the move a0540ce made: the moderator told, the deadline moved, nothing chained
        d = join.decide_join_deadline(*args, **kw)
        return replace(d, effects=[e for e in d.effects if type(e).__name__ != "Events"])

    monkeypatch.setattr(deadlines, "decide_join_deadline", unchained)
    doc, mail = _late_friend(home, clock)
    (warned,) = _warned(doc, "after the join deadline the chain gives")
    assert "(join Bob)" in warned and "kept open outside the record" in warned, warned
    c = verify_mail(doc, mail["Carol"], "Carol")
    assert not c.ok and any(NAMED in p and "later than" in p for p in c.problems), lines(c)


def test_a_join_step_kept_open_for_a_late_friend_verifies_with_its_move_chained(home, clock) -> None:
    """Honest: the join deadline passes without Bob; pbem chains the move as a public `join-missing` event (mailed to
    nobody: the moderator gets his alert as before), Carol's STATUS states the moved deadline, Bob joins late.  The
    export verifies with no warning, and every player's mail verifies with each join deadline stated computed (probe
    3's game, chained).  On a0540ce Bob's own mail of this honest game failed: his reminders of the first and of the
    moved join deadline had no entry between them that moves a deadline."""
    doc, mail = _late_friend(home, clock)
    rows = chain.sequence(doc["orders"], doc["events"])
    assert paced.joins(rows) and doc["orders"][0]["pace"]["join"] == "chained", doc["orders"][0]
    [moved] = [e for e in doc["events"] if e["data"].get("action") == paced.JOIN_MISSING]
    assert moved["visibility"] == "public" and moved["data"]["players"] == ["Bob"], moved
    v = check(doc)
    assert v.ok and not [n for n in v.notes if "join deadline" in n], (v.problem, v.notes)
    stated = f"The others have until {moved['data']['deadline'][:16].replace('T', ' ')} UTC to join."
    assert any(stated.encode() in raw for raw in mail["Carol"]), stated
    for player, _ in PLAYERS:  # Bob's failed on a0540ce: his reminders of the first and the moved join deadline
        c = verify_mail(doc, mail[player], player)  # had no entry between them that moves a deadline (`due.split`)
        assert c.ok and not [p for p in c.problems if NAMED in p], (player, lines(c))


def test_a_start_once_the_join_deadline_passed_is_no_warning(home, clock) -> None:
    """Honest: the join deadline passes without Bob and Carol; pbem tells the moderator, who starts (before the moved
    deadline, as the alert asks him to).  The export verifies with no warning of the join step."""
    _joining(home, clock)
    _mail(home, clock, NAME, "Alice", "JOIN")
    _polls(home, clock, 48)
    control.start(Home.of(home), NAME, clock.now)
    doc, _ = _done(home, clock)
    assert [e["data"]["players"] for e in doc["events"] if e["data"].get("action") == paced.JOIN_MISSING] == [
        ["Bob", "Carol"]
    ], doc["events"]
    assert not _warned(doc, "join deadline"), check(doc).notes


def _later_join(box: list[bytes], hours: int, html_only: bool = False) -> list[bytes]:
    """`box` with its first invitation stating a join deadline `hours` later, in both parts (or its HTML part)."""
    from datetime import datetime

    from pbem.trust import joined, told
    from tests.test_fairness3 import _html_edited
    from tests.test_fairness9 import _swapped

    k = next(i for i, raw in enumerate(box) if joined.join_by(told.plain(raw)))
    was = joined.join_by(told.plain(box[k]))
    assert isinstance(was, datetime)
    old, new = f"{was:%Y-%m-%d %H:%M} UTC", f"{was + timedelta(hours=hours):%Y-%m-%d %H:%M} UTC"
    edited = _html_edited(box[k] if html_only else _swapped(box[k], old, new), lambda page: page.replace(old, new, 1))
    assert edited != box[k]
    return [*box[:k], edited, *box[k + 1 :]]


# ------------------------------------------------------------------ a step the deadline's defaults leave open


class _Waits:
    """Habsburg with every request's default WAIT, which the engine accepts and which changes nothing: the deadline's
    defaults leave the same step open (`pbem.engine.base.apply_defaults` applies them once)."""

    def __init__(self, base) -> None:
        self.base = base

    def requests(self, state):
        return [replace(r, default=("WAIT",)) for r in self.base.requests(state)]

    def apply(self, state, player, lines_):
        if list(lines_) == ["WAIT"]:
            return Outcome(state, [], [LineResult("WAIT", True)])
        return self.base.apply(state, player, lines_)

    def __getattr__(self, name):
        return getattr(self.base, name)


def test_a_step_the_deadlines_defaults_leave_open_restarts_its_deadline_as_verify_computes(
    home, clock, monkeypatch
) -> None:
    """fairness16 read the rule from pbem alone: a deadline's defaults that leave the same step open restart it, a
    step length from the `deadline` input (`apply._input`'s `reopen`).  No title makes such a step (none of 1,878
    deadlines of bot games of the four), so Habsburg's is made one here (`_Waits`).  Alice lets two deadlines pass,
    asks STATUS between, then plays.  The deadlines pbem stored are those `paced.computed` gives, the export
    verifies, and each player's mail verifies with every deadline it stated computed."""
    from pbem.engine import habsburg
    from tests.test_fairness16 import stated

    monkeypatch.setattr(habsburg, "ENGINE", _Waits(habsburg.ENGINE))
    name = new_game(home, clock)
    run_poll(home, clock)
    _polls(home, clock, 48)  # Alice's first deadline: WAIT, the same step open again
    _mail(home, clock, name, "Alice", "STATUS")
    _polls(home, clock, 48)  # and again
    _mail(home, clock, name, "Alice", "PASS")
    doc, mail = _done(home, clock, name)
    assert [o["kind"] for o in doc["orders"]] == ["deadline", "deadline", "orders"], doc["orders"]
    with session(home.database_url) as s:
        game = store.game_by_name(s, name)
        stored = {store.aware(d.due_at) for d in s.exec(select(Deadline).where(Deadline.game_id == game.id))}
    rows = chain.sequence(doc["orders"], doc["events"])
    step = _steps(doc, rows, [0], tuple(range(len(rows) + 1)))
    found = paced.pace(rows)
    assert step is not None and found is not None
    computed = {d.when for d in paced.computed(rows, step, found) if d}
    assert len(stored) == 4 and computed == stored, (sorted(stored), sorted(computed))
    v = check(doc)
    assert v.ok and "every step's deadline follows" in "\n".join(v.checked), v.problem
    assert not [n for n in v.notes if "deadline the chain gives" in n], v.notes
    told = {w for raw in mail["Alice"] if (w := stated(raw))}
    assert len(told) >= 3 and told <= computed, (told, computed)
    for player, _ in PLAYERS:
        c = verify_mail(doc, mail[player], player)
        assert c.ok and not [p for p in c.problems if NAMED in p], (player, lines(c))
