"""Deadlines, reminders and the moderator's commands, decided on plain objects (no SQLite, no Maildir)."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta

import pytest

from pbem.app import control, views
from pbem.app.deadlines import Held, decide_deadline, decide_reminders
from pbem.app.decision import Control, Events, GameError, Input, NewDeadline, NewSeat, Report
from pbem.app.reminders import look_at_reminders, reminder_times, short_step
from pbem.engine.base import apply_defaults
from pbem.mail.outbound.compose import stable_message_id
from pbem.mail.outbound.outgoing import Mail
from pbem.record.due import middle
from tests.app.plain import WHEN, address, deadline, loaded

OFFSETS = [timedelta(hours=24), timedelta(hours=2)]


def owing(g) -> set[str]:
    return {r.player for r in views.engine(g).requests(g.state) if not r.answered}


def step(g) -> str:
    return views.current_step(views.engine(g), g.state)


# ----------------------------------------------------------------------------- deadlines


def test_the_deadline_applies_the_published_default_and_reports_to_whom_it_concerns() -> None:
    g = loaded()
    d = decide_deadline(g, step(g), [])
    [inp] = d.inputs
    assert (inp.kind, inp.player, inp.lines, inp.reopen) == ("deadline", "", (), step(g))
    assert any("sent no orders for this step by the deadline" in e.text for e in inp.outcome.events)
    rest = [e for e in d.effects[1:] if not (isinstance(e, Mail) and e.kind == "deadline_applied")]
    assert [type(e) for e in rest] == [Report] * len(rest) and d.reports


def test_held_orders_are_applied_in_arrival_order_before_the_defaults() -> None:
    g = loaded("italian-wars", ("Ann", "Ben"), resolve="deadline")
    held = [Held(11, "Ann", ("DISCARD NONE",)), Held(12, "Ben", ("DISCARD NONE",))]
    d = decide_deadline(g, step(g), held)
    assert [(i.kind, i.player, i.inbound_id) for i in d.inputs][:2] == [("orders", "Ann", 11), ("orders", "Ben", 12)]
    assert [c.detail for c in d.effects if isinstance(c, Control)] == [
        "applied-at-deadline:11",
        "applied-at-deadline:12",
    ]


def test_held_orders_that_became_illegal_are_not_applied_and_the_player_is_told() -> None:
    g = loaded("italian-wars", ("Ann", "Ben"), resolve="deadline")
    d = decide_deadline(g, step(g), [Held(11, "Ann", ("DISCARD Nowhere At All",))])
    assert not [i for i in d.inputs if i.kind == "orders"]
    [m] = [m for m in d.mails if m.kind == "held_failed"]
    assert m.to == address("Ann") and m.context["rejected"][0]["line"] == "DISCARD Nowhere At All"
    assert [i.kind for i in d.inputs] == ["deadline"], "the default still applies"
    assert m.context["defaulted"] is True, "the notice says the default was applied instead (judges4)"
    from pbem.render.templates import render_mail
    from tests.test_mail_templates import RECORD, M

    text = render_mail("held_failed", {**m.context, **M, **RECORD}).text
    assert "Nothing more is needed from you for that step" in text.split("\n")[0], text
    assert "the published default was applied for you instead" in text, text


def test_held_orders_refused_at_the_deadline_are_told_as_a_refusal_by_mail_is() -> None:
    """A held line that answers nothing asked is worded from the requests, as the refusal of a mail is
    (`refusals.agreeing`): what the player is asked now, not the engine's draft wording."""
    g = loaded("italian-wars", ("Ann", "Ben"), resolve="deadline")
    [asked] = [r for r in views.engine(g).requests(g.state) if r.player == "Ann" and not r.answered]
    d = decide_deadline(g, step(g), [Held(11, "Ann", ("PASS",))])
    [m] = [m for m in d.mails if m.kind == "held_failed"]
    [why] = m.context["rejected"]
    assert why["line"] == "PASS" and asked.prompt.split(". ")[0].rstrip(". ") in why["reason"], why


def test_ISSUE11_the_player_the_default_was_applied_for_is_told_the_step_and_the_lines() -> None:
    g = loaded()
    [req] = [r for r in views.engine(g).requests(g.state) if not r.answered]
    d = decide_deadline(g, step(g), [], due=WHEN)
    [m] = [m for m in d.mails if m.kind == "deadline_applied"]
    assert (m.to, m.player, m.purpose) == (
        address(req.player),
        req.player,
        "news",
    )  # counted by no answers budget: it answers no mail
    assert m.context == {
        "game_name": "g1",
        "due": "2026-01-05 12:00 UTC",
        "prompt": req.prompt,
        "lines": list(req.default),
    }
    assert not [m for m in d.mails if m.kind == "held_applied"]


