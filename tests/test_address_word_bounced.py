"""A player's ADDRESS whose word bounces is told to that player, at the seat's address (months3).

A player who asks (ADDRESS) to move their seat's mail to a new address gets a word mailed there, to send back from
it.  When that address does not exist (a typo, a closed mailbox), the word bounces: the bounce went to the rejected
folder, the address held no seat so the moderator was not told (`pbem.app.bounced`), and the player waited for a
word that would never come, their seat's mail still going to the old address they wanted to leave.  Now the
player is told there, once a day per address: the word bounced, what the bounce says (one line), and the line to
send again.  The moderator and the other players are not told.

The generator (`plan`): seeded cases of Alice asking to move to a new address (or to Bob's, refused: no word is
mailed), then mail about that address drawn from `tests/test_bounces_told.py`'s shapes: bounces of the word (a
DSN with the returned message or its headers or none, Exim, qmail, a DSN naming only the Message-ID), one or two
of them, or no bounce (a delay, a read receipt, a vacation reply); sometimes Alice confirms the word first (the
seat moved: a bounce of it is then the moderator's `address_bounced`, as any seat's).  The oracle: Alice's seat
address gets one `address_word_bounced` mail iff a word was mailed, a true bounce of it came and the seat was not
moved; the moderator gets `address_bounced` iff the address holds a seat (Alice's, moved; or Bob's); nobody else
gets anything.

Of 40 cases (`PBEM_WORD_BOUNCE_CASES=40`), 21 hold a word that bounced: all 21 fail on c83d8ea7 (nobody is told)
and none now.  The suite runs `CASES` (2: seed 0, a DSN and a qmail bounce of the word, told once; seed 1, an
ADDRESS to Bob's address, refused, whose bounce is the moderator's).  Cost: 0.5 s for the two at a load of 9
(`python3 -m pytest tests/test_address_word_bounced.py --durations=5 -n 0`).
"""

from __future__ import annotations

import os
import random

import pytest

from tests.conftest import body_of, deliver, order_mail, sent_mail, signed
from tests.test_bounces_told import FALSE, TRUE, bounce
from tests.test_moderator import new_game, run_poll

CASES = range(int(os.environ["PBEM_WORD_BOUNCE_CASES"])) if "PBEM_WORD_BOUNCE_CASES" in os.environ else [0, 1]
MOD, ALICE, BOB = "moderator@pbem.test", "alice@players.test", "bob@players.test"


def plan(seed: int) -> tuple[str, list[str], bool]:
    """(the address Alice asks for, the shapes of the mail about it that arrive, whether she confirms first)."""
    rng = random.Random(seed)
    new = BOB if rng.random() < 0.15 else f"alice.{seed}@new.test"
    shapes = [
        rng.choice(TRUE + [k for k in FALSE if k in ("delayed", "receipt", "vacation")])
        for _ in range(rng.randint(1, 2))
    ]
    return new, shapes, rng.random() < 0.2


def _to(mails: list, addr: str) -> list:
    return [m for m in mails if m["To"].addresses[0].addr_spec == addr]


@pytest.mark.parametrize("seed", CASES)
def test_a_bounced_address_word_is_told_to_the_player_who_asked(home, clock, seed: int) -> None:
    import re

    new, shapes, confirms = plan(seed)
    new_game(home, clock)
    run_poll(home, clock)
    seen: set[str] = set()
    to_bob = str(_to(sent_mail(home, seen), BOB)[0]["Message-ID"])  # what a bounce of Bob's address returns
    deliver(home, order_mail(f"Alice <{ALICE}>", "hh1", signed("Alice", f"ADDRESS {new}")))
    run_poll(home, clock)
    asked = sent_mail(home, seen)
    words = _to(asked, new) if new != BOB else []
    moved = False
    if confirms and words:
        word = re.search(r"ADDRESS CONFIRM (\d{6})", body_of(words[0])).group(1)
        deliver(home, order_mail(f"Alice <{new}>", "hh1", f"ADDRESS CONFIRM {word}", subject="Re: [pbem hh1] word"))
        run_poll(home, clock)
        sent_mail(home, seen)
        moved = True
    returned = str(words[0]["Message-ID"]) if words else to_bob
    rng = random.Random(seed)
    for shape in shapes:
        deliver(home, bounce(rng, shape, new, returned))
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    bounced = any(k in TRUE for k in shapes)
    told = [m for m in _to(mails, ALICE) if "bounced" in str(m["Subject"])]
    want = 1 if words and bounced and not moved else 0
    assert len(told) == want, (new, shapes, confirms, [str(m["Subject"]) for m in mails])
    if told:
        text = body_of(told[0])
        assert f"to {new}" in text and "ADDRESS followed by your new mail address alone" in text, text
        assert "The bounce says:" in text and "came back undelivered" in text and "not moved" in text, text
    moderator = [m for m in _to(mails, MOD) if "bounced" in str(m["Subject"])]
    holds = moved or new == BOB  # the address holds a seat: its bounce is the moderator's, as any seat's
    assert len(moderator) == (1 if holds and bounced else 0), [str(m["Subject"]) for m in moderator]
    assert not [m for m in mails if m["To"].addresses[0].addr_spec not in (ALICE, MOD, new)], mails  # nobody else
