"""The join step over the Maildir transport (issue 13, "Nobody picks the deal"): invitations, JOIN and SALT by
mail, the deal from the salts, the export's `salts`, `pbem verify` and the stand-alone auditor; the join
deadline telling the moderator, and `pbem game start`."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from pbem.app import control, games
from pbem.app import poll as polling
from pbem.app.games import Table
from pbem.cli import app
from pbem.history.export import build, verify
from pbem.home.app import Home
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from pbem.record import store
from pbem.record.db import session
from pbem.record.models import OrderInput
from tests.conftest import CODES, Clock, body_of, deliver, order_mail, sent_mail, signed

AUDITOR = Path(__file__).resolve().parent.parent / "examples" / "audit_randomness.py"
SALTS = {"Alice": "Ölbaum 42, blue moon", "Bob": "  7 x 6  "}  # Carol joins without a salt
#: The whole game is played on one worker (the fixture is computed once).
pytestmark = pytest.mark.xdist_group("join")


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> dict:
    """A House of Habsburg game with a join step, played to the end by the demo's bots over Maildir."""
    from pbem.cli.demo import run

    r = run("habsburg", 3, None, tmp_path_factory.mktemp("join") / "home", clock=Clock(), join_salts=SALTS)
    assert r.verified, r.checked
    from pbem.home import config as config_mod

    cfg = config_mod.load(r.home / "pbem.toml")
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, r.game)
        assert game is not None
        return {"public": build(s, game, public=True), "mail": sent_mail(cfg)}


def test_every_player_joins_by_mail_and_the_deal_follows_from_the_seed_and_the_salts(finished) -> None:
    doc = finished["public"]
    assert doc["salts"] == ["Ölbaum 42, blue moon", "7 x 6", ""]
    assert [(o["kind"], o["player"], o["lines"]) for o in doc["orders"][:3]] == [
        ("join", "Alice", ["JOIN", "SALT Ölbaum 42, blue moon"]),
        ("join", "Bob", ["JOIN", "SALT   7 x 6"]),
        ("join", "Carol", ["JOIN"]),
    ]
    [salts] = [e for e in doc["events"] if e["kind"] == "salts"]
    assert salts["input_seq"] == 3 and salts["data"]["salts"] == doc["salts"] and salts["visibility"] == "public"
    first = [m for m in finished["mail"] if "Join the game" in m["Subject"]]
    assert len(first) == 3 and all("SALT <any text" in body_of(m) for m in first)
    dealt = [body_of(m) for m in finished["mail"] if "The deal: nobody chose it" in body_of(m)]
    assert len(dealt) == 3 and all('Alice: "Ölbaum 42, blue moon"' in b and "Carol: (no salt)" in b for b in dealt)


def test_the_deal_warning_is_said_where_it_is_news_not_in_every_report(finished) -> None:
    """walk6: Carol joined without a salt and no provider signs here, so "Warning about the deal" stood above "What
    happened" in every report of the game.  It is said in the report listing the salts and in the final report, and
    nowhere else.  Demo games from their join step, seeded "notices2-seed", reports that said it on 18279215 / on
    notices2: Habsburg 162 of 162 / 6, Italian Wars 30 of 30 / 4, Dynasties 69 of 69 / 6, Sixteen Thirty 347 of 347
    / 6; every mailbox verified."""
    reports = [m for m in finished["mail"] if "Private report for " in body_of(m)]
    warned = [m for m in reports if "Warning about the deal: " in body_of(m)]
    news = [m for m in reports if "The deal: nobody chose it" in body_of(m) or "Final report" in str(m["Subject"])]
    assert len(news) == 6 and [m["Message-ID"] for m in warned] == [m["Message-ID"] for m in news]
    assert len(reports) > len(warned), "the reports between say it no more"


