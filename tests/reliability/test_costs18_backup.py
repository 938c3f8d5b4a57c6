"""`pbem backup --check DIR` of a backup folder whose files are no regular files: every wait bounded (costs18).

The check reads the manifest, the key files and `outbox.key` through `read_at_most` (a pipe or a device is refused
before it is read) and digests a file only once `is_file` says it is a regular one; but it opened the database
with SQLite, which opens a named pipe blocking.  A backup whose `pbem.db` was a FIFO (a moderator's `mkfifo`, a
copy by a tool that kept special files) made `--check` wait for a writer without end: on 9fb0ae7 2 of the 16 cases
below (the FIFO and a link to one, as the database) never returned.  Now `record.backup.opened` refuses a path that
is no regular file before SQLite opens it, and each case is answered at once, naming the file.

The generator: each file the manifest names (the database, `pbem.toml`, both key files) made in turn a FIFO, a
link to a FIFO, a link looping on itself, and a folder; the check runs in a thread given 5 s, and a case still
waiting is released by opening its FIFO for writing.  And a file of another size than the manifest states is told
changed by its size, not hashed whole first (a 1 GB file: 11.6 s on 9fb0ae7).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from pbem.app import backup_check
from pbem.app.backup import FORMAT, MANIFEST
from pbem.app.backup_check import Checked, check

FILES = ("pbem.db", "pbem.toml", "game-keys.secret", "outbox.key")
KINDS = ("fifo", "link-to-fifo", "loop", "folder")
WITHIN = 5.0  # seconds a check may take here: each is answered in milliseconds


def _folder(root: Path, name: str, kind: str) -> tuple[Path, Path | None]:
    """A backup folder whose `name` is of `kind`, the others small files; (the folder, its FIFO if any)."""
    folder = root / f"{name}-{kind}"
    folder.mkdir()
    for other in FILES:
        if other != name:
            (folder / other).write_bytes(b"x\n")
    fifo = None
    if kind in ("fifo", "link-to-fifo"):
        fifo = folder / (name if kind == "fifo" else ".fifo")
        os.mkfifo(fifo)
        if kind == "link-to-fifo":
            (folder / name).symlink_to(fifo.name)
    elif kind == "loop":
        (folder / name).symlink_to(name)
    else:
        (folder / name).mkdir()
    files = {f: {"bytes": 2, "sha256": "0" * 64} for f in FILES}
    manifest = {"format": FORMAT, "files": files, "database": "sqlite", "database_file": "pbem.db"}
    manifest |= {"config_file": "pbem.toml", "schema": "x", "pbem": "0", "taken": "now"}
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return folder, fifo


def _checked(folder: Path, fifo: Path | None) -> Checked | None:
    """The check of `folder`, or None if it was still waiting after `WITHIN` seconds (then released)."""
    got: list[Checked] = []
    t = threading.Thread(target=lambda: got.append(check(folder)), daemon=True)
    t.start()
    t.join(WITHIN)
    if not t.is_alive():
        return got[0] if got else None
    if fifo is not None:  # waiting on the FIFO: a writer lets it go on, and the thread ends
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        t.join(WITHIN)
    return None


@pytest.mark.parametrize("kind", KINDS)
def test_a_backup_whose_files_are_no_regular_files_is_checked_at_once(tmp_path: Path, kind: str) -> None:
    waited, unnamed = [], []
    for name in FILES:
        folder, fifo = _folder(tmp_path, name, kind)
        got = _checked(folder, fifo)
        if got is None:
            waited.append(name)
        elif got.ok or not any(line.startswith(f"{name}:") for line in got.wrong):
            unnamed.append((name, got.wrong))
    assert waited == [] and unnamed == [], f"{kind}: waited without end on {waited}; not named: {unnamed}"


def test_a_file_of_another_size_than_stated_is_told_changed_without_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file of 1 GB (sparse) named in the manifest with 2 bytes: on 9fb0ae7 hashed whole first (11.6 s on this
    machine) to say it changed; now its size says so, and no file is read for it."""
    folder, _ = _folder(tmp_path, "pbem.toml", "folder")
    (folder / "pbem.toml").rmdir()
    with open(folder / "pbem.toml", "wb") as f:
        f.truncate(1 << 30)
    read: list[str] = []
    whole = backup_check.digest
    monkeypatch.setattr(
        backup_check, "digest", lambda path, *deadline: read.append(path.name) or whole(path, *deadline)
    )
    got = check(folder)
    assert "pbem.toml: changed since the backup (its size or SHA-256 is not the manifest's)" in got.wrong
    assert "pbem.toml" not in read and read, f"read to say its size is not the one stated: {read}"
