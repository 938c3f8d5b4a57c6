"""The embedded transport: local Maildirs standing in for IMAP and SMTP.

Incoming mail is read from ``PATH/inbox`` (new/ and cur/); once recorded a
message moves to ``PATH/processed`` or ``PATH/rejected`` with one rename, so a
crash at any moment leaves it in exactly one folder.  Outgoing mail is
written to ``PATH/sent``.  Missing folders are created.  Any mail client (mutt -f PATH/sent) can read them.
"""

from __future__ import annotations

import contextlib
import glob
import heapq
import logging
import mailbox
import os
import stat
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.mail.transports.seam import Incoming

if TYPE_CHECKING:
    from pbem.home.config import Config


FOLDERS = ("inbox", "sent", "processed", "rejected")
_LEAVES = ("cur", "new", "tmp")
#: Bytes read of one message file, as the IMAP inbox fetches them: one more than pbem keeps of any mail, so a
#: larger one is refused for its size from its start.  A 200 MB mail was read whole (485 MB of memory; a 2 GB
#: one would take gigabytes) before it was refused (found by tests/reliability/test_costs4_maildir.py).
MAX_MESSAGE = 4 * 1024 * 1024 + 1
#: Messages one run reads, as from an IMAP inbox (`imap.MOST_A_RUN`): a folder of more is read over several runs,
#: oldest first, and `pbem.app.budgets.unread_left` says so.  The Maildir inbox listed and read every message of
#: the folder in one run, its names all held at once, whatever their number (costs24's sweep).
MOST_A_RUN = 10_000
log = logging.getLogger("pbem")


def open_transport(cfg: Config) -> tuple[MaildirInbox, MaildirSender]:
    """The Maildirs under [maildir] path, missing folders created; TransportError (one line naming the key)
    when the path cannot hold them."""
    problem = maildir_problem(cfg.maildir_path) or moved(cfg.maildir_path, cfg.sent_before())
    if problem:
        from pbem.mail.transports.seam import TransportError

        raise TransportError(problem)
    most = max(cfg.max_stored_player, cfg.max_stored_stranger) + 1  # more is refused unread anyway
    return MaildirInbox(cfg.maildir_path, max_message=most), MaildirSender(cfg.maildir_path)


def maildir_problem(root: Path) -> str:
    """Why `root` cannot be pbem's Maildir root ("" if it can; missing folders are made on first use): it or
    one of its folders is not a directory, or a folder holds files but is no Maildir (no cur, new, tmp)."""
    fix = "set [maildir] path to a folder of Maildirs (pbem makes inbox, sent, processed and rejected in it)"
    if root.exists() and not root.is_dir():
        return f"[maildir] path {root} is a file, not a folder; {fix}"
    for name in FOLDERS:
        folder = root / name
        if folder.exists() and not folder.is_dir():
            return f"[maildir] path {root}: {folder} is a file, not a Maildir folder; {fix}"
        if folder.is_dir() and not all((folder / leaf).is_dir() for leaf in _LEAVES):
            stray = sorted(p.name for p in folder.iterdir() if p.name not in _LEAVES and not p.name.startswith("."))
            if stray or any((folder / leaf).exists() and not (folder / leaf).is_dir() for leaf in _LEAVES):
                return (
                    f"[maildir] path {root}: {folder} is not a Maildir (it has no cur, new and tmp folders but "
                    f"holds {', '.join(repr(n) for n in stray[:3]) or 'files'}); move those files away or {fix}"
                )
    return ""


def moved(root: Path, sent_before: bool) -> str:
    """Why a missing Maildir root is not made afresh ("" when it may be): this home sent mail before
    (`sent_before`: its ledger of mails sent is there, `Config.sent_before`), so the folder it read and wrote was
    moved, renamed or is on a disk not mounted now.  A poll made an empty one and went on, exit 0: the mail in the
    old one was never read (walk9)."""
    if root.exists() or not sent_before:
        return ""
    return (
        f"[maildir] path {root} is missing, but this home has sent mail through it before: it was moved, renamed "
        "or its disk is not mounted; put it back or set [maildir] path to where it is now (to start with empty "
        f"Maildirs on purpose: mkdir {root})"
    )


def ready(root: Path) -> bool:
    """Every folder of the Maildirs at `root` is there (cheap: a few stat calls, for the idle check)."""
    return all((root / name / leaf).is_dir() for name in FOLDERS for leaf in _LEAVES)


def _maildir(path: Path) -> mailbox.Maildir:
    """The Maildir at `path`, created with its parent folders and its cur, new and tmp when missing (a home
    set up by hand, a folder removed)."""
    for leaf in _LEAVES:
        (path / leaf).mkdir(parents=True, exist_ok=True)
    return mailbox.Maildir(str(path), factory=None, create=True)


