"""`pbem backup DEST`: the whole home saved in one private folder, consistent while a poll runs.

A copy of the database alone loses every game's signing key and every player's code (they are sealed with
`game-keys.secret`, which lives in the home, not the record), and a `cp pbem.db` taken during a poll misses
what the poll wrote in `pbem.db-wal`.  So one command saves, into a new folder of DEST (a dated name unless
`--name` gives one): the database by SQLite's online backup API, as of one commit (`pbem.record.backup`), or
on PostgreSQL by `pg_dump` when it is on PATH; the key files `game-keys.secret` and `outbox.key`; `pbem.toml`;
`sent-ids.ledger`, the ids of the mails the home had sent when the copy was made (its ledger and the sender's
journals no poll had folded yet: the copy holds those as waiting), which a restore adds to the home's ledger so
that `pbem poll --trust-clock` marks them sent (`pbem.record.sentlog`); and `manifest.json` (the pbem version, the schema revision, the time, each file's size and SHA-256), which
`pbem backup --check` reads (`pbem.app.backup_check`).

The folder is built under a temporary name beside its own and renamed into place once every file is written
and flushed, so a backup stopped anywhere leaves none half-made; an existing folder is never overwritten.  The
folder is mode 0700 and its files 0600, whatever the umask: the database holds every game's seed, the key files
what seals the games' keys and codes, `pbem.toml` perhaps a password.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import shutil
import sqlite3
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from pbem import __version__
from pbem.home.config import MAX_CONFIG_BYTES, Config
from pbem.mail.outbound.sealed import KEY_FILE as OUTBOX_KEY
from pbem.record import backup, outbox_key, private, sealing, sentlog
from pbem.record.files import Unreadable, read_at_most

MANIFEST = "manifest.json"
FORMAT = 1  # manifest.json's "format"
FOLDER = 0o700
CHUNK = 1 << 20
#: A backup's own name: letters, digits, ".", "_" and "-", not starting with "." (never a path, nor hidden).
NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$")
SQLITE_FILE = "pbem.db"
PG_FILE = "pbem.pgdump"


class Refused(ValueError):
    """DEST or the name cannot take a backup, or there is one there already; one sentence (exit 2)."""


@dataclass
class Taken:
    """A backup made: its folder, the files it holds, and what the moderator should know (`notes`)."""

    folder: Path
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)  # SQLite's `quick_check` lines of a database copied as it is
    unlike: list[str] = field(default_factory=list)  # its queued mails' bytes that are not those queued (walk10)


def dated(now: datetime) -> str:
    """The default name of a backup taken at `now`: one a day's cron line never repeats, sorted by time."""
    return now.strftime("pbem-%Y-%m-%dT%H%M%SZ")


def folder_for(dest: Path, name: str) -> Path:
    """Where the backup named `name` goes in `dest`; Refused when it cannot."""
    if not NAME.match(name):
        raise Refused(f"--name {name!r} is no plain name: give letters, digits, '.', '_' or '-', not starting with '.'")
    if dest.exists() and not dest.is_dir():
        raise Refused(f"{dest} is a file, not a folder: give a folder (the backup is made inside it)")
    target = dest / name
    if target.exists() or target.is_symlink():
        raise Refused(f"{target} exists: pbem never overwrites a backup; give another --name or another folder")
    return target


