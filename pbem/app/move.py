"""`pbem move-record URL`: a home's SQLite record moved to an empty PostgreSQL database (walk11).

The SQLite record must be at this pbem's schema (else: run `pbem upgrade` first); the target must be empty (no row
in any of pbem's tables, no table that is not pbem's) and is given pbem's schema first if it has none.  The home's
poll lock is held for the whole copy (a cron poll meanwhile skips, saying a move runs), and the SQLite side
is read inside its write transaction, so no command writes either: the mark `pbem.db.moving` (`pbem.record.moving`)
has one that would write refused at once, in one line.  The copy (`pbem.record.move`) commits on
PostgreSQL only when every table reads back alike and every game's chain checks alike on both sides (`verdict`):
an interrupted or refused move leaves the target empty, and the SQLite file is never written.  pbem.toml is changed
only with `--edit-config`, which keeps the file as it was beside it (`edit_config`).
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.app.chains import verdict
from pbem.home import config as config_mod
from pbem.record import move as moving
from pbem.record import moving as marks
from pbem.record.db import migrate
from pbem.record.schema import sqlite_file

KEPT_SUFFIX = ".before-move"


class Refused(Exception):
    """The move was not made; one line saying why and what to do."""


@dataclass(frozen=True)
class Done:
    moved: moving.Moved
    seconds: float
    edited: Path | None  # the copy of pbem.toml as it was, when --edit-config changed it


def _source(cfg: config_mod.Config, config_file: Path) -> str:
    from pbem.record.schema import head_revisions, stored_version

    url = cfg.database_url
    if sqlite_file(url) is None:
        raise Refused(f"this home's record is not a SQLite file ({moving.redacted(url)}): there is nothing to move")
    at = stored_version(url)
    if at not in head_revisions():
        raise Refused(
            f"the SQLite record is at schema {at or 'none'}, this pbem's is {', '.join(sorted(head_revisions()))}: "
            f"run `pbem --config {config_file} upgrade` first, then this command again"
        )
    return url


def _target(url: str) -> None:
    """Refuse a target that is not PostgreSQL, not empty or of a newer pbem; give an empty one pbem's schema."""
    from pbem.record.schema import head_revisions, newer, stored_version

    if why := moving.refused_url(url):
        raise Refused(f"the target {moving.redacted(url)}: {why}")
    try:
        why = moving.emptiness(url)
    except moving.Refused as exc:
        raise Refused(str(exc)) from None
    if why:
        raise Refused(
            f"the target database {moving.redacted(url)} is not empty: {why}; pbem moves a record only into an empty "
            "database (`createdb -O pbem NAME` makes one; nothing was changed)"
        )
    if stored_version(url) is not None and (why := newer(url)):
        raise Refused(why)
    if stored_version(url) not in head_revisions():
        migrate(url)


def move(cfg: config_mod.Config, config_file: Path, target: str, *, edit: bool = False, **knobs: Any) -> Done:
    """Move the home's SQLite record into the PostgreSQL database at `target` (see the module)."""
    from pbem.app.polllock import Lock

    source = _source(cfg, config_file)
    _target(target)
    lock = Lock(cfg.home, cfg.poll_deadline, "move", cfg.command_deadline)  # (judged by its own deadline)
    try:
        refused = lock.take()
    except OSError as exc:
        raise Refused(f"the poll lock {lock.path} cannot be used: {exc.strerror or exc}") from None
    if refused is not None:
        held = refused.why if "move-record" in refused.why else "a pbem poll is running on this home"
        raise Refused(f"{held}: run this again when it has finished (nothing was changed)")
    started = time.monotonic()
    file = sqlite_file(source)
    assert file is not None  # (`_source`)
    mark = marks.put(file)  # a command that writes meanwhile is told at once (walk12)
    try:
        moved = moving.move(source, target, verdict, **knobs)
    except (moving.Refused, moving.Mismatch) as exc:
        raise Refused(str(exc)) from None
    finally:
        marks.remove(mark)
        lock.close()
    seconds = time.monotonic() - started
    return Done(moved, seconds, edit_config(config_file, target) if edit else None)


def edit_config(path: Path, url: str) -> Path:
    """Set `[database] url` in pbem.toml to `url`, the file as it was kept as PATH.before-move (same mode); the
    new file read back before it replaces the old one."""
    from pbem.record.files import write_whole

    kept = path.with_name(path.name + KEPT_SUFFIX)
    shutil.copy2(path, kept)
    lines = path.read_text().splitlines()
    setting = f"url = {json.dumps(url, ensure_ascii=False)}"
    section, placed, out = "", False, []
    for line in lines:
        bare = line.strip()
        if bare.startswith("[") and section == "database" and not placed:
            out += [setting, ""]
            placed = True
        if bare.startswith("["):
            section = bare.strip("[] ")
        elif section == "database" and not placed and bare.split("=", 1)[0].strip() == "url":
            out.append(setting)
            placed = True
            continue
        out.append(line)
    if not placed:
        out += ([] if section == "database" else ["", "[database]"]) + [setting]
    new = path.with_name(path.name + ".moving")
    write_whole(new, "\n".join(out) + "\n")
    shutil.copymode(path, new)
    if config_mod.load(new).database_url != url:  # (never: but the home must not be left pointing elsewhere)
        new.unlink()
        raise Refused(f"{path}: the url could not be set in it; set [database] url by hand")
    new.replace(path)
    return kept
