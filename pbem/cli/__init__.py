"""The `pbem` command line (Typer).  Thin: each module under here parses options, calls one function, prints.

Heavy modules are imported inside the commands, so that an idle cron run
(`pbem poll` with nothing to do) costs little more than starting Python.
Importing the command modules registers their commands on `app`.
"""

from __future__ import annotations

from pbem.cli import backup, games, history, home, outbox, poll, tour  # noqa: F401  (registers the commands)
from pbem.cli.common import app, clipped

__all__ = ["app", "main"]


def main() -> None:
    """Run one command.  What the home's files cannot give (its key file, its database) ends any command the
    same way: one line saying why, exit 3 (README "Operations"), never a traceback; a damaged database exit 4
    (README "Backups"); other errors are bugs."""
    try:
        app(prog_name="pbem", standalone_mode=True)
    except Exception as exc:
        why = _unusable(exc)
        if why is None:
            raise
        import sys

        from pbem.record.db import DAMAGED_EXIT, DatabaseDamaged, damage_of, damaged_line

        words = damage_of(exc)
        if words is not None:  # the driver's own error, met outside an engine (a backup's copy, a raw read)
            why = damaged_line(words)
        print(f"pbem: {clipped(why)}", file=sys.stderr)  # noqa: T201
        raise SystemExit(DAMAGED_EXIT if isinstance(exc, DatabaseDamaged) or words is not None else 3) from None


def _unusable(exc: Exception) -> str | None:
    """The one line for an error of the home rather than of pbem: a missing or foreign key file, a database
    that cannot be used (read-only, gone, locked past the busy timeout); None for anything else."""
    from sqlalchemy.exc import OperationalError

    from pbem.record.db import DatabaseError, broken_server, damage_of, unusable
    from pbem.record.sealing import Unsealable

    if isinstance(exc, (Unsealable, DatabaseError)):
        return str(exc)
    if damage_of(exc) is not None:
        return "damaged"
    if isinstance(exc, OperationalError) or broken_server(exc):
        return unusable(exc)
    return None


if __name__ == "__main__":  # pragma: no cover
    main()