def test_ISSUE11_held_orders_applied_are_quoted_to_their_player_and_no_default_notice_goes_to_them() -> None:
    g = loaded("italian-wars", ("Ann", "Ben"), resolve="deadline")
    d = decide_deadline(g, step(g), [Held(11, "Ann", ("DISCARD NONE",))], due=WHEN)
    [m] = [m for m in d.mails if m.kind == "held_applied"]
    assert (m.to, m.player, m.context["lines"]) == (address("Ann"), "Ann", ["DISCARD NONE"])
    told = [m.player for m in d.mails if m.kind == "deadline_applied"]
    assert told == ["Ben"], "Ben sent nothing: the default was applied for him alone"


# ----------------------------------------------------------------------------- reminders


KEY = b"home-secret-for-tests"  # the home's Message-ID key (pbem.record.home_secrets)


def test_reminders_go_to_players_who_owe_orders_once_per_offset() -> None:
    g = loaded()
    dl = deadline(step(g), WHEN + timedelta(hours=48))
    when = WHEN + timedelta(hours=25)
    mails = decide_reminders(g, dl, when, OFFSETS, set(), set(), "pbem.test", KEY)
    assert {m.player for m in mails} == owing(g) and {m.kind for m in mails} == {"reminder"}
    assert mails[0].context["left"] == "23 hours" and mails[0].context["asked"]
    queued = {stable_message_id("pbem.test", m.purpose, *m.key, secret=KEY) for m in mails}
    assert decide_reminders(g, dl, when, OFFSETS, set(), queued, "pbem.test", KEY) == []
    later = decide_reminders(g, dl, WHEN + timedelta(hours=46, minutes=45), OFFSETS, set(), queued, "pbem.test", KEY)
    assert {m.player for m in later} == owing(g) and later[0].context["left"] == "75 minutes"


def test_no_reminder_before_the_window_or_to_a_player_with_held_orders() -> None:
    g = loaded()
    dl = deadline(step(g), WHEN + timedelta(hours=48))
    assert decide_reminders(g, dl, WHEN, OFFSETS, set(), set(), "pbem.test", KEY) == []
    some = sorted(owing(g))[0]
    mails = decide_reminders(g, dl, WHEN + timedelta(hours=25), OFFSETS, {some}, set(), "pbem.test", KEY)
    assert some not in {m.player for m in mails}


# ----------------------------------------------------------------------------- reminder timing (issue 16)


def simulate(length: timedelta, every: timedelta) -> list[tuple[timedelta, timedelta]]:
    """Polls every `every` from the one that opens a step of `length` until its deadline, as `run_deadlines`
    treats the step's `due` rows (the first look at the middle; the poll that opened it skipped): each
    reminder sent, as (when, its time), relative to the step's start."""
    opened, due = WHEN, WHEN + length
    look: object = middle(opened, due)
    sent = []
    when = opened + every  # the poll that opened the step sends no reminder
    while when < due and look is not None:
        assert isinstance(look, type(WHEN))
        if look <= when:
            at, look = look_at_reminders(opened, due, OFFSETS, look, when)
            if at is not None:
                sent.append((when - opened, at - opened))
        when += every
    return sent


@pytest.mark.parametrize(
    ("length", "every", "expected"),
    [
        (timedelta(minutes=1), timedelta(seconds=10), [timedelta(seconds=30)]),
        (timedelta(minutes=1), timedelta(minutes=1), []),  # cron every minute: the next poll is the deadline
        (timedelta(hours=1), timedelta(minutes=5), [timedelta(minutes=30)]),
        (timedelta(hours=24), timedelta(minutes=15), [timedelta(hours=12), timedelta(hours=22)]),
        (timedelta(days=7), timedelta(hours=1), [timedelta(days=6), timedelta(days=6, hours=22)]),
    ],
    ids=["1m-every-10s", "1m-every-1m", "1h", "24h", "7d"],
)
def test_reminders_none_in_the_first_half_each_once_one_for_a_short_step(
    length: timedelta, every: timedelta, expected: list[timedelta]
) -> None:
    sent = simulate(length, every)
    assert [at for _, at in sent] == expected, "each reminder time once, in order"
    assert all(when >= length / 2 and when > timedelta(0) for when, _ in sent), "none in the first half"
    assert len({at for _, at in sent}) == len(sent), "never the same reminder twice"
    if short_step(WHEN, WHEN + length, OFFSETS):
        assert len(sent) <= 1


