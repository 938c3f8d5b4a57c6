"""Notices end to end over real Maildirs (issues 16 and 11): a seat replaced, threading headers, deadline notices.

Each test plays a short game through the poll on the embedded defaults (real SQLite, real Maildirs) and
reads the mail the players would find in their mailboxes.
"""

from __future__ import annotations

import json
import re

from pbem.app import control, games
from pbem.app.games import Table
from pbem.history.export import build, verify
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail, signed
from tests.test_moderator import asked, new_game, run_poll

DUO = [("Ann", "ann@players.test"), ("Ben", "ben@players.test")]


def to(mails: list, addr: str) -> list:
    return [m for m in mails if m["To"].addresses[0].addr_spec == addr]


def test_ISSUE16_a_replaced_seat_takes_the_newcomers_name_and_the_record_still_verifies(home, clock) -> None:
    games.create_game(Home.of(home), "italian-wars", "iw1", DUO, seed="replace-e2e", clock=clock, codes=CODES)
    run_poll(home, clock)
    seen: set = set()
    [first] = to(sent_mail(home, seen), "ben@players.test")
    assert "Private report for Ben." in body_of(first)

    control.replace(Home.of(home), "iw1", "Ben", ("Dave", "dave@players.test"), clock(), code=CODES["Dave"])
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    [told] = to(mails, "ben@players.test")
    assert told["Subject"] == "[pbem iw1] You no longer play Ben" and "to a new player, Dave" in body_of(told)
    assert told["References"] == first["Message-ID"], "threaded into Ben's game"
    [report] = to(mails, "dave@players.test")  # one mail, the report: not the others' "Dave replaces Ben." (walk6)
    assert report["Subject"].startswith("[pbem iw1] You now play Dave")
    assert "Private report for Dave." in body_of(report) and CODES["Dave"] in body_of(report)
    assert "You took over the seat of Ben" in body_of(report)
    [notice] = to(mails, "ann@players.test")
    assert notice["Subject"] == "[pbem iw1] Dave replaces Ben."
    assert [r.players for r in games.list_games(Home.of(home))] == [["Ann", "Dave"]]
    assert games.show_game(Home.of(home), "iw1").players == ["Ann", "Dave"]
    assert games.show_game(Home.of(home), "iw1", as_player="dave").report["player"] == "Dave"

    # players name the seat by its new name; the replaced player's code no longer works
    deliver(home, order_mail("Ann <ann@players.test>", "iw1", signed("Ann", "PRESS TO Dave\nwelcome\nEND PRESS")))
    deliver(home, order_mail("Ben <ben@players.test>", "iw1", signed("Ben", "PRESS TO Ann\nstill here\nEND PRESS")))
    s = run_poll(home, clock)
    assert (s.accepted, s.ignored) == (1, 1)
    [press] = [m for m in to(sent_mail(home, seen), "dave@players.test") if "Press from Ann" in m["Subject"]]
    assert "welcome" in body_of(press)
    [req] = [r for r in asked(home, "iw1")[0] if r.player == "Dave"]
    dave = order_mail("Dave <dave@players.test>", "iw1", f"CODE {CODES['Dave']}\n{req.legal[-1]}")
    deliver(home, dave)
    assert run_poll(home, clock).accepted == 1

    for _ in range(60):  # the rest by the deadlines' defaults (each poll sends the reports: a deadline whose
        with session(home.database_url) as db:  # report never reached its player is held, issue 26)
            if store.is_over(db, store.game_by_name(db, "iw1").id):
                break
        clock.advance(hours=49)
        run_poll(home, clock)
    with session(home.database_url) as db:
        doc = build(db, store.game_by_name(db, "iw1"))
    assert doc["game"]["over"]
    v = verify(json.loads(json.dumps(doc)))
    assert v.ok, v.problem
    [rename] = [o for o in doc["orders"] if o["kind"] == "rename"]
    assert (rename["player"], rename["lines"]) == ("Ben", ["Dave"])
    before = [e["text"] for e in doc["events"] if e["input_seq"] < rename["seq"]]
    after = [e["text"] for e in doc["events"] if e["input_seq"] > rename["seq"] and e["kind"] != "press"]
    assert any("Ben" in t for t in before), "the history before the change keeps the old name"
    assert any("Dave" in t for t in after) and not any("Ben" in t for t in after)
    [moved] = [e for e in doc["events"] if e["kind"] == "moderator"]
    assert moved["data"] == {"action": "replace", "player": "Ben", "newcomer": "Dave", "seat": 1}


