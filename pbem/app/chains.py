"""Each game's hash chain as a record reads it: what `pbem move-record` compares on both sides, and what `pbem backup`
and `pbem backup --check` check in the copy (walk12).

An event or order whose row SQLite stores past its first page (an overflow page) can be overwritten on disk without
SQLite seeing it: its `quick_check` follows each overflow page's number of the next one and reads nothing else.  The
chain sees it: each entry's hash is over its content and the previous hash, so a changed event breaks the chain at
that entry (or cannot be read at all: text that is no UTF-8 any more).  Nothing read the chain of the record
itself but an export (walk10's generator found page 55 of a small home, an event's, unseen by every check).
A pg_dump restored by `pbem backup --check --restore-into` has its chains read the same way (`reader`, costs27).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.record.db import DatabaseDamaged, Unit

if TYPE_CHECKING:
    from pbem.record.backup import Opened


def verdict(s: Unit, game_id: int) -> str:
    """A game's chain as the record at `s` reads it: "ok N entries HEAD", or where it breaks, or why it could not be
    read (the same words on both sides is what the move requires)."""
    from pbem.history.export import chained
    from pbem.record.store import game_by_id
    from pbem.trust import chain

    try:
        game = game_by_id(s, game_id)
        assert game is not None
        rows = chained(s, game)  # (as the moderator's export lists it, without loading the game's state)
        bad, head = chain.first_break(game.seed_commitment, rows)
    except Exception as exc:  # a record the SQLite side cannot read either: compared as it is
        return f"unreadable: {type(exc).__name__}"
    return f"ok {len(rows)} entries {head}" if bad < 0 else f"breaks at entry {bad + 1}"


def broken_in(path: Path, deadline: float | None = None) -> list[str]:
    """The games of the SQLite copy at `path` (read as immutable: nothing written beside it) whose chain does not
    check, each as "NAME (breaks at entry N)" or "NAME (unreadable: ...)"; `backup.Late` past `deadline`
    (`backup.now()`)."""
    from pbem.record.backup import copy_unit

    with copy_unit(path) as (s, games):
        return _broken(s, games, deadline)


def _broken(s: Unit, games: list[tuple[int, str]], deadline: float | None) -> list[str]:
    from pbem.record.backup import Late, now

    found = []
    for read, (game_id, name) in enumerate(games):
        if deadline is not None and now() > deadline:
            raise Late(f"the chains of {read:,} of {len(games):,} games had been read at the deadline")
        said = verdict(s, game_id)
        if not said.startswith("ok "):
            found.append(f"{name} ({said})")
    return found


def reader(deadline: float | None) -> Callable[[Unit, list[tuple[int, str]]], list[str]]:
    """What reads the chains of a pg_dump restored into a scratch database (`pbem.record.restore_probe.restored`):
    `broken_in`'s reading on its unit, `backup.Late` past `deadline` (costs27: none was read there before)."""
    return lambda s, games: _broken(s, games, deadline)


def told(broken: list[str]) -> list[str]:
    """What `pbem backup` and its `--check` say of the games whose chain does not check (none: [])."""
    if not broken:
        return []
    names = ", ".join(broken[:5]) + (", ..." if len(broken) > 5 else "")
    return [
        f"{len(broken)} game(s)' hash chain does not check: {names} (a page SQLite's quick_check does not read was "
        "overwritten: an event or order changed)"
    ]


def copy_told(path: Path, got: Opened, deadline: float | None = None) -> list[str]:
    """`told` of the SQLite copy at `path` as `backup.opened` found it (`got`): [] when it holds no pbem tables or
    SQLite found it damaged itself (said already).  Past `deadline`, `backup.Late`: the caller's late, as its other
    steps' (not damage: costs23's places, `tests/reliability/test_costs23_backup_check.py`)."""
    if got.revision is None or got.problems:
        return []
    return told(broken_in(path, deadline))


def record_line(url: str, deadline: float | None = None) -> tuple[str, bool | None]:
    """`pbem check`'s line on the home's record, each game's chain read (walk12) until `deadline` (`backup.now()`), and
    whether it found damage (None: not all read by the deadline, said: costs27, the command's deadline ended it)."""
    from pbem.engine.words import count
    from pbem.record.backup import Late, live_unit
    from pbem.record.db import damage_of, damaged_line

    try:
        with live_unit(url) as (s, games):
            broken = _broken(s, games, deadline)
    except Late as exc:
        return (
            f"FAIL  the record: late: {exc}, none broken so far; the rest was not read (give it more time: "
            "[limits] command_deadline, or PBEM_COMMAND_DEADLINE)",
            None,
        )
    except Exception as exc:  # a record that cannot be read: the checks above still said what they found
        if isinstance(exc, DatabaseDamaged) or (words := damage_of(exc)) is not None:
            return f"FAIL  the record: {exc if isinstance(exc, DatabaseDamaged) else damaged_line(words or '')}", True
        return f"note  the record's chains could not be read: {type(exc).__name__}: {str(exc)[:200]}", False
    if broken:
        return (
            f"FAIL  the record: {told(broken)[0]}; stop the cron poll and restore the newest backup that "
            "`pbem backup --check` finds intact (README: Backups)",
            True,
        )
    return f"ok    the record: {count(len(games), 'game')}, each one's hash chain checks", False
