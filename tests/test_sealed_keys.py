"""Issue 25: the games' signing keys are not in clear in the database (pbem.record.sealing).

A thief of the database alone cannot sign receipts or exports as the game: the key is sealed (AES-256-GCM) with a
wrapping key kept in the home directory (mode 0600), outside the record.  Real SQLite, a real home."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.record import sealing
from pbem.trust import signing


@pytest.fixture
def home(tmp_path: Path):
    from pbem.app.games import Table, create_game
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    cfg = config_mod.load(init_home(tmp_path / "home", address="moderator@pbem.example", name="m"))
    players = [("Alice", "alice@players.example"), ("Bob", "bob@players.example"), ("Carol", "carol@players.example")]
    from pbem.home.app import Home

    create_game(Home.of(cfg), "habsburg", "sealed1", players, table=Table(join=False))
    return cfg


def _stored(cfg) -> str:
    from pbem.record.db import session
    from pbem.record.models import Game

    with session(cfg.database_url) as s:
        value = s.exec(select(Game.signing_key).where(Game.name == "sealed1")).one()
    assert value
    return value


def test_the_key_is_sealed_in_the_record_and_its_wrapping_key_is_private(home) -> None:
    stored = _stored(home)
    assert stored.startswith("sealed:v1:")
    private = sealing.unseal(stored, "sealed1")
    assert len(private) == 64 and private not in stored
    path = home.home / sealing.FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    db = Path(home.database_url.split("///", 1)[1].split("?")[0]).read_bytes()  # what a thief of the record holds
    assert private.encode() not in db and bytes.fromhex(private) not in db


def test_the_export_is_signed_with_the_sealed_key(home) -> None:
    from pbem.history.export import build
    from pbem.record.db import session
    from pbem.record.store import game_by_name

    with session(home.database_url) as s:
        game = game_by_name(s, "sealed1")
        doc = build(s, game)
    assert doc["game"]["key"] == signing.public_key(sealing.unseal(_stored(home), "sealed1"))
    json.dumps(doc)


def test_a_thief_of_the_database_alone_cannot_unseal_it(home, monkeypatch) -> None:
    stored = _stored(home)
    monkeypatch.setattr(sealing, "_KEYS", {})  # the database, without the home's key file
    with pytest.raises(sealing.Unsealable, match="restore that file"):
        sealing.unseal(stored, "sealed1")
    (home.home / sealing.FILE).unlink()  # and a home whose file is lost says so when it loads again
    from pbem.home import config as config_mod

    config_mod.load(home.path)
    with pytest.raises(sealing.Unsealable, match=sealing.FILE):
        sealing.unseal(stored, "sealed1")


def test_a_sealed_key_edited_or_moved_to_another_game_does_not_open(home) -> None:
    stored = _stored(home)
    with pytest.raises(sealing.Unsealable, match="does not open"):
        sealing.unseal(stored, "another-game")  # the game's name is bound to its sealed key
    flipped = stored[:-6] + ("A" if stored[-6] != "A" else "B") + stored[-5:]
    with pytest.raises(sealing.Unsealable, match="does not open"):
        sealing.unseal(flipped, "sealed1")


def test_a_key_stored_in_clear_by_an_older_pbem_is_read_as_it_is() -> None:
    key = signing.new_key()
    assert sealing.unseal(key, "old-game") == key
