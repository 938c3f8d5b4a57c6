"""A game's deadline never overtakes mail that came before it (found reviewing the poll's budget).

A poll that stops reading at its own deadline (`[mail] poll_deadline`, issue 26) leaves the rest of the inbox
for the next run; it then applied every game deadline due, so a player's order that had arrived an hour before
the deadline, still unread in the inbox, was refused the next run as too late, and the published defaults were
applied in its place.  A deadline that fell due in the last `UNREAD_HOLD` now waits for the run that read the
mail; one overdue by more (a flood filling every run's budget) is applied, so no game is held for ever.
"""

from __future__ import annotations

from pbem.app import budgets
from tests.conftest import deliver, order_mail, signed
from tests.test_moderator import address_of, asked, new_game, run_poll


def _stopped_at_once(monkeypatch) -> None:
    """Every poll is past its own deadline before its first message: all mail stays in the inbox."""
    monkeypatch.setattr(budgets, "stop_reading", lambda summary: True)


def test_an_order_left_unread_is_applied_before_the_deadline_it_came_before(home, clock, monkeypatch) -> None:
    name = new_game(home, clock)
    run_poll(home, clock)
    reqs, loaded = asked(home, name)
    player, line = reqs[0].player, reqs[0].legal[0]
    due = loaded.state  # the step the order answers
    clock.advance(days=1)
    deliver(home, order_mail(address_of(player), name, signed(player, line)))  # a day before the deadline
    clock.advance(days=1, hours=1)  # the deadline (2 days) passed an hour ago
    with monkeypatch.context() as m:
        _stopped_at_once(m)
        held = run_poll(home, clock)
    assert held.read == 0 and held.deadlines == 0, held  # the order is unread: its deadline waits
    assert budgets.UNREAD_NOTE in held.notes
    assert asked(home, name)[1].state == due
    later = run_poll(home, clock)
    assert later.accepted == 1 and later.deadlines == 0, later  # the order, then nothing is due any more
    assert player not in {r.player for r in asked(home, name)[0]} or asked(home, name)[1].state != due


def test_a_deadline_overdue_past_the_hold_is_applied_even_when_mail_is_left_unread(home, clock, monkeypatch) -> None:
    name = new_game(home, clock)
    run_poll(home, clock)
    reqs, _ = asked(home, name)
    deliver(home, order_mail(address_of(reqs[0].player), name, signed(reqs[0].player, reqs[0].legal[0])))
    clock.advance(days=2)
    clock.advance(seconds=budgets.UNREAD_HOLD.total_seconds() + 60)
    with monkeypatch.context() as m:
        _stopped_at_once(m)
        flooded = run_poll(home, clock)
    assert flooded.read == 0 and flooded.deadlines == 1, flooded  # a flood delays a game, never stops it
