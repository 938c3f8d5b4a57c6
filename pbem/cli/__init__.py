"""The `pbem` command line (Typer).  Thin: each module under here parses options, calls one function, prints.

Heavy modules are imported inside the commands, so that an idle cron run
(`pbem poll` with nothing to do) costs little more than starting Python.
Importing the command modules registers their commands on `app`.
"""

from __future__ import annotations

from pbem.cli import games, history, home, outbox, poll, tour  # noqa: F401  (registers the commands)
from pbem.cli.common import app

__all__ = ["app", "main"]


def main() -> None:
    from pbem.record.sealing import Unsealable

    try:
        app(prog_name="pbem", standalone_mode=True)
    except Unsealable as exc:  # the home's key file is missing or another home's: say which, no traceback
        import sys

        print(f"pbem: {exc}", file=sys.stderr)  # noqa: T201
        raise SystemExit(3) from None


if __name__ == "__main__":  # pragma: no cover
    main()
