"""What an inbound message does, decided on plain objects (no SQLite, no Maildir): `pbem.app.intake.decide`."""

from __future__ import annotations

import pytest

from pbem.app import views
from pbem.app.decision import Decision, Events, Input, Report
from pbem.app.intake import Facts, decide
from pbem.mail.outbound.compose import stable_message_id
from pbem.mail.outbound.outgoing import Mail
from pbem.orders.extract import extract
from tests.app.plain import address, loaded, mail, signed
from tests.conftest import CODES

CAP = 30


def first_asked(g):
    return next(r for r in views.engine(g).requests(g.state) if not r.answered)


def run(msg, g=None, control="running", replies=None, sender_games=(), cap=CAP, registered=False) -> Decision:
    """As the shell does: the message's lines read with the game's order words, then decide."""
    words = views.engine(g).order_words if g is not None else None
    ex = extract(msg.text, msg.subject, words) if not msg.problem else None
    facts = Facts(g, control, dict(replies or {}), list(sender_games), extracted=ex, registered=registered)
    return decide(msg, facts, cap)


def texts(d: Decision) -> str:
    """Everything the decision would put in mails, as text (for checks that a code never travels)."""
    return repr([m.context for m in d.mails])


def mails(d: Decision) -> list[Mail]:
    return d.mails


# ----------------------------------------------------------------------------- who may act


def acknowledgement(d):
    """(to, context, in_reply_to) of the acknowledgement: its own mail, or the top of the mover's report (one mail,
    issue 23); None if there is none."""
    for e in d.effects:
        if isinstance(e, Mail) and e.kind == "ack":
            return e.to, e.context, e.in_reply_to
        if isinstance(e, Report) and e.ack is not None:
            return address(e.player), e.ack, e.in_reply_to
    return None


def test_a_player_with_their_code_has_their_orders_applied_and_acknowledged() -> None:
    g = loaded()
    req = first_asked(g)
    d = run(mail(req.player, signed(req.player, req.legal[-1])), g)
    assert (d.outcome, d.player) == ("accepted", req.player)
    [inp] = d.inputs
    assert (inp.kind, inp.player, inp.lines) == ("orders", req.player, (req.legal[-1],))
    to, context, in_reply_to = acknowledgement(d)
    assert to == address(req.player) and context["applied"] and in_reply_to
    assert CODES[req.player] not in texts(d), "no mail echoes the code"
    assert all(isinstance(r, Report) and r.key for r in d.reports), "reports keyed by this message"


def test_orders_without_a_code_change_nothing_and_the_registered_address_is_told() -> None:
    g = loaded()
    req = first_asked(g)
    d = run(mail(req.player, req.legal[-1]), g)
    assert (d.outcome, d.reason) == ("rejected", "refused: it carried no player code")
    [m] = d.mails
    assert (m.kind, m.to, m.context["code_missing"]) == ("refused_code", address(req.player), True)
    assert not d.inputs and not d.events


def test_a_wrong_code_is_refused() -> None:
    g = loaded()
    req = first_asked(g)
    d = run(mail(req.player, f"CODE WRONG-CODE\n{req.legal[-1]}"), g)
    assert d.reason == "refused: the player code it carried is wrong"
    assert [m.context["code_missing"] for m in d.mails] == [False]


def test_a_stranger_is_never_answered() -> None:
    d = run(mail("Mallory <mallory@evil.test>", "NO EVENT"), loaded())
    assert d.outcome == "ignored" and not d.effects


def test_a_stolen_code_from_another_address_warns_its_owner_only() -> None:
    g = loaded()
    d = run(mail("Mallory <mallory@evil.test>", signed("Bob", "PASS")), g, registered=True)  # plays another game
    assert (d.outcome, d.player) == ("rejected", "Bob")
    [m] = d.mails
    assert (m.kind, m.to, m.context["sender"]) == ("stranger_code", address("Bob"), "mallory@evil.test")
    assert m.in_reply_to is None, "a warning to the owner, not a reply into the stranger's thread"
    assert CODES["Bob"] not in texts(d)


def test_auto_replies_are_ignored_without_any_effect() -> None:
    d = run(mail("Alice", "I am away", Auto_Submitted="auto-replied"), loaded())
    assert d.outcome == "ignored" and d.reason.startswith("not answered") and not d.effects


# ----------------------------------------------------------------------------- refusals


def test_an_unreadable_message_is_refused_with_the_reason() -> None:
    big = "x" * 70_000
    d = run(mail("Alice", big), loaded())
    assert d.outcome == "rejected"
    assert [m.kind for m in d.mails] == ["unreadable"] and d.mails[0].context["problem"] == d.reason


