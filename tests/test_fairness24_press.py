"""fairness24's press forgeries by generator, on the pure matching of `pbem.trust.asked` (no game played).

Each case is a mail of Alice's with a press block (``PRESS TO`` one to three of Bob, Carol, Dave or ALL, one to four
lines; sometimes a reply) and the press event pbem writes for it, then one forgery the moderator writes in her name
with the same mail in the export: a recipient added, one dropped, the lines reordered, the first or the last line
cut, or the same press written again to another player.  `asked.unasked` must name the forgery and not the honest
press.  Counted with ``PBEM_FAIRNESS24_PRESS_FULL=1 python3 -m pytest tests/test_fairness24_press.py -s -q -n 0`` over
2,000 cases (seeds 0-1999; the same file runs on b1f92b21):

* forgeries unnamed: 2,000 of 2,000 on b1f92b21 (every kind, reply or not: the recipients were never compared, and
  lines found anywhere in a mail's text matched, even a mail the honest press had taken), 0 now;
* honest presses named: 0 of 2,000, before and now.

The suite runs 60 cases.
"""

from __future__ import annotations

import inspect
import os
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from pbem.trust import asked

FULL = os.environ.get("PBEM_FAIRNESS24_PRESS_FULL") == "1"
PLAYERS = ["Alice", "Bob", "Carol", "Dave"]
SAID = ["Shall we both pass?", "I will attack Carol.", "Not really: I will pass.", "Watch the east.", "Deal?"]
KINDS = ("added", "dropped", "reordered", "first cut", "last cut", "shown to another")
AT = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)


@dataclass
class _Mail:
    message_id: str
    text: str
    subject: str = "[pbem hh1] press"


def _case(seed: int) -> tuple[_Mail, bool, dict, dict, str]:
    """(Alice's mail, whether it is a reply, pbem's event for it, the forged event, the forgery's kind)."""
    rng = random.Random(seed)
    to = sorted(rng.sample(PLAYERS[1:], rng.randint(1, 3)))
    named = "ALL" if len(to) == 3 and rng.random() < 0.3 else ", ".join(to)
    lines = rng.sample(SAID, rng.randint(1, 4))
    mail = _Mail(f"m{seed}@players.test", "\n".join([f"PRESS TO {named}", *lines, "END PRESS", "", "Alice"]))
    honest = {"from": "Alice", "to": to, "lines": lines}
    kind = rng.choice([k for k in KINDS if len(lines) > 1 or ("cut" not in k and k != "reordered")])
    others = [p for p in PLAYERS[1:] if p not in to]
    forged = dict(honest)
    if kind == "added" and others:
        forged["to"] = sorted([*to, rng.choice(others)])
    elif kind in ("added", "dropped") and len(to) > 1:  # (no one left to add: one dropped)
        kind, forged["to"] = "dropped", sorted(rng.sample(to, len(to) - 1))
    elif kind in ("added", "dropped"):
        kind, forged["to"] = "shown to another", [rng.choice(others)]
    elif kind == "reordered":
        forged["lines"] = lines[1:] + lines[:1]
    elif kind == "first cut":
        forged["lines"] = lines[1:]
    elif kind == "last cut":
        forged["lines"] = lines[:-1]
    else:
        forged["to"] = [rng.choice(others or [p for p in PLAYERS[1:] if p != to[0]])]
    return mail, rng.random() < 0.5, honest, forged, kind


def _named(mail: _Mail, reply: bool, events: list[dict]) -> list[str]:
    doc = {
        "game": {"name": "hh1"},
        "players": [{"name": p} for p in PLAYERS],
        "messages": [{"message_id": mail.message_id, "received": (AT - timedelta(minutes=1)).isoformat()}],
        "events": [
            {"seq": n, "kind": "press", "at": AT.isoformat(), "text": "Press", "data": data}
            for n, data in enumerate(events, 1)
        ],
    }
    asks = {mail.message_id: asked.requests(mail, (), reply)}
    if "replies" in inspect.signature(asked.unasked).parameters:
        return asked.unasked(doc, [mail], "Alice", asks, {mail.message_id} if reply else set())
    return asked.unasked(doc, [mail], "Alice", asks)  # b1f92b21


def count(seeds: range) -> tuple[int, int, list[str]]:
    """(forgeries unnamed, honest presses named, the kinds unnamed)."""
    missed, false, kinds = 0, 0, []
    for seed in seeds:
        mail, reply, honest, forged, kind = _case(seed)
        false += bool(_named(mail, reply, [honest]))
        named = _named(mail, reply, [honest, forged])
        if not [x for x in named if x.startswith("UNASKED: event 2 ")]:
            missed += 1
            kinds.append(f"{kind}{' (reply)' if reply else ''}")
    return missed, false, kinds


@pytest.mark.parametrize("part", range(3))
def test_a_press_forged_from_the_players_own_press_is_named(part: int) -> None:
    n = 2000 if FULL else 60
    missed, false, kinds = count(range(part * n // 3, (part + 1) * n // 3))
    if FULL:
        print(f"fairness24 press {part}: {missed} forgeries unnamed, {false} honest named", sorted(set(kinds)))
    assert false == 0
    if "replies" in inspect.signature(asked.unasked).parameters:  # (b1f92b21: counted, not asserted)
        assert not kinds, kinds
