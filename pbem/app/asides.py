"""Why a line under the orders that starts with an order word was set aside as a closing (pure).

`pbem.app.lines.closing` sets aside the refused lines that close a message ("take care" under Dynasties' "TRIBUTE
Gold 5", where TAKE is an order word; "play nice!"): in lower case, naming nothing the game knows now.  They were
listed with the rest of the mail's lines as not read, without a word of why, though each starts as an order does
(players31's leftover).  Now each is told: quoted, why it was set aside, and the legal orders of its order word the
player could send now (or that none is open now).  A line set aside as prose ("Discard this e-mail if ...", a link,
a long sentence) stays listed only: it reads as no order.
"""

from __future__ import annotations

from typing import Any

from pbem.app import prefixed
from pbem.engine.base import Engine
from pbem.orders.typed import prose

TOLD = 4  # closings told, per message
SHOWN = 3  # legal orders a note shows at most


def _key(line: str) -> str:
    return " ".join(line.casefold().split())


def _word(line: str, order_words: tuple[str, ...]) -> str:
    """The order word (or phrase) `line` starts with, in capitals, or ""."""
    said = " ".join(line.upper().replace("_", "-").split())
    starts = [w.upper() for w in order_words if said == w.upper() or said.startswith(w.upper() + " ")]
    return max(starts, key=len, default="")


def told(eng: Engine, state: dict[str, Any], player: str, aside: list[str], kept: set[str]) -> list[str]:
    """The notes on the lines of `aside` (set aside from the message's orders; `kept`: the orders read, as keys) that
    start with an order word and read as no sentence: each quoted, with why, and what would be accepted."""
    legal = [line for req in eng.requests(state) if req.player == player for line in req.legal]
    out: list[str] = []
    for line in aside:
        word = _word(line, tuple(eng.order_words))
        if len(out) >= TOLD or not word or _key(line) in kept or prose(line):
            continue
        if understood := prefixed.read_alone(eng, state, player, line):  # "keep care": Careful Soldier's prefix
            out.append(prefixed.note(line, understood))
            continue
        same = [o for o in legal if _word(o, (word,))]
        out.append(closing_note(line, word, "; ".join(same[:SHOWN])))
    return out


def closing_note(line: str, word: str, shown: str) -> str:
    """The note on a closing set aside (`told`): why, and the legal orders to send instead (`shown`, "" for none)."""
    said = (
        f'"{line}" was not read as an order: it comes after your orders, its words after {word} are in lower case '
        f"and name nothing of the game, so it was read as a closing remark"
    )
    if not shown:
        return f"{said}; no {word} order is open to you now."
    return f"{said}. If you meant an order, send it as the report lists it, e.g. {shown}"
