"""After a UIDVALIDITY change, `settle` finds a message again by its Message-ID window by window, and files that
message, not another holding its text (costs22).

`settle` asked one `SEARCH HEADER Message-ID <id>` of the whole folder and filed the oldest UID it listed.  A
SEARCH HEADER matches any header *holding* the text (RFC 3501), so:
- its answer listed every message whose Message-ID held the id, on one line that grew with the folder (past
  `MAX_LINE` the run failed, as the poll's own search did before costs21);
- the oldest of them was filed in the message's place (another's mail moved out of the inbox unread);
- a Message-ID not in US-ASCII raised UnicodeEncodeError from imapclient: a traceback, not a TransportError.

The generator: each shape at n and 4n decoys in the folder (messages whose Message-ID holds the settled one's
text, or is it), the settled message newest, through `Padded` (costs21's relay) counting the most UIDs one
SEARCH answer listed, then which message was filed.  On c83d8ea7: 3 of 3 shapes fail (`same` listed
every decoy in one answer, 5 and 17 UIDs at 4 and 16 decoys, and `substring` filed the oldest decoy; `not ascii` raised
UnicodeEncodeError).  Now 0 of 3: at most two windows' UIDs in an answer at any n, the message itself filed (of
`same`, whose decoys are indistinguishable, the oldest holding exactly that Message-ID).  `PBEM_COSTS22_FULL=1`
runs n = 4, 16 and 64 at windows of 4 (the suite n = 8 at windows of 2; 256 took minutes a shape on a loaded machine: pymap's own
time appending and fetching).
"""

from __future__ import annotations

import os
import re

import pytest

from pbem.mail.transports import imap
from pbem.mail.transports.imap import ImapInbox
from tests.mail.conftest import MODERATOR, USERS
from tests.mail.test_costs21_windows import Padded

FULL = bool(os.environ.get("PBEM_COSTS22_FULL"))
WINDOW = 4 if FULL else 2
SIZES = [4, 16, 64] if FULL else [8]  # decoys; the bound is two windows whatever their number

#: shape: (the settled message's Message-ID, a decoy's Message-ID by its number)
SHAPES: dict[str, tuple[str, object]] = {
    "substring": ("a@x", lambda k: f"<{k}.a@x>"),  # a Message-ID without its brackets, which the others' hold
    "same": ("<a@x>", lambda k: "<a@x>"),
    "not ascii": ("<\u00e9lan.a@x>", lambda k: f"<{k}.lan.a@x>"),  # searched for "lan.a@x>"
}


def _mail(message_id: str, subject: str) -> bytes:
    """A mail whose Message-ID is written as it is (8-bit where it is not ASCII, as some clients send it)."""
    head = f"From: someone@example.test\r\nTo: {MODERATOR}\r\nSubject: {subject}\r\nMessage-ID: {message_id}\r\n"
    return (head + "Content-Type: text/plain; charset=utf-8\r\n\r\nhello\r\n").encode()


def _settled_again(servers, shape: str, n: int) -> tuple[int, str]:
    """n decoys, then the message; the message fetched, the folder's UIDVALIDITY changed meanwhile (as
    test_transports does), and it settled: (the most UIDs one SEARCH answer listed, the filed message's
    subject)."""
    target, decoy = SHAPES[shape]
    with servers.imap(MODERATOR) as client:
        for k in range(n):
            client.append("INBOX", _mail(decoy(k), f"decoy {k}"))  # type: ignore[operator]
        client.append("INBOX", _mail(target, "the message"))
    relay = Padded(servers.imap_host, servers.imap_port)
    try:
        with ImapInbox("127.0.0.1", relay.port, username=MODERATOR, password=USERS[MODERATOR], batch=1000) as box:
            stream = box.fetch()
            *_, last = stream  # every message read; the newest is the one settled
            relay.most = 0
            box.uidvalidity = (box.uidvalidity or 0) + 1  # as if the folder had been recreated since it was read
            box.settle(last.key, accepted=True)
    finally:
        relay.close()
    filed = [
        re.search(rb"Subject: ([^\r\n]*)", raw).group(1).decode()
        for raw in servers.mailbox(MODERATOR, "pbem/processed")
    ]  # type: ignore[union-attr]
    assert len(filed) == 1, filed
    return relay.most, str(filed[0])


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_message_found_again_by_its_message_id_is_searched_window_by_window(pip_servers, shape, monkeypatch) -> None:
    monkeypatch.setattr(imap, "WINDOW", WINDOW)
    most = {}
    for n in SIZES:
        pip_servers.reset()
        most[n], filed = _settled_again(pip_servers, shape, n)
        want = "decoy 0" if shape == "same" else "the message"  # `same`: the oldest with exactly that Message-ID
        assert filed == want, f"{shape} at {n} decoys: filed {filed!r}"
    assert max(most.values()) <= 2 * WINDOW, f"{shape}: the most UIDs in one answer by the decoys: {most}"


def test_a_message_whose_text_too_many_hold_stays_in_the_inbox_and_is_told(pip_servers, monkeypatch, caplog) -> None:
    """Past `most` messages compared, none of them it, the message is left (the next run reads it again)."""
    monkeypatch.setattr(imap, "WINDOW", WINDOW)
    target, decoy = SHAPES["substring"]
    with pip_servers.imap(MODERATOR) as client:
        for k in range(6):
            client.append("INBOX", _mail(decoy(k), f"decoy {k}"))  # type: ignore[operator]
        client.append("INBOX", _mail(target, "the message"))
    with ImapInbox(
        pip_servers.imap_host, pip_servers.imap_port, username=MODERATOR, password=USERS[MODERATOR], most=5
    ) as box:
        keys = [item.key for item in box.fetch()]
        box.uidvalidity = (box.uidvalidity or 0) + 1
        box._message_ids[keys[0]] = target  # as if the first read were the message (the 7th, unread this run)
        box.settle(keys[0], accepted=True)
    assert pip_servers.mailbox(MODERATOR, "pbem/processed") == []
    assert "none compared is it" in caplog.text
