"""House of Habsburg secrets (HH-R11): what only one player knows, for the secrecy tests.

A player's secrets are their hand and, while it is their turn, their standing
discard order.  `scramble` swaps the hand with cards from the deck (whose
order nobody sees) and flips the standing order; `hidden_names` lists the
hand's cards.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import clone
from pbem.engine.habsburg import rules
from pbem.engine.habsburg.table import typed

State = dict[str, Any]


def scramble(st: State, player: str) -> State:
    """A copy of `st` with `player`'s hand (and standing order) changed; card counts stay the same."""
    t = clone(st)
    hand, deck = t["hands"][player], t["deck"]
    n = min(len(hand), len(deck))
    hand[:n], deck[:n] = deck[:n], hand[:n]
    if t["phase"] != "over" and rules.active(typed(t)) == player and t["standing"] is not None:
        t["standing"] = "HIGHEST" if t["standing"] == "LOWEST" else "LOWEST"
    return t


def hidden_names(st: State, player: str) -> list[str]:
    return list(st["hands"][player])
