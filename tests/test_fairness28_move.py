"""fairness27's move check, by generator: a player who moved twice and gives the last address's folder alone.

fairness27 (`tests/test_fairness27_move.py`) left this: Alice moves A -> B at T1 and B -> C at T2, 2 to 46 hours apart,
and gives C's Sent folder alone (the address she reads now; A and B lost).  The second move is matched by its
ADDRESS CONFIRM from C with a note asking for the folder of the address it moved from; the first move has nothing of
hers at all (its ADDRESS line is in A's folder, its ADDRESS CONFIRM in B's) and was UNASKED, a false warning for an
honest player.  Now (`asked._between`) a move no mail given checks, after which the seat moved on within two days
with that later move confirmed from the folder given, every mail given sent from that later address and none in the
two days before the move, is a note naming the folders that decide it (of the address it moved to, the one the next
move moved it from, and of the one before), unless the export's DKIM evidence shows every mail of the player's of
those two days signed whole with no ADDRESS line (then UNASKED, as `_vouched` decides a single move).

Each case is fairness27's (a marked game, the seed out or not; her orders from A before T1, ``ADDRESS B`` from A,
``ADDRESS CONFIRM`` from B, orders from B, the second move's request from B, its confirmation from C), the first move
honest or forged (no ``ADDRESS B`` line: the moderator mailed B the word unasked), the second honest or forged, given
C's folder alone; and a single forged move (fairness24's move to Eve, the seat not moving on) with C's folder of
another game's day given.  Counted with ``PBEM_FAIRNESS28_MOVE_FULL=1 python3 -m pytest tests/test_fairness28_move.py
-s -q -n 0`` over 2,000 cases (seeds 0-1999; the same file runs on 36ff7173, where it fails):

* honest first moves named UNASKED with C's folder alone: 973 of 973 on 36ff7173, 0 now; each a note naming the
  folder of the address moved to then;
* forged first moves: with C's folder alone the folder holds the very lines an honest player's does (a note now,
  UNASKED before: what stays, argued in docs/security.md); given A's folder too, UNASKED before and now (0 of 1,027
  unnamed);
* single moves with no later one (2,000): UNASKED before and now.

The suite runs 60 cases.
"""

from __future__ import annotations

import os
import random
from datetime import timedelta

import pytest

from pbem.trust import asked
from tests.test_fairness27_move import AT, BS, CS, SEED, WORDS, A, _checked, _Mail

FULL = os.environ.get("PBEM_FAIRNESS28_MOVE_FULL") == "1"


def _case(seed: int) -> tuple[dict, list[_Mail], list[_Mail], str]:
    """(the export, C's folder, A's folder, the first move's shape)."""
    rng = random.Random(seed)
    b, c = rng.choice(BS), rng.choice(CS)
    ended = rng.random() < 0.5
    first = rng.choice(["honest", "forged"])
    t1 = AT - timedelta(minutes=rng.randint(2 * 60, 46 * 60))
    mails: list[tuple] = []
    for n in range(rng.randint(0 if first == "honest" else 1, 3)):  # her orders from A before the first move
        mails.append((t1 - timedelta(minutes=rng.randint(61, 47 * 60)), _Mail(f"a{n}.{seed}@players.test", "PASS", A)))
    if first == "honest":
        at = t1 - timedelta(minutes=rng.randint(61, 47 * 60))
        mails.append((at, _Mail(f"ab.{seed}@players.test", f"ADDRESS {b}", A)))
    mails.append(
        (t1 - timedelta(minutes=rng.randint(1, 59)), _Mail(f"c1.{seed}@new.test", f"ADDRESS CONFIRM {WORDS[0]}", b))
    )
    span = int((AT - t1).total_seconds() // 60) - 61
    for n in range(rng.randint(0, 2)):
        mails.append((t1 + timedelta(minutes=rng.randint(1, span)), _Mail(f"b{n}.{seed}@new.test", "PASS", b)))
    if rng.random() < 0.75:
        mails.append((t1 + timedelta(minutes=rng.randint(1, span)), _Mail(f"bc.{seed}@new.test", f"ADDRESS {c}", b)))
    mails.append(
        (AT - timedelta(minutes=rng.randint(1, 59)), _Mail(f"c2.{seed}@third.test", f"ADDRESS CONFIRM {WORDS[1]}", c))
    )
    for n in range(rng.randint(0, 2)):  # her orders from C after the second move
        mails.append((AT + timedelta(minutes=rng.randint(1, 600)), _Mail(f"c{n}.{seed}@third.test", "PASS", c)))
    key = asked.address_key(SEED)
    events = []
    for n, (at, word, to) in enumerate([(t1, WORDS[0], b), (AT, WORDS[1], c)], 1):
        move = {"action": "address", "by": "player", "player": "Alice", "seat": 0}
        move["to"] = asked.moved_to("hh1", word, to, key)
        events.append({"seq": n, "kind": "moderator", "at": at.isoformat(), "text": "moved", "data": move})
    doc = {
        "game": {"name": "hh1", "bindings": 1},
        "players": [{"name": p} for p in ("Alice", "Bob", "Carol")],
        "messages": [{"message_id": m.message_id, "received": at.isoformat()} for at, m in mails],
        "events": events,
        **({"seed": SEED} if ended else {}),
    }
    return doc, [m for _, m in mails if m.sender == c], [m for _, m in mails if m.sender == A], first


def _single(seed: int) -> tuple[dict, list[_Mail]]:
    """A single move confirmed from nowhere given (the moderator moved the seat to Eve), and C's folder of mails
    older than two days given: nothing moved on, so the move stays UNASKED."""
    doc, c_folder, _, _ = _case(seed)
    doc["events"] = doc["events"][:1]
    return doc, [m for m in c_folder if "CONFIRM" not in m.text]


def count(seeds: range) -> dict[str, int]:
    out = dict.fromkeys(["honest", "honest named", "honest noted", "forged, A given", "forged unnamed"], 0)
    out |= {"single": 0, "single unnamed": 0}
    for seed in seeds:
        doc, c_folder, a_folder, first = _case(seed)
        named, notes = _checked(doc, c_folder)
        if first == "honest":
            out["honest"] += 1
            out["honest named"] += any("event 1 " in n for n in named)
            out["honest noted"] += any(n.startswith("event 1 ") and "Give the Sent folder" in n for n in notes)
        else:
            named, _ = _checked(doc, a_folder + c_folder)
            out["forged, A given"] += 1
            out["forged unnamed"] += not any("event 1 " in n for n in named)
        doc, given = _single(seed)
        named, _ = _checked(doc, given)
        out["single"] += 1
        out["single unnamed"] += not named
    return out


@pytest.mark.parametrize("part", range(3))
def test_a_player_who_moved_twice_and_gave_the_last_folder_alone_is_told_which_folder(part: int) -> None:
    n = 2000 if FULL else 60
    got = count(range(part * n // 3, (part + 1) * n // 3))
    if FULL:
        print(f"fairness28 move {part}: {got}")
    assert got["forged unnamed"] == 0 and got["single unnamed"] == 0, got
    assert got["honest named"] == 0, got  # (fails on 36ff7173)
    assert got["honest noted"] == got["honest"], got
