"""`pbem game waiting`: who every running game waits for, at a glance (the Judge's late list, for every game).

Before (judges3), a moderator of several games learnt who had not answered only game by game (`pbem game show`),
and when each player last wrote nowhere but in an export.  The list puts the games past their deadline first,
then the others by deadline, the paused last; each player awaited with their last mail to that game, their
absence and what they are asked.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from typer.testing import CliRunner

from pbem.app import games
from pbem.app.absence import set_away
from pbem.app.control import abandon, pause
from pbem.app.cron import run_poll
from pbem.app.waiting import ASKED, Awaited, Waiting, listed, order, waiting
from pbem.cli import app
from pbem.home.app import Home
from tests.conftest import CODES, deliver, order_mail

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _generated(rng: random.Random) -> list[Waiting]:
    out = []
    for i in range(rng.randrange(0, 12)):
        state = rng.choice(["running", "running", "paused"])
        due = None if rng.random() < 0.1 else NOW + timedelta(minutes=rng.randrange(-3000, 9000))
        awaited = tuple(
            Awaited(f"P{j}", "Your turn", None if rng.random() < 0.3 else NOW - timedelta(hours=j), None)
            for j in range(rng.randrange(1, 4))
        )
        out.append(Waiting(f"g{i}", "habsburg", state, "t1", due, awaited))
    return out


def test_the_late_come_first_then_by_deadline_and_the_paused_last_in_every_draw() -> None:
    rng = random.Random("waiting")
    for _ in range(300):
        drawn = _generated(rng)
        within = rng.choice([None, timedelta(hours=1), timedelta(days=2)])
        got = order(drawn, NOW, within)
        late = [g.late(NOW) for g in got]
        assert late == sorted(late, reverse=True)  # every game past its deadline before any other
        running = [g for g in got if g.state == "running"]
        assert got[: len(running)] == running  # the paused last
        dues = [g.due for g in running if g.due is not None]
        assert dues == sorted(dues)
        assert {g.game for g in drawn if g.late(NOW)} <= {g.game for g in got}  # the late, whatever `within`
        if within is not None:
            assert all(g.due is not None and g.due <= NOW + within for g in got)
        else:
            assert sorted(g.game for g in got) == sorted(g.game for g in drawn)
        lines = listed(got, NOW)
        assert len(lines) == len(got) + sum(len(g.awaited) for g in got) + 1
        assert lines[-1].startswith(f"{len(got)} game(s) wait for ")
        assert sum(line.startswith(g.game + " (") for g in got for line in lines) == len(got)


def _shown(asked: str) -> str:
    return asked if len(asked) <= ASKED else asked[: ASKED - 1] + "…"


PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]


def test_every_game_the_moderator_runs_in_one_list(home, clock) -> None:
    h = Home.of(home)
    dealt, short = games.Table(join=False), games.Table(join=False, deadline=timedelta(hours=2))
    games.create_game(h, "habsburg", "hh1", PLAYERS, seed="w1", clock=clock, codes=CODES, table=dealt)
    games.create_game(h, "dynasties", "dy1", PLAYERS[:2], seed="w2", clock=clock, codes=CODES, table=short)
    games.create_game(h, "italian-wars", "iw1", PLAYERS[1:], seed="w3", clock=clock, codes=CODES, table=dealt)
    games.create_game(h, "habsburg", "hh2", PLAYERS, seed="w4", clock=clock, codes=CODES, table=dealt)
    games.create_game(h, "habsburg", "hh3", PLAYERS, seed="w5", clock=clock, codes=CODES, table=dealt)
    run_poll(home, clock=clock)
    clock.advance(minutes=30)
    deliver(home, order_mail("Alice <alice@players.test>", "dy1", "CODE AAAA-2222\nSTATUS"))  # a mail, not a move
    deliver(home, order_mail("Bob <bob@players.test>", "iw1", "CODE BBBB-3333\nDISCARD NONE"))
    summary = run_poll(home, clock=clock).summary
    assert summary is not None and summary.accepted == 2, summary
    (mover,) = next(g for g in waiting(h, clock.now) if g.game == "hh1").awaited
    set_away(h, "hh1", mover.player, "3", clock.now)
    pause(h, "hh2", clock.now)
    abandon(h, "hh3", clock.now)
    clock.advance(hours=2)  # dy1's deadline has passed; no poll ran since

    got = waiting(h, clock.now)
    assert [g.game for g in got] == ["dy1", "hh1", "iw1", "hh2"]  # late, by deadline, paused; hh3 abandoned
    dy1, hh1, iw1, hh2 = got
    assert dy1.late(clock.now) and [a.player for a in dy1.awaited] == ["Alice", "Bob"]
    assert dy1.awaited[0].heard == clock.now - timedelta(hours=2) and dy1.awaited[1].heard is None
    assert [a.player for a in iw1.awaited] == ["Carol"]  # Bob's discard is on file
    assert hh1.awaited[0].away == clock.now - timedelta(hours=2) + timedelta(days=3)
    assert hh2.state == "paused" and len(hh2.awaited) == 1
    lines = listed(got, clock.now)
    assert lines[:3] == [
        "dy1 (dynasties): LATE: the deadline passed at 2026-01-05 14:00 UTC, 30 min ago (the next pbem poll applies "
        "the defaults, unless a report to one of them is undelivered: pbem outbox list)",
        f"  Alice: last mail 2026-01-05 12:30 UTC (2 h ago); asked: {_shown(dy1.awaited[0].asked)}",
        f"  Bob: never wrote; asked: {_shown(dy1.awaited[1].asked)}",
    ]
    assert f"  {mover.player}: never wrote; away until 2026-01-08 12:30 UTC; asked: {_shown(mover.asked)}" in lines
    assert (
        "hh2 (habsburg): paused since 2026-01-05 12:30 UTC (2 h ago), no deadline passes (pbem game resume hh2)"
        in lines
    )
    assert lines[-1] == "4 game(s) wait for 5 player(s); 1 past the deadline"
    assert [g.game for g in waiting(h, clock.now, timedelta(hours=1))] == ["dy1"]

    run_poll(home, clock=clock)  # dy1's defaults applied for Alice and Bob: each missed a deadline
    (dy1,) = [g for g in waiting(h, clock.now) if g.game == "dy1"]
    assert not dy1.late(clock.now) and dy1.awaited and all(a.missed == 1 for a in dy1.awaited), dy1
    assert all(a.missed == 0 for g in waiting(h, clock.now) if g.game != "dy1" for a in g.awaited)
    said = listed([dy1], clock.now)[1]
    assert "; missed 1 deadline(s); asked: " in said, said


def test_the_command_prints_the_list_and_refuses_a_bad_span(home, clock) -> None:
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="w1", codes=CODES, table=games.Table(join=False))
    runner = CliRunner()
    got = runner.invoke(app, ["game", "waiting", "--config", str(home.path)])
    assert got.exit_code == 0, got.output
    assert got.output.splitlines()[0].startswith("hh1 (habsburg): deadline "), got.output
    assert got.output.splitlines()[-1] == "1 game(s) wait for 1 player(s)", got.output
    got = runner.invoke(app, ["game", "waiting", "--within", "1h", "--config", str(home.path)])
    assert got.exit_code == 0 and got.output == "no game waits for anyone due within 1h\n", got.output
    got = runner.invoke(app, ["game", "waiting", "--within", "soon", "--config", str(home.path)])
    assert got.exit_code == 2 and got.output.startswith("pbem: 'soon' is not a duration"), got.output
    got = runner.invoke(app, ["game", "waiting", "--within", "0m", "--config", str(home.path)])  # only the late
    assert got.exit_code == 0 and got.output == "no game waits for anyone due within 0m\n", got.output


def test_the_mail_form_lists_every_game_without_one_named(home, clock) -> None:
    """WAITING by mail, from the moderator away from the server: the same list in the acknowledgement, no GAME
    line needed (it lists every game); with EXTEND in a game's mail, both run; "Waiting for Bob" is prose."""
    from pbem.app import moderating
    from tests.test_moderate_by_mail import MOD_ADDR, acks, command, run

    h = Home.of(home)
    dealt = games.Table(join=False)
    games.create_game(h, "habsburg", "hh1", PLAYERS, seed="w1", clock=clock, codes=CODES, table=dealt)
    games.create_game(h, "italian-wars", "iw1", PLAYERS[1:], seed="w3", clock=clock, codes=CODES, table=dealt)
    run(home, clock)
    code = moderating.make_code(h, clock.now)
    expected = listed(waiting(h, clock.now), clock.now)

    def ack() -> str:
        (mail,) = [m for m in acks(_sent(home)) if m["Message-ID"] not in seen]
        seen.add(mail["Message-ID"])
        return mail.get_body(("plain",)).get_content()

    seen = {m["Message-ID"] for m in acks(_sent(home))}
    before = {m["Message-ID"] for m in _sent(home)}
    command(home, code, "WAITING\nWaiting for Bob's answer, thanks.", game=None)
    assert run(home, clock).accepted == 1
    said = ack()
    assert said.startswith(
        f"Done, in this order (nothing more is needed from you):\n  done: WAITING -> {expected[-1]}\n"
    ), said
    assert "\n".join(f"    {line}" for line in expected[:-1]) in said, said
    assert "The players were told" not in said and "| Waiting for Bob's answer, thanks." in said, said
    assert not [m for m in _sent(home) if m["To"].addresses[0].addr_spec != MOD_ADDR and m["Message-ID"] not in before]

    command(home, code, "WAITING 1h", game=None)
    run(home, clock)
    assert "done: WAITING 1h -> no game waits for anyone due within 1h" in ack()
    command(home, code, "WAITING soon", game=None)  # a span it cannot read: prose, so a mail of no command
    assert run(home, clock).accepted == 0
    command(home, code, "WAITING 2 years", game=None)
    run(home, clock)
    assert "refused: \"WAITING 2 years\": '2 years' is not a duration" in ack()
    command(home, code, "EXTEND 2h\nWAITING")  # in a game's mail: both
    run(home, clock)
    said = ack()
    assert "done: EXTEND 2h -> the deadline is now" in said and "done: WAITING -> 2 game(s)" in said, said
    assert "The players were told" in said
    command(home, code, "EXTEND 2h\nWAITING", game=None)  # EXTEND still needs its game
    run(home, clock)
    assert "name the game: a line GAME <name>" in ack()


def _sent(cfg) -> list:
    import mailbox
    from email import policy
    from email.parser import BytesParser

    box = mailbox.Maildir(str(cfg.maildir_path / "sent"), factory=None, create=False)
    return [BytesParser(policy=policy.default).parsebytes(box.get_bytes(k)) for k in box.iterkeys()]
