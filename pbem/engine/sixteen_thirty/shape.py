"""Sixteen Thirty Something: the typed shape of the state (what `state.setup` builds).

The state stays a plain JSON dict (snapshots, golden files and the export read
it as it is); these TypedDicts only tell the type checker which key holds
what.  Parts whose shape depends on the step (the secret answers, the ballots
of a vote, the offers of a trade) stay ``dict[str, Any]``.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict, cast


class Country(TypedDict):
    status: int
    army: int
    ability: int
    faction: str | None
    leader: bool
    unrest: bool


class Pile(TypedDict):
    cards: list[str]
    desc: bool


#: Standing orders of one player (``except`` is a keyword, hence the functional form).
Standing = TypedDict(
    "Standing",
    {"place_none": bool, "except": list[str], "votes": list[list[str]], "offer_none": bool},
)


class Vote(TypedDict):
    n: int
    country: str
    issue: str
    target: str | None
    caller: str
    origin: str
    early: dict[str, Any]
    ballots: dict[str, Any]
    placed: dict[str, Any]
    #: set when the ballots are revealed
    totals: NotRequired[dict[str, int]]
    winner: NotRequired[str | None]


class Lose(TypedDict):
    who: list[str]
    country: str
    then: str


class Trade(TypedDict):
    want: list[str]
    offer: list[str]
    revisions: int
    offers: dict[str, Any]


class Turn(TypedDict):
    """One entry of ``history``: a turn's scoring, written once when the turn ends."""

    turn: int
    gained: dict[str, int]
    totals: dict[str, int]
    breakdown: dict[str, list[list[Any]]]


class Final(TypedDict):
    scores: dict[str, int]
    winners: list[str]
    summary: str


class State(TypedDict):
    players: list[str]
    rng: dict[str, Any]
    options: dict[str, Any]
    turn: int
    first: int
    order_idx: int
    active: str | None
    phase: str
    step: str
    countries: dict[str, Country]
    deck: list[str]
    discard: list[str]
    hands: dict[str, list[str]]
    displays: dict[str, dict[str, Pile]]
    counters: dict[str, list[str]]
    unused_counters: list[str]
    scores: dict[str, int]
    history: list[Turn]
    answers: dict[str, Any]
    vote: Vote | None
    lose: Lose | None
    trade: Trade | None
    specials_played: int
    votes_called: int
    call_origin: str | None
    queue: dict[str, list[str]]
    standing: dict[str, Standing]
    over: bool
    result: Final | None
    #: set only on the temporary copy `asks.every_line` asks for every legal line
    _every_legal_line: NotRequired[bool]


def typed(state: dict[str, Any]) -> State:
    """The engine contract's plain state seen with this game's shape (no copy, no check)."""
    return cast(State, state)


def plain(st: State) -> dict[str, Any]:
    """This game's state as the engine contract's plain JSON dict (no copy)."""
    return cast(dict[str, Any], st)
