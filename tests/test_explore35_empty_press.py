"""A press block with no text is not relayed: the answer says so (explore35).

`PRESS TO Bob` then `END PRESS` with nothing (or only blank lines) between them was relayed to Bob as a mail saying
nothing and kept in the history, while `PRESS TO Bob:` alone on its line was refused with what to write.  The
generator writes every empty block (each way to name the recipients, blank lines or none, a colon or none) beside a
block with text, and asks `extract` for what it relays and what it tells.
"""

from __future__ import annotations

from itertools import product

from pbem.orders.extract import extract

HEADS = ("PRESS TO Bob", "PRESS TO Bob:", "PRESS TO ALL", "PRESS TO Bob, Carol", "press to bob")
BLANKS = ("", "\n", "\n   \n", "\n\t\n\n")


def test_an_empty_press_block_is_told_and_not_relayed() -> None:
    """20 empty blocks: 20 were relayed on the base commit; 0 now (and the block with text beside each still is)."""
    relayed = []
    for head, blank in product(HEADS, BLANKS):
        ex = extract(f"NO EVENT\n{head}{blank}\nEND PRESS\nPRESS TO Carol\nshall we?\nEND PRESS\n")
        assert [p.to for p in ex.press][-1:] == [["Carol"]] and ex.orders == ["NO EVENT"], (head, blank, ex)
        if len(ex.press) != 1 or not any("holds no text" in p for p in ex.problems):
            relayed.append((head, blank))
    assert not relayed, f"{len(relayed)} of {len(HEADS) * len(BLANKS)} empty press blocks relayed: {relayed[0]}"
