"""`pbem backup --check DIR`: whether a backup `pbem backup` made is complete and intact, before it is needed.

It reads the backup's `manifest.json` (`pbem.app.backup`) and says, one line each: every file it names is there with
its size and SHA-256; the database opens, passes SQLite's `quick_check`, holds the schema revision the manifest names
(and whether this pbem knows it); `game-keys.secret` opens the sealed signing key of every game in it (the wrong
home's key file is named); `outbox.key` opens the mails waiting to be sent sealed under it (another home's key
file sends them redacted).  A pg_dump file is read by `pg_restore --list` when it is on PATH (said when it is not).
Nothing in the backup is changed: the database is read as SQLite's `immutable`.  The hashes and the quick_check
stop at a deadline (`--within`), said."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.app import chains
from pbem.app.backup import FORMAT, MANIFEST, NAME, digest
from pbem.engine.words import count
from pbem.mail.outbound.sealed import KEY_FILE as OUTBOX_KEY
from pbem.mail.outbound.sealed import MARK
from pbem.record import backup, outbox_key, sealing
from pbem.record.files import Unreadable, read_at_most
from pbem.record.schema import standing

MANIFEST_BYTES = 64 * 1024  # a manifest names a handful of files
MOST_FILES = 32
LISTING = 120.0  # seconds `pg_restore --list` may take on a pg_dump file
RESTORING = 900.0  # seconds `--restore-into` may take by default (`pbem backup --within`)
CHECKING = 900.0  # seconds the hashes and SQLite's quick_check may take by default (`--within`; README, Backups)


@dataclass
class Checked:
    """What the check found: a line per thing checked, and the lines of what is wrong (`ok` when none)."""

    lines: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    unchecked: str | None = None  # why a check asked for could not be made (the server refused a scratch database)

    @property
    def ok(self) -> bool:
        return not self.wrong and self.unchecked is None

    def good(self, line: str) -> None:
        self.lines.append(line)

    def bad(self, line: str) -> None:
        self.lines.append(line)
        self.wrong.append(line)


@dataclass(frozen=True)
class Restore:
    """Where to prove a pg_dump file restores (`--restore-into`): a PostgreSQL server's URL, by `seconds`."""

    url: str
    seconds: float = RESTORING


def check(folder: Path, restore: Restore | None = None, seconds: float = CHECKING) -> Checked:
    """Check the backup in `folder` (a folder) within `seconds`, else stop where it is, said in `unchecked` (costs23:
    one of many GB was read whole, however long); with `restore`, a pg_dump file is restored into a scratch database
    on that server and read as a SQLite backup is (`pbem.record.restore_probe`, by its own seconds)."""
    c, deadline = Checked(), backup.now() + seconds  # (the record layer's clock: the quick_check's too)
    manifest = _manifest(folder, c)
    if manifest is None:
        return c
    files: dict[str, Any] = manifest["files"]
    try:
        for name, stated in files.items():
            _file(folder / name, stated, c, deadline)
        got = _database(folder, manifest, c, restore, deadline)
    except backup.Late as exc:
        c.unchecked = f"late: {exc} ({seconds:g} s): the rest was not checked; give --within more (README, Backups)"
        return c
    config = manifest.get("config_file")
    if config not in files:
        c.bad(f"the manifest names no configuration file ({config!r}): the backup is incomplete")
    if restore is not None and manifest.get("database") == "sqlite":
        c.good("--restore-into is for a pg_dump file: this backup's SQLite database was read as it is")
    _keys(folder, got.keys if got is not None else None, sealing.FILE in files, c)
    _outbox_key(folder / OUTBOX_KEY, OUTBOX_KEY in files, got, c)
    return c


def manifest_of(folder: Path) -> dict[str, Any] | None:
    """The manifest of the backup in `folder` when it is one `pbem backup` wrote (its shape checked), else None."""
    return _manifest(folder, Checked())


def _manifest(folder: Path, c: Checked) -> dict[str, Any] | None:
    """The manifest, checked for its shape; None (said why) when there is none to go by."""
    path = folder / MANIFEST
    try:
        got = json.loads(read_at_most(path, MANIFEST_BYTES, str(path)))
    except FileNotFoundError:
        c.bad(f"{path} does not exist: no pbem backup, or one that did not finish")
        return None
    except (OSError, Unreadable, ValueError) as exc:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
        c.bad(f"{path} cannot be read as a manifest: {exc}")
        return None
    except RecursionError:  # arrays nested some 1,000 deep (3 KB): a traceback of --check and --keep (costs22)
        c.bad(f"{path} cannot be read as a manifest: it nests deeper than a manifest does")
        return None
    files = got.get("files") if isinstance(got, dict) else None
    if not isinstance(files, dict) or got.get("format") != FORMAT or len(files) > MOST_FILES:
        c.bad(f"{path} is no manifest of a pbem backup (format {FORMAT}, a list of at most {MOST_FILES} files)")
        return None
    strange = [n for n in files if not (isinstance(n, str) and NAME.match(n)) or n == MANIFEST]
    if strange:
        c.bad(f"{path} names files outside the backup: {', '.join(map(repr, strange[:3]))}")
        return None
    c.good(f"backup made by pbem {got.get('pbem')} at {got.get('taken')}, database schema {got.get('schema')}")
    return dict(got)