def test_a_late_poll_sends_one_reminder_not_every_one_it_missed() -> None:
    opened, due = WHEN, WHEN + timedelta(hours=24)
    at, again = look_at_reminders(opened, due, OFFSETS, middle(opened, due), opened + timedelta(hours=23))
    assert at == opened + timedelta(hours=22) and again is None


def test_a_short_step_is_at_most_twice_the_smallest_offset_and_has_one_reminder_at_its_middle() -> None:
    for length in (timedelta(minutes=1), timedelta(hours=1), timedelta(hours=4)):
        assert short_step(WHEN, WHEN + length, OFFSETS)
        assert reminder_times(WHEN, WHEN + length, OFFSETS) == [WHEN + length / 2]
    assert not short_step(WHEN, WHEN + timedelta(hours=5), OFFSETS)
    assert reminder_times(WHEN, WHEN + timedelta(hours=5), OFFSETS) == [WHEN + timedelta(hours=3)]


# ----------------------------------------------------------------------------- control commands


def notices(d, kind: str) -> list[str]:
    return sorted(m.to for m in d.mails if m.kind == kind)


EVERYONE = sorted(address(p) for p in ("Alice", "Bob", "Carol"))


def test_extend_moves_the_deadline_and_tells_everyone() -> None:
    g = loaded()
    d = control.decide_extend(g, "paused", "s1", WHEN, timedelta(hours=24))
    [nd] = [e for e in d.effects if isinstance(e, NewDeadline)]
    assert (nd.step, nd.due_at) == ("s1", WHEN + timedelta(hours=24))
    assert notices(d, "control_extend") == EVERYONE
    assert [e.text for e in d.events] == ["The moderator extended the deadline to 2026-01-06 12:00 UTC."]
    with pytest.raises(GameError, match="no open step"):
        control.decide_extend(g, "running", None, None, timedelta(hours=1))
    with pytest.raises(GameError, match="abandoned"):
        control.decide_extend(g, "abandoned", "s1", WHEN, timedelta(hours=1))


def test_pause_only_a_running_game() -> None:
    g = loaded()
    d = control.decide_pause(g, "running", WHEN)
    assert [c.action for c in d.effects if isinstance(c, Control)] == ["pause"]
    assert notices(d, "control_pause") == EVERYONE
    with pytest.raises(GameError, match="paused"):
        control.decide_pause(g, "paused", WHEN)


def test_resume_moves_the_deadline_on_by_the_pause() -> None:
    g = loaded()
    d = control.decide_resume(g, "paused", WHEN, "s1", WHEN + timedelta(hours=10), WHEN + timedelta(hours=100))
    [nd] = [e for e in d.effects if isinstance(e, NewDeadline)]
    assert nd.due_at == WHEN + timedelta(hours=110)
    assert d.mails[0].context["due"] == "2026-01-10 02:00 UTC"
    with pytest.raises(GameError, match="not paused"):
        control.decide_resume(g, "running", None, "s1", WHEN, WHEN)


def test_abandon_announces_and_refuses_twice() -> None:
    g = loaded()
    d = control.decide_abandon(g, "running")
    assert notices(d, "control_abandon") == EVERYONE and isinstance(d.effects[1], Events)
    with pytest.raises(GameError, match="abandoned"):
        control.decide_abandon(g, "abandoned")


def test_replace_seats_the_newcomer_with_a_full_report_and_their_code() -> None:
    g = loaded()
    d = control.decide_replace(g, "running", "carol", ("Dora", "Dora@Players.test"), "DORA-2345", "hash")
    [seat] = [e for e in d.effects if isinstance(e, NewSeat)]
    # issue 16: the seat takes the newcomer's name
    assert (seat.player, seat.address, seat.code_hash) == ("Dora", "dora@players.test", "hash")
    # the notice is for the others (walk6): Dora's one mail is her full report, Carol has her own "replaced" mail
    assert notices(d, "control_replace") == sorted(address(p) for p in ("Alice", "Bob"))
    assert [m.kind for m in d.mails if m.to == "dora@players.test"] == []
    [r] = d.reports
    assert (r.player, r.since, r.code, r.takeover) == ("Dora", 0, "DORA-2345", True)
    with pytest.raises(GameError, match="not a player"):
        control.decide_replace(g, "running", "Zed", ("Dora", "dora@players.test"), "C", "h")
    with pytest.raises(GameError, match="already plays"):
        control.decide_replace(g, "running", "Carol", ("Bobby", address("Bob")), "C", "h")


