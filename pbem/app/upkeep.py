"""What a moderator should hear about the home itself, and when (months5).

After months of cron nobody said that the nightly backup had stopped, that a key file had changed since the
newest backup (a backup that cannot open the mail it holds), that the disk was filling, that the database or the
Maildir had grown past what the README plans for, that `pbem prune` had something to give back, or that a game's
deadline had been extended again and again.  `conditions` reads them from `Facts` (pure: the thresholds are
the constants below, documented in README "Operations: what pbem tells you"), `due` decides which are told now: a condition is
told at the first look that finds it, then again every `AGAIN[kind]` while it holds; once it no longer holds it is
forgotten, and told at once when it comes back (as months4's bounces and paused games).  `pbem poll` looks every
`EVERY` (`pbem.app.upkeep_look`) and mails the moderator what is due in one `home_upkeep` alert; `pbem check`
lists whatever holds now, every time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import PurePath

GIB = 1 << 30
MIB = 1 << 20
EVERY = timedelta(hours=6)  # how often `pbem poll` looks

#: The documented limits: past them the moderator is told (README, Operations: what pbem tells you).
BACKUP_LATE = timedelta(hours=36)  # the newest `pbem backup` (a nightly one, with a slack of 12 hours)
DATABASE_BYTES = GIB  # pbem.db: 28 MB a month for 8 games (README, A home after months)
MAILDIR_BYTES = GIB  # each Maildir folder (sent, processed, rejected) ...
MAILDIR_FILES = 100_000  # ... or this many mails in it
CRON_LOG_BYTES = 8 * MIB  # cron/pbem-poll starts cron.log anew past 8 MiB: past that, nothing rotates it
DISK_FREE_BYTES = GIB  # free on the home's file system, or twice the database if that is more
PRUNE_AFTER = timedelta(days=30)  # games over or abandoned this long whose sent mail keeps its text ...
PRUNE_BYTES = MIB  # ... at least this much of it
EXTENDED_TIMES = 3  # a step's deadline extended this many times in a row

#: How often a condition that holds is told again.
AGAIN = {
    "backup_missing": timedelta(days=1),
    "backup_late": timedelta(days=1),
    "backup_gone": timedelta(days=1),
    "key_unsaved": timedelta(days=1),
    "disk_low": timedelta(days=1),
    "database_large": timedelta(days=7),
    "maildir_large": timedelta(days=7),
    "cron_log_large": timedelta(days=7),
    "prune_due": timedelta(days=30),
    "extended": timedelta(days=7),
}


@dataclass(frozen=True)
class Stretch:
    """A game whose open step's deadline was extended `times` times in a row."""

    game: str
    times: int
    first_due: datetime
    due: datetime


@dataclass(frozen=True)
class Facts:
    """What a look found.  `home_since`: when the home was made (its oldest key or name file); `backup_at`,
    `backup_folder`, `backup_there`: the newest `pbem backup` this home made (None: none), and whether its folder is
    still there; `keys`: each key file's last change; `unsaved`: the key files of the home that the newest backup
    (still there) does not hold as they are (made or replaced since, `pbem poll --new-outbox-key`); `sizes`: bytes of `database`, `cron.log` and each Maildir
    folder, `files`: each Maildir folder's files; `free`: bytes free for the home (None: not known)."""

    now: datetime
    home_since: datetime | None = None
    backup_at: datetime | None = None
    backup_folder: str = ""
    backup_there: bool = True
    keys: dict[str, datetime] = field(default_factory=dict)
    unsaved: tuple[str, ...] = ()
    sizes: dict[str, int] = field(default_factory=dict)
    files: dict[str, int] = field(default_factory=dict)
    free: int | None = None
    prunable: tuple[int, int, int] = (0, 0, 0)  # games, mails, bytes
    extended: tuple[Stretch, ...] = ()


@dataclass(frozen=True)
class Condition:
    """One thing to tell: `key` names it (its kind, and the game or folder it is about), `text` says it, `act`
    is the command that acts on it."""

    kind: str
    key: str
    text: str
    act: str


def _mb(n: int) -> str:
    return f"{n / MIB:,.1f} MB"


def _ago(now: datetime, then: datetime) -> str:
    hours = (now - then) / timedelta(hours=1)
    return f"{hours:.0f} hours" if hours < 48 else f"{hours / 24:.0f} days"


