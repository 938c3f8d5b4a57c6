"""A refused order with a name mistyped is offered the line meant, never applied (players25, from walk6).

walk6's players sent "EVENT CLAIM Hieress TARGET Dave" and "DISCARD drumers, flank attack": refused with the reason
and the list of legal lines, never offered the line meant.  `pbem.app.misspelt` offers it now: first in the list,
and named in the reason, when exactly one line the player is asked for is that near (each name the same or one typo
off) and the engine takes it alone now.  The message stays refused.

The generator: the states the bots reach in every kind (`tests.app.test_refusals_agree.states`), each player, each
line they are asked for with two words or more after its order word, with one typo (two letters swapped, or one
dropped) in its first word of five letters or more after the order word, and in every such word; a case is one the engine refuses where
exactly one asked line is that near, word by word; it fails unless the refusal offers that line first and names it.
Over every state (`PBEM_MISSPELT_FULL=1`, under a second): 283 cases (Habsburg 104, Italian Wars 39, Sixteen
Thirty 106, Dynasties 34), all 283 failing on 18279215, 0 on players25.  The suite's sample (every 4th state, at most
`CAP` cases a kind): 16 cases, 16 failing on 18279215.
"""

from __future__ import annotations

import os

import pytest

from pbem import engine as registry
from pbem.app import refusals
from pbem.app.misspelt import meant_note
from pbem.orders.near import WORD, one_off
from tests.app.test_refusals_agree import states

FULL = os.environ.get("PBEM_MISSPELT_FULL") == "1"
STRIDE, CAP = (1, 10**9) if FULL else (4, 4)
LINES = 6  # asked lines a player looked at, per state


def _typo(word: str) -> str:
    core = word.rstrip(",.;")
    mid = len(core) // 2
    typed = (
        core[:mid] + core[mid + 1] + core[mid] + core[mid + 2 :]
        if core[mid] != core[mid + 1]
        else core[:mid] + core[mid + 1 :]
    )
    return typed + word[len(core) :]


def _near(typed: str, line: str) -> bool:
    a, b = typed.casefold().split(), line.casefold().split()
    return (
        len(a) == len(b)
        and a != b
        and all(x == y or (min(len(x), len(y)) >= WORD and one_off(x, y)) for x, y in zip(a, b))
    )


def cases(kind: str) -> list[tuple[str, str, str]]:
    """(player, the line typed, the line meant) for the refused lines one asked line is near, at most `CAP`."""
    eng = registry.get(kind)
    found, _, players = states(kind)
    out: list[tuple[str, str, str]] = []
    for st in found[::STRIDE]:
        for p in players:
            asked = [ln for q in eng.requests(st) if q.player == p and not q.answered for ln in q.legal]
            for line in asked[:LINES]:
                words = line.split()
                names = [i for i, w in enumerate(words[1:], 1) if len(w.rstrip(",.;")) >= WORD + 1]
                if len(words) < 3 or not names:
                    continue
                for mistyped in [{names[0]}, set(names)][: 1 + (len(names) > 1)]:
                    typed = " ".join(_typo(w) if i in mistyped else w for i, w in enumerate(words))
                    if len(out) >= CAP:
                        return out
                    if sum(_near(typed, ln) for ln in dict.fromkeys(asked)) != 1 or eng.apply(st, p, [typed]).accepted:
                        continue
                    worded = refusals.worded(eng, st, p, eng.apply(st, p, [typed]))
                    r = worded.lines[0]
                    out.append(
                        (p, typed, line if r.legal[:1] == (line,) and r.reason.endswith(meant_note("", line)) else "")
                    )
    return out


@pytest.mark.parametrize("kind", registry.available())
def test_a_name_mistyped_in_a_refused_order_is_offered_the_line_meant(kind: str) -> None:
    found = cases(kind)
    missed = [(p, typed) for p, typed, offered in found if not offered]
    assert missed == [], f"{len(missed)} of {len(found)}: {missed[:4]}"


def test_no_line_is_offered_when_two_are_that_near() -> None:
    from pbem.orders.near import names_near

    assert names_near("DISCARD Swsis Square", ["DISCARD Swiss Square"]) == "DISCARD Swiss Square"
    assert names_near("DISCARD Swsis Square", ["DISCARD Swiss Square", "DISCARD Swiss Squares"]) == ""
    assert names_near("PLAY Silvr 4", [], ["Silver"]) == "PLAY Silver 4"
    assert names_near("PLAY Silvr 4", [], ["Silver", "Silvar"]) == ""  # near two names: the player's to say
    assert names_near("PLAY Silver 4", [], ["Silver"]) == ""  # nothing mistyped: refused for another reason
