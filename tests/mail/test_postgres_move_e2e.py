"""A game by real email (pymap + aiosmtpd) whose record moves from SQLite to PostgreSQL mid-play (walk11).

Three rounds of mail on SQLite, `pbem move-record URL --edit-config` (the CLI, as a moderator types it), then the
game played to its end on PostgreSQL over the same IMAP and SMTP servers: every mail a player finds in their
mailbox has its own Message-ID (none sent twice across the move), as many as the outbox says were sent to them, and
the export of the finished game verifies.  Skips without a PostgreSQL server (tests/pg.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.home import config as config_mod
from pbem.record import store
from pbem.record.db import session
from tests import pg
from tests.mail.test_e2e import World, legal_lines, play_to_the_end

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    yield from pg.own_database()


@pytest.fixture
def world(pip_servers, tmp_path: Path, monkeypatch) -> Iterator[World]:
    w = World(pip_servers, tmp_path, monkeypatch)
    with w.readers:
        yield w


def _rounds(w: World, bots: list, n: int) -> None:
    """`n` rounds of the players reading their mail and answering it, each followed by a poll."""
    w.cfg.replies_per_hour = max(w.cfg.replies_per_hour, 100_000)
    w.poll()
    for _ in range(n):
        for b in bots:
            latest = None
            for m, text in w.new_mail(b.name):
                b.learn(text)
                if legal_lines(text):
                    latest = (m, text)
            if latest and (raw := b.answer(latest[0], latest[1], "g1", w.cfg.moderator_address)):
                w.send_raw(raw, b.address)
        w.poll()


def _message_ids(w: World, address: str) -> list[str]:
    client = w.reader(address)
    client.select_folder("INBOX", readonly=True)
    uids = client.search(["ALL"])
    got = client.fetch(uids, [b"BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)]"]) if uids else {}
    return [bytes(v[b"BODY[HEADER.FIELDS (MESSAGE-ID)]"]).decode().strip() for v in got.values()]


def test_a_game_by_email_moved_to_postgres_mid_play_ends_with_no_mail_twice(world: World, pg_url: str) -> None:
    from pbem.history.export import build, verify
    from tests.test_postgres_move import emptied

    _, bots = world.new_game("italian-wars", 2)
    _rounds(world, bots, 3)
    with session(world.cfg.database_url) as s:
        assert not store.is_over(s, store.game_by_name(s, "g1").id)  # mid-play
    dst = emptied(pg_url)
    got = CliRunner().invoke(app, ["--config", str(world.cfg.path), "move-record", dst, "--edit-config"])
    assert got.exit_code == 0, got.output
    assert "every game's chain checks from the copy" in got.output and "\npbem: " not in got.output
    assert "pbem:pbem@" not in got.output  # the password never printed
    world.cfg = config_mod.load(world.cfg.path)
    assert world.cfg.database_url == dst
    play_to_the_end(world, bots, "italian-wars")
    with session(dst) as s:
        doc = build(s, store.game_by_name(s, "g1"))
    assert verify(doc).ok
    for b in bots:
        ids = _message_ids(world, b.address)
        assert len(ids) == len(set(ids)) == world.sent_to(b.address), b.name