def _backups(f: Facts) -> list[Condition]:
    out: list[Condition] = []
    where = str(PurePath(f.backup_folder).parent) if f.backup_folder else "/backups/pbem"
    backup = f"pbem backup --keep 30 {where} (cron/crontab runs it every night)"
    if f.backup_at is None:
        if f.home_since is not None and f.now - f.home_since >= BACKUP_LATE:
            text = f"no backup of this home was ever made (it was made {_ago(f.now, f.home_since)} ago)"
            out.append(Condition("backup_missing", "backup_missing", text, backup))
        return out
    if not f.backup_there:
        text = f"the newest backup, {f.backup_folder}, is gone"
        out.append(Condition("backup_gone", "backup_gone", text, backup))
    elif f.now - f.backup_at >= BACKUP_LATE:
        text = f"the newest backup is {_ago(f.now, f.backup_at)} old ({f.backup_folder}): the nightly one stopped"
        out.append(Condition("backup_late", "backup_late", text, backup))
    for name in f.unsaved:
        text = f"{name} is not the one the newest backup holds: no backup holds this home's key as it is now"
        out.append(Condition("key_unsaved", f"key_unsaved:{name}", text, backup))
    return out


def _sizes(f: Facts) -> list[Condition]:
    out: list[Condition] = []
    db = f.sizes.get("database", 0)
    if db >= DATABASE_BYTES:
        text = f"the database is {_mb(db)}, past {_mb(DATABASE_BYTES)}"
        act = "pbem prune --older-than 30d, then (cron stopped) sqlite3 pbem.db 'VACUUM;' (README, Pruning)"
        out.append(Condition("database_large", "database_large", text, act))
    for folder in ("sent", "processed", "rejected"):
        size, files = f.sizes.get(f"mail/{folder}", 0), f.files.get(f"mail/{folder}", 0)
        if size >= MAILDIR_BYTES or files >= MAILDIR_FILES:
            text = f"the Maildir folder mail/{folder} holds {files:,} mails, {_mb(size)}"
            act = f"find mail/{folder} -type f -mtime +30 -delete (the record keeps every mail)"
            out.append(Condition("maildir_large", f"maildir_large:{folder}", text, act))
    log = f.sizes.get("cron.log", 0)
    if log >= CRON_LOG_BYTES:
        text = f"cron.log is {_mb(log)}: nothing rotates it"
        act = "run pbem from cron/pbem-poll, which starts cron.log anew past 8 MiB, or rotate it (cron/README.md)"
        out.append(Condition("cron_log_large", "cron_log_large", text, act))
    if f.free is not None and f.free < max(DISK_FREE_BYTES, 2 * db):
        text = f"{_mb(f.free)} free on the home's disk: a full disk stops every poll (exit 3)"
        act = "free space (pbem prune, the Maildir's old mail, old backups: pbem backup --keep)"
        out.append(Condition("disk_low", "disk_low", text, act))
    return out


def conditions(f: Facts) -> list[Condition]:
    """Everything that holds in `f`, in the order told."""
    out = _backups(f) + _sizes(f)
    games, mails, size = f.prunable
    if games and size >= PRUNE_BYTES:
        text = f"{games} game(s) ended over 30 days ago keep the text of {mails:,} sent mail(s), {_mb(size)}"
        act = "pbem prune --older-than 30d (--dry-run counts first; cron/crontab can run it nightly)"
        out.append(Condition("prune_due", "prune_due", text, act))
    for s in f.extended:
        text = (
            f"game {s.game}: this step's deadline was extended {s.times} times in a row (first due "
            f"{s.first_due:%Y-%m-%d %H:%M}, now {s.due:%Y-%m-%d %H:%M} UTC)"
        )
        act = f"pbem game waiting {s.game}; pbem game process {s.game} (defaults now) or pbem game replace {s.game}"
        out.append(Condition("extended", f"extended:{s.game}:{s.first_due.isoformat()}", text, act))
    return out


def due(
    found: list[Condition], told: dict[str, datetime], now: datetime
) -> tuple[list[Condition], dict[str, datetime]]:
    """Of `found`, those to tell now, and the record of when each holding one was last told (`told`, the last
    look's): a condition is told when it is new, or when `AGAIN` has passed since it was last told."""
    tell: list[Condition] = []
    kept: dict[str, datetime] = {}
    for c in found:
        last = told.get(c.key)
        if last is None or now - last >= AGAIN[c.kind]:
            tell.append(c)
            kept[c.key] = now
        else:
            kept[c.key] = last
    return tell, kept
