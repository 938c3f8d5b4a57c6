"""`pbem verify --mail` reads "Press not sent: Carol's seat is Erin's now: write PRESS TO Erin." again (players25).

A press to a replaced player's old name is answered with who holds that seat now (`pbem.app.press._seat_now`); the
reason was the moderator's word, so it holds only where the record's public `replace` events gave that seat so by
the mail's head (`pbem.trust.pressed.Held`).  Corpus: the honest reason at and after the replacement, and through two
replacements, passes (on 18279215 all 3 are named as "a reason pbem never gives": it had no such reason); the reason
before the replacement, for a seat never given, to another player, or with another line to write is named (5 forged,
each caught on both).  Pure: no game is played.
"""

from __future__ import annotations

from typing import Any

from pbem.trust.pressed import Held, untrue

POOLS = [["Alice", "Bob", "Carol"], ["Alice", "Bob", "Carol", "Erin", "Frank"]]


def _replace(old: str, new: str) -> dict[str, Any]:
    return {"kind": "moderator", "data": {"action": "replace", "player": old, "newcomer": new, "seat": 2}}


ROWS = [{"kind": "orders"}, _replace("Carol", "Erin"), {"kind": "press"}, _replace("Erin", "Frank")]
HONEST = [
    ("Carol's seat is Erin's now: write PRESS TO Erin", 2),
    ("Carol's seat is Erin's now: write PRESS TO Erin", 3),
    ("Carol's seat is Frank's now: write PRESS TO Frank", 4),
]
FORGED = [
    ("Carol's seat is Erin's now: write PRESS TO Erin", 1),  # before the replacement
    ("Bob's seat is Erin's now: write PRESS TO Erin", 3),  # Bob's seat was never given
    ("Carol's seat is Bob's now: write PRESS TO Bob", 3),  # to another player
    ("Carol's seat is Erin's now: write PRESS TO Bob", 3),  # another line to write
    ("Carol's seat is Erin's now: write PRESS TO Erin", 4),  # Frank's by then
]


def test_a_seat_given_to_another_is_a_reason_only_where_the_record_gave_it() -> None:
    held = Held(ROWS)
    assert [untrue(why, POOLS, (), held.at(at)) for why, at in HONEST] == ["", "", ""]
    missed = [
        (why, at)
        for why, at in FORGED
        if "says your press was not sent because" not in untrue(why, POOLS, (), held.at(at))
    ]
    assert missed == [], missed
