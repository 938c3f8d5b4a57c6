"""Every reply counts (issue 12), decided on plain objects: `pbem.app.intake.decide` with `pbem.app.answers`.

One budget per address covers every mail sent in answer to mail (acknowledgements,
refusals, HELP, STATUS, the games list, warnings to the player a forged message
claimed to be); past it one "too many messages, answering again at HH:MM" notice,
then silence until the window passes.  Reports and press are not counted.  A
sender who is no registered seat of any game costs no key derivation and gets at
most `per_day` short answers a day, none past the hourly cap for all strangers.
Long input is quoted back as its first lines and a count.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from pbem.app import views
from pbem.app.answers import ANSWERS, LIMIT, SHOWN
from pbem.app.decision import Decision, Report
from pbem.app.intake import Facts, SenderGame, Strangers, decide
from pbem.orders.extract import extract
from pbem.record.outbox import Window
from pbem.record.store import Loaded
from pbem.render.templates import render_mail
from pbem.trust import codes
from tests.app.plain import WHEN, address, loaded, mail, signed
from tests.conftest import CODES

CAP = 4
ALICE = address("Alice")


def facts(msg, g: Loaded | None, **kw) -> Facts:
    words = views.engine(g).order_words if g is not None else None
    ex = extract(msg.text, msg.subject, words) if not msg.problem else None
    return Facts(g, extracted=ex, **kw)


class Outbox:
    """What the shell would count: the answers queued so far, as (address, purpose, time)."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, datetime]] = []

    def windows(self, now: datetime) -> dict[str, Window]:
        """As `pbem.record.outbox.answers_in_last_hour` reads the outbox."""
        out: dict[str, Window] = {}
        for to, purpose, at in self.rows:
            if at <= now - timedelta(hours=1):
                continue
            w = out.get(to, Window())
            if purpose == LIMIT:
                out[to] = Window(w.answers, w.oldest, True)
            elif purpose in ANSWERS:
                out[to] = Window(w.answers + 1, min(w.oldest or at, at), w.limited)
        return out

    def decide(self, msg, g: Loaded | None, now: datetime, **kw) -> Decision:
        d = decide(msg, facts(msg, g, windows=self.windows(now), now=now, registered=True, **kw), CAP)
        self.rows += [(m.to, m.purpose, now) for m in d.mails]
        for r in d.reports:  # a STATUS report is an answer; reports about the game moving on are not
            seat = g.seat_for_player(r.player) if g else None
            self.rows.append((seat.address if seat else r.player, r.purpose, now))
        return d


def kinds(d: Decision) -> list[str]:
    return [m.kind for m in d.mails] + [f"report:{r.purpose}" for r in d.reports]


# ----------------------------------------------------------------------------- one budget, every kind


def test_one_budget_covers_help_status_refusals_and_the_games_list_then_one_notice_then_silence() -> None:
    g, box = loaded(), Outbox()
    alice_games = dict(sender_games=["g1"], sender_seats=[SenderGame("g1", "House of Habsburg", "Alice")])
    burst = [
        (mail("Alice", "HELP"), g, {}),
        (mail("Alice", "STATUS"), g, {}),
        (mail("Alice", "PASS"), g, {}),  # no code: refused, told to the registered address
        (mail("Alice", "HELP", subject="HELP"), None, alice_games),  # no game named: the games list
        (mail("Alice", "HELP"), g, {}),
        (mail("Alice", "STATUS"), g, {}),
        (mail("Alice", "PASS"), g, {}),
    ]
    got = [box.decide(msg, gg, WHEN + timedelta(minutes=i), **kw) for i, (msg, gg, kw) in enumerate(burst)]
    assert [kinds(d) for d in got] == [
        ["help"],
        ["report:status"],
        ["refused_code"],
        ["games_list"],
        ["too_many"],
        [],
        [],
    ]
    [notice] = got[4].mails
    assert notice.context["again_at"] == "13:00 UTC", "the oldest answer (12:00) leaves the window at 13:00"
    assert notice.to == ALICE and notice.purpose == LIMIT
    # the window passes: answered again, and over budget again later gets a new notice only after an hour
    again = box.decide(mail("Alice", "HELP"), g, WHEN + timedelta(minutes=61))
    assert kinds(again) == ["help"]