def take(cfg: Config, dest: Path, name: str, now: datetime, seconds: float) -> Taken:
    """Save the home of `cfg` into `dest`/`name` within `seconds`: Refused (DEST, the name), backup.Late (the
    deadline), OSError or sqlite3.Error (a file that could not be read or written); nothing left on failure."""
    target = folder_for(dest, name)
    work = dest / f".{name}.{os.getpid()}.tmp"
    try:
        dest.mkdir(parents=True, exist_ok=True, mode=FOLDER)
        shutil.rmtree(work, ignore_errors=True)  # one an earlier run of this process id left
        work.mkdir(mode=FOLDER)
    except OSError as exc:  # a folder not ours to write, a full disk: DEST is to change
        raise Refused(f"{dest}: cannot make a backup there: {exc.strerror or exc}") from None
    try:
        os.chmod(work, FOLDER)  # whatever the umask
        taken = Taken(target)
        manifest = _fill(cfg, work, taken, now, time.monotonic() + seconds)
        private.write(work / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        _synced(work, files=True)
        if target.exists() or target.is_symlink():  # made meanwhile by another run
            raise Refused(f"{target} exists: pbem never overwrites a backup; give another --name or another folder")
        os.rename(work, target)
        _synced(dest, files=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _remember(cfg, target, now)
    return taken  # (runs killed before they could clear up, and old backups: `pbem.app.backup_clear`)


def _remember(cfg: Config, target: Path, now: datetime) -> None:
    """The newest backup's time and folder, for the poll's look at the home's upkeep (`pbem.app.upkeep_look`);
    a database that cannot take it (damaged, read-only) keeps the backup all the same."""
    from pbem.record import marks

    try:
        marks.remember(cfg.database_url, marks.BACKUP_MADE, json.dumps({"at": now.isoformat(), "folder": str(target)}))
    except Exception as exc:  # (a move's lock: its line, walk12; before, "OperationalError")
        from pbem.record.db import why_not

        why = why_not(exc)
        logging.getLogger("pbem.backup").warning("the backup's time was not kept in the database: %s", why)


def _fill(cfg: Config, work: Path, taken: Taken, now: datetime, deadline: float) -> dict[str, object]:
    """Write the database and the home's files into `work`; the manifest that names them."""
    manifest: dict[str, object] = {"format": FORMAT, "pbem": __version__, "taken": now.strftime("%Y-%m-%dT%H:%M:%SZ")}
    from pbem.app.whose import whose
    from pbem.record.db import DatabaseDamaged, damage_of

    try:
        if (owner := whose(cfg.database_url, cfg.home)).kept is None:  # a home that never ran: the copy names it
            owner.adopt(cfg.database_url, cfg.home)  # (restored into another folder, it is refused: `pbem.app.whose`)
    except DatabaseDamaged:  # its tables cannot be read: the copy below is made all the same, and said damaged
        pass
    file = private.database_path(cfg.database_url)
    copied = None
    if file is not None:
        if not file.is_file():
            raise OSError(f"the database {file} does not exist")
        backup.copy_sqlite(file, work / SQLITE_FILE, deadline)  # page by page: it reads no table
        manifest |= {"database": "sqlite", "database_file": SQLITE_FILE}
        try:
            copied = backup.opened(work / SQLITE_FILE)
        except sqlite3.DatabaseError as exc:  # a page quick_check cannot read past (the schema's): kept as it is
            if (words := damage_of(exc)) is None:
                raise
            taken.damaged = [words]
            manifest["schema"] = None
        else:
            manifest["schema"] = copied.revision
            if copied.problems:  # the copy is the database as it is: said, so the moderator looks at the original
                taken.damaged = list(copied.problems)
            from pbem.app import chains

            taken.unlike = backup.unlike(copied) + chains.copy_told(work / SQLITE_FILE, copied, deadline)  # (walk12)
    else:
        manifest |= {"database": "postgresql", "database_file": _dumped(cfg, work, taken, deadline)}
        from pbem.record.schema import stored_version

        manifest["schema"] = stored_version(cfg.database_url)
    from pbem.record.schema import head_revisions, standing

    schema = manifest["schema"] if isinstance(manifest["schema"], str) else None
    if (
        schema not in head_revisions() and not taken.damaged
    ):  # saved all the same: a backup changes nothing, and is wanted first
        taken.notes.append(f"the database has schema {schema}, {standing(schema)}")
    if not _copied(cfg.home / sealing.FILE, work / sealing.FILE, sealing.KEY_FILE_BYTES):
        taken.notes.append(f"{cfg.home / sealing.FILE} does not exist (this home has sealed nothing yet)")
    saved = _copied(cfg.home / OUTBOX_KEY, work / OUTBOX_KEY, sealing.KEY_FILE_BYTES)  # made with the first sealed mail
    kept = copied.key_check if copied is not None else None  # the check value of the database's outbox.key
    if saved and kept is not None and kept != outbox_key.check_value((work / OUTBOX_KEY).read_bytes()):
        taken.notes.append(
            f"{cfg.home / OUTBOX_KEY} is not this database's (saved all the same): pbem poll refuses to run with "
            "it; put back the outbox.key saved with this database"
        )
    if sent := sentlog.as_of_now(cfg.home):  # read after the copy: every mail it holds as waiting that went out
        private.write(work / sentlog.LEDGER, sent.decode("ascii"))
    _copied(cfg.path, work / cfg.path.name, MAX_CONFIG_BYTES)
    manifest["config_file"] = cfg.path.name
    files = {f.name: digest(f) for f in sorted(work.iterdir())}
    manifest["files"] = files
    taken.files = sorted(files)
    return manifest


def _dumped(cfg: Config, work: Path, taken: Taken, deadline: float) -> str | None:
    """The database's file in the backup by `pg_dump` (None, and a note saying what to run, without one)."""
    if backup.pg_dump() is None:
        taken.notes.append(
            "the PostgreSQL database is not in this backup: pg_dump is not on PATH; install it (postgresql-client), "
            "or save the database yourself with pg_dump --format=custom on the database named in [database] url"
        )
        return None
    backup.dump_postgres(cfg.database_url, work / PG_FILE, deadline)
    return PG_FILE


def _copied(source: Path, target: Path, cap: int) -> bool:
    """`source` (at most `cap` bytes, a regular file) into the new file `target`, mode 0600; False when it does
    not exist; OSError naming it when it cannot be read."""
    try:
        data = read_at_most(source, cap, str(source))
    except FileNotFoundError:
        return False
    except Unreadable as exc:
        raise OSError(str(exc)) from None
    if not private.create_whole(target, data):
        raise OSError(f"{target} was made by another process")
    return True


def digest(path: Path, deadline: float | None = None) -> dict[str, object]:
    """The size and SHA-256 of the file `path`, read once; with `deadline` (`monotonic()`), `Late` once it passes."""
    sha = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            if deadline is not None and backup.now() > deadline:
                raise backup.Late(
                    f"{path.name} was hashed to {size:,} bytes of {os.fstat(f.fileno()).st_size:,} at its deadline"
                )
            sha.update(chunk)
            size += len(chunk)
    return {"bytes": size, "sha256": sha.hexdigest()}


def _synced(folder: Path, files: bool) -> None:
    """`folder` (and with `files` each file in it) on disk: a rename a crash kept names whole files only."""
    for f in [*folder.iterdir(), folder] if files else [folder]:
        with contextlib.suppress(OSError):
            fd = os.open(f, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
