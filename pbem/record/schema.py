"""Is the database ready for this pbem?  One cheap look before a command uses it.

A database without pbem's tables (a `pbem.toml` written by hand, a new
PostgreSQL database) or with the schema of an older pbem is never migrated
behind the moderator's back: the command stops with one line saying what to
run (`pbem --config FILE upgrade`), and the CLI exits with status 2.  Only
`pbem upgrade` and `pbem init` create or change the schema.

The newest revision is read from the migration files' `revision` and
`down_revision` lines, so the check costs one connection and two small
queries, not an import of Alembic.
"""

from __future__ import annotations

import re
from pathlib import Path

from pbem.record import private
from pbem.record.db import DatabaseError, migrations_dir

_REVISION = re.compile(r"^revision\s*(?::\s*str\s*)?=\s*['\"]([^'\"]+)['\"]", re.M)
_DOWN = re.compile(r"^down_revision\s*(?::[^=]*)?=\s*(.+)$", re.M)


class SchemaError(Exception):
    """The database lacks pbem's tables or has another schema version; one sentence naming the fix."""


def head_revisions() -> set[str]:
    """The revisions no migration builds on (normally one: the newest)."""
    revisions, parents = _revisions()
    return revisions - parents


def standing(revision: str | None) -> str:
    """How this pbem stands to a database of schema `revision`, in a few words: its own, older (`pbem upgrade`
    brings it up), or one it does not know (a newer pbem wrote it, or it is no pbem database)."""
    revisions, parents = _revisions()
    if revision in revisions - parents:
        return "this pbem's"
    if revision in revisions:
        return "older than this pbem's: run pbem upgrade after restoring"
    return "not one this pbem knows (written by a newer pbem?): check and restore it with that pbem"


def _revisions() -> tuple[set[str], set[str]]:
    """Every revision of the shipped migrations, and those that another builds on."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for file in sorted((migrations_dir() / "versions").glob("*.py")):
        text = file.read_text(encoding="utf-8")
        rev = _REVISION.search(text)
        if rev is None:
            continue
        revisions.add(rev.group(1))
        down = _DOWN.search(text)
        if down:
            parents.update(re.findall(r"['\"]([^'\"]+)['\"]", down.group(1)))
    return revisions, parents


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL (None for other databases and for :memory:)."""
    return private.database_path(url)


def describe(url: str) -> str:
    """The database as the moderator knows it, without a password."""
    file = sqlite_file(url)
    if file is not None:
        return f"the database {file}"
    from sqlalchemy.engine import make_url

    return f"the database {make_url(url).render_as_string(hide_password=True)}"


def check(url: str, config_file: Path) -> None:
    """Raise SchemaError unless the database holds this pbem's schema; DatabaseError if it cannot be opened."""
    upgrade = f"run: pbem --config {config_file} upgrade"
    file = sqlite_file(url)
    if file is not None and not file.exists():
        raise SchemaError(f"{describe(url)} does not exist yet; create it with: pbem --config {config_file} upgrade")
    version = stored_version(url)
    if version is None:
        raise SchemaError(
            f"{describe(url)} has no pbem tables yet; create them with: pbem --config {config_file} upgrade"
        )
    revisions, parents = _revisions()
    heads = revisions - parents
    if version in heads:
        return
    if version in revisions:
        raise SchemaError(
            f"{describe(url)} has schema {version}, this pbem needs {', '.join(sorted(heads))}; {upgrade}"
        )
    raise SchemaError(_unknown(url, version))


def _unknown(url: str, version: str) -> str:
    return (
        f"{describe(url)} has schema {version}, which this pbem does not know (written by a newer pbem?); "
        "upgrade pbem (python3 -m pip install --upgrade pbem), then run pbem upgrade"
    )


def newer(url: str) -> str | None:
    """Why no migration may run on the database (`pbem upgrade`, `pbem init --force` on a home that has one): it
    holds a schema this pbem does not know, a newer pbem's (Alembic stopped with a traceback); else None."""
    version = stored_version(url)
    if version is None or version in _revisions()[0]:
        return None
    return _unknown(url, version)


def stored_version(url: str) -> str | None:
    """The schema revision the database holds (None: no pbem tables yet); DatabaseError if it cannot be read."""
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    from pbem.record.db import reading, unusable

    try:
        with reading(url) as conn:
            if not conn.dialect.has_table(conn, "alembic_version"):
                return None
            version = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
            conn.rollback()
    except DBAPIError as exc:
        raise DatabaseError(unusable(exc)) from None
    return str(version) if version else None
