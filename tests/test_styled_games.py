"""Whole games played from mail written as people write it, through the real poll (Maildir).

The demo's bots pick the same orders as in a plain game, but each mail is
dressed by `tests.mail_styles`: a greeting, a sign-off, a client signature,
the bot's own report quoted above or below (or under an Outlook header block,
a forwarded marker, Yahoo's run-on attribution), as plain text, format=flowed
or HTML only.  The game must end exactly as the plain-orders game from the
same seed, whose record is tests/golden/records/<kind>.txt (tests/test_history_golden.py):
the styled game's record must be that text, byte for byte.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from pbem import engine as registry
from pbem.cli.demo import Bot, run
from pbem.history.export import text_record
from tests.conftest import Clock
from tests.mail_styles import build, message_lines, own_text


def styled():
    count = itertools.count()

    def write(bot: Bot, lines: list[str], game: str, moderator: str, reply_to: str | None, report: str) -> bytes:
        rng = random.Random(f"{bot.name}:{next(count)}")
        own, _, _ = own_text(rng, orders=list(lines), code=bot.code or "")
        if not bot.code:
            own = [line for line in own if not line.lower().startswith("code ")]
        body = message_lines(rng, own, report.splitlines()) if report else own
        extra = {"In-Reply-To": reply_to} if reply_to else {}
        return build(rng, body, f"{bot.name} <{bot.address}>", moderator, f"[pbem {game}] orders", **extra)

    return write


@pytest.mark.parametrize("kind", ["habsburg", "sixteen-thirty"])
def test_a_whole_game_from_styled_mail_ends_as_the_plain_game(tmp_path: Path, kind: str) -> None:
    from tests.test_history_golden import ROOT, game_of

    if kind not in registry.available():
        pytest.skip(f"{kind} engine not installed")
    players, seed = game_of(kind)
    r = run(kind, players, seed, tmp_path / "home", bot_seed="golden", clock=Clock(), max_polls=3000, style=styled())
    assert r.verified and "did not finish" not in r.summary, r.summary
    record = text_record(json.loads(r.export.read_text()))
    assert record == (ROOT / f"{kind}.txt").read_text(), f"{kind}: the styled game went otherwise than the plain one"
