"""Dynasties rules: the flow of a gambit, and the entry points orders.py, view.py and the tests call.

A gambit runs: set-up (`gambit.setup`), the start of a gambit with its
Tribute (`gambit`), the Turns of Raising the Family (`raising`), the
conclusion, grave, draw and the end (`ending`); table.py holds gold and card
movements.  Those modules never call one another's next step: each returns
where it stopped (`raising.Ended` when the last Turn is over, the tied
players or "start the next gambit" from `ending.conclusion`) and this module
takes the step that follows, so the transitions live in one place.
"""

from __future__ import annotations

from pbem.engine.dynasties import ending, gambit, raising
from pbem.engine.dynasties.ending import HAND_LIMIT, family_total, finish, into_grave
from pbem.engine.dynasties.gambit import START_GOLD, enquire, first_player
from pbem.engine.dynasties.raising import (
    TURNS,
    Ended,
    conclave_choice,
    play_card,
    standing_conclave,
    take_from_zone,
    waiting_player,
)
from pbem.engine.dynasties.table import Events, State, hand_sizes, turn_of

__all__ = [
    "HAND_LIMIT",
    "START_GOLD",
    "TURNS",
    "conclave_choice",
    "continue_play",
    "draw_and_retire",
    "enquire",
    "family_total",
    "finish",
    "first_player",
    "hand_sizes",
    "into_grave",
    "play_card",
    "resolve_discards",
    "resolve_tribute",
    "setup",
    "standing_conclave",
    "start_gambit",
    "start_turn",
    "take_from_zone",
    "waiting_player",
]


def setup(players: list[str], seed: str, legacy: int) -> tuple[State, Events]:
    """The deal (DY-R1, DY-R2, DY-R6) and the first gambit."""
    st, ev = gambit.setup(players, seed, legacy)
    start_gambit(st, ev)
    return st, ev


def start_gambit(st: State, ev: Events) -> None:
    _play_on(st, ev, gambit.start_gambit(st, ev))


def resolve_tribute(st: State, ev: Events) -> None:
    _play_on(st, ev, gambit.resolve_tribute(st, ev))


def start_turn(st: State, ev: Events, leader: str, number: int, tied: list[str]) -> None:
    _play_on(st, ev, raising.start_turn(st, ev, leader, number, tied))


def continue_play(st: State, ev: Events) -> None:
    _play_on(st, ev, raising.continue_play(st, ev))


def draw_and_retire(st: State, ev: Events) -> None:
    if ending.draw_and_retire(st, ev):
        start_gambit(st, ev)


def resolve_discards(st: State, ev: Events) -> None:
    ending.resolve_discards(st, ev)
    start_gambit(st, ev)


def _play_on(st: State, ev: Events, ended: Ended | None) -> None:
    """After the last Turn: conclude; a tie raises again (DY-R18), a settled gambit may start the next."""
    while ended is not None:
        nxt = ending.conclusion(st, ev, ended.stuck)
        if isinstance(nxt, list):
            ended = raising.start_turn(st, ev, ended.leader, turn_of(st)["n"] + 1, nxt)
        elif nxt:
            ended = gambit.start_gambit(st, ev)
        else:
            ended = None
