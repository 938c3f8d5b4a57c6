"""The schema is made only by Alembic, and the models never drift from it."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlmodel import SQLModel

from pbem.record import models  # noqa: F401
from pbem.record.db import engine_for, migrate


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


def test_upgrade_is_idempotent(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'twice.db'}"
    migrate(url)
    migrate(url)
