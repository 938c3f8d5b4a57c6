"""The embedded transport: local Maildirs standing in for IMAP and SMTP.

Incoming mail is read from ``PATH/inbox`` (new/ and cur/); once recorded a
message moves to ``PATH/processed`` or ``PATH/rejected``.  Outgoing mail is
written to ``PATH/sent``.  Any mail client (mutt -f PATH/sent) can read them.
"""

from __future__ import annotations

import mailbox
from pathlib import Path
from typing import Iterator

from .transport import Incoming


def _maildir(path: Path) -> mailbox.Maildir:
    return mailbox.Maildir(str(path), factory=None, create=True)


class MaildirInbox:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.inbox = _maildir(self.root / "inbox")
        self._done = {True: _maildir(self.root / "processed"), False: _maildir(self.root / "rejected")}

    def fetch(self) -> Iterator[Incoming]:
        keys = []
        for sub in ("new", "cur"):
            folder = self.root / "inbox" / sub
            for p in (folder.iterdir() if folder.is_dir() else ()):
                if p.name.startswith("."):
                    continue
                try:
                    keys.append((p.stat().st_mtime_ns, p.name.split(":")[0]))
                except FileNotFoundError:  # taken by a concurrent run
                    continue
        for _, key in sorted(keys):
            try:
                raw = self.inbox.get_bytes(key)
            except (KeyError, FileNotFoundError):  # taken by a concurrent run
                continue
            yield Incoming(key, raw)

    def settle(self, key: str, accepted: bool) -> None:
        try:
            raw = self.inbox.get_bytes(key)
        except (KeyError, FileNotFoundError):
            return
        self._done[accepted].add(raw)
        self.inbox.discard(key)

    def close(self) -> None:
        pass


class MaildirSender:
    def __init__(self, root: Path) -> None:
        self.sent = _maildir(Path(root) / "sent")

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        self.sent.add(raw)

    def close(self) -> None:
        pass
