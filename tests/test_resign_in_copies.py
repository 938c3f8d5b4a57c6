"""A copy of the mail that asks to confirm a resignation, sent back under a reply, never resigns anyone.

The answer to RESIGN (``resign_confirm``) shows the line that confirms it (``RESIGN 123456``).  A player who
answers it with "thanks" (or "no, I stay") holds that line in the copy their client keeps under the reply:
quoted, unquoted under an Outlook header block, reflowed, forwarded, or in HTML.  Over every client shape: such a
reply resigns nobody, and the line typed above the copy does.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from sqlmodel import select

from pbem.record.db import session
from pbem.record.models import ControlAction
from tests.conftest import deliver
from tests.reply_clients import CLIENTS, reply
from tests.test_reply_corpus import Game


def _resigned(game: Game) -> list[str]:
    with session(game.cfg.database_url) as s:
        return list(s.exec(select(ControlAction.detail).where(ControlAction.action == "resign")).all())


def _asked(tmp_path: Path, client: str) -> tuple[Game, str]:
    game = Game(tmp_path)
    deliver(game.cfg, reply(game.newest, ["Resign"], client, "en", random.Random(f"resign:{client}")))
    game.poll()
    game.newest = game.to_alice()[-1]
    text = str(game.newest.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    found = re.search(r"RESIGN (\d{6})", text)
    assert found, text
    return game, found.group(1)


def test_a_reply_to_the_confirming_mail_resigns_only_with_the_line_typed_above_the_copy(tmp_path: Path) -> None:
    for n, client in enumerate(CLIENTS):
        game, word = _asked(tmp_path / f"{n}", client)
        rng = random.Random(f"stay:{client}")
        deliver(game.cfg, reply(game.newest, ["Thanks, on second thought I stay."], client, "en", rng))
        game.poll()
        assert _resigned(game) == [], client
        deliver(game.cfg, reply(game.newest, [f"RESIGN {word}", "Sorry all."], client, "en", rng))
        game.poll()
        assert _resigned(game) == ["Alice"], client
