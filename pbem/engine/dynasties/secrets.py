"""Dynasties secrets (docs/rulings.md): what only one player knows, for the secrecy tests.

A player's secrets are their hand (which still holds a Tribute until every
Tribute is revealed), the Tribute and discards they have on file, their
standing play list and their Conclave preference.  Whether they have
answered is public, so `scramble` changes what is on file, never whether.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import clone

State = dict[str, Any]


def scramble(st: State, player: str) -> State:
    """A copy of `st` with `player`'s hand swapped with deck cards and their orders on file changed."""
    t = clone(st)
    hand, deck = t["hands"][player], t["deck"]
    n = min(len(hand), len(deck))
    hand[:n], deck[:n] = deck[:n], hand[:n]
    if player in t["tributes"] and hand:
        t["tributes"][player] = hand[0]
    if player in t["discards"]:
        t["discards"][player] = hand[: len(t["discards"][player])]
    t["plans"][player] = []
    t["conclave_pref"][player] = None
    return t


def hidden_names(st: State, player: str) -> list[str]:
    return list(st["hands"][player])
