"""A refused order with a name mistyped is offered the line meant (pure): never applied, only offered.

walk6 found "EVENT CLAIM Hieress TARGET Dave" and "DISCARD drumers, flank attack" refused with their reason and the
list of legal lines, and the line meant ("DISCARD Drummers, Flank Attack") never offered: `pbem.orders.near` looked
only at lines set aside as no order, a whole line one typo from a legal one.  `offered` looks at each refused line
that starts with an order word: when its names are each the same as, or one typo from, those of exactly one line
(`pbem.orders.near.names_near`, over the lines the refusal offers, the player's requested lines and the names the
refusal listed), and the engine takes that line alone now, the reason says so and that line is offered first.  The
message stays refused whole: the player sends the line.  At most `TRIED` refused lines a message are looked at (one
`apply` each), so the cost stays linear in the message.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.engine.base import Engine, LineResult, Outcome
from pbem.engine.offers import order_word
from pbem.orders import near

TRIED = 8  # refused lines a message looked at for the line meant, at most


def meant_note(reason: str, meant: str) -> str:
    """The reason of a refused line with the line meant (`offered`)."""
    return f"{reason}; to send what you meant, write: {meant}"


def offered(eng: Engine, state: dict[str, Any], player: str, result: Outcome) -> Outcome:
    """`result` (a refusal worded, `pbem.app.refusals.worded`) with the line meant offered for each mistyped line."""
    if result.accepted:
        return result
    asked = [ln for q in eng.requests(state) if q.player == player for ln in q.legal]
    lines: list[LineResult] = []
    tried = 0
    for r in result.lines:
        meant = ""
        if not r.ok and tried < TRIED and order_word(eng, r.line):
            tried += 1
            meant = near.names_near(r.line, [*r.legal, *asked], r.names)
            meant = meant if meant and eng.apply(state, player, [meant]).accepted else ""
        if meant:
            r = replace(r, reason=meant_note(r.reason, meant), legal=(meant, *(x for x in r.legal if x != meant)))
        lines.append(r)
    return Outcome(result.state, result.events, lines)
