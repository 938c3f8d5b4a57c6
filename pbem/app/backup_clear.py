"""What `pbem backup` clears from DEST besides making its own folder: the older of its dated backups past
`--keep N`, and the hidden folders of runs that were stopped before they could remove them (`pbem.app.backup`).

Nothing else in DEST is touched.  A backup is removed only when all of these hold: its name is one `pbem backup`
gives by default (`pbem-2026-12-06T031500Z`, never one `--name` chose), it is a folder (not a link to one), its
`manifest.json` is a pbem backup's whose time is the name's, and it holds only the files that manifest names; the
one just written is always kept.  A run's unfinished folder (`.NAME.PID.tmp`) is removed only when its process is
gone, nothing in it changed for `[limits] command_deadline` (the watchdog ends a command by then) and it holds
only files.  Each removal is told in a note; what is kept that looks like either is named, once.
"""

from __future__ import annotations

import os
import shutil
import time
from datetime import datetime
from pathlib import Path

from pbem.app.backup import MANIFEST, NAME, Taken
from pbem.app.backup_check import MOST_FILES, manifest_of
from pbem.engine.words import count
from pbem.record.files import running

DATED = "pbem-%Y-%m-%dT%H%M%SZ"  # `pbem.app.backup.dated`
NAMED = 5  # folders named in one note


def _taken_at(name: str) -> str | None:
    """The manifest's "taken" of a backup a dated name gives ("2026-12-06T03:15:00Z"), None for other names."""
    try:
        at = datetime.strptime(name, DATED)
    except ValueError:
        return None
    return at.strftime("%Y-%m-%dT%H:%M:%SZ") if at.strftime(DATED) == name else None


def _only_files(folder: Path, names: set[str] | None) -> bool:
    """`folder` holds regular files only (at most `MOST_FILES` and a manifest), each in `names` when given."""
    try:
        inside = list(os.scandir(folder))
    except OSError:
        return False
    if len(inside) > MOST_FILES + 1:
        return False
    return all(e.is_file(follow_symlinks=False) and (names is None or e.name in names) for e in inside)


def is_pbem_backup(folder: Path) -> bool:
    """`folder` is a dated backup `pbem backup` made and nobody added to (the module's conditions)."""
    taken = _taken_at(folder.name)
    if taken is None or folder.is_symlink() or not folder.is_dir():
        return False
    manifest = manifest_of(folder)
    if manifest is None or manifest.get("taken") != taken:
        return False
    return _only_files(folder, {*manifest["files"], MANIFEST})


def _listed(names: list[str]) -> str:
    more = f" and {len(names) - NAMED} more" if len(names) > NAMED else ""
    return ", ".join(names[:NAMED]) + more


def _removed(folder: Path, notes: list[str]) -> bool:
    try:
        shutil.rmtree(folder)
    except OSError as exc:
        notes.append(f"{folder} could not be removed: {exc.strerror or exc}")
        return False
    return True


def keep_newest(dest: Path, keep: int, made: Path, notes: list[str]) -> list[str]:
    """Remove all but the newest `keep` of pbem's dated backups in `dest`, never `made`; the names removed."""
    dated = sorted((p for p in dest.iterdir() if _taken_at(p.name) is not None), key=lambda p: p.name, reverse=True)
    ours = [p for p in dated if p == made or is_pbem_backup(p)]
    old = [p for p in ours[keep:] if p != made]
    gone = [p.name for p in old if _removed(p, notes)]
    if gone:
        notes.append(f"removed {count(len(gone), 'older backup')} of {dest} (--keep {keep}): {_listed(sorted(gone))}")
    if strange := sorted(p.name for p in dated if p not in ours):
        notes.append(
            f"kept {_listed(strange)}: named like a pbem backup, but its manifest or its files are not those pbem "
            "wrote (--keep removes only those); remove it yourself if it is old"
        )
    return gone


def _work(name: str) -> int | None:
    """The process id in the name of a run's unfinished folder (`.NAME.PID.tmp`), None for other names."""
    if not (name.startswith(".") and name.endswith(".tmp")):
        return None
    base, _, pid = name[1:-4].rpartition(".")
    return int(pid) if NAME.match(base) and pid.isdigit() and len(pid) <= 9 else None


def _changed(folder: Path) -> float:
    """When `folder` or a file in it last changed."""
    return max([folder.stat().st_mtime, *(e.stat(follow_symlinks=False).st_mtime for e in os.scandir(folder))])


def clear_stopped(dest: Path, seconds: float, notes: list[str]) -> list[str]:
    """Remove the unfinished folders of stopped runs of `pbem backup` in `dest` (their process gone and nothing
    changed for `seconds`); the names removed.  Those kept are named."""
    removed, kept = [], []
    for p in sorted(dest.iterdir()):
        pid = _work(p.name)
        if pid is None or p.is_symlink() or not p.is_dir() or pid == os.getpid():
            continue
        try:
            stale = not (pid == 1 or running(pid)) and _changed(p) < time.time() - seconds and _only_files(p, None)
        except OSError:
            stale = False
        if stale and _removed(p, notes):
            removed.append(p.name)
        elif not stale:
            kept.append(p.name)
    if removed:
        notes.append(
            f"removed {count(len(removed), 'unfinished backup')} of runs that were stopped: {_listed(removed)}"
        )
    if kept:
        notes.append(
            f"{dest} holds unfinished backups of runs going or stopped less than [limits] command_deadline ago: "
            f"{_listed(kept)}; a later backup removes them once their run is gone that long"
        )
    return removed


def cleared(taken: Taken, keep: int | None, seconds: float) -> None:
    """After `taken` was made: the stopped runs' folders of its DEST removed (unchanged for `seconds`), and with
    `keep` all but the newest `keep` of pbem's dated backups there; each said in `taken.notes`."""
    dest = taken.folder.parent
    try:
        clear_stopped(dest, seconds, taken.notes)
        if keep is not None:
            keep_newest(dest, keep, taken.folder, taken.notes)
    except OSError as exc:  # DEST unlisted meanwhile: the backup is made all the same
        taken.notes.append(f"{dest} could not be cleared of old backups: {exc.strerror or exc}")
