"""What each player must keep secret at a given moment, as each engine declares it (`hidden_names`).

Used by the mail-level and export-level secrecy tests: a player's mail may
never name another player's hidden items unless an event visible to that
player already did.  `HIDDEN` holds the kinds whose secret items have names
distinctive enough to search text for (cards, not countries); the contract
test's scramble (tests/engine/test_contract.py) covers every kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem import engine as registry


def _names_its_secrets(kind: str) -> bool:
    eng = registry.get(kind)
    seats = [f"P{i}" for i in range(eng.min_players)]
    state, _ = eng.setup(seats, "probe", {})
    return eng.hidden_names(state, seats[0]) is not None


def _hidden(kind: str) -> Callable[[dict[str, Any], str], list[str]]:
    eng = registry.get(kind)
    return lambda state, player: list(eng.hidden_names(state, player) or [])


HIDDEN: dict[str, Callable[[dict[str, Any], str], list[str]]] = {
    kind: _hidden(kind) for kind in registry.available() if _names_its_secrets(kind)
}
