"""Every decision returns every mail it causes, finished (issue 22): decided on plain objects, then `finish`.

An order mail, a deadline, a reminder and every moderator command (extend, pause, resume, replace,
abandon, new code, start) are decided on a game as the load step would hand it over (its seats and
state, and `Loaded.recent`: each reader's last report, the events since, the deadline, earlier names),
then finished (`pbem.app.finish`, pure): what reaches `apply` holds no `Report` any more, only mails
with their template kind, context, recipient, thread and key.  No SQLite, no Maildir, no clock.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from pbem.app import control, join, views
from pbem.app.deadlines import decide_deadline, decide_reminders
from pbem.app.decision import Decision, ReportMail
from pbem.app.finish import finish
from pbem.app.intake import Facts, decide
from pbem.app.reporting import Look
from pbem.mail.outbound.outgoing import Mail
from pbem.orders.extract import extract
from pbem.record.store import Loaded, Recent
from pbem.trust import deal as joining
from tests.app.plain import WHEN, address, deadline, loaded, mail, signed
from tests.conftest import CODES

LOOK = Look(b"k" * 32, "pbem.test", "Test Moderator", WHEN)
PLAYERS = ("Alice", "Bob", "Carol")


def read(g: Loaded, since: int = 0) -> Loaded:
    """The game as the load step hands it over: nothing reported since `since`, the deadline in 48 hours."""
    dl = deadline(views.current_step(views.engine(g), g.state), WHEN + timedelta(hours=48))
    g.recent = Recent({p: since for p in views.players(g)}, dl, [], since, {p: (p,) for p in views.players(g)})
    return g


def finished(d: Decision, g: Loaded | None) -> list[Mail]:
    """The mails `d` causes once finished; asserts no report is left for `apply` to render."""
    done = finish(d, g, LOOK)
    assert not done.reports, "every report is finished before apply"
    return [e.mail if isinstance(e, ReportMail) else e for e in done.effects if isinstance(e, (Mail, ReportMail))]


def seated(g: Loaded) -> set[str]:
    return {st.address for st in g.seats}


def test_an_order_mail_returns_its_ack_and_every_report_it_causes_finished() -> None:
    g = read(loaded())
    req = next(r for r in views.engine(g).requests(g.state) if not r.answered)
    msg = mail(req.player, signed(req.player, req.legal[0]))  # a move that others must hear of
    ex = extract(msg.text, msg.subject, views.engine(g).order_words)
    d = decide(msg, Facts(g, extracted=ex, when=WHEN, now=WHEN), 30)
    out = finished(d, g)
    mine = [m for m in out if m.to == address(req.player)]
    assert len(mine) == 1, "the mover gets one mail: the answer to their message and what comes next (issue 23)"
    assert mine[0].kind == "ack" or (mine[0].kind == "report" and mine[0].context.get("ack")), mine[0].kind
    reports = [m for m in out if m.kind == "report"]
    assert reports and {m.to for m in reports} <= seated(g) and len(reports) == len(d.reports)
    events = [e.text for e in d.events if e.visible_to(reports[0].player)]
    assert all(t in reports[0].context["happened"] for t in events), "the report tells the events it caused"
    assert all(m.context["game_name"] == "g1" and m.key for m in out)
    assert all(CODES[p] not in repr(m.context) for m in out for p in PLAYERS), "no mail echoes a code"
    assert g.recent is not None and g.recent.events == [], "finish worked on a copy: the loaded game is unchanged"


def test_a_deadline_returns_the_default_notices_and_the_reports_finished() -> None:
    g = read(loaded())
    d = decide_deadline(g, views.current_step(views.engine(g), g.state), [], WHEN)
    out = finished(d, g)
    assert any(m.kind == "deadline_applied" for m in out)
    reports = [m for m in out if m.kind == "report"]
    assert reports and all(m.context["happened"] for m in reports), "each report tells what the deadline did"
    assert all(m.context["deadline"] for m in reports if m.context["asked"]), "the new step's deadline is told"


def test_a_reminder_is_a_finished_mail_already() -> None:
    g = read(loaded())
    dl = deadline(views.current_step(views.engine(g), g.state), WHEN + timedelta(hours=48))
    mails = decide_reminders(g, dl, WHEN + timedelta(hours=30), [timedelta(hours=24)], set(), set(), "t", b"k" * 32)
    assert mails and all(m.kind == "reminder" and m.to in seated(g) and m.context["asked"] for m in mails)
    assert finished(Decision(effects=list(mails)), g) == mails


def test_every_moderator_command_returns_every_mail_it_causes() -> None:
    due = WHEN + timedelta(hours=48)
    step = views.current_step(views.engine(loaded()), loaded().state)
    by_command = {
        "extend": control.decide_extend(read(loaded()), "running", step, due, timedelta(hours=5)),
        "pause": control.decide_pause(read(loaded()), "running", WHEN),
        "resume": control.decide_resume(read(loaded()), "paused", WHEN, step, due, WHEN + timedelta(hours=1)),
        "abandon": control.decide_abandon(read(loaded()), "running"),
        "code": control.decide_new_code(read(loaded()), "running", "Bob", "NEWC-0000", "hash", WHEN),
    }
    for command, d in by_command.items():
        out = finished(d, read(loaded()))
        assert out, f"{command} tells someone"
        expected = {"code": {"new_code"}}.get(command, {f"control_{command}"})
        assert {m.kind for m in out} == expected, command
    g = read(loaded())
    d = control.decide_replace(g, "running", "Bob", ("Dave", "dave@players.test"), CODES["Dave"], "h", step, due)
    out = finished(d, g)
    assert {m.kind for m in out} == {"replaced", "control_replace", "report"}
    [report] = [m for m in out if m.kind == "report"]
    assert (report.to, report.player, report.context["code"]) == ("dave@players.test", "Dave", CODES["Dave"])
    assert report.context["takeover"] and report.context["player"] == "Dave"


def test_game_start_returns_everyones_first_report_after_the_deal() -> None:
    g = loaded("habsburg", PLAYERS)
    g.state = {joining.KEY: {"salts": {"Alice": "x"}}}
    g = read(g)
    out = finished(join.decide_start(g, "running"), g)
    assert sorted(m.player for m in out if m.kind == "report") == sorted(PLAYERS)
    assert all(m.context["salts"] for m in out if m.kind == "report"), "the first report after the deal tells the salts"


def test_decide_derives_no_key_it_reads_the_code_checks_the_load_step_made() -> None:
    """The load step checks the code (`pbem.app.load.code_checks`); deciding only reads the answer."""
    from pbem.trust import codes

    g = loaded()
    req = next(r for r in views.engine(g).requests(g.state) if not r.answered)
    seat = g.seat_for_player(req.player)
    assert seat is not None and seat.id is not None
    # a derivation could not match this hash: only the load step's answer can (rows are frozen: a changed copy)
    seat = dataclasses.replace(seat, code_hash="not-a-hash")
    g.seats = [seat if st.id == seat.id else st for st in g.seats]
    msg = mail(req.player, signed(req.player, req.legal[0]))
    ex = extract(msg.text, msg.subject, views.engine(g).order_words)
    before = codes.derivations
    d = decide(msg, Facts(g, extracted=ex, when=WHEN, now=WHEN, codes={seat.id: True}), 30)
    assert d.outcome == "accepted" and codes.derivations == before, "the fact decided, no key was derived"
    none = {st.id: False for st in g.seats if st.id is not None}  # the load step looked for the owner too
    refused = decide(msg, Facts(g, extracted=ex, when=WHEN, now=WHEN, codes=none), 30)
    assert refused.outcome == "rejected" and codes.derivations == before
