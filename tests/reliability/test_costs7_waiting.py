"""WAITING by mail: the acknowledgement holds at most `waiting.MAIL_LINES` lines of lists, and says what it left out.

costs6 made each game load once a mail and each list written once, but an acknowledgement was still as large as
its lists: a home of 1,000 games, about 4,000 lines and 140 KB in one mail, and a mail of WAITING lines with 20
different spans 20 such lists.  Now the lists of one mail hold `MAIL_LINES` lines in all (whole games, the soonest
due first); a line counts the games and players left out and names `pbem game waiting`, which lists every one.
The generator: the same lists at n and 4n games (plain values, no database), and a moderator's mail over a home
whose lists pass a small cap (both failed on 21a928b: every line was written).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from pbem.app import games, waiting
from pbem.app.waiting import Awaited, Waiting, listed
from pbem.home.app import Home
from tests.conftest import CODES

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
MOST = getattr(waiting, "MAIL_LINES", 200)


def _games(n: int) -> list[Waiting]:
    return [
        Waiting(
            f"g{i}",
            "habsburg",
            "running",
            "turn",
            NOW + timedelta(hours=i + 1),
            tuple(Awaited(p, "PLAY a card", None, None) for p in ("Alice", "Bob", "Carol")),
        )
        for i in range(n)
    ]


@pytest.mark.parametrize("n", [60, 240, 960])
def test_a_list_in_a_mail_is_capped_and_says_what_it_left_out(n: int) -> None:
    lines = listed(_games(n), NOW, MOST)
    assert len(lines) <= MOST + 2, len(lines)
    shown = sum(not x.startswith(("  ", "...")) for x in lines[:-1])
    assert lines[-2] == (
        f"... and {n - shown} more game(s), waiting for {3 * (n - shown)} player(s), not listed in this mail "
        "(every one: pbem game waiting)"
    )
    assert lines[-1] == f"{n} game(s) wait for {3 * n} player(s)"  # the total counts every game
    assert lines[:2] == listed(_games(n), NOW)[:2]  # the soonest due first, as the command lists them
    assert len(listed(_games(n), NOW)) == 4 * n + 1  # the command itself lists every one


def test_a_moderators_mail_holds_its_lists_within_the_cap(home: Any, clock: Any, monkeypatch: Any) -> None:
    from pbem.app import moderating
    from tests.test_game_waiting import _sent
    from tests.test_moderate_by_mail import acks, command, run

    players = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
    h = Home.of(home)
    dealt = games.Table(join=False)
    for i in range(3):
        games.create_game(h, "habsburg", f"hh{i}", players, seed=f"w{i}", clock=clock, codes=CODES, table=dealt)
    run(home, clock)
    monkeypatch.setattr(waiting, "MAIL_LINES", 4, raising=False)  # (three games, one player awaited in each: 6 lines)
    code = moderating.make_code(h, clock.now)
    command(home, code, "\n".join(["WAITING", "WAITING 30 days", "WAITING 40 days"]), game=None)
    assert run(home, clock).accepted == 1
    (mail,) = acks(_sent(home))[-1:]
    said = mail.get_body(("plain",)).get_content()
    listed_lines = [x for x in said.split("\n") if x.startswith("    ") and "(" in x and "):" in x]
    players_lines = [x for x in said.split("\n") if x.startswith("      ")]
    assert len(listed_lines) + len(players_lines) == 4, said  # two games listed, once
    assert said.count("... and 1 more game(s), waiting for 1 player(s), not listed in this mail") == 1, said
    assert said.count("... and 3 more game(s), waiting for 3 player(s), not listed in this mail") == 1, said  # full
