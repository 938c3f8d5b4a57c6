"""Alembic environment for the pbem game record (render_as_batch for SQLite)."""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlmodel import SQLModel

from pbem.record import models  # noqa: F401  (registers the tables)
from pbem.record.db import engine_for

config = context.config
target_metadata = SQLModel.metadata


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _pragma(connection: Any, setting: str) -> None:
    """On the DB-API connection itself: through SQLAlchemy, a statement would first BEGIN (pbem.record.db),
    and SQLite ignores this pragma inside a transaction."""
    dbapi = connection.connection.dbapi_connection
    assert dbapi is not None
    dbapi.execute(f"PRAGMA {setting}")


def run_migrations_online() -> None:
    connectable = config.attributes.get("connection")
    if connectable is None:
        connectable = engine_for(config.get_main_option("sqlalchemy.url"))
    with connectable.connect() as connection:
        if connection.dialect.name == "sqlite":
            # A batch migration recreates a table (copy, drop, rename): with foreign keys enforced, dropping a
            # table other rows reference (games) fails.  The pragma only works outside a transaction, so it is
            # set before the migrations' one; the schema check after them (`pbem check`) still sees every key.
            _pragma(connection, "foreign_keys=OFF")
        # One transaction for the whole run on SQLite too (Alembic commits after each migration where it takes DDL
        # for not transactional; SQLite's is): a downgrade that a migration refuses (0021's, while a mail is
        # pruned) leaves the later ones it took back (0022's) undone as well, the record as it was (perf29).
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=True,
            compare_type=True,
            transactional_ddl=True,
        )
        try:
            with context.begin_transaction():
                if connection.dialect.name == "postgresql":  # a table rewritten on a large record may take minutes,
                    connection.exec_driver_sql("SET LOCAL statement_timeout = 0")  # and a data step compute between
                    connection.exec_driver_sql("SET LOCAL idle_in_transaction_session_timeout = 0")  # its statements
                context.run_migrations()
            connection.commit()
        finally:  # a migration that refuses (0021's downgrade) or fails leaves no pooled connection without its keys
            if connection.dialect.name == "sqlite":
                connection.rollback()
                _pragma(connection, "foreign_keys=ON")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
