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
    app(prog_name="pbem")


if __name__ == "__main__":  # pragma: no cover
    main()