class MaildirInbox:
    def __init__(self, root: Path, max_message: int = MAX_MESSAGE, most: int | None = None) -> None:
        self.root = Path(root)
        self.max_message = max_message
        self.most = most or MOST_A_RUN  # read when made: a test may set the module's
        self.more = False  # the last `fetch` left mail unread: `most` messages were read (`pbem.app.budgets`)
        self.inbox = _maildir(self.root / "inbox")
        self._done = {True: _maildir(self.root / "processed"), False: _maildir(self.root / "rejected")}
        self._listed: dict[str, str] = {}  # each fetched key's file as listed: settled without a folder scan

    def _listed_files(self) -> Iterator[tuple[int, str, str]]:
        """(delivered, key, path) of each message file of the inbox, as the folder lists them."""
        for sub in ("new", "cur"):
            folder = self.root / "inbox" / sub
            with os.scandir(folder) if folder.is_dir() else contextlib.nullcontext(()) as entries:
                for entry in entries:
                    if entry.name.startswith("."):
                        continue
                    try:
                        yield entry.stat().st_mtime_ns, entry.name.split(":")[0], entry.path
                    except FileNotFoundError:  # taken by a concurrent run
                        continue

    def fetch(self) -> Iterator[Incoming]:
        """The oldest `most` messages, oldest first (a heap of `most` + 1 of them held while the folder is listed)."""
        keys = heapq.nsmallest(self.most + 1, self._listed_files())
        self.more = len(keys) > self.most
        for _, key, path in keys[: self.most]:
            raw: bytes | None = None
            try:
                raw = _read(path, self.max_message)  # the file listed: no look-up of the key in the folder again
            except FileNotFoundError:  # renamed meanwhile (a client set a flag) or taken by a concurrent run
                moved = self._path_of(key)
                with contextlib.suppress(FileNotFoundError):  # taken by a concurrent run
                    raw = _read(moved, self.max_message) if moved else None
                if raw is None:
                    continue
            except NotAMessage:  # a FIFO waited for a writer without end, at every run: set aside unread
                log.warning("%s is not a regular file, so no mail: moved to rejected unread", path)
                self._listed[key] = path
                self.settle(key, False)
                continue
            self._listed[key] = path
            yield Incoming(key, raw)

    def _path_of(self, key: str) -> str | None:
        """Where the message `key` is now in the inbox (a client may have renamed it to set a flag)."""
        for sub in ("new", "cur"):
            folder = self.root / "inbox" / sub
            for path in [folder / key, *folder.glob(f"{glob.escape(key)}:*")]:
                if path.exists():
                    return str(path)
        return None

    def settle(self, key: str, accepted: bool) -> None:
        target = self.root / ("processed" if accepted else "rejected")
        listed = self._listed.pop(key, None)
        if listed is not None:  # where fetch found it (a flagged one too: "KEY:2,S" in cur), unless moved since
            at = Path(listed)
            if _move(at, target / at.parent.name / at.name):
                return
        for sub in ("new", "cur"):
            folder = self.root / "inbox" / sub
            if _move(folder / key, target / sub / key):  # the usual case: no flags, no directory scan
                return
            for path in folder.glob(f"{glob.escape(key)}:*"):
                if _move(path, target / sub / path.name):
                    return

    def close(self) -> None:
        pass


class NotAMessage(Exception):
    """A file of the inbox that is no regular file (a FIFO, a device): no mail can be read from it."""


def _read(path: str, limit: int) -> bytes:
    """A message file's first `limit` bytes as `mailbox.Maildir.get_bytes` gives them (line ends as on this
    system to \\n); opened without blocking, so a FIFO is told (NotAMessage) before anything waits for it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotAMessage(path)
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while size < limit:
            chunk = os.read(fd, min(1 << 20, limit - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks).replace(_LINESEP, b"\n")
    finally:
        os.close(fd)


_LINESEP = os.linesep.encode("ascii")


def _move(path: Path, to: Path) -> bool:
    try:
        os.rename(path, to)  # atomic: never in both folders, never lost
        return True
    except FileNotFoundError:  # not here, or taken by a concurrent run
        return False


class MaildirSender:
    def __init__(self, root: Path) -> None:
        self.sent = _maildir(Path(root) / "sent")

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        self.sent.add(raw)

    def close(self) -> None:
        pass


HEAD_BYTES = 64 * 1024  # of a sent mail read for its Message-ID (pbem's headers are a few KB)


def sent_ids_since(folder: Path, since: datetime, most: int) -> set[str] | None:
    """The Message-IDs of the mails of the Maildir `folder` (pbem's `sent`) written on or after `since` (by the
    files' times), reading each one's head only; None past `most` of them.  A restored home's witness of the mails
    the old home sent (`pbem.app.sent_witness`)."""
    import re

    found: set[str] = set()
    stamp = since.timestamp()
    pattern = re.compile(rb"^message-id:[ \t]*(<[^>\s]{1,996}>)", re.I | re.M)
    for leaf in ("new", "cur"):
        try:
            entries = list(os.scandir(folder / leaf))
        except OSError:
            continue
        for entry in entries:
            try:
                if not entry.is_file(follow_symlinks=False) or entry.stat().st_mtime < stamp:
                    continue
                head = _read(entry.path, HEAD_BYTES).split(b"\n\n", 1)[0]
            except (OSError, NotAMessage):
                continue
            if len(found) >= most:
                return None
            if (m := pattern.search(head)) is not None:
                found.add(m.group(1).decode("ascii", "replace"))
    return found