def test_the_public_export_verifies_and_the_auditor_recomputes_the_deal(finished, tmp_path: Path) -> None:
    v = verify(finished["public"])
    assert v.ok, v.problem
    assert any("SHA-256(seed || salts)" in c for c in v.checked)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(finished["public"]))
    res = subprocess.run([sys.executable, "-S", "-I", str(AUDITOR), str(path)], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("OK: "), res.stdout + res.stderr


def test_a_changed_salt_fails_verify_and_the_auditor(finished, tmp_path: Path) -> None:
    doc = copy.deepcopy(finished["public"])
    doc["salts"][0] = "Olbaum 42, blue moon"
    v = verify(doc)
    assert not v.ok and "salts" in v.problem and "JOIN inputs" in v.problem
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    res = subprocess.run([sys.executable, "-S", "-I", str(AUDITOR), str(path)], capture_output=True, text=True)
    assert res.returncode == 1 and res.stdout.startswith("MISMATCH"), res.stdout


def test_a_changed_join_input_or_dropped_salts_fail_verify(finished) -> None:
    doc = copy.deepcopy(finished["public"])
    doc["orders"][0]["lines"] = ["JOIN", "SALT Olbaum 42, blue moon"]
    doc["salts"][0] = "Olbaum 42, blue moon"  # consistent with the forged input: the replayed deal differs
    assert not verify(doc).ok
    doc = copy.deepcopy(finished["public"])
    del doc["salts"]  # as if dealt from the seed alone
    v = verify(doc)
    assert not v.ok and "belongs to a join step, but the export has no salts" in v.problem


# ----------------------------------------------------------------------------- the deadline and the start

PLAYERS = [("Ann", "ann@players.test"), ("Ben", "ben@players.test")]


def run_poll(cfg, clock) -> polling.PollSummary:
    return polling.poll(
        Home.of(cfg, inbox=MaildirInbox(cfg.maildir_path), sender=MaildirSender(cfg.maildir_path), clock=clock)
    )


def test_a_player_missing_at_the_join_deadline_is_reported_and_game_start_deals_without_them(home, clock) -> None:
    games.create_game(Home.of(home), "italian-wars", "iw1", PLAYERS, clock=clock, codes=CODES, table=Table(join=True))
    run_poll(home, clock)
    seen: set = set()
    invites = sent_mail(home, seen)
    assert sorted(m["To"].addresses[0].addr_spec for m in invites) == ["ann@players.test", "ben@players.test"]
    assert all("Join the game" in m["Subject"] and "CODE " in body_of(m) for m in invites)
    deliver(home, order_mail("Ann <ann@players.test>", "iw1", signed("Ann", "JOIN\nSALT ann's words")))
    run_poll(home, clock)
    deliver(home, order_mail("Ann <ann@players.test>", "iw1", signed("Ann", "JOIN\nSALT better words")))
    clock.advance(minutes=5)
    run_poll(home, clock)
    acks = [body_of(m) for m in sent_mail(home, seen)]
    assert "you have joined, Ann" in acks[0] and "already joined" in acks[1] and "Waiting for: Ben" in acks[1]

    clock.advance(hours=48)
    summary = run_poll(home, clock)
    assert summary.deadlines == 1
    [notice] = [m for m in sent_mail(home, seen) if m["To"].addresses[0].addr_spec == home.moderator_address]
    text = body_of(notice)
    assert "Ben (Ben <ben@players.test>)" in text and "pbem game start iw1" in text and "pbem game replace iw1" in text
    clock.advance(minutes=5)
    assert run_poll(home, clock).deadlines == 0, "told once per deadline period"
    control.replace(Home.of(home), "iw1", "Ben", ("Dora", "dora@players.test"), clock(), code="DORA-1111")
    run_poll(home, clock)
    to_dora = [m for m in sent_mail(home, seen) if m["To"].addresses[0].addr_spec == "dora@players.test"]
    [invite] = [m for m in to_dora if "Join the game" in m["Subject"]]
    assert "You take over a seat, Dora: Join the game" in invite["Subject"] and "CODE DORA-1111" in body_of(invite)

    res = CliRunner().invoke(app, ["-c", str(home.path), "game", "start", "iw1"])
    assert res.exit_code == 0 and "without the salt of Dora" in res.output, res.output
    again = CliRunner().invoke(app, ["-c", str(home.path), "game", "start", "iw1"])
    assert again.exit_code != 0 and "already dealt" in again.output
    polling.poll(Home.of(home, inbox=MaildirInbox(home.maildir_path), sender=MaildirSender(home.maildir_path)))
    reports = [body_of(m) for m in sent_mail(home, seen) if "The deal: nobody chose it" in body_of(m)]
    assert len(reports) == 2 and all('Ann: "ann\'s words"' in b and "Dora: (no salt)" in b for b in reports)

    with session(home.database_url) as s:
        game = store.game_by_name(s, "iw1")
        assert game is not None
        doc = build(s, game)
        loaded = store.load(s, game)
        orders = list(s.exec(select(OrderInput).where(OrderInput.game_id == game.id)).all())
        replayed, _ = store.replay(game, orders)
    assert [(o["kind"], o["player"]) for o in doc["orders"]] == [("join", "Ann"), ("rename", "Ben"), ("start", "")]
    assert doc["salts"] == ["ann's words", ""] and replayed == loaded.state
    v = verify(doc, partial=True)
    assert v.ok, v.problem


def test_a_join_game_waiting_for_everyone_is_rebuilt_from_its_record_without_a_snapshot(home, clock) -> None:
    games.create_game(Home.of(home), "italian-wars", "iw2", PLAYERS, clock=clock, codes=CODES, table=Table(join=True))
    with session(home.database_url) as s:
        game = store.game_by_name(s, "iw2")
        assert game is not None and game.id is not None
        assert store.replay(game, [], join=store.join_opened(s, game.id))[0] == store.load(s, game).state
        assert store.load(s, game).engine.order_words == ("JOIN", "SALT")


def test_game_new_opens_the_join_step_unless_no_join(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["init", str(tmp_path / "h"), "--address", "games@example.test"]).exit_code == 0
    cfg = str(tmp_path / "h" / "pbem.toml")
    seats = ["--player", "Ann <a@x.test>", "--player", "Ben <b@x.test>"]
    made = runner.invoke(app, ["-c", cfg, "game", "new", "italian-wars", "--name", "a", *seats])
    assert made.exit_code == 0 and "invitations to JOIN queued" in made.output
    made = runner.invoke(app, ["-c", cfg, "game", "new", "italian-wars", "--name", "b", "--no-join", *seats])
    assert made.exit_code == 0 and "first reports queued" in made.output
    listing = runner.invoke(app, ["-c", cfg, "game", "list"]).output
    assert "(step join," in listing.splitlines()[0] and "(step join," not in listing.splitlines()[1]
