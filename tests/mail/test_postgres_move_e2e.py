"""A home of several games by real email (pymap + aiosmtpd) whose record moves from SQLite to PostgreSQL mid-play
(walk11; several games of different kinds since walk12).

Two games of two kinds, each with its own players (an Italian Wars of two, a House of Habsburg of three), played
by mail on SQLite for `BEFORE` rounds, then `pbem move-record URL --edit-config` (the CLI, as a moderator types it),
then played on PostgreSQL over the same IMAP and SMTP servers: `AFTER` more rounds in the suite, every game to its
end with `PBEM_MOVE_E2E_WHOLE=1` (or `.ci/run`'s whole-size step, `PBEM_FULL_SIZE=1`).  Required: each game was
mid-play when moved (inputs recorded, not over); every mail a player finds in their mailbox has its own Message-ID
(none sent twice across the move), as many as the outbox says were sent to them; the moved record's games go on from
where they were (their inputs continue); every game's export verifies.  Skips without a PostgreSQL server
(tests/pg.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.app import games
from pbem.cli import app
from pbem.cli.demo import Bot, demo_code, legal_lines
from pbem.engine.rng import Rng, init_state
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from tests import pg
from tests.mail.conftest import MODERATOR
from tests.mail.test_e2e import World
from tests.sizes import FULL

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]

#: (game, kind, its players): no player in two games, so each mailbox is one game's
GAMES = [("iw", "italian-wars", ["Alice", "Bob"]), ("hh", "habsburg", ["Carol", "Dave", "Erin"])]
BEFORE, AFTER = 3, 2
WHOLE = FULL or os.environ.get("PBEM_MOVE_E2E_WHOLE", "0") != "0"


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    yield from pg.own_database()


@pytest.fixture
def world(pip_servers, tmp_path: Path, monkeypatch) -> Iterator[World]:
    w = World(pip_servers, tmp_path, monkeypatch)
    with w.readers:
        yield w


def _made(w: World) -> dict[str, list[Bot]]:
    table = {}
    for name, kind, players in GAMES:
        bots = [Bot(p, w.address(p), Rng(init_state(f"e2e:{p}"))) for p in players]
        games.create_game(
            Home.of(w.cfg),
            kind,
            name,
            [(b.name, b.address) for b in bots],
            seed=f"move-{name}",
            clock=w.clock,
            codes={b.name: demo_code("e2e", b.name) for b in bots},
        )
        table[name] = bots
    return table


def _over(w: World) -> dict[str, bool]:
    with session(w.cfg.database_url) as s:
        return {name: store.is_over(s, store.game_by_name(s, name).id) for name, _, _ in GAMES}


def _inputs(w: World) -> dict[str, int]:
    with session(w.cfg.database_url) as s:
        return {name: store.last_order_seq(s, store.game_by_name(s, name).id) for name, _, _ in GAMES}


def _round(w: World, table: dict[str, list[Bot]]) -> None:
    """The players of the games not over read their mail and answer it; a STATUS each when nobody could; a poll."""
    wrote = 0
    over = _over(w)
    for name, bots in table.items():
        if over[name]:
            continue
        for b in bots:
            latest = None
            for m, text in w.new_mail(b.name):
                b.learn(text)
                if legal_lines(text):
                    latest = (m, text)
            if latest and (raw := b.answer(latest[0], latest[1], name, MODERATOR)):
                w.send_raw(raw, b.address)
                wrote += 1
    if not wrote:
        for name, bots in table.items():
            for b in bots if not over[name] else []:
                w.send_raw(b.order_mail(["STATUS"], name, MODERATOR, None), b.address)
    w.poll()


def _message_ids(w: World, address: str) -> list[str]:
    client = w.reader(address)
    client.select_folder("INBOX", readonly=True)
    uids = client.search(["ALL"])
    got = client.fetch(uids, [b"BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)]"]) if uids else {}
    return [bytes(v[b"BODY[HEADER.FIELDS (MESSAGE-ID)]"]).decode().strip() for v in got.values()]


def test_games_of_two_kinds_moved_to_postgres_mid_play_go_on_with_no_mail_twice(world: World, pg_url: str) -> None:
    from pbem.history.export import build, verify
    from tests.test_postgres_move import emptied

    table = _made(world)
    world.cfg.replies_per_hour = max(world.cfg.replies_per_hour, 100_000)  # bots write at machine speed
    world.poll()
    for _ in range(BEFORE):
        _round(world, table)
    moved_at = _inputs(world)
    assert not any(_over(world).values()) and all(moved_at.values()), moved_at  # every game mid-play
    dst = emptied(pg_url)
    got = CliRunner().invoke(app, ["--config", str(world.cfg.path), "move-record", dst, "--edit-config"])
    assert got.exit_code == 0, got.output
    assert f"{len(GAMES)} games) into " in got.output and "every game's chain checks from the copy" in got.output
    assert "pbem:pbem@" not in got.output  # the password never printed
    world.cfg = config_mod.load(world.cfg.path)
    assert world.cfg.database_url == dst
    for _ in range(400 if WHOLE else AFTER):
        _round(world, table)
        if WHOLE and all(_over(world).values()):
            break
    assert not WHOLE or all(_over(world).values()), "every game ended"
    after = _inputs(world)
    assert all(after[n] > moved_at[n] for n in after), (moved_at, after)  # each game went on from where it was
    with session(dst) as s:
        for name, _, _ in GAMES:
            doc = build(s, store.game_by_name(s, name))
            checked = verify(doc, partial=not doc["game"]["over"])  # (a game running: what its export can show)
            assert checked.ok, (name, checked.problem)
    for bots in table.values():
        for b in bots:
            ids = _message_ids(world, b.address)
            assert len(ids) == len(set(ids)) == world.sent_to(b.address), b.name
