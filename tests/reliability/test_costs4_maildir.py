"""The Maildir inbox reads of each message what the IMAP inbox fetches of it, and never waits on a file.

A message file was read whole before the poll refused it for its size: a 200 MB mail took 485 MB of memory (a 2
GB one gigabytes), its cost growing with the file; a FIFO among the messages waited for a writer without end, at
every run, so that no mail after it was ever read (found by this file).  Now the first `max_stored + 1` bytes are
read, as IMAP's `BODY.PEEK[]<0.N>` fetches them (the mail is refused for its size, from its start), and a file
that is no regular file is moved to rejected unread, with one log line.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.mail.transports import maildir
from tests.growth import Window

HEAD = b"From: a@x.test\nTo: m@pbem.test\nSubject: [pbem g1] big\nMessage-ID: <%s@x.test>\n\n"


def _mail(folder: Path, name: str, size: int) -> Path:
    path = folder / "inbox" / "new" / name
    with open(path, "wb") as f:
        f.write(HEAD % name.encode())
        f.write((b"x" * 76 + b"\n") * (size // 77))
    return path


def _fetch_cost(root: Path, name: str) -> tuple[float, int]:
    inbox = maildir.MaildirInbox(root)
    started = Window()
    sizes = [len(m.raw) for m in inbox.fetch() if m.key == name]
    return started.close().cpu, sizes[0]


def test_a_large_message_costs_what_its_start_costs(tmp_path: Path) -> None:
    root = tmp_path / "mail"
    maildir.MaildirInbox(root)  # its folders
    _mail(root, "small", 8 * 1024 * 1024)
    t1, n1 = min(_fetch_cost(root, "small") for _ in range(2))
    (root / "inbox" / "new" / "small").unlink()
    _mail(root, "large", 32 * 1024 * 1024)
    t4, n4 = min(_fetch_cost(root, "large") for _ in range(2))
    assert n1 == n4 == getattr(maildir, "MAX_MESSAGE", 4 * 1024 * 1024 + 1), (n1, n4)  # (getattr: on main too)
    # linear in the file: 4 (32 MB read whole: about 40 ms); under 10 ms the timer's noise is all there is
    assert t4 < 0.01 or t4 / t1 < 2.5, f"at 4x the mail: {t4:.4f} s against {t1:.4f} s"


def _within(work: Any, seconds: float = 20) -> Any:
    out: list[Any] = [None]
    worker = threading.Thread(target=lambda: out.__setitem__(0, work()), daemon=True)
    worker.start()
    worker.join(seconds)
    return worker.is_alive(), out[0]


def test_a_fifo_among_the_messages_is_set_aside_and_the_rest_read(tmp_path: Path) -> None:
    from pbem.cli.support import init_home

    cfg = init_home(tmp_path / "home", address="moderator@pbem.test", name="Test Moderator")
    root = cfg.parent / "mail"
    fifo = root / "inbox" / "new" / "0-fifo"
    os.mkfifo(fifo)
    _mail(root, "1-large", 6 * 1024 * 1024)
    waiting, got = _within(lambda: CliRunner().invoke(app, ["--config", str(cfg), "poll"]))
    if waiting:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # the reader goes: no thread of this test lives on
        pytest.fail("the poll still waited on a FIFO in its inbox after 20 s")
    assert got.exit_code == 0 and "read 1 message" in got.output, got.output[-1500:]
    assert sorted(os.listdir(root / "rejected" / "new")) == ["0-fifo", "1-large"]
    assert os.listdir(root / "inbox" / "new") == []
    assert "0-fifo is not a regular file, so no mail: moved to rejected unread" in got.output, got.output[-1500:]
