"""What each player must keep secret at a given moment, read from the engine state.

Used by the mail-level secrecy tests: a player's mail may never name another
player's hidden items unless an event visible to that player already did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def habsburg(state: dict[str, Any], player: str) -> list[str]:
    return list(state["hands"][player])


def italian_wars(state: dict[str, Any], player: str) -> list[str]:
    return list(state["hands"][player]) if state.get("step") == "discard" else []


def dynasties(state: dict[str, Any], player: str) -> list[str]:
    # A tribute stays in its owner's hand until every tribute is revealed.
    return list(state["hands"][player])


HIDDEN: dict[str, Callable[[dict[str, Any], str], list[str]]] = {
    "habsburg": habsburg,
    "italian-wars": italian_wars,
    "dynasties": dynasties,
}
