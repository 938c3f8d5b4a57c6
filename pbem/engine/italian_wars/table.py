"""Italian Wars: the typed shape of the state (what `engine.ItalianWars.deal` builds).

The state stays a plain JSON dict (snapshots, golden files and the export read
it as it is); these TypedDicts tell the type checker which key holds what.
"""

from __future__ import annotations

from typing import Any, TypedDict, cast


class Negation(TypedDict):
    """The negation step of a hand (IW-R11): whose turn, passes in a row, cards used, actions taken."""

    turn: str
    passes: int
    used: list[str]
    actions: int


class LastHand(TypedDict):
    hand: int
    winner: str | None
    totals: dict[str, int]
    forces: dict[str, Any]


class State(TypedDict):
    players: list[str]
    rng: dict[str, Any]
    sides: dict[str, str]
    deck: list[str]
    discard: list[str]
    hands: dict[str, list[str]]
    field: dict[str, list[str]]
    hand: int
    won: dict[str, int]
    streak: dict[str, int]
    prev_winner: str | None
    prev_loser: str | None
    step: str
    #: the secret discards of this hand, by player, until both are in
    pending: dict[str, list[str]]
    #: standing orders: which Leader to keep, and the negation plan ([own card, target] pairs)
    prefs: dict[str, list[str] | None]
    plans: dict[str, list[list[str]]]
    leader_ask: list[str]
    leader_pick: dict[str, str]
    neg: Negation | None
    last: LastHand | None
    secret_log: list[dict[str, Any]]
    over: bool
    winner: str | None


def typed(state: dict[str, Any]) -> State:
    """The engine contract's plain state seen with this game's shape (no copy, no check)."""
    return cast(State, state)


def plain(state: State) -> dict[str, Any]:
    """This game's state as the engine contract's plain JSON dict (no copy)."""
    return cast(dict[str, Any], state)


def negation(state: State) -> Negation:
    """The negation under way (only asked for in the negate step)."""
    neg = state["neg"]
    if neg is None:
        raise AssertionError(f"no negation under way at step {state['step']}")
    return neg
