"""A Sixteen Thirty game mailed as pbem listed it before order13 verifies now, every player's mail.

Before order13 the displays table, the Assassin and REMOVE lines and the ACCEPT lines followed the order of the keys
of the state the poll held (`tests/engine/test_key_order.py`); now they are by name.  Here a whole game is played by
mail with the engine listing in that order (`kept_order` true throughout, as pbem listed then), and this pbem
verifies the export and the mail of a player whose reports show piles out of name order (`pbem verify --mail`,
with its reading of refusals): both pass.  (Each player's mail passed when this test was written.)  The game and
its verification take some 35 s: it runs under `PBEM_FULL_SIZE=1` (`.ci/run`'s step).
"""

from __future__ import annotations

import json
import mailbox
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.cli.demo import run
from pbem.engine.sixteen_thirty import state, trade
from pbem.trust.told import plain
from tests.conftest import Clock
from tests.sizes import FULL

pytestmark = pytest.mark.skipif(not FULL, reason="a whole game by mail, some 35 s: PBEM_FULL_SIZE=1 (.ci/run's step)")

DISPLAYS = re.compile(r"== Displays \(influence on the table\) ==\n(.*?)\n\n", re.S)


def _out_of_name_order(text: str) -> bool:
    """Whether a report's displays table lists some player's piles out of the order of their names."""
    for table in DISPLAYS.findall(text):
        piles: dict[str, list[str]] = {}
        for player, country in re.findall(r"Player: (\w+)\n\s+Country: ([\w ]+?);", table):
            piles.setdefault(player, []).append(country)
        if any(seen != sorted(seen) for seen in piles.values()):
            return True
    return False


def test_a_game_mailed_in_the_order_of_the_states_keys_verifies(tmp_path: Path) -> None:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(state, "kept_order", lambda: True)  # the piles in the order of the state's keys, as before
        m.setattr(trade, "kept_order", lambda: True)  # the ACCEPT lines too
        game = run("sixteen-thirty", 3, "order13-old", tmp_path / "game", bot_seed="order13-bots", clock=Clock())
    assert "did not finish" not in game.summary, game.summary
    doc = json.loads(game.export.read_text())
    got = CliRunner().invoke(app, ["verify", str(game.export)])
    assert got.exit_code == 0, got.output
    sent = mailbox.Maildir(str(game.home / "mail" / "sent"), factory=None, create=False)
    raws = [sent.get_bytes(key) for key in sent.iterkeys()]
    for seat in doc["players"]:  # the first player whose reports list piles out of name order: their whole mail
        name, address = seat["name"], seat["address"]
        pattern = re.compile(rb"^To: .*<" + re.escape(address.encode()) + rb">", re.M)
        mail = [raw for raw in raws if pattern.search(raw)]
        if any(_out_of_name_order(plain(raw)) for raw in mail):
            break
    else:
        raise AssertionError("no report listed piles out of name order: the old order was not compared")
    box = mailbox.Maildir(str(tmp_path / name), factory=None, create=True)
    for raw in mail:
        box.add(raw)
    got = CliRunner().invoke(app, ["verify", str(game.export), "--mail", str(tmp_path / name), "--as", name])
    assert got.exit_code == 0 and got.output.rstrip().endswith("verification passed"), got.output[-3000:]
