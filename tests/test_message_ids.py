"""Outgoing Message-IDs reveal nothing, yet stay stable (issue 12): an HMAC under a secret kept in the record."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from pbem.app.games import create_game
from pbem.home.app import Home
from pbem.mail.outbound.compose import stable_message_id
from pbem.record.db import session
from pbem.record.home_secrets import message_id_key

PLAYERS = [("Alice", "alice@x.test"), ("Bob", "bob@x.test"), ("Carol", "carol@x.test")]


def test_the_id_is_keyed_stable_and_unguessable_without_the_secret() -> None:
    a, b = b"a" * 32, b"b" * 32
    key = ("report", "hh", "Alice", 3)
    assert stable_message_id("x.test", *key, secret=a) == stable_message_id("x.test", *key, secret=a)
    assert stable_message_id("x.test", *key, secret=a) != stable_message_id("x.test", *key, secret=b)
    unkeyed = hashlib.sha256("\x1f".join(str(k) for k in key).encode()).hexdigest()[:32]
    assert unkeyed not in stable_message_id("x.test", *key, secret=a)  # the old, recomputable form
    with pytest.raises(TypeError):
        stable_message_id("x.test", *key)  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        stable_message_id("x.test", *key, secret=b"short")


def _ids(cfg) -> list[str]:
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    try:
        return [m for (m,) in con.execute("SELECT message_id FROM outbox ORDER BY id")]
    finally:
        con.close()


def test_each_home_has_its_own_secret_in_the_record(home, tmp_path: Path) -> None:
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    other = config_mod.load(init_home(tmp_path / "other", address="moderator@pbem.test", name="Test Moderator"))
    for cfg in (home, other):
        create_game(Home.of(cfg), "habsburg", "hh", PLAYERS, seed="same", codes={p: "CODE-2345" for p, _ in PLAYERS})
    with session(home.database_url) as s1, session(other.database_url) as s2:
        k1, k2 = message_id_key(s1), message_id_key(s2)
    assert len(k1) == 32 and k1 != k2
    ids1, ids2 = _ids(home), _ids(other)
    assert len(ids1) == 3 and not set(ids1) & set(ids2)  # same game, same mail, different homes: nothing shared


def test_a_mail_queued_again_after_a_crash_keeps_its_id(home) -> None:
    """A fresh process (no cache) reads the same secret from the record and derives the same ID."""
    with session(home.database_url) as s:
        first = stable_message_id(home.domain, "report", "hh", "Alice", 1, secret=message_id_key(s))
    with session(home.database_url) as s:
        again = stable_message_id(home.domain, "report", "hh", "Alice", 1, secret=message_id_key(s))
    assert first == again


def test_a_record_without_the_row_gets_one(home) -> None:
    from sqlalchemy import text

    with session(home.database_url) as s:
        s.connection().execute(text("DELETE FROM home_secrets"))
        s.commit()
    with session(home.database_url) as s:
        made = message_id_key(s)
        s.commit()
    with session(home.database_url) as s:
        assert message_id_key(s) == made and len(made) == 32
