"""fairness26's move check, by generator: a player who moves twice within two days and leaves out a folder.

fairness26 made `pbem.trust.asked._confirmed` require, where the Sent folders given hold mail of the two days before
a move from another address than the new one, the player's ``ADDRESS <new>`` line asking for it.  A player who moved
A -> B -> C within two days holds three Sent folders; given A's and C's only (B lost, or forgotten), the second
move's ADDRESS line (sent from B) is missing while A's mails of the two days are there, and the honest move was
UNASKED; the first move's ADDRESS CONFIRM (sent from B) is missing too, and it was UNASKED as well.  Each case here
is a marked game (the seed out or not) in which Alice moves A -> B at T1 and B -> C at T2, T2 - T1 between 2 and 46
hours: her orders from A before T1, her ``ADDRESS B`` from A and ``ADDRESS CONFIRM`` from B; her orders from B
after T1, the second move's request from B and its confirmation from C; then one of

* honest: ``ADDRESS C`` from B, read before the confirmation;
* forged (the moderator mailed C the word unasked): no ADDRESS line from B, or one naming another address;

checked as `pbem verify --sent` checks them (`asked.unasked`), given the folders of {A, B, C}, {A, C} (twice as
often) or {B, C}.  Counted with ``PBEM_FAIRNESS27_MOVE_FULL=1 python3 -m pytest tests/test_fairness27_move.py -s -q
-n 0`` over 2,000 cases (seeds 0-1999; the same file runs on ab18255d, where it prints its counts and fails):

* honest games warned (an UNASKED line): 502 of 973 on ab18255d (every one given A's folder without B's), 0 now;
  each of the 502 now gets a note naming B's folder, the missing one (`asked._unconfirmed` for the first move,
  whose confirmation B sent; `asked._alone_line` for the second, whose request B sent);
* forged second moves unnamed where B's folder is given: 0 of 497, before and now (B's folder is known given by
  the first move's confirmation, `asked._old_given`); where it is not, 530 forgeries, UNASKED on ab18255d, are now a
  note naming B's folder: the folders given hold the very lines an honest player's do, so no check can tell them
  apart until B's folder is given.

What stays: given C's folder alone (neither A's nor B's), the first move has no mail at all to check and is UNASKED,
whose line says to give the folder of the address it moved to.

The suite runs 60 cases.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from pbem.trust import asked

FULL = os.environ.get("PBEM_FAIRNESS27_MOVE_FULL") == "1"
PLAYERS = ["Alice", "Bob", "Carol"]
A = "alice@players.test"
BS = ["alice@new.test", "alice.work@corp.test"]
CS = ["a@b.test", "alice@third.test"]
SEED = "5eed" * 8
AT = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)
WORDS = ("482193", "771204")
FOLDERS = [("A", "B", "C"), ("A", "C"), ("A", "C"), ("B", "C")]


@dataclass
class _Mail:
    message_id: str
    text: str
    sender: str
    subject: str = "[pbem hh1] orders"


def _case(seed: int) -> tuple[dict, list[_Mail], str, tuple[str, ...], str]:
    """(the export, the mails of the folders given, the second move's shape, the folders given, B's address)."""
    rng = random.Random(seed)
    b, c = rng.choice(BS), rng.choice(CS)
    ended = rng.random() < 0.5
    shape = rng.choice(["honest", "honest", "no ADDRESS line", "ADDRESS to another"])
    t1 = AT - timedelta(minutes=rng.randint(2 * 60, 46 * 60))
    mails: list[tuple[datetime, _Mail]] = []
    for n in range(rng.randint(0, 3)):  # her orders from A before the first move
        at = t1 - timedelta(minutes=rng.randint(61, 47 * 60))
        mails.append((at, _Mail(f"a{n}.{seed}@players.test", "PASS", A)))
    asked_b = t1 - timedelta(minutes=rng.randint(61, 47 * 60))
    mails.append((asked_b, _Mail(f"ab.{seed}@players.test", f"ADDRESS {b}", A)))
    confirm1 = t1 - timedelta(minutes=rng.randint(1, 59))
    mails.append((confirm1, _Mail(f"c1.{seed}@new.test", f"ADDRESS CONFIRM {WORDS[0]}", b)))
    span = int((AT - t1).total_seconds() // 60) - 61  # minutes from T1 to an hour before T2
    for n in range(rng.randint(0, 2)):  # her orders from B between the moves
        mails.append((t1 + timedelta(minutes=rng.randint(1, span)), _Mail(f"b{n}.{seed}@new.test", "PASS", b)))
    if shape != "no ADDRESS line":
        to = "eve@else.test" if shape == "ADDRESS to another" else c
        at = t1 + timedelta(minutes=rng.randint(1, span))
        mails.append((at, _Mail(f"bc.{seed}@new.test", f"ADDRESS {to}", b)))
    confirm2 = AT - timedelta(minutes=rng.randint(1, 59))
    mails.append((confirm2, _Mail(f"c2.{seed}@third.test", f"ADDRESS CONFIRM {WORDS[1]}", c)))
    key = asked.address_key(SEED)
    events = []
    for n, (at, word, to) in enumerate([(t1, WORDS[0], b), (AT, WORDS[1], c)], 1):
        move = {"action": "address", "by": "player", "player": "Alice", "seat": 0}
        move["to"] = asked.moved_to("hh1", word, to, key)
        events.append({"seq": n, "kind": "moderator", "at": at.isoformat(), "text": "moved", "data": move})
    doc = {
        "game": {"name": "hh1", "bindings": 1},
        "players": [{"name": p} for p in PLAYERS],
        "messages": [{"message_id": m.message_id, "received": at.isoformat()} for at, m in mails],
        "events": events,
        **({"seed": SEED} if ended else {}),
    }
    folders = rng.choice(FOLDERS)
    given = {"A": A, "B": b, "C": c}
    kept = [m for _, m in mails if any(m.sender == given[f] for f in folders)]
    return doc, kept, shape, folders, b


def _checked(doc: dict, mails: list[_Mail]) -> tuple[list[str], list[str]]:
    asks = {m.message_id: asked.requests(m, (), False) for m in mails}
    notes: list[str] = []
    return asked.unasked(doc, mails, "Alice", asks, notes=notes), notes


def count(seeds: range) -> dict[str, int]:
    out = dict.fromkeys(["honest", "honest warned", "honest, B left out", "B named", "forged, B given"], 0)
    out |= {"forged unnamed": 0, "forged, B left out": 0, "forged noted": 0}
    for seed in seeds:
        doc, mails, shape, folders, b = _case(seed)
        named, notes = _checked(doc, mails)
        left_out = "B" not in folders
        if shape == "honest":
            out["honest"] += 1
            out["honest warned"] += bool(named)
            out["honest, B left out"] += left_out
            out["B named"] += left_out and any(b in n and "Give the Sent folder of" in n for n in notes)
        elif not left_out:
            out["forged, B given"] += 1
            out["forged unnamed"] += not any("event 2 " in n for n in named)
        else:
            out["forged, B left out"] += 1
            out["forged noted"] += not named and any(b in n for n in notes)
    return out


@pytest.mark.parametrize("part", range(3))
def test_a_player_who_moved_twice_and_left_out_a_folder_is_told_which(part: int) -> None:
    n = 2000 if FULL else 60
    got = count(range(part * n // 3, (part + 1) * n // 3))
    if FULL:
        print(f"fairness27 move {part}: {got}")
    assert got["forged unnamed"] == 0, got
    assert got["honest warned"] == 0, got  # (fails on ab18255d)
    assert got["B named"] == got["honest, B left out"], got
    assert got["forged noted"] == got["forged, B left out"], got
