"""A Maildir inbox of flagged messages is read and filed in time linear in its messages (costs8).

A message a mail client has seen lives in `cur` as `KEY:2,S`.  `MaildirInbox.settle` moved `new/KEY` or `cur/KEY`
and, failing both, scanned each folder for `KEY:*`: every flagged message cost a scan of the whole inbox, so an
inbox of n of them cost n times n (on cc9d072, 500 to 2,000 messages: 9.6x the CPU time; 10,000 about half a
minute).  Now `fetch` remembers the file it listed for each key and `settle` moves that one, scanning only for a
message renamed meanwhile.  The generator: inboxes of n and 4n flagged messages read and filed whole, the CPU time
compared in lines of Python executed (`tests.growth.step_growth`; failed on cc9d072), and every message filed under its own name.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from pbem.mail.transports.maildir import MaildirInbox
from tests.growth import step_growth

_boxes = itertools.count()


def flagged(root: Path, n: int) -> Path:
    """A Maildir home of `n` messages in the inbox's `cur`, each flagged seen."""
    home = root / f"box{next(_boxes)}"
    for folder, sub in itertools.product(("inbox", "processed", "rejected"), ("new", "cur", "tmp")):
        (home / folder / sub).mkdir(parents=True)
    for i in range(n):
        (home / "inbox" / "cur" / f"{1_000_000 + i}.M{i}P1.host:2,S").write_bytes(b"From: a@b.test\r\n\r\nhi\r\n")
    return home


def _file_all(home: Path) -> None:
    inbox = MaildirInbox(home)
    for m in inbox.fetch():
        inbox.settle(m.key, True)


def test_an_inbox_of_flagged_messages_is_filed_in_linear_time(tmp_path: Path) -> None:
    def work(k: int) -> Any:
        home = flagged(tmp_path, k)
        return lambda: _file_all(home)

    # lines of Python executed (`tests.growth.step_growth`), not CPU time: 3.9 for 100 and 400 messages, and 7.5 with
    # each message found by a scan of its folder (cc9d072's settle: `_listed` forgotten after each fetch)
    g = step_growth(work, 100)
    assert g.ratio <= 6.0, str(g)


def test_each_message_is_filed_under_its_own_name_and_a_renamed_one_is_found(tmp_path: Path) -> None:
    home = flagged(tmp_path, 3)
    (home / "inbox" / "new" / "2000000.M9P1.host").write_bytes(b"From: a@b.test\r\n\r\nnew\r\n")
    inbox = MaildirInbox(home)
    for m in inbox.fetch():
        if m.key.startswith("1000001"):  # a client sets another flag meanwhile: found by its key
            (home / "inbox" / "cur" / f"{m.key}:2,S").rename(home / "inbox" / "cur" / f"{m.key}:2,RS")
        inbox.settle(m.key, m.key != "1000002.M2P1.host")
    assert sorted(p.name for p in (home / "processed" / "cur").iterdir()) == [
        "1000000.M0P1.host:2,S",
        "1000001.M1P1.host:2,RS",
    ]
    assert [p.name for p in (home / "processed" / "new").iterdir()] == ["2000000.M9P1.host"]
    assert [p.name for p in (home / "rejected" / "cur").iterdir()] == ["1000002.M2P1.host:2,S"]
    assert not [p for sub in ("new", "cur") for p in (home / "inbox" / sub).iterdir()]
