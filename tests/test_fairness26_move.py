"""fairness25's move limit, by generator: a move matched by its confirmation alone (`pbem.trust.asked._confirmed`).

fairness25 took an ``ADDRESS CONFIRM`` of the hour, sent from the new address, as the player's evidence of a move,
trusting that pbem mails the word only when the seat's address asked to move there.  The moderator holds the home's
secret: he can mail the word for any address of the player's (one she uses elsewhere) unasked, in a mail that looks
like pbem's; she sends it back, and the seat moves, recorded as her own request, every check passing.  Each case
here is a marked game's move of Alice's seat to an address of hers, with its binding (`asked.moved_to`, keyed with
the seed once it is out; in a game still running the confirmation of the hour is all that can be compared), her
confirmation from the new address read in the hour before it, zero to three mails of hers from the old address in
the two days before, and one of:

* honest: her ``ADDRESS <new>`` line from the old address, read before the confirmation within the two days;
* forged: no ADDRESS line, one naming another address, or one for the new address older than the two days.

Checked by `asked.unasked` as `pbem verify --sent` checks them, given both folders (the mails of the old address
and the confirmation).  Counted with ``PBEM_FAIRNESS26_MOVE_FULL=1 python3 -m pytest tests/test_fairness26_move.py
-s -q -n 0`` over 2,000 cases (seeds 0-1999; the same file runs on 4da2cbd6):

* forgeries unnamed where the old address's folder holds mail of the two days: 1,038 of 1,038 on 4da2cbd6, 0 now
  (the ADDRESS line must name the new address and be read before the confirmation: `_confirmed`); where it holds
  none (the player gave the new address's folder alone, or sent nothing else those days): 199 of 199 unnamed before
  and now, each noted now ("on your ADDRESS CONFIRM alone ... Give the Sent folder of your old address too"), none
  on 4da2cbd6;
* honest moves named: 0 of 763, before and now (none noted: the ADDRESS line is itself mail of the old address).

The suite runs 60 cases.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from pbem.trust import asked

FULL = os.environ.get("PBEM_FAIRNESS26_MOVE_FULL") == "1"
PLAYERS = ["Alice", "Bob", "Carol"]
OLD = "alice@players.test"
NEW = ["alice@new.test", "alice.work@corp.test", "a@b.test"]
SEED = "5eed" * 8
AT = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)
WORD = "482193"
FIXED = hasattr(asked, "_alone_line")  # (4da2cbd6: counted, not asserted)


@dataclass
class _Mail:
    message_id: str
    text: str
    sender: str
    subject: str = "[pbem hh1] orders"


def _case(seed: int) -> tuple[dict, list[_Mail], str, bool]:
    """(the export, Alice's mails, the shape, whether the old address's folder holds mail of the two days)."""
    rng = random.Random(seed)
    new = rng.choice(NEW)
    ended = rng.random() < 0.5  # the seed is out (the binding can be compared) or the game still runs
    shape = rng.choice(["honest", "honest", "no ADDRESS line", "ADDRESS to another", "ADDRESS too old"])
    mails: list[tuple[datetime, _Mail]] = []
    for n in range(rng.randint(0, 3)):  # her orders from the old address
        at = AT - timedelta(minutes=rng.randint(61, 2 * 24 * 60 - 1))
        mails.append((at, _Mail(f"o{n}.{seed}@players.test", "PASS", OLD)))
    confirm = AT - timedelta(minutes=rng.randint(1, 59))
    if shape != "no ADDRESS line":
        to = rng.choice([x for x in NEW if x != new]) if shape == "ADDRESS to another" else new
        hours = rng.randint(49, 96) if shape == "ADDRESS too old" else rng.randint(2, 47)
        mails.append((AT - timedelta(hours=hours), _Mail(f"a.{seed}@players.test", f"ADDRESS {to}", OLD)))
    mails.append((confirm, _Mail(f"c.{seed}@new.test", f"ADDRESS CONFIRM {WORD}", new)))
    key = asked.address_key(SEED)
    move = {"action": "address", "by": "player", "player": "Alice", "seat": 0}
    move["to"] = asked.moved_to("hh1", WORD, new, key) if hasattr(asked, "address_key") else ""
    doc = {
        "game": {"name": "hh1", "bindings": 1},
        "players": [{"name": p} for p in PLAYERS],
        "messages": [{"message_id": m.message_id, "received": at.isoformat()} for at, m in mails],
        "events": [{"seq": 1, "kind": "moderator", "at": AT.isoformat(), "text": "moved", "data": move}],
        **({"seed": SEED} if ended else {}),
    }
    window = AT - timedelta(days=2)
    old_given = any(m.sender == OLD and at >= window for at, m in mails)
    return doc, [m for _, m in mails], shape, old_given


def _checked(doc: dict, mails: list[_Mail]) -> tuple[list[str], list[str]]:
    """(UNASKED lines, notes) of `asked.unasked` for Alice."""
    asks = {m.message_id: asked.requests(m, (), False) for m in mails}
    notes: list[str] = []
    if FIXED:
        return asked.unasked(doc, mails, "Alice", asks, notes=notes), notes
    return asked.unasked(doc, mails, "Alice", asks), notes


def count(seeds: range) -> dict[str, int]:
    out = dict.fromkeys(["forged, old folder", "unnamed", "forged, no old mail", "alone unnamed", "noted"], 0)
    out |= {"honest": 0, "honest named": 0}
    for seed in seeds:
        doc, mails, shape, old_given = _case(seed)
        named, notes = _checked(doc, mails)
        if shape == "honest":
            out["honest"] += 1
            out["honest named"] += bool(named)
        elif old_given:
            out["forged, old folder"] += 1
            out["unnamed"] += not named
        else:
            out["forged, no old mail"] += 1
            out["alone unnamed"] += not named
            out["noted"] += bool(notes)
    return out


@pytest.mark.parametrize("part", range(3))
def test_a_move_the_player_confirmed_but_never_asked_is_named(part: int) -> None:
    n = 2000 if FULL else 60
    got = count(range(part * n // 3, (part + 1) * n // 3))
    if FULL:
        print(f"fairness26 move {part}: {got}")
    assert got["honest named"] == 0
    if FIXED:
        assert got["unnamed"] == 0, got
        assert got["noted"] == got["forged, no old mail"], got
