"""A copy of a mail that carried the player's code, sent back under a reply, is pbem's text, never the player's.

pbem keeps each sent mail with the code shown as `REDACTED`; the player's copy holds the code itself.  Found by
copy (`pbem.orders.own_mail.without_copies`), the copy was cut into runs at every mention of the code, and a run
shorter than `RUN` words was not found: when the join invitation came to list the lines to send (CODE, JOIN, SALT)
between two mentions of the code, an Outlook reply holding the invitation unquoted under its header block joined
the game with the salt "<any text you like>".  The code in the player's copy is now read as the redacted words.
Generated over every mail that carries a code (the join invitation, the first report of a game without a join
step, the mail of a new code) and every client that copies the mail (quoted, unquoted, reflowed, forwarded, HTML):
a reply that says only thanks applies nothing, and one with an order applies that order alone.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pbem.app.control import new_player_code
from pbem.app.games import Table
from pbem.home.app import Home
from tests.conftest import deliver
from tests.reply_clients import CLIENTS, reply
from tests.test_reply_corpus import Game

MAILS = ("invitation", "first report", "new code")


def _game(tmp_path: Path, mail: str) -> Game:
    game = Game(tmp_path, Table(join=mail == "invitation"))
    if mail == "new code":
        new_player_code(Home.of(game.cfg), "dy1", "Alice", game.clock(), code="K7QX-2MPD")
        game.poll()
        game.newest = game.to_alice()[-1]
        assert "code" in str(game.newest["Subject"]).lower(), game.newest["Subject"]
    text = game.newest.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
    assert "K7QX-2MPD" in text, text  # the mail carries the player's code
    return game


@pytest.mark.parametrize("mail", MAILS)
def test_a_reply_holding_a_copy_of_a_mail_with_the_code_applies_nothing_of_the_copy(tmp_path: Path, mail: str) -> None:
    for n, client in enumerate(CLIENTS):
        game = _game(tmp_path / f"{n}", mail)
        deliver(game.cfg, reply(game.newest, ["Thanks, got it!"], client, "en", random.Random(f"{mail}:{client}")))
        summary = game.poll()
        assert summary.accepted == 0, f"{mail}, {client}: {summary.line()}"
        for answer in game.to_alice():
            text = str(answer.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
            assert "you have joined" not in text and 'any text you like" ' not in text, f"{mail}, {client}:\n{text}"


@pytest.mark.parametrize("mail", MAILS[1:])  # a game being played: an order is asked
def test_a_reply_with_an_order_above_a_copy_of_a_mail_with_the_code_applies_that_order_alone(
    tmp_path: Path, mail: str
) -> None:
    for n, client in enumerate(CLIENTS):
        game = _game(tmp_path / f"{n}", mail)
        rng = random.Random(f"{mail}:{client}")
        want = rng.choice([t for t in game.request().legal if t.startswith("TRIBUTE")])
        deliver(game.cfg, reply(game.newest, ["Hi,", want, "Thanks"], client, "en", rng))
        summary = game.poll()
        assert (summary.accepted, summary.rejected) == (1, 0), f"{mail}, {client}: {summary.line()}"
        assert game.request().on_file == (want,), f"{mail}, {client}: {game.request().on_file}"
