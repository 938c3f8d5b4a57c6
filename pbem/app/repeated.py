"""A line asking pbem to repeat earlier orders, in a message with none (pure): told, never read.

"Same as last turn", "Same orders as before", "Repeat my last orders", "Wie letzte Runde", "Comme au tour
précédent", "Igual que el turno anterior", "Come il turno scorso", "Zelfde als vorige beurt", "Tak jak poprzednio":
a player who answers a report so means the orders of an earlier step, which pbem does not keep for the next one (a
step asks other things, and the orders legal now are the report's).  Such a message applied nothing and only listed
the line as not read, without a word of why (players34's realistic round).  Now it is told: quoted, why, and the
orders the player may send now.  Under orders that were read the line is a remark ("NO EVENT, same as last turn").
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from pbem.engine.base import Engine
from pbem.orders.extract import Extracted

SHOWN = 3  # legal orders a note shows at most
LONGEST = 80  # characters of such a line at most
_REPEAT = re.compile(
    r"^(?:(?:the\s+)?same(?:\s+(?:orders?|move|moves|choice|again|thing))?(?:\s+(?:as|like))?\s+(?:the\s+)?"
    r"(?:last|previous|before|earlier)(?:\s+(?:turn|time|round|step|hand|gambit|year|one))?|"
    r"(?:the\s+)?same\s+(?:orders?|move|as\s+always|as\s+usual)|"
    r"repeat\s+(?:my\s+)?(?:last|previous|earlier)\s+(?:orders?|moves?|turn)|"
    r"(?:wie|genauso\s+wie)\s+(?:letzte|vorige)\s+(?:runde|mal|zug)|(?:das\s+)?gleiche\s+wie\s+(?:letztes\s+mal|letzte\s+runde)|"
    r"(?:comme|pareil\s+qu[e'])\s*(?:au\s+)?(?:tour\s+pr[ée]c[ée]dent|la\s+derni[eè]re\s+fois|dernier\s+tour)|"
    r"(?:igual\s+que|lo\s+mismo\s+que)\s+(?:el\s+)?(?:turno\s+anterior|la\s+[uú]ltima\s+vez|[uú]ltimo\s+turno)|"
    r"come\s+(?:il\s+)?(?:turno\s+(?:scorso|precedente)|l'ultima\s+volta)|"
    r"(?:zelfde|hetzelfde)\s+als\s+(?:vorige|de\s+vorige|vorig)\s+(?:beurt|ronde|keer)|"
    r"tak\s+(?:samo\s+)?jak\s+(?:poprzednio|w\s+poprzedniej\s+turze)|"
    r"samma\s+som\s+(?:förra|senast)(?:\s+(?:rundan|gången))?)"
    r"(?:\s+(?:please|pls|again|thanks|then))?[\s.!,;:)]*$",
    re.IGNORECASE,
)


def asks_repeat(line: str) -> bool:
    """Whether `line` asks for earlier orders again ("Same as last turn please.")."""
    return len(line) <= LONGEST and _REPEAT.match(line.strip()) is not None


def note(line: str, shown: str) -> str:
    """The note on such a line: not read, why, and the orders to send now (`shown`)."""
    return (
        f'"{line}" was not read as an order: pbem does not repeat an earlier step\'s orders; send the orders for this '
        f"step as your report lists them, e.g. {shown}"
    )


def told(eng: Engine, state: dict[str, Any], player: str, ex: Extracted) -> Extracted:
    """`ex` with a note on its first line asking for earlier orders again, when it read no order and the player is
    asked something now."""
    if ex.orders:
        return ex
    line = next((c for c in ex.chatter if asks_repeat(c)), "")
    legal = [o for req in eng.requests(state) if req.player == player for o in req.legal] if line else []
    if not legal:
        return ex
    return replace(ex, problems=[*ex.problems, note(line, "; ".join(legal[:SHOWN]))])