@pytest.mark.parametrize("control", ["paused", "abandoned"])
def test_orders_for_a_stopped_game_are_refused(control: str) -> None:
    g = loaded()
    d = run(mail("Alice", signed("Alice", "PASS")), g, control=control)
    assert (d.outcome, d.reason) == ("rejected", f"game is {control}")
    assert [(m.kind, m.context["state"]) for m in d.mails] == [("game_closed", control)]


def test_help_is_answered_even_in_a_paused_game() -> None:
    d = run(mail("Alice", "HELP"), loaded(), control="paused")
    assert d.outcome == "accepted" and [m.kind for m in d.mails] == ["help"]


def test_no_orders_found_is_rejected_with_a_pointer_to_help() -> None:
    d = run(mail("Alice", signed("Alice", "")), loaded())
    assert (d.outcome, d.reason) == ("rejected", "no orders found")
    assert d.mails[0].context["no_orders"] is True


def test_a_bad_line_rejects_the_whole_message_and_quotes_it() -> None:
    g = loaded()
    req = first_asked(g)
    d = run(mail(req.player, signed(req.player, f"MELD Nobody Nowhere\n{req.legal[-1]}")), g)
    assert d.outcome == "rejected" and "MELD Nobody Nowhere" in d.reason
    ack = d.mails[0]
    assert ack.context["rejected_count"] == 1 and not ack.context["applied"]
    assert not d.inputs


def test_no_game_named_answers_a_registered_player_with_their_games() -> None:
    msg = mail("Alice", "PASS", subject="orders")
    d = run(msg, None, sender_games=["g2", "g1"])
    assert d.outcome == "rejected"
    [m] = d.mails
    assert (m.kind, m.context["games"], m.context["tag"]) == ("no_game", ["g1", "g2"], None)


def test_no_game_named_by_a_stranger_is_ignored() -> None:
    d = run(mail("Mallory <mallory@evil.test>", "PASS", subject="orders"), None)
    assert d.outcome == "ignored" and not d.effects


# ----------------------------------------------------------------------------- the reply cap


def test_the_reply_cap_silences_answers_but_not_the_orders() -> None:
    g = loaded()
    req = first_asked(g)
    msg = mail(req.player, signed(req.player, req.legal[-1]))
    d = run(msg, g, replies={address(req.player): CAP})
    assert d.outcome == "accepted" and d.inputs
    assert not [m for m in d.mails if m.purpose in ("ack", "notice")] and acknowledgement(d) is None
    under = run(msg, g, replies={address(req.player): CAP - 1})
    assert acknowledgement(under) is not None


def test_the_reply_cap_counts_this_messages_own_answers() -> None:
    body = signed("Alice", "HELP\nPRESS TO Zed\nhi\nEND PRESS")
    d = run(mail("Alice", body), loaded(), replies={address("Alice"): CAP - 1})
    assert [m.kind for m in d.mails] == ["help", "too_many"], "the help mail used the last answer of the hour"


def test_a_refusal_over_the_cap_is_recorded_but_not_sent() -> None:
    d = run(mail("Alice", "PASS"), loaded(), replies={address("Alice"): CAP})
    assert d.outcome == "rejected" and [m.kind for m in d.mails] == ["too_many"], "not the refusal: the one notice"


# ----------------------------------------------------------------------------- held orders


def test_a_resolve_at_deadline_game_holds_orders_without_applying_them() -> None:
    g = loaded("italian-wars", ("Ann", "Ben"), resolve="deadline")
    d = run(mail("Ann", signed("Ann", "DISCARD NONE")), g)
    assert (d.outcome, d.handled, d.reason) == ("held", "accepted", "held until the deadline")
    assert not d.inputs and not d.reports
    ack = d.mails[0]
    assert ack.context["held"] and ack.context["on_file"] == ["DISCARD NONE"]


# ----------------------------------------------------------------------------- press


def test_press_goes_to_the_named_player_without_the_code_and_is_an_event_for_both() -> None:
    body = signed("Alice", f"PRESS TO bo\nlet us share. {CODES['Alice']}\nEND PRESS")
    d = run(mail("Alice", body), loaded())
    [p] = [m for m in d.mails if m.kind == "press"]
    assert p.to == address("Bob") and CODES["Alice"] not in p.context["text"] and p.in_reply_to is None
    [ev] = next(e for e in d.effects if isinstance(e, Events)).events
    assert ev.visibility == ("Alice", "Bob")
    assert d.mails[-1].context["press_sent"] == [["Bob"]]


