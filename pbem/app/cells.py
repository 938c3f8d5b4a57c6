"""A refused order pasted as a spreadsheet's row with a remark in a cell after it (pure): the order offered, never read.

"1<tab>PASS" is read (`pbem.orders.typed`: a number's cell before the order is a list's).  A row with a cell after
the order ("1<tab>EVENT PERSON Heinrich<tab>my move", a table's remark or date column) was read whole and refused:
"my move" is no name, and the answer said why but not that the order itself was right (players29: 161 of 168
realistic replies so pasted were untold, `tests/test_replies27_realistic.py`).  Each refused line holding a tab is
tried without its last cells, `CELLS` at most, longest first; the first the engine takes alone now is offered ("write
it on a line alone: EVENT PERSON Heinrich"), never applied: a cell may be part of the order the player meant.
"""

from __future__ import annotations

import re
from typing import Any

from pbem.app.signed import alone
from pbem.engine.base import Engine, Outcome
from pbem.orders.extract import Extracted

CELLS = 4  # cells taken off a row's end, at most
ROWS = 8  # refused rows looked at per message, at most


_NUMBER = re.compile(r"^\(?\d{1,3}[.):]?$")  # a row's number cell before the order ("1", "2.", "(3)")


def offers(eng: Engine, state: dict[str, Any], player: str, result: Outcome, ex: Extracted) -> list[str]:
    """The notes on refused rows (the order lines of `ex` typed with tabs) whose first cells are an order the engine
    takes alone now."""
    legal = {line.upper(): line for req in eng.requests(state) if req.player == player for line in req.legal}
    typed = dict(zip(ex.orders, ex.typed, strict=False))
    out: list[str] = []
    for r in [r for r in result.lines if not r.ok and "\t" in typed.get(r.line, "")][:ROWS]:
        cells = [c.strip() for c in typed[r.line].split("\t") if c.strip()]
        cells = cells[1:] if len(cells) > 1 and _NUMBER.match(cells[0]) else cells
        for k in range(len(cells) - 1, max(0, len(cells) - 1 - CELLS), -1):
            if send := alone(eng, state, player, " ".join(cells[:k]), legal):
                out.append(
                    f'"{" | ".join(cells)}" was refused: the cells after the order ("{" | ".join(cells[k:])}") were '
                    f"read as part of it. If you meant the order, write it on a line alone: {send}"
                )
                break
    return out