def _file(path: Path, stated: Any, c: Checked, deadline: float) -> None:
    """`path` there, a regular file, with the size and SHA-256 the manifest states."""
    if not path.is_file() or path.is_symlink():
        c.bad(f"{path.name}: missing (the manifest names it)")
        return
    # a size other than the one stated is a change, told without reading the file: a file of 1 GB named with another
    # size was hashed whole first (11.6 s here, costs18)
    sized = isinstance(stated, dict) and stated.get("bytes") == path.stat().st_size
    found = digest(path, deadline) if sized else {}
    if not sized or found != {"bytes": stated.get("bytes"), "sha256": stated.get("sha256")}:
        c.bad(f"{path.name}: changed since the backup (its size or SHA-256 is not the manifest's)")
        return
    c.good(f"{path.name}: intact ({found['bytes']:,} bytes, SHA-256 as in the manifest)")


def _database(
    folder: Path, manifest: dict[str, Any], c: Checked, restore: Restore | None, deadline: float
) -> backup.Opened | None:
    """The database opened and checked: what it holds, or None where its games cannot be read here."""
    name = manifest.get("database_file")
    if name is None or name not in manifest["files"]:
        c.bad(f"the database is not in this backup ({manifest.get('database')}): save it yourself, see README Backups")
        return None
    if manifest.get("database") != "sqlite":
        if not _dump(folder / name, c, restore is None) or restore is None:
            return None
        return _restored(folder / name, restore, manifest.get("schema"), c)
    try:
        got = backup.opened(folder / name, MARK, deadline)
    except sqlite3.Error as exc:
        c.bad(f"{name}: does not open as a SQLite database ({exc})")
        return None
    broken = backup.unlike(got) + chains.copy_told(folder / name, got, deadline)  # + each game's chain (walk12)
    for said in [f"SQLite's quick_check says: {'; '.join(got.problems)}"] * bool(got.problems) + broken:
        c.bad(f"{name}: damaged, {said}")
    if got.revision != manifest.get("schema"):
        c.bad(f"{name}: holds schema {got.revision}, the manifest says {manifest.get('schema')}")
    if not got.problems and not broken:  # (the chains checked too since walk12)
        known, games = standing(got.revision), count(len(got.keys), "game")
        c.good(f"{name}: opens, passes SQLite's quick_check, schema {got.revision} ({known}), {games}")
    return got if got.revision is not None else None  # no pbem tables: no games' keys read


def _dump(path: Path, c: Checked, alone: bool) -> bool:
    """Whether a pg_dump file was read by `pg_restore --list`; `alone`: not restored after (no --restore-into)."""
    about = f"; {backup.UNREAD_DUMP}" if alone else ""
    try:
        entries = backup.pg_listed(path, time.monotonic() + LISTING)
    except backup.Late as exc:
        c.bad(f"{path.name}: {exc} ({LISTING:.0f} s): whether pg_restore can read it is not known")
        return False
    except OSError as exc:
        if backup.pg_restore() is None and alone:
            c.good(f"{path.name}: a pg_dump file, not read: pg_restore is not on PATH (postgresql-client){about}")
        elif backup.pg_restore() is None:
            c.bad(f"{path.name}: not restored: pg_restore is not on PATH (install postgresql-client)")
        else:
            c.bad(f"{path.name}: pg_restore cannot read it as a pg_dump file: {exc}")
        return False
    c.good(f"{path.name}: a pg_dump file pg_restore reads ({count(entries, 'entry', 'entries')} listed){about}")
    return True


