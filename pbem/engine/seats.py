"""A seat changes hands: the engine state takes the newcomer's name (issue 16, `pbem game replace`).

Every engine keeps a player's name in its state as a whole string (a list
item, a dict key, a value such as the active player) or as one dot-separated
part of a step id (``t5.Carol.trade``).  `rename` rewrites exactly those and
nothing else, so every later view, request, order and event uses the new
name while the history before it keeps the old one.  The record keeps the
change as an input of kind ``rename`` (player = old name, lines = [new name]),
so a replay from the seed renames at the same point and reproduces the game.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import LineResult, Outcome, State

RENAME = "rename"


def _names_in(x: Any, out: set[str]) -> None:
    if isinstance(x, dict):
        for k, v in x.items():
            out.add(str(k))
            _names_in(v, out)
    elif isinstance(x, list):
        for v in x:
            _names_in(v, out)
    elif isinstance(x, str):
        out.add(x)
        out.update(x.split("."))


def _swap_text(text: str, old: str, new: str) -> str:
    if text == old:
        return new
    if "." not in text or old not in text:
        return text
    parts = text.split(".")
    return ".".join(new if p == old else p for p in parts) if old in parts else text


def _swap(x: Any, old: str, new: str) -> Any:
    if isinstance(x, dict):
        return {_swap_text(k, old, new) if isinstance(k, str) else k: _swap(v, old, new) for k, v in x.items()}
    if isinstance(x, list):
        return [_swap(v, old, new) for v in x]
    if isinstance(x, str):
        return _swap_text(x, old, new)
    return x


def rename(state: State, old: str, new: str) -> Outcome:
    """`state` with player `old` called `new` from now on (a new state; `state` is left as it was).

    Rejected (a `LineResult` saying why) when `old` is not a player of the state or `new` already
    appears in it: a name that is also a card, a country or another player's would become ambiguous.
    """
    players = state.get("players")
    if not isinstance(players, list) or old not in players:
        return Outcome(state, [], [LineResult(new, False, f"{old} is not a player of this game")])
    if old != new:
        taken: set[str] = set()
        _names_in(state, taken)
        if new in taken:
            return Outcome(state, [], [LineResult(new, False, f"{new} is already a name in this game")])
    renamed: State = _swap(state, old, new)
    return Outcome(renamed, [], [LineResult(new, True, understood=f"{old} -> {new}")])