def test_a_notice_already_sent_in_the_window_means_silence_but_orders_still_apply() -> None:
    g = loaded()
    req = next(r for r in views.engine(g).requests(g.state) if not r.answered)
    msg = mail(req.player, signed(req.player, req.legal[-1]))
    windows = {address(req.player): Window(CAP, WHEN, limited=True)}
    d = decide(msg, facts(msg, g, windows=windows, now=WHEN), CAP)
    assert d.outcome == "accepted" and d.inputs, "the budget limits answers, never orders"
    assert not [m for m in d.mails if m.to == address(req.player)]


def test_status_and_help_in_one_message_spend_two_answers() -> None:
    g = loaded()
    msg = mail("Alice", "STATUS\nHELP")
    d = decide(msg, facts(msg, g, windows={ALICE: Window(CAP - 1, WHEN)}, now=WHEN), CAP)
    assert kinds(d) == ["help", "too_many"], "HELP took the last answer, STATUS met the notice"
    d = decide(msg, facts(msg, g, windows={ALICE: Window(CAP - 2, WHEN)}, now=WHEN), CAP)
    assert kinds(d) == ["help", "report:status"]
    [r] = d.reports
    assert isinstance(r, Report) and r.purpose == "status"


def test_reports_and_press_reach_an_address_whose_answers_are_spent() -> None:
    g = loaded()  # Alice's turn: NO EVENT moves the game on, and everyone is reported to
    body = signed("Alice", "PRESS TO Bob\nhello\nEND PRESS\nNO EVENT")
    msg = mail("Alice", body)
    spent = {address(p): Window(CAP, WHEN, limited=True) for p in ("Alice", "Bob", "Carol")}
    d = decide(msg, facts(msg, g, windows=spent, now=WHEN), CAP)
    assert [m.to for m in d.mails if m.kind == "press"] == [address("Bob")], "press to others is not counted"
    assert d.reports and all(r.purpose == "report" for r in d.reports), "the game moving on is not counted"
    assert not [m for m in d.mails if m.purpose in ANSWERS or m.purpose == LIMIT]


def test_a_warning_to_the_player_a_forged_message_claimed_to_be_is_counted() -> None:
    g = loaded()
    msg = mail("Mallory <mallory@evil.test>", signed("Bob", "PASS"))
    bob = address("Bob")
    under = decide(msg, facts(msg, g, registered=True, windows={bob: Window(CAP - 1, WHEN)}, now=WHEN), CAP)
    assert [(m.kind, m.to) for m in under.mails] == [("stranger_code", bob)]
    over = decide(msg, facts(msg, g, registered=True, windows={bob: Window(CAP, WHEN)}, now=WHEN), CAP)
    assert [(m.kind, m.to) for m in over.mails] == [("too_many", bob)]


# ----------------------------------------------------------------------------- strangers


def stranger(g: Loaded | None, answered: tuple[int, int], per_day: int = 1, per_hour: int = 60, body: str = "hi"):
    msg = mail("Mallory <mallory@evil.test>", body, subject="orders" if g is None else None)
    f = facts(msg, g, now=WHEN, stranger_answers=answered, strangers=Strangers(per_day, per_hour))
    return decide(msg, f, CAP)


@pytest.mark.parametrize("named", [True, False], ids=["naming-a-game", "naming-no-game"])
def test_a_stranger_gets_at_most_per_day_short_answers(named: bool) -> None:
    g = loaded() if named else None
    first = stranger(g, (0, 0))
    assert first.outcome == "ignored"
    [m] = first.mails
    assert (m.kind, m.to, m.purpose, m.context) == ("stranger", "mallory@evil.test", "stranger", {"per_day": 1})
    assert not stranger(g, (1, 1)).mails, "one a day"
    assert len(stranger(g, (1, 1), per_day=2).mails) == 1, "the daily number is configurable"
    assert not stranger(g, (0, 0), per_day=0).mails, "0: strangers are never answered"


