"""House of Habsburg: the typed shape of the state (what `rules.new_state` builds; layout in rules.py).

The state stays a plain JSON dict (snapshots, golden files and the export read
it as it is); these TypedDicts tell the type checker which key holds what.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, cast


class Meld(TypedDict):
    id: str
    owner: str
    person: str
    holding: str
    claim: str


class State(TypedDict):
    kind: Literal["habsburg"]
    rng: dict[str, Any]
    players: list[str]
    deck: list[str]
    discard: list[str]
    hands: dict[str, list[str]]
    tokens: dict[str, int]
    melds: list[Meld]
    next_meld: int
    turn: int
    #: seat index of the player to play
    active: int
    phase: str
    idle: int
    played: bool
    empty_start: bool
    #: the active player's conditional discard: None, "LOWEST", "HIGHEST" or the cards
    standing: str | list[str] | None
    winners: list[str] | None


def typed(state: dict[str, Any]) -> State:
    """The engine contract's plain state seen with this game's shape (no copy, no check)."""
    return cast(State, state)


def plain(st: State) -> dict[str, Any]:
    """This game's state as the engine contract's plain JSON dict (no copy)."""
    return cast(dict[str, Any], st)
