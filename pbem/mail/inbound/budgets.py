"""What one inbound mail may ask of pbem (pure; issue 26, "every input has a bounded cost").

Sizes are bounded before anything is read (`storage.bounded`: 256 KiB from a
stranger, 4 MiB from a player) and every reading stage is linear in what is
left.  What the orders in a mail may cause is bounded here, by count, so that
one mail can neither take long to apply nor make pbem send many mails:

- `MAX_ORDER_LINES` order lines (no game needs more than a few per step),
- `MAX_ORDER_CHARS` characters in one order line (a line naming a card again
  and again is refused, not matched),
- `MAX_PRESS` press messages, of at most `MAX_PRESS_LINES` lines each: one
  mail to all causes at most `MAX_PRESS` x (players - 1) relayed mails.

A mail over any of them is refused as a whole (nothing of it changes a game)
with a reason that quotes the start of what was too much and says what would
be accepted.
"""

from __future__ import annotations

from pbem.orders.extract import Extracted

MAX_ORDER_LINES = 100
MAX_ORDER_CHARS = 400
MAX_PRESS = 3
MAX_PRESS_LINES = 200
QUOTED = 60  # characters of a line quoted in a refusal


def _quote(line: str) -> str:
    return f'"{line[:QUOTED]}..."' if len(line) > QUOTED else f'"{line}"'


def refusal(ex: Extracted) -> str | None:
    """Why the mail asks more than one mail may (one sentence), or None."""
    if len(ex.orders) > MAX_ORDER_LINES:
        return (
            f"it holds {len(ex.orders)} order lines; pbem reads at most {MAX_ORDER_LINES} in one mail. "
            "Send the orders for this step only"
        )
    long = next((ln for ln in ex.orders if len(ln) > MAX_ORDER_CHARS), None)
    if long is not None:
        return (
            f"the order line {_quote(long)} is {len(long)} characters long; at most {MAX_ORDER_CHARS}. "
            "Name each card once, separated by commas"
        )
    if len(ex.press) > MAX_PRESS:
        return (
            f"it holds {len(ex.press)} press messages; pbem relays at most {MAX_PRESS} from one mail. "
            "Send one PRESS TO ALL (or PRESS TO a, b) block per message"
        )
    big = next((p for p in ex.press if len(p.body) > MAX_PRESS_LINES), None)
    if big is not None:
        to = ", ".join(big.to)
        return f"the press message to {to[:QUOTED]} has {len(big.body)} lines; at most {MAX_PRESS_LINES}"
    return None
