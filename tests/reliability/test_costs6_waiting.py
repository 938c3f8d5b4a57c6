"""WAITING by mail loads every game once a mail, and writes a list once, however many WAITING lines it holds (costs6).

A moderator's mail may carry 20 commands (`pbem.orders.moderator.MAX_COMMANDS`), and WAITING, `pbem game waiting`'s
list of every game, needs no game named: each WAITING loaded every open game again (its state, deadline, absences,
last mails) in the message's transaction, and the acknowledgement wrote the whole list again, so a mail of 20 of
them cost 20 lists (a home of 1,000 games: about 0.7 s and 140 KB a list, 14 s and 2.8 MB).  The generator sends
mails of 20 WAITING lines, alike or with different spans, to a home of several games: each game is loaded
once a mail, and a list the mail already holds is not written again ("(listed above)").
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.app import games
from pbem.app.waiting import listed, waiting
from pbem.home.app import Home
from pbem.record import store
from tests.conftest import CODES

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
GAMES = 4


@pytest.mark.parametrize(
    "lines",
    [["WAITING"] * 20, ["WAITING", "WAITING 1h", "WAITING", "WAITING 30 days"] * 5],
    ids=["twenty alike", "twenty with spans"],
)
def test_every_game_is_loaded_once_a_mail_and_a_list_written_once(
    home: Any, clock: Any, monkeypatch: Any, lines: list[str]
) -> None:
    from pbem.app import moderating
    from tests.test_game_waiting import _sent
    from tests.test_moderate_by_mail import acks, command, run

    h = Home.of(home)
    dealt = games.Table(join=False)
    for i in range(GAMES):
        games.create_game(h, "habsburg", f"hh{i}", PLAYERS, seed=f"w{i}", clock=clock, codes=CODES, table=dealt)
    run(home, clock)
    expected = listed(waiting(h, clock.now), clock.now)
    code = moderating.make_code(h, clock.now)
    loads = [0]
    load = store.load

    def counted(*args: Any, **kwargs: Any) -> Any:
        loads[0] += 1
        return load(*args, **kwargs)

    monkeypatch.setattr(store, "load", counted)
    command(home, code, "\n".join(lines), game=None)
    assert run(home, clock).accepted == 1
    (mail,) = acks(_sent(home))[-1:]
    said = mail.get_body(("plain",)).get_content()
    assert loads[0] <= GAMES, loads  # (the mail's own reading loads none of them)
    assert said.count(f"\n    {expected[0]}\n") == 1, said  # the first game's line, written once
    assert said.count("(listed above)") == sum(x != "WAITING 1h" for x in lines) - 1, said  # (none due within 1h)
