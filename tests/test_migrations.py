"""The schema is made only by Alembic, and the models never drift from it."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlmodel import SQLModel

from pbem.record import models  # noqa: F401
from pbem.record.db import WAL_LIMIT, WAL_PAGES, engine_for, migrate


def test_upgrade_head_on_an_empty_database_matches_the_models(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    migrate(url)
    eng = create_engine(url)
    with eng.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        assert {
            "games",
            "seats",
            "inbound_messages",
            "orders",
            "events",
            "snapshots",
            "outbox",
            "deadlines",
            "control_actions",
            "alembic_version",
        } <= tables
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata)
    assert diff == [], f"models and migrations differ: {diff}"


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'wal.db'}"
    migrate(url)
    with engine_for(url).connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() >= 1000


def test_sqlite_copies_its_log_in_large_windows_and_cuts_it_back_after(tmp_path: Path) -> None:
    """A poll's log is copied into the database every 64 MiB, not every 4 MiB (each page once for many
    messages: benchmarks/wal_window.py), and the log file never stays larger than that after a copy."""
    url = f"sqlite:///{tmp_path / 'window.db'}"
    migrate(url)
    with engine_for(url).connect() as conn:
        assert conn.execute(text("PRAGMA wal_autocheckpoint")).scalar() == WAL_PAGES == 16_384
        assert conn.execute(text("PRAGMA journal_size_limit")).scalar() == WAL_LIMIT == 64 * 1024 * 1024


def _schema(url: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Every table, index and trigger with its SQL, and the revision(s) stamped in alembic_version."""
    with create_engine(url).connect() as conn:
        objects = conn.execute(text("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"))
        return [(n, s) for n, s in objects], sorted(
            conn.execute(text("SELECT version_num FROM alembic_version")).scalars()
        )


def test_upgrade_is_idempotent(tmp_path: Path) -> None:
    """A second upgrade at head changes neither the schema, the stamped revision nor the rows."""
    from alembic.script import ScriptDirectory

    from pbem.record.db import alembic_config

    url = f"sqlite:///{tmp_path / 'twice.db'}"
    migrate(url)
    before = _schema(url)
    heads = ScriptDirectory.from_config(alembic_config(url)).get_heads()
    assert before[1] == sorted(heads) and len(heads) == 1
    row = "INSERT INTO games (name, kind, seed, seed_commitment, insecure_seed, legacy_events, players_json, options_json, deadline_seconds, resolve, created_at) VALUES ('kept', 'hh', 's', 'c', 0, 0, '[]', '{}', 60, 'asap', '2026-01-05 12:00:00')"
    with create_engine(url).begin() as conn:
        conn.execute(text(row))
    migrate(url)
    assert _schema(url) == before
    with create_engine(url).connect() as conn:
        assert conn.execute(text("SELECT name, kind FROM games")).all() == [("kept", "hh")]


def readers_filled_by_0018(url: str) -> None:
    """A record at 0017 with events of every visibility (and more than a batch of the migration's): upgraded, each
    event has the `event_readers` rows `store.append_events` writes (`models.readers_of`), and no other."""
    import json

    from pbem.record.models import readers_of

    migrate(url, "0017_events_kind_index")
    kinds = ["public", "moderator", ["Alice"], ["Bob", "Alice", "Bob"], [], "Alice"]
    game = "INSERT INTO games (name, kind, seed, seed_commitment, insecure_seed, legacy_events, players_json, options_json, deadline_seconds, resolve, created_at) VALUES (:n, 'hh', 's', 'c', false, 0, '[]', '{}', 60, 'asap', '2026-01-05 12:00:00')"
    event = "INSERT INTO events (game_id, seq, input_seq, kind, text, visibility_json, data_json, created_at, hash) VALUES (:g, :s, 1, 'note', '', :v, '{}', '2026-01-05 12:00:00', '')"
    eng = create_engine(url)
    with eng.begin() as conn:
        for name in ("one", "two"):
            conn.execute(text(game), {"n": name})
        gids = list(conn.execute(text("SELECT id FROM games ORDER BY id")).scalars())
        made = [
            (g, q, kinds[q % len(kinds)])
            for g, events in zip(gids, (7, 5_003), strict=True)
            for q in range(1, events + 1)
        ]
        conn.execute(text(event), [{"g": g, "s": q, "v": json.dumps(v)} for g, q, v in made])
    migrate(url)
    with eng.connect() as conn:
        got = sorted(conn.execute(text("SELECT game_id, reader, seq FROM event_readers")).all())
    eng.dispose()
    assert got == sorted((g, r, q) for g, q, v in made for r in readers_of(v))


def test_0018_gives_every_older_event_its_readers(tmp_path: Path) -> None:
    readers_filled_by_0018(f"sqlite:///{tmp_path / 'readers.db'}")
