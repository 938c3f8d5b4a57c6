"""The home's upkeep looked at (`pbem.app.upkeep`): by `pbem poll` every `EVERY`, and by `pbem check` each time.

`facts` reads the home: its key files' and name file's times, the newest backup `pbem backup` made (the poll mark
`backup-made`, written by `pbem.app.backup.take`), the sizes of the database, `cron.log` (where cron/crontab
writes it) and each Maildir folder, the disk's free bytes, and from the record the games whose deadline was
extended again and again and the sent mail `pbem prune` could drop.  `look` is the poll's: at most once every
`EVERY` (the poll mark `upkeep-due`; an idle run looks too, and its mail goes out with the next run), it mails the
moderator one `home_upkeep` alert of the conditions due (`upkeep.due`; the poll mark `upkeep-told` keeps when each
was last told) and says them in a `note:` line of the run.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.app import upkeep
from pbem.record import marks

if TYPE_CHECKING:
    from pbem.app.poll import PollSummary
    from pbem.home.app import Home

log = logging.getLogger("pbem.upkeep")
KEY_FILES = ("game-keys.secret", "outbox.key")
NAME_FILE = ".pbem-home"


def _mtime(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return None


def _folder(path: Path) -> tuple[int, int]:
    """Files and bytes of a Maildir folder (its cur/ and new/)."""
    files = size = 0
    for sub in ("cur", "new"):
        try:
            with os.scandir(path / sub) as entries:
                for e in entries:
                    if e.is_file(follow_symlinks=False):
                        files, size = files + 1, size + e.stat(follow_symlinks=False).st_size
        except OSError:
            continue
    return files, size


def _unsaved(home: Path, folder: str) -> tuple[str, ...]:
    """The key files of `home` that the backup in `folder` does not hold as they are now (by its manifest's
    SHA-256), for a backup that is still there."""
    from pbem.app.backup import MANIFEST, digest

    try:
        saved = json.loads((Path(folder) / MANIFEST).read_text()).get("files", {})
    except (OSError, ValueError, AttributeError):
        return ()
    out = []
    for name in KEY_FILES:
        if (home / name).is_file() and (not isinstance(saved, dict) or saved.get(name) != digest(home / name)):
            out.append(name)
    return tuple(out)


def backup_made(url: str) -> tuple[datetime | None, str]:
    """When and where the newest `pbem backup` of this home was made (None: never, or not since months5)."""
    try:
        value = json.loads(marks.recall(url, marks.BACKUP_MADE) or "{}")
        return datetime.fromisoformat(str(value["at"])), str(value["folder"])
    except (ValueError, KeyError, TypeError):
        return None, ""


def facts(home: Home, now: datetime) -> upkeep.Facts:
    from pbem.record import private
    from pbem.record.home_secrets import restored_at
    from pbem.record.sent_witness import held_count
    from pbem.record.upkeep import extended, free_left, free_pages, prunable

    cfg = home.cfg
    keys = {name: t for name in KEY_FILES if (t := _mtime(cfg.home / name)) is not None}
    made = [t for t in [*keys.values(), _mtime(cfg.home / NAME_FILE)] if t is not None]
    sizes: dict[str, int] = {}
    files: dict[str, int] = {}
    db = private.database_path(cfg.database_url)
    if db is not None and db.is_file():
        sizes["database"] = db.stat().st_size
    if cfg.transport == "maildir":
        for folder in ("sent", "processed", "rejected"):
            files[f"mail/{folder}"], sizes[f"mail/{folder}"] = _folder(cfg.maildir_path / folder)
    if (cron_log := cfg.home / "cron.log").is_file():
        sizes["cron.log"] = cron_log.stat().st_size
    try:
        free: int | None = shutil.disk_usage(cfg.home).free
    except OSError:
        free = None
    at, folder = backup_made(cfg.database_url)
    lim = cfg.upkeep
    with home.units() as s:
        times = extended(s, lim.extended_times) if lim.extended_times else []
        stretched = tuple(upkeep.Stretch(e.game, e.times, e.first_due, e.due) for e in times)
        ended = prunable(s, now - lim.prune_after)
        unused = free_pages(s) if db is not None else 0
        held = held_count(s.connection())
        restored = restored_at(s.connection())
    unused = free_left(cfg.database_url, unused) if db is not None else 0  # an upgrade's or a prune's, still free
    return upkeep.Facts(
        now=now,
        home_since=min(made, default=None),
        backup_at=at,
        backup_folder=folder,
        backup_there=not folder or Path(folder).is_dir(),
        keys=keys,
        unsaved=_unsaved(cfg.home, folder) if folder and Path(folder).is_dir() else (),
        sizes=sizes,
        files=files,
        free=free,
        prunable=(ended.games, ended.mails, ended.bytes),
        extended=stretched,
        free_pages=unused,
        held=held,
        restored=restored,
        limits=lim,
    )


def _told(url: str) -> dict[str, datetime]:
    try:
        raw = json.loads(marks.recall(url, marks.UPKEEP_TOLD) or "{}")
        return {str(k): at for k, v in dict(raw).items() if (at := marks.parse_time(str(v))) is not None}
    except (ValueError, TypeError):
        return {}


def look(home: Home, now: datetime, summary: PollSummary | None) -> bool:
    """The poll's look, if one is due: True when it queued the moderator's mail (to be sent now)."""
    from pbem.app.alerts import queue_alert

    url = home.cfg.database_url
    try:
        due_at = marks.parse_time(marks.recall(url, marks.UPKEEP_DUE) or "")
        if due_at is not None and due_at > now:
            return False
        marks.remember(url, marks.UPKEEP_DUE, (now + upkeep.EVERY).isoformat())  # first: a look that fails waits
        tell, kept = upkeep.due(upkeep.conditions(facts(home, now)), _told(url), now)
        marks.remember(url, marks.UPKEEP_TOLD, json.dumps({k: v.isoformat() for k, v in sorted(kept.items())}))
    except Exception as exc:  # the home's upkeep never stops a poll: the log says why it was not looked at
        log.warning("the home's upkeep was not looked at: %s", str(exc).splitlines()[0] if str(exc) else exc)
        return False
    if not tell:
        return False
    items = [{"text": c.text, "act": c.act} for c in tell]
    note = "the moderator is told: " + "; ".join(c.text for c in tell)
    log.warning("%s", note)  # cron.log and [log] file: an idle run prints no summary
    if summary is not None:
        summary.notes.append(note)
        summary.told.append(note)
    return queue_alert(home, "home_upkeep", {"items": items}, (now.isoformat(),), now)
