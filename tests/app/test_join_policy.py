"""The join step decided on plain objects (no SQLite, no Maildir): JOIN, SALT, a second JOIN, the deal when
everyone has joined, the join deadline (the moderator is told) and `pbem game start` (issue 13, "Nobody picks
the deal")."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest

from pbem import engine as registry
from pbem.app import join, views
from pbem.app.deadlines import decide_reminders
from pbem.app.decision import GameError, Input, NewDeadline, Report
from pbem.app.intake import Facts, decide
from pbem.orders.extract import extract
from pbem.trust import deal as joining
from tests.app.plain import MODERATOR, WHEN, address, deadline, loaded, mail, signed

CAP = 30
PLAYERS = ("Alice", "Bob", "Carol")


def joining_game(salts: dict[str, str] | None = None):
    """A Habsburg game created with a join step, `salts` the players who joined already."""
    g = loaded("habsburg", PLAYERS)
    g.state = {joining.KEY: {"salts": dict(salts or {})}}
    return g


def run(msg, g, control: str = "running"):
    words = views.engine(g).order_words  # the shell reads the lines with the join step's words
    return decide(msg, Facts(g, control, extracted=extract(msg.text, msg.subject, words)), CAP)


def the_input(d) -> Input:
    [inp] = d.inputs
    return inp


# ----------------------------------------------------------------------------- the dealing seed


def test_the_dealing_seed_is_sha256_of_the_seed_then_each_salt_with_its_length() -> None:
    want = hashlib.sha256(b"s33d" + (4).to_bytes(4, "big") + "abé".encode() + (0).to_bytes(4, "big"))
    assert joining.deal_seed("s33d", ["abé", ""]) == want.hexdigest()
    # the length prefix keeps the salts apart: moving text from one seat to the next changes the deal
    assert joining.deal_seed("s33d", ["a", "b"]) != joining.deal_seed("s33d", ["ab", ""])
    assert joining.deal_seed("s33d", ["", ""]) != joining.deal_seed("s33d", [""])


# ----------------------------------------------------------------------------- one JOIN


def test_a_join_with_a_salt_is_recorded_as_an_input_and_acknowledged_to_the_player_alone() -> None:
    g = joining_game()
    d = run(mail("Alice", signed("Alice", "Hello all!\nJOIN\nSALT  Blue Moon, 1969 ")), g)
    assert d.outcome == "accepted"
    inp = the_input(d)
    assert (inp.kind, inp.player, inp.lines) == ("join", "Alice", ("JOIN", "SALT  Blue Moon, 1969"))
    assert joining.joined(inp.outcome.state) == {"Alice": "Blue Moon, 1969"}, "case and inner spaces are kept"
    assert [e.kind for e in inp.outcome.events] == ["joined"]
    [ack] = d.mails
    assert (ack.kind, ack.to) == ("join_ack", address("Alice"))
    assert ack.context["salt"] == "Blue Moon, 1969" and ack.context["waiting"] == ["Bob", "Carol"]
    assert not d.reports, "nobody else is told before the deal"


def test_a_join_without_a_salt_counts_with_the_empty_salt_and_salt_alone_also_joins() -> None:
    d = run(mail("Bob", signed("Bob", "join")), joining_game())
    assert joining.joined(the_input(d).outcome.state) == {"Bob": ""}
    d = run(mail("Carol", signed("Carol", "SALT 42")), joining_game())
    assert joining.joined(the_input(d).outcome.state) == {"Carol": "42"}


def test_a_join_needs_the_players_code_like_any_order() -> None:
    d = run(mail("Alice", "JOIN\nSALT x"), joining_game())
    assert d.outcome == "rejected" and not d.inputs and d.mails[0].kind == "refused_code"


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("JOIN\nSALT " + "x" * 201, "at most 200 characters"),
        ("JOIN\nSALT one\nSALT two", "one SALT line only"),
        ("JOIN\nSALT", "write your text after the word"),
        ("JOIN us, friends", "write JOIN alone"),
    ],
)
def test_a_bad_join_changes_nothing_and_says_why(body: str, why: str) -> None:
    d = run(mail("Alice", signed("Alice", body)), joining_game())
    assert d.outcome == "rejected" and not d.inputs
    [ack] = d.mails
    assert ack.kind == "join_ack" and not ack.context["accepted"] and not ack.context["already"]
    assert any(why in r["reason"] for r in ack.context["refused"])


def test_a_second_join_is_refused_politely_and_the_salt_stays() -> None:
    g = joining_game({"Alice": "first"})
    d = run(mail("Alice", signed("Alice", "JOIN\nSALT second thoughts")), g)
    assert d.outcome == "rejected" and not d.inputs
    [ack] = d.mails
    assert ack.kind == "join_ack" and ack.context["already"] and not ack.context["accepted"]
    assert "fixed once given" in d.reason
    assert joining.joined(g.state) == {"Alice": "first"}


def test_game_orders_before_the_deal_are_not_orders_and_help_explains_the_join() -> None:
    g = joining_game()
    d = run(mail("Alice", signed("Alice", "MELD Maria Theresa Austria Archduke")), g)
    assert d.outcome == "rejected" and not d.inputs, "nothing is dealt: there is nothing to meld"
    d = run(mail("Alice", "HELP"), g)
    [help_mail] = d.mails
    assert "JOINING THE GAME" in help_mail.context["handbook"] and help_mail.context["asked"][0]["legal"] == ["JOIN"]


# ----------------------------------------------------------------------------- the deal


def test_the_last_join_deals_from_the_seed_and_the_salts_and_everyone_gets_a_first_report() -> None:
    g = joining_game({"Alice": "blue moon", "Bob": ""})
    d = run(mail("Carol", signed("Carol", "JOIN\nSALT 42")), g)
    out = the_input(d).outcome
    assert not joining.is_joining(out.state)
    salts = ["blue moon", "", "42"]
    state, setup = registry.get("habsburg").setup(list(PLAYERS), joining.deal_seed("policy-seed", salts), {})
    assert out.state == state, "the engine dealt from SHA-256(seed || salts)"
    assert [e.kind for e in out.events[:2]] == ["joined", "salts"] and out.events[2:] == setup
    assert out.events[1].data == {"players": list(PLAYERS), "salts": salts, "missing": [], "started": False}
    assert out.events[1].visibility == "public"
    assert [(r.player, r.since) for r in d.reports] == [(p, 0) for p in PLAYERS]
    # one mail to Carol (walk6): her first report, answering her JOIN at its top, not an acknowledgement before it
    assert d.mails == [] and [r.player for r in d.reports if r.ack is not None] == ["Carol"]
    [carol] = [r for r in d.reports if r.ack is not None]
    assert carol.ack["applied"] and [x["line"] for x in carol.ack["lines"]] == ["JOIN", "SALT 42"]
    assert carol.in_reply_to is not None


def test_a_different_salt_gives_a_different_deal() -> None:
    a = run(mail("Carol", signed("Carol", "JOIN\nSALT 42")), joining_game({"Alice": "x", "Bob": ""}))
    b = run(mail("Carol", signed("Carol", "JOIN\nSALT 43")), joining_game({"Alice": "x", "Bob": ""}))
    assert the_input(a).outcome.state != the_input(b).outcome.state


def test_the_join_view_shows_who_joined_and_only_your_own_salt() -> None:
    g = joining_game({"Alice": "secret words", "Bob": ""})
    eng = views.engine(g)
    assert "secret words" in repr(eng.view(g.state, "Alice"))
    assert "secret words" not in repr(eng.view(g.state, "Bob")) + repr(eng.view(g.state, None))
    assert views.waiting(eng, g.state) == ["Carol"] and views.current_step(eng, g.state) == joining.STEP


# ----------------------------------------------------------------------------- the deadline and the start


def test_reminders_go_to_the_players_who_have_not_joined() -> None:
    g = joining_game({"Alice": ""})
    dl = deadline(joining.STEP, WHEN + timedelta(hours=2))  # a short step: one reminder, at its middle
    mails = decide_reminders(
        g, dl, WHEN + timedelta(hours=1), [timedelta(hours=24)], set(), set(), "pbem.test", b"k" * 16
    )
    assert sorted(m.player for m in mails) == ["Bob", "Carol"]
    assert all(m.context["asked"][0]["legal"] == ["JOIN"] for m in mails)
    assert all(m.context["joining"] and not m.context["asked"][0]["default"] for m in mails)
    from pbem.render.templates import render_mail

    text = render_mail("reminder", {**mails[0].context, "moderator": "M", "moderator_address": "m@x.test"}).text
    # what the deadline does is said once, by the join prompt (the reminder's own line said it again until 9fb0ae7)
    said = "If you have not joined by the deadline, the moderator may start without your salt or give your seat"
    assert text.count("If you have not joined") == 1 and said in text, text
    assert text.startswith("Reminder: game g1 is waiting for you to join.") and "default is applied" not in text, text


def test_at_the_join_deadline_the_moderator_is_told_who_is_missing_and_nobody_is_defaulted_in() -> None:
    g = joining_game({"Alice": "x"})
    d = join.decide_join_deadline(g, deadline(joining.STEP, WHEN), WHEN, MODERATOR)
    assert not d.inputs and not d.reports
    [notice] = d.mails
    assert (notice.to, notice.kind, notice.purpose) == (MODERATOR, "join_missing", "alert")
    assert [m["player"] for m in notice.context["missing"]] == ["Bob", "Carol"]
    assert notice.context["missing"][0]["address"] == address("Bob") and notice.context["joined"] == ["Alice"]
    [again] = [e for e in d.effects if isinstance(e, NewDeadline)]
    assert again.step == joining.STEP and again.due_at == WHEN + timedelta(seconds=g.game.deadline_seconds)


def test_game_start_deals_with_the_missing_salts_empty_as_a_moderator_input() -> None:
    g = joining_game({"Alice": "x"})
    d = join.decide_start(g, "running")
    inp = the_input(d)
    assert (inp.kind, inp.player, inp.lines) == ("start", "", ())
    [salts] = [e for e in inp.outcome.events if e.kind == "salts"]
    assert salts.data == {
        "players": list(PLAYERS),
        "salts": ["x", "", ""],
        "missing": ["Bob", "Carol"],
        "started": True,
    }
    assert "without Bob and Carol" in salts.text
    state, _ = registry.get("habsburg").setup(list(PLAYERS), joining.deal_seed("policy-seed", ["x", "", ""]), {})
    assert inp.outcome.state == state
    assert all(isinstance(r, Report) and r.since == 0 for r in d.reports) and len(d.reports) == 3


def test_game_start_is_refused_once_dealt_or_abandoned() -> None:
    with pytest.raises(GameError, match="already dealt"):
        join.decide_start(loaded("habsburg", PLAYERS), "running")
    with pytest.raises(GameError, match="abandoned"):
        join.decide_start(joining_game(), "abandoned")
