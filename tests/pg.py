"""Helpers for the PostgreSQL test tier (tests marked `postgres`) and the benchmarks.

The server comes from PBEM_TEST_PG_URL, or else from the private cluster that
`.ci/postgres` starts (its URL is in $PBEM_PG_DIR/url, default /tmp/pbem-pg/url;
if PostgreSQL is installed but the cluster is not running, it is started here).
The database named by the URL is wiped by these tests: point PBEM_TEST_PG_URL
at a database made for them.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_DIR = Path(os.environ.get("PBEM_PG_DIR", "/tmp/pbem-pg"))
TABLES = [
    "outbox",
    "control_actions",
    "deadlines",
    "snapshots",
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