def _restored(path: Path, restore: Restore, schema: object, c: Checked) -> backup.Opened | None:
    """The pg_dump file restored into a scratch database on `restore.url`'s server, read, dropped; None: said why."""
    from pbem.record.restore_probe import restored, shown

    where = shown(restore.url)
    started = time.monotonic()
    try:
        got = restored(path, restore.url, started + restore.seconds, MARK, chains.reader(started + restore.seconds))
    except backup.Late as exc:
        c.bad(f"{path.name}: {exc} ({restore.seconds:.0f} s): whether it restores is not known; give --within more")
        return None
    except ValueError as exc:  # a URL that is no PostgreSQL one
        c.bad(f"{path.name}: not restored: {exc}")
        return None
    except OSError as exc:  # pg_restore said why (a table's data cut short, a dump of a newer server)
        c.bad(f"{path.name}: does not restore into PostgreSQL at {where}: {exc}")
        return None
    except Exception as exc:  # psycopg.Error: the server refused (no right to create a database, a password)
        why = str(exc).strip().splitlines()
        c.unchecked = (
            f"{path.name}: could not make a scratch database on the server at {where}: "
            f"{why[0] if why else type(exc).__name__} (--restore-into needs a role that may create databases: "
            "ALTER ROLE ... CREATEDB); the backup was not checked"
        )
        return None
    if got.revision != schema:
        c.bad(f"{path.name}: restored, holds schema {got.revision}, the manifest says {schema}")
    for said in backup.unlike(got) + chains.told(got.broken):  # (said nowhere before walk11; chains since costs27)
        c.bad(f"{path.name}: restored, {said}")
    chained = ", each one's hash chain checking" if got.keys and not got.broken else ""  # read since costs27
    c.good(
        f"{path.name}: restores into PostgreSQL at {where} in {time.monotonic() - started:.1f} s: schema "
        f"{got.revision} ({standing(got.revision)}), {count(len(got.keys), 'game')}{chained}{backup.agreed(got)} "
        "(the scratch database is dropped)"
    )
    return got if got.revision is not None else None


def _keys(folder: Path, keys: list[tuple[str, str | None]] | None, listed: bool, c: Checked) -> None:
    """`game-keys.secret` opens every game's sealed signing key; with `keys` None (unread) that it holds a key."""
    sealed = [(game, k) for game, k in keys or [] if k is not None and sealing.is_sealed(k)]
    path = folder / sealing.FILE
    if not listed or not path.is_file():
        if sealed:
            c.bad(f"{sealing.FILE}: not in the backup, and the keys of {count(len(sealed), 'game')} are sealed with it")
        return
    try:
        key = sealing.parsed(read_at_most(path, sealing.KEY_FILE_BYTES, str(path)).strip())
    except (OSError, Unreadable) as exc:
        c.bad(f"{sealing.FILE}: cannot be read ({exc})")
        return
    if key is None:
        c.bad(f"{sealing.FILE}: holds no key (it was edited or damaged)")
        return
    if keys is None:
        c.good(f"{sealing.FILE}: holds a key; not checked against the games' signing keys (the database was not read)")
        return
    closed = [game for game, k in sealed if not sealing.opens(k, game, key)]
    if closed:
        c.bad(
            f"{sealing.FILE}: does not open the signing keys of {len(closed)} of {count(len(sealed), 'game')} "
            f"({', '.join(closed[:5])}): it is another home's key file, or the database is"
        )
        return
    c.good(f"{sealing.FILE}: opens the sealed signing key of every game ({count(len(sealed), 'game')})")


def _outbox_key(path: Path, listed: bool, got: backup.Opened | None, c: Checked) -> None:
    """`outbox.key` opens the mails waiting sealed under it (`backup.SEALED` tried); else that it holds a key."""
    from cryptography.fernet import Fernet, InvalidToken

    sealed = got.sealed if got is not None else 0
    waiting = count(sealed, "mail") + " waiting to be sent"
    if not listed or not path.is_file():
        if sealed:
            c.bad(f"{OUTBOX_KEY}: not in the backup, and {waiting} are sealed with it (they would go out redacted)")
        return
    try:
        text = read_at_most(path, sealing.KEY_FILE_BYTES, str(path))
        key = Fernet(text.strip())
    except (OSError, Unreadable, ValueError):
        c.bad(f"{OUTBOX_KEY}: holds no key (it was edited or damaged)")
        return
    if got is None:
        c.good(f"{OUTBOX_KEY}: holds a key; not tried on the mails waiting to be sent (the database was not read)")
        return
    kept = got.key_check
    if kept is not None and kept != outbox_key.check_value(text):
        c.bad(
            f"{OUTBOX_KEY}: is not this database's: the database keeps the check value of another key ({waiting} "
            "sealed with that one); it is another home's key file, or the database is (a restored home would refuse "
            "to run with it; mails sealed with the right one would go out redacted)"
        )
        return
    tried = got.some_sealed
    closed = 0
    for raw in tried:
        try:
            key.decrypt(raw[len(MARK) :])
        except InvalidToken:
            closed += 1
    if closed:
        c.bad(
            f"{OUTBOX_KEY}: does not open {closed} of the {count(len(tried), 'sealed mail')} tried ({waiting}): it is "
            "another home's key file, or the database is (they would go out redacted)"
        )
        return
    if not tried:
        if kept is None:  # (a home whose poll has not run since pbem keeps the value: the next poll writes it)
            c.good(f"{OUTBOX_KEY}: holds a key; whose is not known (the database keeps no check value of its key yet)")
        else:
            c.good(f"{OUTBOX_KEY}: is this database's (its check value is the database's; no mail waiting is sealed)")
        return
    which = f"the first {len(tried)} of the {waiting}" if sealed > len(tried) else f"the {waiting}"
    c.good(f"{OUTBOX_KEY}: opens {which} sealed with it")
