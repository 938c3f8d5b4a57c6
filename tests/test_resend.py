"""`pbem game resend NAME PLAYER` and `RESEND <player>` by mail: a player's report mailed again (a lost report).

Before, only the player could ask (STATUS); the moderator, told by a player on the phone that a report never came,
had no command for it.  The report goes to that player's registered address only, threaded as their game, changes
nothing in the record, and works in a game that is over or abandoned too.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from pbem.app import control
from pbem.app.resend import resend
from pbem.cli import app
from pbem.home.app import Home
from tests.conftest import body_of, sent_mail
from tests.test_moderate_by_mail import acks, command, exported, run
from tests.test_names_every_command import by_mail  # noqa: F401  (the fixture)


def test_resend_mails_one_player_their_report_and_changes_nothing(by_mail, clock) -> None:  # noqa: F811
    cfg, _ = by_mail
    seen: set[str] = set()
    sent_mail(cfg, seen)
    before = exported(cfg)["chain"]
    assert resend(Home.of(cfg), "hh1", "ali", clock.now) == "Alice"
    run(cfg, clock)
    (mail,) = sent_mail(cfg, seen)
    assert mail["To"].addresses[0].addr_spec == "alice@players.test" and "[pbem hh1]" in mail["Subject"]
    assert mail["References"], "threaded as the player's game"
    assert exported(cfg)["chain"] == before  # nothing recorded
    control.abandon(Home.of(cfg), "hh1", clock.now)
    run(cfg, clock)
    sent_mail(cfg, seen)
    assert resend(Home.of(cfg), "hh1", "Bob", clock.now) == "Bob"  # a lost final report
    run(cfg, clock)
    assert [m["To"].addresses[0].addr_spec for m in sent_mail(cfg, seen)] == ["bob@players.test"]


def test_resend_by_mail(by_mail, clock) -> None:  # noqa: F811
    cfg, code = by_mail
    seen: set[str] = set()
    sent_mail(cfg, seen)
    command(cfg, code, "RESEND car")
    run(cfg, clock)
    mails = sent_mail(cfg, seen)
    (ack,) = acks(mails)
    assert "done: RESEND car" in body_of(ack) and "Carol's current report is queued" in body_of(ack), body_of(ack)
    assert [m["To"].addresses[0].addr_spec for m in mails if m not in (ack,)] == ["carol@players.test"]
    command(cfg, code, "RESEND")
    run(cfg, clock)
    (ack,) = acks(sent_mail(cfg, seen))
    assert "write RESEND <player>" in body_of(ack), body_of(ack)


def test_the_cli_says_whose_report_is_queued(by_mail) -> None:  # noqa: F811
    cfg, _ = by_mail
    toml = str(Path(cfg.path))
    got = CliRunner().invoke(app, ["--config", toml, "game", "resend", "hh1", "ALICE"])
    assert got.exit_code == 0, got.output
    assert got.output == "Alice's current report is queued to their registered address; run pbem poll to send it\n"
