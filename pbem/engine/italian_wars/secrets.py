"""Italian Wars secrets (docs/rulings.md): what only one player knows, for the secrecy tests.

During the Tactics phase a player's hand is secret; at any time so are the
discards, Leader preference, negation plan and Leader choice they have on
file.  Whether they have answered is public, so `scramble` changes what is
on file, never whether.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import clone
from pbem.engine.italian_wars.cards import BY_NAME

State = dict[str, Any]


def scramble(st: State, player: str) -> State:
    """A copy of `st` with `player`'s hidden hand swapped with deck cards and their orders on file changed."""
    t = clone(st)
    if t["step"] == "discard":
        hand, deck = t["hands"][player], t["deck"]
        n = min(len(hand), len(deck))
        hand[:n], deck[:n] = deck[:n], hand[:n]
        if player in t["pending"]:
            t["pending"][player] = hand[: len(t["pending"][player])]
    t["prefs"].pop(player, None)
    t["plans"].pop(player, None)
    pick = t["leader_pick"].get(player)
    if pick is not None:
        kind = BY_NAME[pick]["type"]
        others = [c for c in t["field"][player] if c != pick and BY_NAME[c]["type"] == kind]
        t["leader_pick"][player] = others[0] if others else pick
    return t


def hidden_names(st: State, player: str) -> list[str]:
    return list(st["hands"][player]) if st["step"] == "discard" else []