def test_a_new_code_goes_only_to_the_registered_address_and_is_redacted_once_sent() -> None:
    g = loaded()
    d = control.decide_new_code(g, "running", "bob", "NEWB-7777", "hash", WHEN)
    [m] = d.mails
    assert (m.kind, m.to, m.secret, m.context["code"]) == ("new_code", address("Bob"), "code", "NEWB-7777")
    assert [e.code_hash for e in d.effects if isinstance(e, NewSeat)] == ["hash"]
    assert not d.events, "a new code is no event of the game"
    with pytest.raises(GameError, match="not a player"):
        control.decide_new_code(g, "running", "Zed", "C", "h", WHEN)


def test_input_effects_carry_the_engine_outcome() -> None:
    g = loaded()
    d = decide_deadline(g, step(g), [])
    assert isinstance(d.inputs[0], Input) and d.inputs[0].outcome.accepted


def test_ISSUE16_replace_renames_the_seat_in_the_record_and_tells_the_replaced_player() -> None:
    g = loaded()
    d = control.decide_replace(g, "running", "Carol", ("Dave", "dave@players.test"), "DAVE-2345", "hash")
    [rename] = d.inputs
    assert (rename.kind, rename.player, rename.lines) == ("rename", "Carol", ("Dave",))
    state = rename.outcome.state
    assert "Dave" in state["players"] and "Carol" not in json.dumps(state)
    assert [e.data for e in d.events] == [{"action": "replace", "player": "Carol", "newcomer": "Dave", "seat": 2}]
    [told] = [m for m in d.mails if m.kind == "replaced"]
    assert (told.to, told.context["player"], told.context["newcomer"]) == (address("Carol"), "Carol", "Dave")
    assert [c.detail for c in d.effects if isinstance(c, Control)] == ["Carol -> Dave"]
    with pytest.raises(GameError, match="another player"):
        control.decide_replace(g, "running", "Carol", ("bob", "dave@players.test"), "C", "h")
    with pytest.raises(GameError, match="cannot be a player name"):
        control.decide_replace(g, "running", "Carol", ("<Dave>", "dave@players.test"), "C", "h")


def test_ISSUE16_a_step_named_after_the_seat_keeps_its_due_time_under_the_new_name() -> None:
    g = loaded("dynasties", ("Alice", "Bob", "Carol"))
    while not any(p in step(g) for p in ("Alice", "Bob", "Carol")):  # defaults until a player's own step
        g.state = apply_defaults(views.engine(g), g.state).state
    who = views.engine(g).requests(g.state)[0].player
    old_step = step(g)
    assert who in old_step
    d = control.decide_replace(g, "running", who, ("Zoë Müller", "zoe@players.test"), "C", "h", old_step, WHEN)
    [nd] = [e for e in d.effects if isinstance(e, NewDeadline)]
    assert (nd.step, nd.due_at) == (old_step.replace(who, "Zoë Müller"), WHEN)


# ----------------------------------------------------------------------------- a new game


def test_ISSUE11_a_new_game_is_decided_whole_before_anything_is_written() -> None:
    from pbem.app.decision import NewGame
    from pbem.app.games import GameSpec, decide_new_game
    from pbem.engine.rng import commitment

    players = [("Alice", "Alice@Players.test"), ("Bob", address("Bob")), ("Carol", address("Carol"))]
    codes = {p: f"CODE-{p}" for p, _ in players}
    spec = GameSpec("habsburg", "HH1", players, "seed", 3600, "asap", {}, False, codes, {p: f"h-{p}" for p in codes})
    d = decide_new_game(spec, WHEN, exists=False)
    game = d.effects[0]
    assert isinstance(game, NewGame) and (game.name, game.players) == ("hh1", ("Alice", "Bob", "Carol"))
    assert game.seed_commitment == commitment("seed") and game.step
    seats = [e for e in d.effects if isinstance(e, NewSeat)]
    assert (seats[0].player, seats[0].address, seats[0].code_hash) == ("Alice", "alice@players.test", "h-Alice")
    assert len({st.thread for st in seats}) == 3
    assert [type(e) for e in d.effects[4:6]] == [Events, NewDeadline] and d.effects[4].events
    assert d.effects[5].due_at == WHEN + timedelta(hours=1)
    assert [(r.player, r.code, r.key) for r in d.reports] == [
        (st.player, codes[st.player], ("thread", st.thread)) for st in seats
    ]
    for bad, why in [
        (dict(name="no such name!"), "name"),
        (dict(players=players[:1]), "takes 3 to"),
        (dict(players=[*players[:2], ("alice", "zed@players.test")]), "same name"),
    ]:
        with pytest.raises(GameError, match=why):
            decide_new_game(dataclasses.replace(spec, **bad), WHEN, exists=False)
    with pytest.raises(GameError, match="already exists"):
        decide_new_game(spec, WHEN, exists=True)
