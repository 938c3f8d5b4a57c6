"""What each player must keep secret at a given moment, as each engine declares it (`hidden_names`).

Used by the mail-level and export-level secrecy tests: a player's mail may
never name another player's hidden items unless an event visible to that
player already did.  `HIDDEN` holds the kinds whose secret items have names
distinctive enough to search text for (cards, not countries); the contract
test's scramble (tests/engine/test_contract.py) covers every kind.
"""

from __future__ import annotations

import re
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


def names(item: str, text: str) -> bool:
    """True if `text` names `item` as words ("Duke" is not named by "Dukedom" or "Duke-Elector").  A text without
    the item even as a substring is not searched: the same answer, and most items are in no text checked (the
    search had cost 1.4 of the 8.6 s of test_history_visibility's habsburg case)."""
    return item in text and re.search(rf"(?<![\w-]){re.escape(item)}(?![\w-])", text) is not None
