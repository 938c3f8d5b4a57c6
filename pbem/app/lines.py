"""One message's order lines as the engine took them (pure): footers set aside, replaced lines told.

* An order word counts only when what follows parses: a refused line that reads as prose (a company
  footer "Call us on 0800 123 456", a link, a long sentence: `pbem.orders.typed.prose`) is set aside as
  chatter and the rest of the message is tried again, once.
* One slot, one order: when a later line of the same message replaces an earlier one (the engine keeps
  only the later: applying the message without the earlier line leaves the same state), the
  acknowledgement says so, quoting both lines.  At most `CHECKED` lines are checked (each check is one
  more `apply` of the message), so the cost stays linear in the message.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import Engine, Outcome
from pbem.orders.typed import prose

CHECKED = 8


def without_prose(
    eng: Engine, state: dict[str, Any], player: str, orders: list[str], result: Outcome
) -> tuple[list[str], list[str], Outcome]:
    """(orders kept, lines set aside as chatter, their outcome): the refused prose lines set aside."""
    if result.accepted:
        return orders, [], result
    aside = [r.line for r in result.lines if not r.ok and prose(r.line)]
    kept = [o for o in orders if o not in aside]
    if not aside or not kept:
        return orders, [], result
    again = eng.apply(state, player, kept)
    return (kept, aside, again) if again.accepted else (orders, [], result)


def _verb(line: str) -> str:
    return line.split()[0].upper() if line.split() else ""


def replaced(eng: Engine, state: dict[str, Any], player: str, orders: list[str], result: Outcome) -> list[str]:
    """Notes "X was replaced by Y" for each earlier line a later line of the same message replaced."""
    if not result.accepted or len(orders) < 2:
        return []
    notes: list[str] = []
    checked = 0
    for i, line in enumerate(orders):
        later = next((o for o in orders[i + 1 :] if _verb(o) == _verb(line)), None)
        if later is None or checked >= CHECKED:
            continue
        checked += 1
        rest = orders[:i] + orders[i + 1 :]
        again = eng.apply(state, player, rest)
        if again.accepted and again.state == result.state:
            notes.append(f'"{line}" was replaced by "{later}", later in the same message: only the later one stands')
    return notes


def read_again(
    eng: Engine,
    state: dict[str, Any],
    player: str,
    orders: list[str],
    result: Outcome,
    notes: dict[str, object],
    chatter: list[str],
) -> tuple[list[str], Outcome, dict[str, object], list[str]]:
    """`without_prose`, then `replaced`: (orders, outcome, notes with the replacements told, chatter)."""
    orders, aside, result = without_prose(eng, state, player, orders, result)
    said = list(notes["problems"]) if isinstance(notes.get("problems"), list) else []  # type: ignore[call-overload]
    return orders, result, {**notes, "problems": said + replaced(eng, state, player, orders, result)}, chatter + aside
