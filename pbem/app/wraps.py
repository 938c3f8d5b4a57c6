"""An order a hard wrap parted inside a name (pure): the refused first line offered joined with the lines under it.

A client or a forwarder that wraps at 20 to 40 columns parts "EVENT CLAIM First Cousins TARGET Carol" into "EVENT
CLAIM First" and "Cousins TARGET Carol".  `pbem.orders.extract._wrapped` reads such lines as one order only after a
comma, "+", "&" or "and"; parted inside a name the first line was refused alone and the rest listed as not read,
with no word of the order meant (players27).  Now when the refused line joined with the one to `WRAPS` lines right
under it (set aside, no blank line between) is a legal order of the player's, the answer says so and shows that
order to send on one line.  It is offered, never read: the deadline's reading and `pbem verify` read the message
without the game's state, and only a legal order now tells a wrap from a remark under an order.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import Engine, Outcome
from pbem.orders.extract import Extracted

WRAPS = 3  # lines under a refused order joined with it, at most
OFFERED = 4  # refused lines looked at, per message


def _key(line: str) -> str:
    return " ".join(line.casefold().split())


def offers(eng: Engine, state: dict[str, Any], player: str, ex: Extracted, result: Outcome) -> list[str]:
    """The notes offering, for each refused line of `ex` a wrap parted, the order it and the lines under it make."""
    if result.accepted or not ex.chatter:
        return []
    legal = {_key(line): line for req in eng.requests(state) if req.player == player for line in req.legal}
    below = dict(zip(ex.placed, ex.chatter, strict=False))
    refused = {r.line for r in result.lines if not r.ok}
    out: list[str] = []
    for k, line in enumerate(ex.orders[: len(ex.order_end)]):
        if line not in refused or len(out) >= OFFERED:
            continue
        typed, at = ex.typed[k] if k < len(ex.typed) else line, ex.order_end[k]
        rest: list[str] = []
        while len(rest) < WRAPS and (at + len(rest) + 1) in below:
            rest.append(below[at + len(rest) + 1])
            order = legal.get(_key(" ".join([typed, *rest])))
            if order:
                out.append(wrap_note(typed, " ".join(rest), order))
                break
    return out


def wrap_note(typed: str, rest: str, order: str) -> str:
    """The note offering `order`, which the refused line `typed` and the lines under it (`rest`) make joined."""
    return (
        f'"{typed}" was refused and "{rest}" under it was not read: if a line break parted one order, send it on '
        f"one line: {order}"
    )