def test_press_to_an_unknown_player_is_explained_and_sends_nothing() -> None:
    d = run(mail("Alice", signed("Alice", "PRESS TO Zed\nhello\nEND PRESS")), loaded())
    assert not [m for m in d.mails if m.kind == "press"] and not d.events
    assert d.mails[-1].context["press_failed"]


def test_two_press_blocks_to_one_player_from_one_message_get_distinct_message_ids() -> None:
    """Issue 12: PRESS TO Bob and PRESS TO ALL in one message both reach Bob; their ids must differ."""
    body = signed("Alice", "PRESS TO Bob\nfirst\nEND PRESS\nPRESS TO ALL\nsecond\nEND PRESS")
    d = run(mail("Alice", body), loaded())
    to_bob = [m for m in d.mails if m.kind == "press" and m.to == address("Bob")]
    assert [m.context["text"] for m in to_bob] == ["first", "second"]
    every = [stable_message_id("pbem.test", m.purpose, *m.key, secret=b"k" * 16) for m in d.mails]
    assert len(every) == len(set(every)) == 4  # Bob twice, Carol once, Alice's ack


def test_press_and_orders_in_one_message_keep_their_order_of_effects() -> None:
    g = loaded()
    req = first_asked(g)
    other = next(p for p in ("Alice", "Bob", "Carol") if p != req.player)
    body = signed(req.player, f"PRESS TO {other}\nhi\nEND PRESS\n{req.legal[-1]}")
    d = run(mail(req.player, body), g)
    kinds = [
        e.kind if isinstance(e, Mail) else "ack" if isinstance(e, Report) and e.ack else type(e).__name__
        for e in d.effects
    ]
    assert kinds.index("press") < kinds.index("Events") < kinds.index("Input") < kinds.index("ack")
    assert all(isinstance(e, Report) for e in d.effects[kinds.index("ack") + 1 :])
    assert isinstance(d.inputs[0], Input)


# ----------------------------------------------------------------------------- standing orders on file


def _at(kind: str, players: tuple[str, ...], ready) -> object:
    """A game of `kind` played by bots until `ready(state)` (or as set up, if it holds there)."""
    import dataclasses

    from pbem.engine.bots import choose
    from pbem.engine.rng import Rng, init_state

    g = loaded(kind, players)
    eng = views.engine(g)
    for seed in range(40):
        st, _ = eng.setup(list(players), f"standing-{seed}", {})
        rng = Rng(init_state(f"standing-bots-{seed}"))
        for _ in range(400):
            if ready(st):
                return dataclasses.replace(g, state=st)
            reqs = [r for r in eng.requests(st) if not r.answered]
            if not reqs:
                break
            r = reqs[rng.below(len(reqs))]
            st = eng.apply(st, r.player, choose(r, rng)).state
    raise AssertionError(f"no {kind} game reached the moment")


def _st_start(st) -> bool:
    return st["phase"] == "start" and not st["answers"]


def _iw_leaders(st) -> bool:
    return st["step"] == "leader" and len(st["leader_ask"]) == 2 and not st["leader_pick"]


def _dy_tribute(st) -> bool:
    return st["phase"] == "tribute" and not st["tributes"]


STANDING = {  # kind, players, the moment, the standing lines given with the step's own answer
    "sixteen-thirty": (("Ann", "Ben", "Carol"), _st_start, ["STANDING PLACE NONE", "STANDING VOTE ANY ANY RED"]),
    "italian-wars": (("Ann", "Ben"), _iw_leaders, ["NEGATE-PLAN Drive Them Off > French Horsemen"]),
    "dynasties": (("Ann", "Ben", "Carol"), _dy_tribute, ["CONCLAVE TAKE HIGHEST"]),
}


@pytest.mark.parametrize("kind", sorted(STANDING))
def test_a_standing_order_given_with_the_steps_answer_is_listed_on_file_with_it(kind: str) -> None:
    """Found by the players' testers: "PLACE-START ..." with "STANDING PLACE NONE" in one mail was answered
    with only the PLACE-START under "Orders now on file for you"; the standing order was kept, unlisted.
    For each game with standing orders, a mail giving the step's answer and standing orders: the
    acknowledgement lists them all."""
    players, ready, standing = STANDING[kind]
    g = _at(kind, players, ready)
    r = first_asked(g)
    body = "\n".join([r.default[0] if r.default else r.legal[0], *standing])
    d = run(mail(r.player, signed(r.player, body)), g)
    assert d.outcome == "accepted", d.reason
    (ack,) = [m for m in d.mails if m.kind == "ack" and m.to == address(r.player)]
    filed = ack.context["on_file"]
    assert any(line.split()[0] == body.split()[0] for line in filed), filed  # the step's answer
    for line in standing:
        assert line in filed, (line, filed)
