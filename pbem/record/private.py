"""Files only the moderator may read: the home's key files, the SQLite database, moderator exports.

Each is created mode 0600 whatever the umask (a database holds every game's seed, so every hand; a key
file what seals the games' keys and codes).  `create` makes a new file, never one that exists (a key
file must not be overwritten); `write` writes or replaces a file and leaves it 0600; `sqlite_file`
makes a SQLite database's file before SQLite does, and SQLite gives its -wal and -shm files the mode
of the database file.
"""

from __future__ import annotations

import os
from pathlib import Path

MODE = 0o600


def create(path: Path) -> int:
    """A new file at `path`, mode 0600, open for writing; FileExistsError if there is one."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, MODE)


def write(path: Path, text: str) -> None:
    """`text` (UTF-8) into `path`, created or replaced whole (`files.write_whole`: never half of it), mode 0600."""
    from pbem.record.files import write_whole

    write_whole(path, text, MODE)


def create_whole(path: Path, data: bytes) -> bool:
    """A new file at `path` holding `data`, mode 0600, made whole or not at all (a key file stopped half-way
    was empty, and refused as damaged by every later command); False if there is one (it is left as it is)."""
    from pbem.record.files import write_whole

    return write_whole(path, data, MODE, replace=False)


def database_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for other databases and for :memory:)."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or url.startswith("sqlite:///:memory:"):
        return None
    return Path(url[len(prefix) :].partition("?")[0])


def sqlite_file(url: str) -> None:
    """Make the empty file of a new SQLite database, mode 0600 (SQLite takes an empty file as a new database,
    and creates its -wal and -shm with the database file's mode); nothing when it exists or is no file."""
    path = database_path(url)
    if path is None or path.exists():
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(create(path))
    except FileExistsError:
        pass


def narrow(path: Path) -> bool:
    """Take group and other access away from an existing file of the moderator's (a database or key file an
    older pbem made with the umask's mode).  True when its mode changed; False when it was private already,
    does not exist, or is not ours to change."""
    try:
        mode = path.stat().st_mode & 0o777
        if not mode & 0o077:
            return False
        os.chmod(path, mode & 0o700)
    except OSError:
        return False
    return True
