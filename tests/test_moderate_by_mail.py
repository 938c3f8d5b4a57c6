"""Moderating by mail (issue 28): the moderator's address sends EXTEND, PAUSE, RESUME, REPLACE, NEW CODE,
START, ABANDON, UNDO, AWAY and BACK.

Played on the embedded defaults (real SQLite, real Maildirs, the real poll): each command is applied
through the same deciding function as `pbem game ...` (the record's chain comes out the same as the CLI's,
and the players read the same notices), acknowledged to the moderator, and replayed by verify.  A mail
without the moderator code or a reply to pbem's mail to the moderator changes nothing; the code is never
kept in the record, the mail sent, or the log.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.app import control, games, moderating
from pbem.app import poll as polling
from pbem.app.absence import set_away
from pbem.app.resend import resend
from pbem.app.undo import undo
from pbem.history.export import build, verify
from pbem.home.app import Home
from pbem.mail.inbound.redact import code_pattern
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from pbem.record import store
from pbem.record.db import session
from pbem.trust import codes
from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail, signed

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
MOD = "Test Moderator <moderator@pbem.test>"
MOD_ADDR = "moderator@pbem.test"


def run(cfg, clock):
    return polling.poll(
        Home.of(cfg, inbox=MaildirInbox(cfg.maildir_path), sender=MaildirSender(cfg.maildir_path), clock=clock)
    )


def loaded(cfg, name="hh1"):
    with session(cfg.database_url) as s:
        return store.load(s, store.game_by_name(s, name))


def deadline(cfg, name="hh1"):
    with session(cfg.database_url) as s:
        g = store.game_by_name(s, name)
        dl = store.current_deadline(s, g.id)
        return store.aware(dl.due_at) if dl else None


def control_state(cfg, name="hh1"):
    with session(cfg.database_url) as s:
        return store.control_state(s, store.game_by_name(s, name).id)


def exported(cfg, name="hh1") -> dict:
    with session(cfg.database_url) as s:
        return json.loads(json.dumps(build(s, store.game_by_name(s, name))))


def check_verify(cfg, name="hh1") -> None:
    v = verify(exported(cfg, name), partial=True)
    assert v.ok, v.problem


def play(cfg, clock, inputs: int, name="hh1") -> None:
    while loaded(cfg, name).seq < inputs:
        lo = loaded(cfg, name)
        req = next(r for r in lo.engine.requests(lo.state) if not r.answered)
        sender, mid = f"{req.player} <{dict(PLAYERS)[req.player]}>", f"<{name}.{lo.seq}@players.test>"
        deliver(cfg, order_mail(sender, name, signed(req.player, req.legal[0]), message_id=mid))
        run(cfg, clock)


def command(cfg, code: str | None, body: str, game="hh1", **headers: str) -> None:
    text = (f"CODE {code}\n" if code else "") + body
    deliver(cfg, order_mail(MOD, game, text, subject=f"[pbem {game}] commands" if game else "commands", **headers))


def acks(mails) -> list:
    return [m for m in mails if m["To"].addresses[0].addr_spec == MOD_ADDR]


def to_players(mails) -> list:
    return [m for m in mails if m["To"].addresses[0].addr_spec != MOD_ADDR]


@pytest.fixture
def game(home, clock):
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="by-mail", clock=clock, codes=CODES)
    run(home, clock)
    return home


@pytest.fixture
def code(game, clock) -> str:
    made = moderating.make_code(Home.of(game), clock.now)
    assert made and codes.normal(made) != ""
    return made


def test_init_makes_a_moderator_code_once_and_keeps_it(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["init", str(tmp_path / "h"), "--address", "mod@pbem.test"])
    assert r.exit_code == 0, r.output
    (first,) = re.findall(r"CODE (\S{4}-\S{4})", r.output)
    cfg_file = tmp_path / "h" / "pbem.toml"
    r = runner.invoke(app, ["init", str(tmp_path / "h"), "--address", "mod@pbem.test", "--force"])
    assert r.exit_code == 0 and "kept as it was" in r.output and first not in r.output
    from pbem.home import config as config_mod
    from pbem.record import moderator_code

    cfg = config_mod.load(cfg_file)
    with session(cfg.database_url) as s:
        hashed, _ = moderator_code.stored(s)
    assert codes.check_code(first, hashed) and first not in hashed, "stored only hashed, and kept by init --force"
    r = runner.invoke(app, ["-c", str(cfg_file), "moderator", "code"])
    assert r.exit_code == 0, r.output
    (second,) = re.findall(r"\b([A-Z2-9]{4}-[A-Z2-9]{4})\b", r.output)
    with session(cfg.database_url) as s:
        hashed, _ = moderator_code.stored(s)
    assert codes.check_code(second, hashed) and not codes.check_code(first, hashed), "the old code stops working"


def test_extend_by_mail_is_the_cli_extend_told_the_same_and_acknowledged(game, code, clock, tmp_path) -> None:
    cfg, seen = game, set()
    sent_mail(cfg, seen)
    due0 = deadline(cfg)
    command(cfg, code, "EXTEND 2d\nThanks all")
    summary = run(cfg, clock)
    assert summary.accepted == 1
    assert deadline(cfg) == due0 + timedelta(days=2)
    mails = sent_mail(cfg, seen)
    (ack,) = acks(mails)
    text = body_of(ack)
    assert "done: EXTEND 2d -> the deadline is now" in text and "| Thanks all" in text
    assert ack["Subject"] == "Re: [pbem hh1] commands" and ack["In-Reply-To"]
    told = to_players(mails)
    assert sorted(m["To"].addresses[0].addr_spec for m in told) == sorted(a for _, a in PLAYERS)

    # the same command given at the terminal, in a twin home: the same record and the same words
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    twin = config_mod.load(init_home(tmp_path / "twin", address=MOD_ADDR, name="Test Moderator"))
    games.create_game(Home.of(twin), "habsburg", "hh1", PLAYERS, seed="by-mail", clock=clock, codes=CODES)
    run(twin, clock)
    seen_twin: set = set()
    sent_mail(twin, seen_twin)
    control.extend(Home.of(twin), "hh1", timedelta(days=2), clock.now)
    run(twin, clock)
    assert [e for e in exported(twin)["events"]] == [e for e in exported(cfg)["events"]]
    assert exported(twin)["chain"] == exported(cfg)["chain"], "the same chained record as the CLI's"
    cli_told = sent_mail(twin, seen_twin)
    assert [(m["Subject"], body_of(m)) for m in cli_told] == [(m["Subject"], body_of(m)) for m in told]
    check_verify(cfg)


def test_pause_resume_new_code_away_back_in_one_mail(game, code, clock) -> None:
    cfg, seen = game, set()
    sent_mail(cfg, seen)
    command(cfg, code, "PAUSE")
    run(cfg, clock)
    assert control_state(cfg) == "paused"
    clock.advance(hours=5)
    due = deadline(cfg)
    command(cfg, code, "GAME hh1\nRESUME\nNEW CODE bob\nAWAY Alice 3\nBACK Alice", game="")
    assert run(cfg, clock).accepted == 1
    assert control_state(cfg) == "running" and deadline(cfg) == due + timedelta(hours=5)
    mails = sent_mail(cfg, seen)
    (_, ack) = acks(mails)
    text = body_of(ack)
    for line in ("RESUME", "NEW CODE bob", "AWAY Alice 3", "BACK Alice"):
        assert f"done: {line} ->" in text, text
    (new,) = [m for m in mails if "new player code" in m["Subject"].lower()]
    assert new["To"].addresses[0].addr_spec == "bob@players.test"
    assert [m["To"].addresses[0].addr_spec for m in mails if "away until" in m["Subject"]] == ["alice@players.test"]
    fresh = re.search(r"\b([A-Z2-9]{4}-[A-Z2-9]{4})\b", body_of(new)).group(1)
    assert fresh not in text, "the player's new code goes to them only"
    check_verify(cfg)


def test_mail_by_mail_sets_the_default_and_a_repeat_says_nothing_changed(game, code, clock) -> None:
    """players26: `MAIL watch` by mail is `pbem game mail hh1 watch`; said again (in the same mail or a later one) it
    is answered "players already get watch mail by default; nothing changed" and records nothing (`choose_default`).
    "Mail me the results" is a remark.  On 8080c21 MAIL was no command by mail (the whole case failed)."""
    from pbem.record.modes import mailing

    cfg, seen = game, set()
    sent_mail(cfg, seen)
    command(cfg, code, "MAIL watch\nMail me the results please\nMAIL Watch")
    assert run(cfg, clock).accepted == 1
    text = " ".join(body_of(acks(sent_mail(cfg, seen))[-1]).split())
    assert "done: MAIL watch -> players get watch mail unless they chose otherwise" in text, text
    assert "done: MAIL Watch -> players already get watch mail by default; nothing changed" in text, text
    with session(cfg.database_url) as s:
        assert mailing(s, store.game_by_name(s, "hh1").id).default == "watch"
        from sqlmodel import select

        from pbem.record.models import MailMode

        assert len(s.exec(select(MailMode)).all()) == 1  # the repeat wrote no row


def test_undo_and_replace_and_abandon_by_mail(game, code, clock) -> None:
    cfg, seen = game, set()
    play(cfg, clock, 4)
    before = loaded(cfg)
    sent_mail(cfg, seen)
    command(cfg, code, "UNDO TO 2 WHY Bob's order was misread\nREPLACE Carol WITH Dora <dora@players.test>")
    assert run(cfg, clock).accepted == 1
    lo = loaded(cfg)
    assert lo.seq == before.seq + 2, "the undo input and the seat's rename"
    assert "Dora" in [st.player for st in lo.seats] and "Carol" not in [st.player for st in lo.seats]
    doc = exported(cfg)
    (ev,) = [e for e in doc["events"] if e["kind"] == "undo" and e["visibility"] == "public"]
    assert ev["data"] == {"after": ev["data"]["after"], "reroll": False, "why": "Bob's order was misread"}
    from pbem.app.undo import listed

    rows = listed(Home.of(cfg), "hh1")
    (back,) = [r for r in rows if r.kind == "undo"]  # the moderator's numbers, the mark read with the seed
    assert back.back_to == 2 and [r.seq for r in rows if r.undone_by == back.seq] == [3, 4]
    mails = sent_mail(cfg, seen)
    assert any(m["To"].addresses[0].addr_spec == "dora@players.test" for m in mails)
    assert all("Reason: Bob's order was misread" in body_of(m) for m in mails if "Alice" in str(m["To"]))
    (ack,) = acks(mails)
    assert "undone: 3, 4" in body_of(ack) and "now plays the seat of Carol" in body_of(ack)
    check_verify(cfg)
    command(cfg, code, "ABANDON")
    run(cfg, clock)
    assert control_state(cfg) == "abandoned"
    check_verify(cfg)


def test_start_by_mail_deals_a_game_still_joining(home, clock) -> None:
    cfg, seen = home, set()
    from pbem.app.games import Table

    games.create_game(
        Home.of(cfg), "habsburg", "hh2", PLAYERS, seed="join", clock=clock, codes=CODES, table=Table(join=True)
    )
    run(cfg, clock)
    code = moderating.make_code(Home.of(cfg), clock.now)
    sent_mail(cfg, seen)
    command(cfg, code, "START", game="hh2")
    assert run(cfg, clock).accepted == 1
    mails = sent_mail(cfg, seen)
    (ack,) = acks(mails)
    assert "done: START -> dealt without the salt of Alice, Bob, Carol" in body_of(ack)
    assert len(to_players(mails)) >= 3
    check_verify(cfg, "hh2")


def test_mail_without_the_code_or_with_a_wrong_one_changes_nothing(game, code, clock) -> None:
    cfg, seen = game, set()
    sent_mail(cfg, seen)
    head, due = exported(cfg)["chain"], deadline(cfg)
    command(cfg, None, "PAUSE")
    command(cfg, "ZZZZ-9999", "EXTEND 3d")
    command(cfg, CODES["Alice"], "ABANDON")  # a player's code is no moderator code
    summary = run(cfg, clock)
    assert summary.rejected == 3 and summary.accepted == 0
    assert exported(cfg)["chain"] == head and deadline(cfg) == due and control_state(cfg) == "running"
    mails = sent_mail(cfg, seen)
    assert len(mails) == 3 and all(m["To"].addresses[0].addr_spec == MOD_ADDR for m in mails)
    assert all("nothing was done" in body_of(m) for m in mails)
    # a player cannot use the commands: their mail is read as orders
    deliver(cfg, order_mail("Alice <alice@players.test>", "hh1", signed("Alice", "PAUSE")))
    run(cfg, clock)
    assert control_state(cfg) == "running"


def test_a_line_that_cannot_be_read_refuses_the_whole_mail_and_a_refused_command_stops_there(game, code, clock) -> None:
    cfg, seen = game, set()
    sent_mail(cfg, seen)
    due = deadline(cfg)
    command(cfg, code, "EXTEND 1d\nEXTEND soon please\nPAUSE")
    assert run(cfg, clock).rejected == 1
    assert deadline(cfg) == due and control_state(cfg) == "running", "nothing is done"
    (ack,) = acks(sent_mail(cfg, seen))
    text = body_of(ack)
    assert 'refused: "EXTEND soon please":' in text and "write a whole number and a unit" in text, text
    assert "Accepted lines" in text
    assert "done:" not in text

    command(cfg, code, "EXTEND 1d\nRESUME\nPAUSE")
    assert run(cfg, clock).accepted == 1
    assert deadline(cfg) == due + timedelta(days=1) and control_state(cfg) == "running"
    (ack,) = acks(sent_mail(cfg, seen))
    text = body_of(ack)
    assert "done: EXTEND 1d" in text and 'refused: "RESUME": game hh1 is not paused' in text
    assert "not done (after the refusal): PAUSE" in text
    command(cfg, code, "PAUSE", game="nosuch")
    run(cfg, clock)
    (ack,) = acks(sent_mail(cfg, seen))
    assert 'no game named "nosuch"' in body_of(ack)
    check_verify(cfg)


def test_a_reply_to_pbems_mail_to_the_moderator_needs_no_code(game, code, clock) -> None:
    cfg, seen = game, set()
    sent_mail(cfg, seen)
    command(cfg, code, "EXTEND 1h")
    run(cfg, clock)
    (ack,) = acks(sent_mail(cfg, seen))
    due = deadline(cfg)
    quoted = "\n".join("> " + x for x in body_of(ack).splitlines())
    command(cfg, None, f"PAUSE\n\nOn Monday pbem wrote:\n{quoted}", In_Reply_To=ack["Message-ID"])
    assert run(cfg, clock).accepted == 1
    assert control_state(cfg) == "paused" and deadline(cfg) == due, "the quoted EXTEND was not read again"
    # a reply naming a mail pbem sent a player proves nothing about the moderator
    player_mail = next(m for m in sent_mail(cfg, seen) if m["To"].addresses[0].addr_spec != MOD_ADDR)
    command(cfg, None, "RESUME", In_Reply_To=player_mail["Message-ID"])
    assert run(cfg, clock).rejected == 1 and control_state(cfg) == "paused"
    # after a new moderator code, replies to mail sent before it need the code again
    clock.advance(minutes=1)
    moderating.make_code(Home.of(cfg), clock.now)
    sent_mail(cfg, seen)
    command(cfg, None, "RESUME", In_Reply_To=ack["Message-ID"])
    assert run(cfg, clock).rejected == 1 and control_state(cfg) == "paused"
    # walk7: the refusal said only "it carried no moderator code", to a moderator who had replied to pbem's mail
    (refusal,) = sent_mail(cfg, seen)
    said = " ".join(body_of(refusal).split())
    assert "The mail you answered was sent to this address before the moderator code was changed (" in said, said
    # the refusal of a reply to a player's mail says nothing of it (that mail was never the moderator's)
    command(cfg, None, "RESUME", In_Reply_To=player_mail["Message-ID"])
    assert run(cfg, clock).rejected == 1
    (refusal,) = sent_mail(cfg, seen)
    assert "before the moderator code was changed" not in body_of(refusal)


def test_a_command_with_a_colon_right_above_the_quoted_mail_is_run_not_taken_for_the_clients_header(
    game, code, clock
) -> None:
    """ "UNDO TO 2: misread" right above the quoted acknowledgement looks like a client's ``Label: value`` line;
    it was dropped with the quote, and the mail was ignored as one with no command."""
    cfg, seen = game, set()
    play(cfg, clock, 4)
    sent_mail(cfg, seen)
    command(cfg, code, "EXTEND 1h")
    run(cfg, clock)
    (ack,) = acks(sent_mail(cfg, seen))
    quoted = "\n".join("> " + x for x in body_of(ack).splitlines())
    command(cfg, None, f"UNDO TO 2: Bob's order was misread\n\n{quoted}", In_Reply_To=ack["Message-ID"])
    assert run(cfg, clock).accepted == 1
    (ev,) = [e for e in exported(cfg)["events"] if e["kind"] == "undo" and e["visibility"] == "public"]
    assert ev["data"]["why"] == "Bob's order was misread"
    from pbem.app.undo import listed

    assert [r.back_to for r in listed(Home.of(cfg), "hh1") if r.kind == "undo"] == [2]
    check_verify(cfg)


def test_forged_moderator_mail_costs_what_a_players_would(game, code, clock) -> None:
    cfg = game
    cfg.replies_per_hour = 3
    before = codes.derivations
    for i in range(8):
        command(cfg, f"WXYZ-{2000 + i}", "ABANDON")
    summary = run(cfg, clock)
    assert summary.rejected == 8 and control_state(cfg) == "running"
    assert codes.derivations - before <= 3, "no code is checked past the address's answers budget"
    assert len(acks(sent_mail(cfg))) <= 3 + 1


def test_the_moderator_code_is_never_kept_sent_or_logged(game, code, clock, caplog) -> None:
    import base64

    from tests.reliability.test_codes_never_stored import _texts_of, holds_code

    cfg = game
    caplog.set_level(logging.DEBUG)
    command(cfg, code, "EXTEND 1h")
    b64 = base64.encodebytes(f"code: {code.lower()}\nEXTEND 2h\n".encode()).decode()
    raw = (
        f"From: {MOD}\nTo: {MOD_ADDR}\nSubject: [pbem hh1] code {code}\nMessage-ID: <b64@pbem.test>\n"
        f"MIME-Version: 1.0\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\n{b64}"
    ).encode()
    deliver(cfg, raw)
    command(cfg, code, f"EXTEND soon\nmy code is {code}")  # refused, and the chatter echoes no code
    command(cfg, code, f"NEW CODE {code}")  # refused ("not a player"): the line is quoted without the code
    command(cfg, code, f"UNDO TO 0 WHY the code {code} leaked")
    run(cfg, clock)
    run(cfg, clock)
    pattern = code_pattern([code])
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        cols = [c[1] for c in con.execute(f'PRAGMA table_info("{table}")')]
        for row in con.execute(f'SELECT * FROM "{table}"'):
            for col, value in zip(cols, row, strict=True):
                assert not holds_code(value, pattern), f"{table}.{col} holds the code: {str(value)[:400]}"
    outcomes = [o for (o,) in con.execute("SELECT outcome FROM inbound_messages WHERE sender = ?", (MOD_ADDR,))]
    assert outcomes.count("accepted") == 2 and outcomes.count("rejected") == 3
    sent = list((Path(cfg.maildir_path) / "sent").glob("*/*"))
    for p in sent:
        assert not holds_code(p.read_bytes(), pattern), _texts_of(p.read_bytes())
    assert not pattern.search(caplog.text)


WORDS = ["CODE", "GAME", "EXTEND", "PAUSE", "RESUME", "START", "ABANDON", "NEW CODE", "REPLACE", "UNDO", "AWAY", "BACK"]
#: Every word the moderator's reader takes as a command (SAY, RESEND, WAITING and ADDRESS came after `WORDS`, so a
#: drawn "SAY CODE" was read rightly as SAY and failed the check, in a CI run of 2026-12-05).
MORE_WORDS = ["SAY", "RESEND", "WAITING", "ADDRESS", "PROCESS", "MAIL", "KEEP"]


def test_reading_any_text_never_raises_and_takes_only_command_lines() -> None:
    from hypothesis import example, given, settings
    from hypothesis import strategies as st

    from pbem.orders.moderator import SYNTAX, read
    from pbem.orders.typed import cleaned

    assert {*WORDS, *MORE_WORDS} == set(SYNTAX), "a new command word is drawn too"

    piece = st.one_of(st.sampled_from([*WORDS, *MORE_WORDS, "TO", "WHY", "WITH", "UNTIL", "2d", "17", "alice", "> ", "-- "]),
                      st.text(max_size=12))  # fmt: skip
    line = st.lists(piece, max_size=6).map(" ".join)

    @settings(max_examples=300, deadline=None)
    @given(st.lists(line, max_size=12))
    @example(["\U000f0000 PAUSE"])
    @example(["SAY CODE"])
    def check(lines: list[str]) -> None:
        r = read("\n".join(lines))
        for c in r.commands:
            # the line as typed; what is read is its cleaned form: an emoji or a private-use symbol (a Japanese
            # carrier's emoji) before the word is a decoration ("\U000f0000 PAUSE", drawn by `make fuzz`)
            said = cleaned(c.line) or c.line
            assert said.split()[0].upper().rstrip(":") in {w.split()[0] for w in WORDS + MORE_WORDS} | {"NEWCODE"}, (
                c.line
            )
        for quoted, why in r.problems:
            assert why and (not quoted or any(quoted in x for x in lines))

    check()


def test_odd_moderator_mail_never_breaks_a_poll_nor_changes_the_game(game, code, clock) -> None:
    cfg = game
    head = exported(cfg)["chain"]
    html = (
        f"From: {MOD}\nTo: {MOD_ADDR}\nSubject: [pbem hh1] x\nMessage-ID: <html@pbem.test>\nMIME-Version: 1.0\n"
        f"Content-Type: text/html; charset=utf-8\n\n<p>CODE {code}</p><p>EXTEND <b>soon</b></p>"
    ).encode()
    deliver(cfg, html)
    for body in ("", "\n\n", "UNDO TO 99999 WHY x", "UNDO TO 0", "AWAY Zed 3", "REPLACE Alice WITH nobody",
                 "NEW CODE Zed", "EXTEND 2x", "START", "x" * 200_000, "EXTEND 1d\n" * 30):  # fmt: skip
        command(cfg, code, body)
    command(cfg, code, "PAUSE", game="")  # no game named
    summary = run(cfg, clock)
    assert summary.failures == 0 and summary.accepted == 0, summary.notes
    assert exported(cfg)["chain"] == head, "nothing changed"


SAME_AS_THE_CLI = {
    "PAUSE": lambda cfg, when: control.pause(Home.of(cfg), "hh1", when),
    "RESEND Alice": lambda cfg, when: resend(Home.of(cfg), "hh1", "Alice", when),
    "AWAY Bob UNTIL 2026-01-20": lambda cfg, when: set_away(Home.of(cfg), "hh1", "Bob", "2026-01-20", when),
    "UNDO TO 1 WHY a misread order": lambda cfg, when: undo(Home.of(cfg), "hh1", 1, "a misread order", False, when),
    "REPLACE Carol WITH Dora <dora@players.test>": lambda cfg, when: control.replace(
        Home.of(cfg), "hh1", "Carol", ("Dora", "dora@players.test"), when, code="DORA-2345"
    ),
}


@pytest.mark.parametrize("line", sorted(SAME_AS_THE_CLI))
def test_a_command_by_mail_writes_the_record_and_tells_the_players_as_the_cli_does(
    line: str, home, clock, tmp_path, monkeypatch
) -> None:
    """Two homes with the same game and orders: one is given the command by mail, the other at the terminal."""
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    twin = config_mod.load(init_home(tmp_path / "twin", address=MOD_ADDR, name="Test Moderator"))
    told = []
    for cfg in (home, twin):
        games.create_game(Home.of(cfg), "habsburg", "hh1", PLAYERS, seed="same", clock=clock, codes=CODES)
        run(cfg, clock)
        play(cfg, clock, 3)
        seen: set = set()
        sent_mail(cfg, seen)
        if cfg is home:
            mine = moderating.make_code(Home.of(cfg), clock.now)
            monkeypatch.setattr(codes, "new_code", lambda: "DORA-2345")  # the newcomer's code, as the CLI's
            command(cfg, mine, line)
            assert run(cfg, clock).accepted == 1
            monkeypatch.undo()
        else:
            SAME_AS_THE_CLI[line](cfg, clock.now)
            run(cfg, clock)
        # each game signs with a key of its own (random): its fingerprint is the one line allowed to differ
        fingerprint = re.compile(r"fingerprint [0-9a-f ]+")
        told.append(
            [(m["To"], m["Subject"], fingerprint.sub("", body_of(m))) for m in to_players(sent_mail(cfg, seen))]
        )
        check_verify(cfg)
    assert told[0] == told[1] and told[0], "the players read the same words"
    assert exported(home)["events"] == exported(twin)["events"]
    assert exported(home)["chain"] == exported(twin)["chain"], "the same chained record"


def test_no_player_may_play_from_the_moderators_address(home, clock) -> None:
    """Mail from the moderator's address is read as commands, so a seat there could never send an order:
    creating such a game or replacing a player with that address is refused in one line, and nothing is written."""
    from pbem.app.decision import GameError

    root = Home.of(home)
    with pytest.raises(GameError, match=r"moderator's address"):
        games.create_game(root, "habsburg", "hh9", [*PLAYERS[:2], ("Zed", "Moderator@PBEM.test")], clock=clock)
    with session(home.database_url) as s:
        assert store.game_by_name(s, "hh9") is None
    games.create_game(root, "habsburg", "hh1", PLAYERS, seed="moderator-seat", clock=clock, codes=CODES)
    with pytest.raises(GameError, match=r"moderator's address"):
        control.replace(root, "hh1", "Carol", ("Dora", MOD_ADDR), clock())
    assert [st.address for st in loaded(home).seats] == [a for _, a in PLAYERS]


REASONS = [
    "Bob misread (my mistake)",
    "misread, please",
    "misread :)",
    "x",
    "sent two orders",
    "misdeal - thanks",
    "wrong card?",
    "Bob said: NO EVENT",
    "Zoë's order 👍",
    "see [HH-R8]",
]


def test_an_undo_reason_by_mail_is_kept_as_written_as_the_cli_keeps_it() -> None:
    """UNDO's reason went through the order cleaner: "(my mistake)", ", please", ":)" and "- thanks" were taken off
    (every player read, and the record kept, less than the moderator wrote), "WHY x" was refused (" x" read as a
    tick) and "two" became "2".  `pbem game undo --why` keeps the text whole; so does the mail now."""
    from pbem.orders.moderator import read

    for reason in REASONS:
        for lead, tail in (("", ""), ("- ", ""), ("1. ", ""), ("*", "*")):
            for reroll in ("", "REROLL "):
                line = f"{lead}UNDO TO 3 {reroll}WHY {reason}{tail}"
                (c,) = read(line).commands
                assert (c.args, c.reroll) == (("3", reason), bool(reroll)), line


@given(st.text(st.characters(min_codepoint=32, max_codepoint=0x24F, blacklist_categories=("Cc", "Cs")), min_size=1))
@settings(max_examples=300, deadline=None)
def test_any_undo_reason_is_kept(reason: str) -> None:
    from pbem.orders.extract import INVISIBLE
    from pbem.orders.moderator import MAX_LINE, read

    reason = reason.strip()
    line = f"UNDO TO 3 WHY {reason}"
    if not reason.strip(INVISIBLE).strip() or len(line) > MAX_LINE:
        return  # no reason a reader can see: refused with the syntax (a reason of a soft hyphen alone, found so)
    done = read(line)
    if not any(c.isalnum() for c in reason):  # "WHY ¦": what a line's end may lose as decoration, nothing else
        assert [c.args for c in done.commands] in ([], [("3", reason)]), (line, done)
        assert done.commands or "WHY <reason>" in done.problems[0][1], (line, done)
        return
    (c,) = done.commands
    assert c.args == ("3", reason)


def test_a_mail_naming_two_games_does_nothing_and_says_why(game, code, clock) -> None:
    """`GAME hh1`, commands, `GAME hh2`, commands: every command ran on the game named last (found by this test)."""
    cfg = game
    seen: set = set()
    sent_mail(cfg, seen)
    head = exported(cfg)["chain"]
    command(cfg, code, "GAME hh1\nPAUSE\nGAME other\nEXTEND 1d", game="")
    run(cfg, clock)
    (ack,) = acks(sent_mail(cfg, seen))
    assert "GAME hh1 came first: one mail moderates one game; send a mail for each" in body_of(ack), body_of(ack)
    assert control_state(cfg) == "running" and exported(cfg)["chain"] == head
