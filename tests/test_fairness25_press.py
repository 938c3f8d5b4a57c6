"""fairness24's limit, by generator: a press cut at its end from a reply pbem refused whole (`asked._written`).

The loose match of `pbem.trust.asked._written` is kept for a reply with pbem's mail pasted under its press block: the
poll cut the copy off with the mail it answers, the Sent copy's reading runs the block on into it.  fairness24 took
any run of the press's lines right under a ``PRESS TO`` line, so a press block of a reply pbem refused whole (it
relayed nothing of it) could be relayed by the moderator cut at its end, and matched.  Each case here is such a reply
of Alice's: a ``PRESS TO`` line (one to three of Bob, Carol, Dave), two to five lines, sometimes one of them after a
blank line, sometimes a copy of pbem's mail pasted under it (its subject on a line of its own, or a header block
naming it); then

* the forgery: a press in her name of the block's first lines only, to the players it names (no honest press was
  written: pbem refused the mail);
* the honest press: the same reply with pbem's mail pasted under the whole block, which the poll relayed whole.

`asked.unasked` must name the forgery and not the honest press.  Counted with
``PBEM_FAIRNESS25_PRESS_FULL=1 python3 -m pytest tests/test_fairness25_press.py -s -q -n 0`` over 2,000 cases (seeds
0-1999; the same file runs on 8aa88d6c):

* forgeries unnamed: 2,000 of 2,000 on 8aa88d6c, 0 now (`asked._ends`: the block must end where the press's lines
  end, at the mail's end, END PRESS, or a blank line and then pbem's pasted mail, a line naming "[pbem hh1]" or a
  header block that does); with the blank line and the game's name within `asked.HEAD` lines alone, 326 were left,
  each cut at a blank line inside the block with pbem's mail pasted under it;
* honest presses named: 0 of 2,000, before and now.

The suite runs 60 cases.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from pbem.trust import asked

FULL = os.environ.get("PBEM_FAIRNESS25_PRESS_FULL") == "1"
PLAYERS = ["Alice", "Bob", "Carol", "Dave"]
SAID = ["Shall we both pass?", "I will attack Carol.", "Not really: I will pass.", "Watch the east.", "Deal?", "Ok."]
PASTED = (
    ["[pbem hh1] Your report, step 3", "Record #7: Bob drew 2 cards."],
    ["From: pbem <pbem@example.org>", "Sent: Monday", "To: Alice", "Subject: [pbem hh1] Your report", "Record #7"],
    ["Von: pbem <pbem@example.org>", "Betreff: [pbem hh1] Ihr Bericht", "Record #7"],
)
AT = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)


@dataclass
class _Mail:
    message_id: str
    text: str
    subject: str = "Re: [pbem hh1] Your report"


def _case(seed: int) -> tuple[_Mail, _Mail, dict, dict, bool]:
    """(the refused reply, the honest reply, the forged press, the honest press, whether the forgery is cut at a
    blank line of the block with pbem's mail pasted under it: what the Sent copy cannot tell from the end the poll
    read)."""
    rng = random.Random(seed)
    to = sorted(rng.sample(PLAYERS[1:], rng.randint(1, 3)))
    lines = rng.sample(SAID, rng.randint(2, 5))
    gap = rng.randint(0, len(lines) - 1)  # a blank line before this line of the block (0: none)
    block = [f"PRESS TO {', '.join(to)}"] + [
        x for n, line in enumerate(lines) for x in ([""] * (n == gap > 0) + [line])
    ]
    pasted = rng.choice(PASTED)
    tail = ["", *pasted] if rng.random() < 0.5 else []
    refused = _Mail(f"r{seed}@players.test", "\n".join([*block, *tail]))
    honest = _Mail(f"h{seed}@players.test", "\n".join([*block, "", *pasted]))
    kept = rng.randint(1, len(lines) - 1)
    forged = {"from": "Alice", "to": to, "lines": lines[:kept]}
    alike = bool(tail) and kept == gap
    return refused, honest, forged, {"from": "Alice", "to": to, "lines": lines}, alike


def _named(mail: _Mail, press: dict) -> list[str]:
    doc = {
        "game": {"name": "hh1"},
        "players": [{"name": p} for p in PLAYERS],
        "messages": [{"message_id": mail.message_id, "received": (AT - timedelta(minutes=1)).isoformat()}],
        "events": [{"seq": 1, "kind": "press", "at": AT.isoformat(), "text": "Press", "data": press}],
    }
    asks = {mail.message_id: asked.requests(mail, (), True)}
    return asked.unasked(doc, [mail], "Alice", asks, {mail.message_id})


def count(seeds: range) -> tuple[int, int, int]:
    """(forgeries unnamed, honest presses named, forgeries unnamed that the Sent copy cannot tell: `_case`)."""
    missed = false = alike = 0
    for seed in seeds:
        refused, honest, forged, whole, same = _case(seed)
        false += bool(_named(honest, whole))
        unnamed = not _named(refused, forged)
        missed += unnamed
        alike += unnamed and same
    return missed, false, alike


FIXED = hasattr(asked, "_ends")  # (8aa88d6c: counted, not asserted)


@pytest.mark.parametrize("part", range(3))
def test_a_press_cut_at_its_end_from_a_refused_reply_is_named(part: int) -> None:
    n = 2000 if FULL else 60
    seeds = range(part * n // 3, (part + 1) * n // 3)
    missed, false, alike = count(seeds)
    if FULL:
        print(
            f"fairness25 press {part}: {missed} forgeries unnamed ({alike} cut at a blank line), {false} honest named"
        )
    assert false == 0
    if FIXED:  # the forgeries left are only those cut at a blank line with pbem's mail pasted under the block
        assert missed == alike, (missed, alike)
