"""What a moderator should hear about the home itself, and when (months5).

After months of cron nobody said that the nightly backup had stopped, that a key file had changed since the
newest backup (a backup that cannot open the mail it holds), that the disk was filling, that the database or the
Maildir had grown past what the README plans for, that `pbem prune` had something to give back, or that a game's
deadline had been extended again and again; nor (months6) that an upgrade or a prune had left the SQLite file
mostly free pages.  `conditions` reads them from `Facts` (pure: the thresholds are `Facts.limits`, the `[upkeep]`
keys of pbem.toml, documented in README "Operations: what pbem tells you" and "Configuration"), `due` decides
which are told now: a condition is told at the first look that finds it, then again every `AGAIN[kind]` while it
holds (a home without any `pbem backup` is told once: a copy by cp, rsync or restic is one pbem cannot see, and
the notice says which key stops it); once it no longer holds it is
forgotten, and told at once when it comes back (as months4's bounces and paused games).  `pbem poll` looks every
`EVERY` (`pbem.app.upkeep_look`) and mails the moderator what is due in one `home_upkeep` alert; `pbem check`
lists whatever holds now, every time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import PurePath

from pbem.home.config import Upkeep

GIB = 1 << 30
MIB = 1 << 20
EVERY = timedelta(hours=6)  # how often `pbem poll` looks
PRUNE_BYTES = MIB  # games ended `[upkeep] prune_after` ago whose sent mail keeps at least this much text
FREE_PAGES_LEAST = 16 * MIB  # free pages told only past `[upkeep] free_pages` percent of the file and this many bytes
#: The documented limits are `[upkeep]` keys of pbem.toml (`pbem.home.config.Upkeep`, README "Configuration"):
#: past them the moderator is told (README, Operations: what pbem tells you); 0 turns a notice off.
OFF = "[upkeep] {} = {} in pbem.toml stops this notice"

#: How often a condition that holds is told again.
AGAIN: dict[str, timedelta | None] = {
    "backup_missing": None,  # told once: a home backed up by cp, rsync or restic stays so (months6)
    "backup_late": timedelta(days=1),
    "backup_gone": timedelta(days=1),
    "key_unsaved": timedelta(days=1),
    "disk_low": timedelta(days=1),
    "database_large": timedelta(days=7),
    "maildir_large": timedelta(days=7),
    "cron_log_large": timedelta(days=7),
    "prune_due": timedelta(days=30),
    "free_pages": timedelta(days=30),
    "extended": timedelta(days=7),
    "held_mail": timedelta(days=1),
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
    free_pages: int = 0  # bytes of the SQLite file's free pages (its freelist)
    held: int = 0  # mails a restored home held: not proved unsent (`pbem.app.sent_witness`, months7)
    restored: datetime | None = None  # when the database was last restored and gone on with (months8)
    limits: Upkeep = field(default_factory=Upkeep)  # [upkeep] of pbem.toml


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


def span(d: timedelta) -> str:
    """A duration of pbem.toml as the notices say it: days when whole, else hours."""
    return f"{d.days} days" if d == timedelta(days=d.days) else f"{d / timedelta(hours=1):g} hours"


def _backups(f: Facts) -> list[Condition]:
    out: list[Condition] = []
    where = str(PurePath(f.backup_folder).parent) if f.backup_folder else "/backups/pbem"
    late = f.limits.backup_late
    if not late:
        return out
    off = OFF.format("backup_late", '"0h"')
    backup = f"pbem backup --keep 30 {where} (cron/crontab runs it every night); {off}"
    if f.restored is not None and (f.backup_at is None or f.backup_at < f.restored):
        # the backup it names is the one before the backup it came from (a backup's copy is made before its mark
        # is kept), maybe on the lost machine: the nightly ones are judged from the restore on (months8)
        if f.now - f.restored >= late:
            text = f"no backup was made since this home was restored, {_ago(f.now, f.restored)} ago: the nightly one stopped"
            out.append(Condition("backup_late", "backup_late", text, backup))
        return out
    if f.backup_at is None:
        if f.home_since is not None and f.now - f.home_since >= late:
            text = (
                f"no backup of this home was ever made by pbem backup (it was made {_ago(f.now, f.home_since)} "
                "ago); a copy made by cp, rsync or restic is one pbem cannot see, so this is said once"
            )
            act = f"pbem backup --keep 30 {where} (cron/crontab runs it every night), or, if the home is backed up another way, {off}"
            out.append(Condition("backup_missing", "backup_missing", text, act))
        return out
    if not f.backup_there:
        text = f"the newest backup, {f.backup_folder}, is gone"
        out.append(Condition("backup_gone", "backup_gone", text, backup))
    elif f.now - f.backup_at >= late:
        text = f"the newest backup is {_ago(f.now, f.backup_at)} old ({f.backup_folder}): the nightly one stopped"
        out.append(Condition("backup_late", "backup_late", text, backup))
    for name in f.unsaved:
        text = f"{name} is not the one the newest backup holds: no backup holds this home's key as it is now"
        out.append(Condition("key_unsaved", f"key_unsaved:{name}", text, backup))
    return out


def _sizes(f: Facts) -> list[Condition]:
    out: list[Condition] = []
    lim = f.limits
    db = f.sizes.get("database", 0)
    if lim.database_size and db >= lim.database_size:
        text = f"the database is {_mb(db)}, past {_mb(lim.database_size)}"
        act = "pbem prune --older-than 30d --vacuum (README, Pruning)"
        out.append(Condition("database_large", "database_large", text, act))
    free = f.free_pages
    if lim.free_pages and db and free >= FREE_PAGES_LEAST and free * 100 >= lim.free_pages * db:
        text = f"{_mb(free)} of the database's {_mb(db)} are free pages SQLite keeps (after an upgrade or a prune)"
        act = "pbem prune --vacuum (gives them back to the disk with the poll lock held; README, Pruning)"
        out.append(Condition("free_pages", "free_pages", text, act))
    for folder in ("sent", "processed", "rejected"):
        size, files = f.sizes.get(f"mail/{folder}", 0), f.files.get(f"mail/{folder}", 0)
        if (lim.maildir_size and size >= lim.maildir_size) or (lim.maildir_mails and files >= lim.maildir_mails):
            text = f"the Maildir folder mail/{folder} holds {files:,} mails, {_mb(size)}"
            act = f"find mail/{folder} -type f -mtime +30 -delete (the record keeps every mail)"
            out.append(Condition("maildir_large", f"maildir_large:{folder}", text, act))
    log = f.sizes.get("cron.log", 0)
    if lim.cron_log_size and log >= lim.cron_log_size:
        text = f"cron.log is {_mb(log)}: nothing rotates it"
        act = "run pbem from cron/pbem-poll, which starts cron.log anew past 8 MiB, or rotate it (cron/README.md)"
        out.append(Condition("cron_log_large", "cron_log_large", text, act))
    if lim.disk_free and f.free is not None and f.free < max(lim.disk_free, 2 * db):
        text = f"{_mb(f.free)} free on the home's disk: a full disk stops every poll (exit 3)"
        act = "free space (pbem prune, the Maildir's old mail, old backups: pbem backup --keep)"
        out.append(Condition("disk_low", "disk_low", text, act))
    return out


def conditions(f: Facts) -> list[Condition]:
    """Everything that holds in `f`, in the order told."""
    out = _backups(f) + _sizes(f)
    if f.held:
        text = f"{f.held} mail(s) waiting when this home's database was restored are held: pbem could not prove them unsent"
        act = "pbem outbox held; then pbem outbox release --all (send them) or pbem outbox drop --all (the old home sent them)"
        out.append(Condition("held_mail", "held_mail", text, act))
    games, mails, size = f.prunable
    if games and size >= PRUNE_BYTES:
        text = f"{games} game(s) ended {span(f.limits.prune_after)} ago or more keep the text of {mails:,} sent mail(s), {_mb(size)}"
        older = span(f.limits.prune_after).replace(" days", "d").replace(" hours", "h")
        act = f"pbem prune --older-than {older} (--dry-run counts first; cron/crontab can run it nightly)"
        out.append(Condition("prune_due", "prune_due", text, act))
    for s in f.extended if f.limits.extended_times else ():
        if s.times < f.limits.extended_times:
            continue
        text = (
            f"game {s.game}: this step's deadline was extended {s.times} times in a row (first due "
            f"{s.first_due:%Y-%m-%d %H:%M}, now {s.due:%Y-%m-%d %H:%M} UTC)"
        )
        act = f"pbem game waiting {s.game}; pbem game process {s.game} (defaults now) or pbem game replace {s.game}"
        out.append(Condition("extended", f"extended:{s.game}:{s.first_due.isoformat()}", text, act))
    return out


TOLD_AFTER = 3  # a step extended this many times in a row: the players' notice says so (months6)


def in_a_row(row: tuple[object, ...], step: str | None, due: datetime) -> str:
    """What the players' notice of an extension adds, from a step's `TOLD_AFTER`-th extension in a row: how many,
    and when the step was first due.  `row`: `pbem.record.listing.in_a_row` before this extension (empty: none)."""
    times, first = 1, due
    if row and row[0] == step and isinstance(row[1], int):
        times, first = row[1] + 1, row[2] if isinstance(row[2], datetime) else due
    return f"{times} times in a row; it was first due {first:%Y-%m-%d %H:%M} UTC" if times >= TOLD_AFTER else ""


def due(
    found: list[Condition], told: dict[str, datetime], now: datetime
) -> tuple[list[Condition], dict[str, datetime]]:
    """Of `found`, those to tell now, and the record of when each holding one was last told (`told`, the last
    look's): a condition is told when it is new, or when `AGAIN` has passed since it was last told (None: told once
    while it holds)."""
    tell: list[Condition] = []
    kept: dict[str, datetime] = {}
    for c in found:
        last = told.get(c.key)
        again = AGAIN[c.kind]
        if last is None or (again is not None and now - last >= again):
            tell.append(c)
            kept[c.key] = now
        else:
            kept[c.key] = last
    return tell, kept