def test_no_stranger_is_answered_past_the_global_hourly_cap() -> None:
    assert stranger(loaded(), (0, 59), per_hour=60).mails
    assert not stranger(loaded(), (0, 60), per_hour=60).mails
    assert not stranger(None, (0, 60), per_hour=60).mails


def test_a_strangers_answer_quotes_nothing_of_their_mail() -> None:
    d = stranger(loaded(), (0, 0), body="buy cheap watches http://spam.test")
    r = render_mail("stranger", {**d.mails[0].context, "moderator": "M"})
    assert "spam.test" not in r.text + r.html + r.subject


def test_a_strangers_mail_costs_no_key_derivation(monkeypatch: pytest.MonkeyPatch) -> None:
    codes.forget_checks()
    before = codes.derivations  # code checks computed in this process (these plain seats: PBKDF2)
    g = loaded()
    for body in (signed("Bob", "PASS"), f"CODE {CODES['Alice']}\nPASS", "CODE ZZZZ-9999\nSTATUS"):
        msg = mail("Mallory <mallory@evil.test>", body)
        d = decide(msg, facts(msg, g, now=WHEN), CAP)
        assert d.outcome == "ignored" and not d.mails
    assert codes.derivations == before, "no code check for a sender who is no registered seat"
    msg = mail("Mallory <mallory@evil.test>", signed("Bob", "PASS"))
    decide(msg, facts(msg, g, now=WHEN, registered=True), CAP)  # a player of another game: the check runs
    assert codes.derivations > before, "the counter sees key derivations"


# ----------------------------------------------------------------------------- long input summarised


def test_the_acknowledgement_of_a_long_message_quotes_the_first_lines_and_counts_the_rest() -> None:
    g = loaded()
    chatter = ["y" * 5000] + [f"blah {i} " + "x" * 100 for i in range(299)]
    bad = [f"PLAY Nothing Such {i}" for i in range(40)]
    msg = mail("Alice", signed("Alice", "\n".join(bad + chatter)))
    d = decide(msg, facts(msg, g, now=WHEN), CAP)
    [ack] = [m for m in d.mails if m.kind == "ack"]
    c = ack.context
    assert len(c["chatter"]) == SHOWN and c["more_chatter"] == 300 - SHOWN
    assert len(c["lines"]) == SHOWN and c["more_lines"] == 40 - SHOWN
    assert all(not r["ok"] for r in c["lines"]), "the refused lines come first"
    assert all(len(line) <= 200 for line in c["chatter"])
    r = render_mail("ack", {**c, "moderator": "M"})
    assert len(r.text) < 20_000 and "... and 290 more lines not shown" in r.text
    assert "and 30 more lines not shown" in r.text
    assert len(d.reason) < 2_000 and "and 30 more refused lines" in d.reason


def test_an_ordinary_message_is_quoted_whole() -> None:
    from pbem.app.answers import quoted_lines as _quoted_lines

    ok = [{"line": f"PLAY card {i}", "ok": True} for i in range(30)]
    bad = [{"line": f"MELD x{i}", "ok": False} for i in range(3)]
    shown, more = _quoted_lines(ok + bad)
    assert ([r["line"] for r in shown], more) == ([r["line"] for r in ok + bad], 0), "a whole turn is quoted as sent"
    shown, more = _quoted_lines(ok * 5)
    assert (len(shown), more) == (100, 50)


def test_history_counts_against_the_same_budget() -> None:
    """HISTORY by mail (judges4) is an answer like HELP: within the budget it is mailed, past it the one notice."""
    g = loaded()
    msg = mail("Alice", "HISTORY")
    told = {"step": "Turn", "turn": "", "groups": [], "left_out": 0, "total": 0, "known": "", "missing": False}
    d = decide(msg, facts(msg, g, windows={ALICE: Window(CAP - 1, WHEN)}, now=WHEN, history=told), CAP)
    assert kinds(d) == ["history"] and d.outcome == "accepted" and d.mails[0].purpose in ANSWERS
    d = decide(msg, facts(msg, g, windows={ALICE: Window(CAP, WHEN)}, now=WHEN, history=told), CAP)
    assert kinds(d) == ["too_many"]
