"""The CLI's commands as typed (`game new`), from typer's own list: the generators over every command use it, so
a command added later is tried by each of them without a list to keep up to date."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def cli_commands(taking: Callable[[Any], bool] = lambda cmd: True) -> list[str]:
    """Every command of `pbem` (each group's commands, walked down), as typed, sorted; only those for which
    `taking(click_command)` holds (say, those with an argument NAME)."""
    import typer.main

    from pbem.cli import app

    found: list[str] = []

    def walk(cmd: object, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if isinstance(subs, dict):
            for name, sub in subs.items():
                walk(sub, [*path, name])
        elif taking(cmd):
            found.append(" ".join(path))

    walk(typer.main.get_command(app), [])
    return sorted(found)


def has_argument(*names: str) -> Callable[[Any], bool]:
    """`taking` for commands with a positional argument of one of `names`."""
    return lambda cmd: any(p.name in names and p.param_type_name == "argument" for p in getattr(cmd, "params", []))


def has_param(*names: str) -> Callable[[Any], bool]:
    """`taking` for commands with a parameter (argument or option) of one of `names`."""
    return lambda cmd: any(p.name in names for p in getattr(cmd, "params", []))