def test_ISSUE16_answers_thread_into_the_message_they_answer_and_reports_into_the_first_report(home, clock) -> None:
    name = new_game(home, clock)
    run_poll(home, clock)
    seen: set = set()
    firsts = {m["To"].addresses[0].addr_spec: m for m in sent_mail(home, seen)}
    assert firsts["alice@players.test"]["References"] is None, "the first report starts the thread"

    refs = "<older@players.test> <elsewhere@players.test>"  # naming no mail of pbem's: a reply needing the code
    mid = "<alice-1@players.test>"
    subject = f"Re: RE : Fwd: Re: {firsts['alice@players.test']['Subject']}"
    no_code = order_mail("Alice <alice@players.test>", name, "NO EVENT", subject, message_id=mid, References=refs)
    deliver(home, no_code)
    run_poll(home, clock)
    [refusal] = sent_mail(home, seen)
    # one Re:, never stacked; the verdict in the subject since walk7 (a phone's list shows it), the game's tag kept
    tag = re.match(r"\[pbem [^]]+\]", firsts["alice@players.test"]["Subject"])
    assert tag and refusal["Subject"] == f"Re: {tag[0]} your message: NOT applied (no player code)", refusal["Subject"]
    assert refusal["In-Reply-To"] == mid
    assert refusal["References"].split() == ["<older@players.test>", "<elsewhere@players.test>", mid]
    assert "moderator@pbem.test" in body_of(refusal) and "lost code" in body_of(refusal)

    reports: list = []
    for n in range(6):  # orders from whoever is asked, until the game moves on and reports go out
        req = asked(home, name)[0][0]
        mid2 = f"<orders-{n}@players.test>"
        sender = f"{req.player} <{req.player.lower()}@players.test>"
        deliver(home, order_mail(sender, name, signed(req.player, req.legal[-1]), message_id=mid2))
        run_poll(home, clock)
        mails = sent_mail(home, seen)
        [ack] = [m for m in mails if m["Auto-Submitted"] == "auto-replied"]
        assert ack["In-Reply-To"] == mid2 and ack["References"].split()[-1] == mid2  # (a report: the thread too)
        reports = [m for m in mails if m["Auto-Submitted"] == "auto-generated"]
        if reports:
            break
    assert reports
    for report in reports:
        first = firsts[report["To"].addresses[0].addr_spec]
        assert report["References"] == first["Message-ID"] and report["In-Reply-To"] is None


def test_ISSUE11_held_orders_applied_and_defaults_applied_are_each_told(home, clock) -> None:
    games.create_game(
        Home.of(home),
        "italian-wars",
        "iwd",
        DUO,
        seed="held",
        clock=clock,
        codes=CODES,
        table=Table(resolve="deadline"),
    )
    run_poll(home, clock)
    seen: set = set()
    firsts = {m["To"].addresses[0].addr_spec: m["Message-ID"] for m in sent_mail(home, seen)}
    deliver(home, order_mail("Ann <ann@players.test>", "iwd", signed("Ann", "DISCARD NONE")))
    run_poll(home, clock)
    sent_mail(home, seen)
    clock.advance(hours=49)
    assert run_poll(home, clock).deadlines == 1
    mails = sent_mail(home, seen)
    [held] = [m for m in to(mails, "ann@players.test") if "held orders were applied" in m["Subject"]]
    assert "    DISCARD NONE" in body_of(held) and held["References"] == firsts["ann@players.test"]
    assert not [m for m in to(mails, "ann@players.test") if "default orders" in m["Subject"]]
    [dflt] = [m for m in to(mails, "ben@players.test") if "default orders were applied" in m["Subject"]]
    text = body_of(dflt)
    assert "2026-01-07 12:00 UTC" in text and "applied on your behalf" in text
    assert dflt["References"] == firsts["ben@players.test"]
    # each notice is the receipt of the input recorded for that player (issue 13): its number (counted as the
    # player's receipts count, issue 26) and hash, as in the export, so `pbem verify --mail` checks held orders
    # and defaults like acknowledged orders
    with session(home.database_url) as s:
        doc = build(s, store.game_by_name(s, "iwd"))
    for mail, kind in ((held, "orders"), (dflt, "deadline")):
        number, digest = str(mail["X-Pbem-Input"]).split()
        assert int(number) > 0 and digest in body_of(mail), kind
        assert next(o for o in doc["orders"] if o["hash"] == digest)["kind"] == kind


def test_ISSUE16_a_reply_subject_has_one_re_whatever_prefixes_it_had() -> None:
    from pbem.mail.outbound.compose import reply_subject

    for subject in ["Re: Re: [pbem x] foo", "RE : AW: Fwd: [pbem x] foo", "SV: re[2]: [pbem x]  foo", "[pbem x] foo"]:
        assert reply_subject(subject) == "Re: [pbem x] foo"


def test_ISSUE16_references_keep_the_root_and_the_newest_without_repeats() -> None:
    from pbem.mail.outbound.compose import thread_references

    ids = [f"<m{i}@x>" for i in range(15)]
    refs = thread_references((*ids, ids[3]), "<new@x>")
    assert refs[0] == ids[0] and refs[-1] == "<new@x>" and len(refs) == 10 and len(set(refs)) == 10
    assert thread_references(("<a@x>",), None) == ["<a@x>"]
    assert thread_references(("<" + "a" * 300 + "@x>",), "<b@x>") == ["<b@x>"]
