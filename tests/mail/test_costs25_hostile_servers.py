"""Hostile or broken IMAP and SMTP servers, one behaviour at one protocol step each (costs25).

The generator is `tests.mail.hostile25` (its docstring lists the steps, the behaviours and what each case checks:
the run ends by its deadline in one line naming the server, its memory bounded; then, with the fault gone, every
mail read and filed once, none filed in another's place, and the mail sent accepted once or refused for good).
`PBEM_COSTS25_FULL=1` (or `PBEM_FULL_SIZE=1`) runs all 169 cases (about 2 minutes: the dripped and silent answers
wait for the deadline); the suite runs `SAMPLE`, cases that end at once.

On 8aa88d6c 2 of the 169 cases failed, both a FETCH of the mails' bodies answered under other UIDs than asked: each
answer under the UID of the next asked ("imap FETCH-BODY other-uids"), or under none (imapclient then keys it by its
sequence number, which in an inbox whose first mail was expunged is another message's UID: "imap FETCH-BODY
no-uid").  pbem recorded the body under the UID it did not belong to and filed that UID: a mail filed unread, lost.
Now 0 of 169: the sizes' FETCH asks each message's Message-ID too, and a body whose Message-ID is not its UID's stays
in the inbox for the next run (`ImapInbox._not_its_own`, one warning line).  The SMTP cases (a 4xx, a 5xx, 421,
drip, silence, endless lines, reset at each step) failed none on 8aa88d6c.
"""

from __future__ import annotations

import os

import pytest

from tests.mail import hostile25
from tests.sizes import FULL

EVERY = FULL or bool(os.environ.get("PBEM_COSTS25_FULL"))
SAMPLE = (
    "imap FETCH-BODY other-uids",
    "imap FETCH-BODY no-uid",
    "imap FETCH-SIZES no-uid",
    "imap FETCH-BODY endless-literal",
    "imap FETCH-BODY literal-long",
    "imap MOVE bye",
    "imap MOVE uidvalidity",
    "imap SEARCH endless-line",
    "smtp DATA 4xx",
    "smtp RCPT 5xx",
    "smtp DOT reset",
    "smtp QUIT 4xx",
)


def test_the_sample_is_of_the_generator() -> None:
    assert set(SAMPLE) <= set(hostile25.cases()), sorted(set(SAMPLE) - set(hostile25.cases()))


@pytest.mark.parametrize("case", hostile25.cases() if EVERY else SAMPLE)
def test_a_hostile_server_ends_the_run_by_its_deadline_and_loses_nothing(case: str) -> None:
    why = hostile25.check(case)
    assert not why, f"{case}: {why}"
