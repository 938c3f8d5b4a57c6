"""Helpers for the PostgreSQL test tier (tests marked `postgres`) and the benchmarks.

The server comes from PBEM_TEST_PG_URL, or else from the private cluster that
`.ci/postgres` starts (its URL is in $PBEM_PG_DIR/url, default /tmp/pbem-pg/url;
if PostgreSQL is installed but the cluster is not running, it is started here).
The server is shared (one machine-wide cluster is cheap to keep), the database is not:
each test process makes its own (`run_database`: CREATE DATABASE pbem_run_<host>_<pid>_<random>,
dropped when the process is done, leftovers of ended processes dropped by the next run), so two
test runs on one machine never see each other's rows.  The URL's role needs CREATEDB (the `pbem`
role of .ci/postgres has it); without it the tests fall back to the URL's own database, which they
wipe, and then two runs at once would collide.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import socket
import subprocess
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PG_DIR = Path(os.environ.get("PBEM_PG_DIR", "/tmp/pbem-pg"))
TABLES = [
    "address_bounces",
    "outbox_mail",
    "outbox",
    "control_actions",
    "deadlines",
    "snapshots",
    "event_readers",
    "events",
    "orders",
    "inbound_messages",
    "seats",
    "games",
]


@lru_cache(maxsize=1)
def server() -> tuple[str | None, str]:
    """(url, "") when a PostgreSQL server answers, else (None, why not)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return None, "psycopg is not installed (pip install 'pbem[postgres]')"
    url = os.environ.get("PBEM_TEST_PG_URL", "")
    if url:
        why = _answers(url)
        return (url, "") if why is None else (None, why)
    url_file = PG_DIR / "url"
    if url_file.exists() and _answers(url_file.read_text().strip()) is None:
        return url_file.read_text().strip(), ""
    if any(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")):
        # installed but not running (a new session on the same machine): start the private cluster
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(["bash", str(ROOT / ".ci" / "postgres")], capture_output=True, timeout=120)
    if not url_file.exists():
        reason = (
            (PG_DIR / "skip-reason").read_text().strip()
            if (PG_DIR / "skip-reason").exists()
            else "PostgreSQL is not installed"
        )
        return None, f"no PostgreSQL server: {reason} (set PBEM_TEST_PG_URL or run bash .ci/postgres)"
    url = url_file.read_text().strip()
    why = _answers(url)
    return (url, "") if why is None else (None, why)


def _answers(url: str) -> str | None:
    """None if the server at `url` answers, else why not."""
    try:
        import psycopg

        with psycopg.connect(plain_url(url), connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # any failure means: skip with the reason
        return f"PostgreSQL at {redact(url)} does not answer: {str(exc).splitlines()[0]}"
    return None


#: Databases made by `run_database` start with this and the host's tag (so a shared server's other hosts'
#: runs are never taken for ended ones).
RUN_PREFIX = "pbem_run_"


def _host_tag() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def with_database(url: str, name: str) -> str:
    """`url` pointing at database `name` on the same server."""
    base, _, query = url.partition("?")
    return base.rsplit("/", 1)[0] + "/" + name + (f"?{query}" if query else "")


def _drop(conn: Any, name: str) -> None:
    from psycopg import sql

    try:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    except Exception:  # PostgreSQL before 13 has no FORCE
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


def leftover_databases(url: str) -> list[str]:
    """This host's run databases whose process has ended (a run that was killed never dropped its own)."""
    import psycopg

    prefix = f"{RUN_PREFIX}{_host_tag()}_"
    with psycopg.connect(plain_url(url), autocommit=True) as conn:
        names = [n for (n,) in conn.execute("SELECT datname FROM pg_database").fetchall() if n.startswith(prefix)]
    ended = []
    for name in names:
        pid = name[len(prefix) :].split("_")[0]
        if pid.isdigit() and not _alive(int(pid)):
            ended.append(name)
    return sorted(ended)


@contextlib.contextmanager
def run_database(url: str) -> Iterator[str]:
    """A new, empty database for this process on the server at `url`; dropped on exit.

    Falls back to `url` itself (yielded unchanged) when its role may not create databases.
    """
    import psycopg
    from psycopg import sql

    name = f"{RUN_PREFIX}{_host_tag()}_{os.getpid()}_{secrets.token_hex(4)}"
    with psycopg.connect(plain_url(url), autocommit=True) as conn:
        for old in leftover_databases(url):
            _drop(conn, old)
        try:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        except psycopg.errors.InsufficientPrivilege:
            yield url
            return
    try:
        yield with_database(url, name)
    finally:
        with psycopg.connect(plain_url(url), autocommit=True) as conn:
            _drop(conn, name)


def own_database() -> Iterator[str]:
    """A `pg_url` fixture's body: this test process's own database with pbem's schema made anew (the test is
    skipped, saying why, where no PostgreSQL server can be used)."""
    import pytest

    url, why = server()
    if url is None:
        pytest.skip(why)
    with run_database(url) as own:
        reset_schema(own)
        ensure_schema(own)
        yield own


def plain_url(url: str) -> str:
    """The libpq form of a SQLAlchemy URL."""
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def redact(url: str) -> str:
    import re

    return re.sub(r"://([^:/@]+):[^@]*@", r"://\1:***@", url)


def reset_schema(url: str) -> None:
    """An empty database: drop everything in the public schema."""
    import psycopg

    with psycopg.connect(plain_url(url), autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
        conn.execute("CREATE SCHEMA public")


def truncate(url: str) -> None:
    """Empty every table of the record, keeping the schema (fast, between tests)."""
    import psycopg

    with psycopg.connect(plain_url(url), autocommit=True) as conn:
        conn.execute(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE")
        # the check value of the last test's home's outbox.key (`pbem.record.outbox_key`): the next home has its own;
        # and when the last test's home last ran (a test clock of January 2026 after one of now was refused as behind)
        # and its restore epochs (months9): a restored walk's epoch, left over, made the next home a restored one
        conn.execute("DELETE FROM home_secrets WHERE name = 'outbox-key-check' OR name LIKE 'message-id-epoch:%'")
        conn.execute("DELETE FROM poll_marks")  # (its backup, upkeep and witness marks too: each test a new home)


def ensure_schema(url: str) -> None:
    """The schema at head (migrating an empty or missing one)."""
    from pbem.record.db import migrate

    migrate(url)


def use_postgres(cfg_path: Path, url: str) -> None:
    """Point a home's pbem.toml at `url` instead of its SQLite file."""
    text = cfg_path.read_text()
    lines = [f'url = "{url}"' if ln.strip().startswith('url = "sqlite') else ln for ln in text.splitlines()]
    assert any(ln == f'url = "{url}"' for ln in lines), "pbem.toml has no [database] url line to replace"
    cfg_path.write_text("\n".join(lines) + "\n")


def pg_home(directory: Path, url: str, address: str = "moderator@pbem.test", name: str = "Test Moderator"):
    """A moderator home whose record is the (already migrated, emptied) PostgreSQL database."""
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    path = init_home(directory, address=address, name=name)
    use_postgres(path, url)
    (directory / "pbem.db").unlink(missing_ok=True)
    return config_mod.load(path)
