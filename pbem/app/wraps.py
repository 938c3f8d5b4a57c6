"""An order a hard wrap parted inside a name (pure): the refused first line offered joined with the lines under it.

A client or a forwarder that wraps at 20 to 40 columns parts "EVENT CLAIM First Cousins TARGET Carol" into "EVENT
CLAIM First" and "Cousins TARGET Carol".  `pbem.orders.extract._wrapped` reads such lines as one order only after a
comma, "+", "&" or "and"; parted inside a name the first line was refused alone and the rest listed as not read,
with no word of the order meant (players27).  Now when the refused line joined with the one to `WRAPS` lines right
under it (set aside, no blank line between) is a legal order of the player's, the answer says so and shows that
order to send on one line.  It was offered, never read: only a legal order now tells a wrap from a remark under an
order, and `pbem verify --sent` reads the mail without the game's state, so the two would disagree.  Now (players33)
the intake reads it joined (`read_joined`: the joined order is the legal one, the message applied with it, the lines
joined no longer listed as not read), and `pbem verify --sent` reads it joined too, with no state: an input whose
line is a line the mail holds joined with the lines right under it, as typed (`pbem.trust.sent.rejoined`), is that
line as written.  The deadline reads the held lines as the intake read them, joined.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.engine.base import Engine, Outcome
from pbem.orders.extract import Extracted

WRAPS = 4  # lines under a refused order joined with it, at most ("PLACE-START" over four lines at 16 columns)
OFFERED = 4  # refused lines looked at, per message


def _key(line: str) -> str:
    return " ".join(line.casefold().split())


def _wraps(
    eng: Engine, state: dict[str, Any], player: str, ex: Extracted, result: Outcome
) -> list[tuple[int, list[str], str]]:
    """(k, rest, order): refused order line `k` of `ex`, the lines set aside right under it (`rest`, at most `WRAPS`)
    that make with it, joined, the legal order `order` of the player's now; at most `OFFERED` found."""
    if result.accepted or not ex.chatter:
        return []
    legal = {_key(line): line for req in eng.requests(state) if req.player == player for line in req.legal}
    below = dict(zip(ex.placed, ex.chatter, strict=False))
    refused = {r.line for r in result.lines if not r.ok}
    out: list[tuple[int, list[str], str]] = []
    for k, line in enumerate(ex.orders[: len(ex.order_end)]):
        if line not in refused or len(out) >= OFFERED:
            continue
        typed, at = ex.typed[k] if k < len(ex.typed) else line, ex.order_end[k]
        rest: list[str] = []
        while len(rest) < WRAPS and (at + len(rest) + 1) in below:
            rest.append(below[at + len(rest) + 1])
            order = legal.get(_key(" ".join([typed, *rest])))
            if order:
                out.append((k, rest, order))
                break
    return out


def read_joined(
    eng: Engine, state: dict[str, Any], player: str, orders: list[str], result: Outcome, ex: Extracted
) -> tuple[list[str], Outcome, Extracted]:
    """(orders, outcome, the reading) with each refused line a wrap parted inside a name joined with the lines under it
    when that makes a legal order now and the message is then accepted ("PLACE-START Spain 3, France 1, German" over
    "States 2"); the joined lines taken out of the lines not read.  Else all as given.  One more `apply`."""
    joins = (
        [(k, len(rest)) for k, rest, _ in _wraps(eng, state, player, ex, result)]
        if list(ex.orders) == list(orders)
        else []
    )
    if not joins:
        return orders, result, ex
    below = dict(zip(ex.placed, ex.chatter, strict=False))
    joined, used = list(orders), set()
    for k, n in joins:
        at = ex.order_end[k]
        joined[k] = " ".join([orders[k], *(below[at + j] for j in range(1, n + 1))])
        used |= {at + j for j in range(1, n + 1)}
    again = eng.apply(state, player, joined)
    if not again.accepted:
        return orders, result, ex
    kept = [(p, c) for p, c in zip(ex.placed, ex.chatter, strict=False) if p not in used]
    return joined, again, replace(ex, orders=joined, chatter=[c for _, c in kept], placed=[p for p, _ in kept])


def offers(eng: Engine, state: dict[str, Any], player: str, ex: Extracted, result: Outcome) -> list[str]:
    """The notes offering, for each refused line of `ex` a wrap parted, the order it and the lines under it make."""
    typed = [ex.typed[k] if k < len(ex.typed) else ex.orders[k] for k in range(len(ex.orders))]
    return [wrap_note(typed[k], " ".join(rest), order) for k, rest, order in _wraps(eng, state, player, ex, result)]


def wrap_note(typed: str, rest: str, order: str) -> str:
    """The note offering `order`, which the refused line `typed` and the lines under it (`rest`) make joined."""
    return (
        f'"{typed}" was refused and "{rest}" under it was not read: if a line break parted one order, send it on '
        f"one line: {order}"
    )
