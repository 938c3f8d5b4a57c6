"""`pbem game undo`, `pbem game away` and a deadline that waits for an away player, decided on plain
objects (no SQLite, no Maildir).

The other moderator commands, deadlines and reminders are in test_time_and_control_policy.py; with
these, every `decide_*` a moderator command calls is checked on plain objects for every effect and
mail it causes.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, date, datetime, timedelta

import pytest

from pbem.app import views
from pbem.app.absence import decide_set_by_moderator
from pbem.app.decision import Control, GameError, Input, NewDeadline, Report
from pbem.app.undo import MAX_REASON, decide_undo
from pbem.engine.bots import choose, play
from pbem.engine.rng import Rng, init_state
from pbem.mail.outbound.outgoing import Mail
from pbem.orders.away import read_away
from pbem.record.store import Loaded
from pbem.trust.fold import UNDO, Fold, undo_mark
from tests.app.plain import WHEN, address, loaded

MAX_AWAY = timedelta(days=14)


def played(inputs: int, kind: str = "habsburg") -> tuple[Loaded, Fold, list[dict]]:
    """A game after `inputs` bot orders, with the fold a shell would build from its record, and the state
    after each input (0: the start)."""
    g = loaded(kind)
    eng = views.engine(g)
    fold = Fold(g.state, lambda _state: eng)
    rng = Rng(init_state("undo-bots"))
    state, states = g.state, [g.state]
    for seq in range(1, inputs + 1):
        req = next(r for r in eng.requests(state) if not r.answered)
        out = fold.run(seq, "orders", req.player, choose(req, rng), state)
        assert out.accepted, out.lines
        state = out.state
        states.append(state)
    return dataclasses.replace(g, state=state, seq=inputs), fold, states


def test_undo_goes_back_to_the_state_after_the_named_input_and_reports_to_everyone() -> None:
    g, fold, states = played(4)
    d = decide_undo(g, "running", fold, 1, "Bob's order was misread", False, WHEN)
    [inp] = [e for e in d.effects if isinstance(e, Input)]
    assert (inp.kind, inp.player) == (UNDO, "")
    assert fold.undos[5] == (1, [2, 3, 4]), "the moderator's numbers: the fold knows them"
    public, *private = inp.outcome.events
    assert set(public.data) == {"after", "reroll", "why"}, "the public event holds no global number"
    assert inp.lines[0] == undo_mark(g.state, 1) and inp.lines[0].startswith("mark:")
    yours: dict[str, list[list[str]]] = {}
    for _, _, player, lines in fold.done[1:4]:
        yours.setdefault(player, []).append(lines)
    assert {e.visibility: e.data["yours"] for e in private} == {(p,): v for p, v in yours.items()}
    expect = {k: v for k, v in states[1].items() if k != "rng"}
    assert {k: v for k, v in inp.outcome.state.items() if k != "rng"} == expect
    assert any("Bob's order was misread" in e.text for e in inp.outcome.events)
    step = views.current_step(views.engine(g), inp.outcome.state)
    [dl] = [e for e in d.effects if isinstance(e, NewDeadline)]
    assert (dl.step, dl.due_at) == (step, WHEN + timedelta(seconds=g.game.deadline_seconds))
    assert sorted(e.player for e in d.effects if isinstance(e, Report)) == ["Alice", "Bob", "Carol"]


def test_undo_refuses_what_it_cannot_do_and_changes_nothing() -> None:
    g, fold, _ = played(3)
    before = json.dumps(g.state, sort_keys=True)
    with pytest.raises(GameError, match="say why"):
        decide_undo(g, "running", fold, 1, "   ", False, WHEN)
    with pytest.raises(GameError, match=r"0 \(the start\) to 2"):
        decide_undo(g, "running", fold, 3, "too far", False, WHEN)
    with pytest.raises(GameError, match="abandoned"):
        decide_undo(g, "abandoned", fold, 0, "why", False, WHEN)
    assert json.dumps(g.state, sort_keys=True) == before


def test_undo_cuts_a_long_reason_to_what_every_player_can_read() -> None:
    g, fold, _ = played(2)
    d = decide_undo(g, "running", fold, 0, "word\n " * 500, False, WHEN)
    [inp] = [e for e in d.effects if isinstance(e, Input)]
    assert inp.lines == (undo_mark(g.state, 0), "replay", ("word " * 500)[:MAX_REASON])


def test_the_moderator_sets_a_player_away_and_the_player_is_told() -> None:
    g = loaded()
    d = decide_set_by_moderator(g, "running", "Bob", read_away("AWAY UNTIL 2026-01-10"), WHEN, MAX_AWAY)
    [row] = [e for e in d.effects if isinstance(e, Control)]
    assert (row.action, json.loads(row.detail)) == (
        "away",
        {"player": "Bob", "until": datetime(2026, 1, 10, tzinfo=UTC).isoformat(), "by": "moderator"},
    )
    [mail] = [e for e in d.effects if isinstance(e, Mail)]
    assert (mail.to, mail.kind, mail.player) == (address("Bob"), "away_ack", "Bob")
    assert mail.context["by_moderator"] and not mail.context["back"] and mail.context["until"]
    assert mail.context["max_days"] == 14
    assert len(d.effects) == 2  # the row and the one mail: nobody else is told


def test_the_moderator_clears_an_absence_with_back() -> None:
    d = decide_set_by_moderator(loaded(), "running", "Carol", read_away("BACK"), WHEN, MAX_AWAY)
    [row] = [e for e in d.effects if isinstance(e, Control)]
    assert (row.action, json.loads(row.detail)) == ("back", {"player": "Carol", "by": "moderator"})
    [mail] = [e for e in d.effects if isinstance(e, Mail)]
    assert mail.context["back"] and mail.context["until"] == ""


def test_the_away_command_refuses_an_unknown_player_a_past_day_and_a_game_that_is_over() -> None:
    g = loaded()
    with pytest.raises(GameError, match="Zed is not a player of g1; players: Alice, Bob, Carol"):
        decide_set_by_moderator(g, "running", "Zed", read_away("AWAY 3"), WHEN, MAX_AWAY)
    past = (WHEN - timedelta(days=2)).date()
    with pytest.raises(GameError, match="has begun or passed"):
        decide_set_by_moderator(g, "running", "Bob", read_away(f"AWAY UNTIL {past.isoformat()}"), WHEN, MAX_AWAY)
    far = date(2027, 6, 1)
    with pytest.raises(GameError, match="at most"):
        decide_set_by_moderator(g, "running", "Bob", read_away(f"AWAY UNTIL {far.isoformat()}"), WHEN, MAX_AWAY)
    short = loaded("italian-wars", ("Ann", "Ben"))
    ended = play(views.engine(short), ["Ann", "Ben"], "policy-seed")
    over = dataclasses.replace(short, state=ended.state)
    assert over.over
    with pytest.raises(GameError, match="g1 is over"):
        decide_set_by_moderator(over, "running", "Ben", read_away("AWAY 3"), WHEN, MAX_AWAY)


# ----------------------------------------------------------------------------- a deadline while a player is away


def test_a_deadline_waits_for_an_away_player_it_still_asks_and_tells_everyone() -> None:
    from pbem.app.absence import at_deadline
    from pbem.app.decision import Events
    from pbem.record.absence import AbsenceRow
    from tests.app.plain import deadline

    g = loaded()
    asked = sorted(views.waiting(views.engine(g), g.state))
    player = asked[0]
    due = WHEN + timedelta(hours=1)
    back = due + timedelta(days=2)
    rows = [AbsenceRow("away", {"player": player, "until": back.isoformat()}, WHEN)]
    step = views.current_step(views.engine(g), g.state)
    d = at_deadline(rows, g, deadline(step, due), due, MAX_AWAY)
    assert d is not None
    [dl] = [e for e in d.effects if isinstance(e, NewDeadline)]
    assert (dl.step, dl.due_at) == (step, back)
    [row] = [e for e in d.effects if isinstance(e, Control)]
    assert (row.action, json.loads(row.detail)) == ("wait", {player: int(timedelta(days=2).total_seconds())})
    [events] = [e for e in d.effects if isinstance(e, Events)]
    assert events.events[0].visibility == "public" and f"The game waits for {player}" in events.events[0].text
    mails = [e for e in d.effects if isinstance(e, Mail)]
    assert sorted(m.to for m in mails) == sorted(address(p) for p in ("Alice", "Bob", "Carol"))
    assert {m.kind for m in mails} == {"control_wait"}
    # the allowance is spent: nothing more to wait for, the deadline applies
    spent = [*rows, AbsenceRow("wait", {player: int(MAX_AWAY.total_seconds())}, WHEN)]
    assert at_deadline(spent, g, deadline(step, due), due, MAX_AWAY) is None
    # a player who is back by the deadline is not waited for
    early = [AbsenceRow("away", {"player": player, "until": (due - timedelta(minutes=1)).isoformat()}, WHEN)]
    assert at_deadline(early, g, deadline(step, due), due, MAX_AWAY) is None


class _Counted:
    """An engine whose `apply` is counted and refused past `cap` calls (a fold gone exponential stops at once)."""

    def __init__(self, eng, cap: int) -> None:
        self.eng, self.cap, self.calls = eng, cap, 0

    def __getattr__(self, name):
        return getattr(self.eng, name)

    def apply(self, state, player, lines):
        self.calls += 1
        assert self.calls <= self.cap, f"the fold applied {self.calls} inputs: undos replay each other again"
        return self.eng.apply(state, player, lines)


def test_undos_that_go_back_over_earlier_undos_cost_a_replay_each_not_two_to_the_undos() -> None:
    """Each undo folds the record again up to its point, and that fold replayed every earlier undo the same way,
    going back again: k undos each back over the one before cost 2^k replays (40 would never end).  An undo
    replayed by a fold going back now takes the state it left; 40 undos cost 40 replays of at most 4 inputs."""
    g, fold, _ = played(4)
    counted = _Counted(views.engine(g), cap=40 * 4 + 10)
    fold.engine_for = lambda _state: counted
    state, seq = g.state, 4
    for _ in range(40):
        seq += 1
        out = fold.run(seq, UNDO, "", [undo_mark(state, seq - 2) or "", "replay", "again"], state)
        assert out.accepted, out.lines
        state = out.state
    assert fold.undos[seq] == (seq - 2, [])


def test_an_undos_mark_is_found_without_marking_every_input_again(monkeypatch) -> None:
    """A marked undo's target is found among the marks of the inputs before it.  Each undo made the mark of every
    input again (n marks an undo: k undos of a long game cost n * k HMACs); the fold now keeps the marks it made,
    so 40 undos over 30 inputs make each input's mark once."""
    import pbem.trust.fold as fold_mod

    g, fold, _ = played(30)
    made = {"n": 0}
    real = fold_mod.undo_mark

    def counted(state, to, secret=None):
        made["n"] += 1
        return real(state, to, secret)

    state, seq = g.state, 30
    for _ in range(40):
        seq += 1
        mark = real(state, seq - 2) or ""
        monkeypatch.setattr(fold_mod, "undo_mark", counted)
        out = fold.run(seq, UNDO, "", [mark, "replay", "again"], state)
        monkeypatch.setattr(fold_mod, "undo_mark", real)
        assert out.accepted, out.lines
        state = out.state
    assert fold.undos[seq] == (seq - 2, [])
    assert made["n"] <= 30 + 40 + 1, f"{made['n']} marks made for 40 undos over 30 inputs"


def test_an_undo_back_to_an_earlier_undo_names_the_point_that_undo_went_back_to() -> None:
    """After undo 7 (back to input 2) and input 8, undo 9 goes back to input 7: where undo 7 left the game.  Its
    public event names the last event everyone saw at input 2, not the last of inputs 3 to 6, which no longer
    count."""
    g, fold, _ = played(6)
    first = fold.run(7, UNDO, "", [undo_mark(g.state, 2) or "", "replay", "one"], g.state)
    req = next(r for r in views.engine(g).requests(first.state) if not r.answered)
    then = fold.run(8, "orders", req.player, choose(req, Rng(init_state("then"))), first.state)
    again = fold.run(9, UNDO, "", [undo_mark(then.state, 7) or "", "replay", "two"], then.state)
    assert first.accepted and then.accepted and again.accepted
    assert again.events[0].data["after"] == first.events[0].data["after"] == fold._again(2)[1]
    assert fold._again(6)[1] != fold._again(2)[1], "the test needs inputs 3 to 6 to show an event to everyone"
    assert again.state == first.state
