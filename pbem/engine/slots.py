"""One slot, one order (pure): two lines of one message for one slot are refused, both quoted.

Each engine declares its slots (`pbem.engine.declare.Slot`: the Tribute, the ballot, the turn's
event).  `one_per_slot` looks at a message's order lines and at the engine's outcome: when two lines
fill the same slot, the message stands only if the slot `replaces` and the engine did keep only the
later line (applying the message without the earlier lines gives the same state; the acknowledgement
then says so, `pbem.app.lines.replaced`).  Otherwise every line of that slot is refused with a reason
quoting them all, and nothing changes.  Cost: one grouping pass plus at most one more `apply` per
doubled slot, at most `CHECKED` of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pbem.engine.base import Engine, LineResult, Outcome, State
from pbem.engine.declare import Slot

CHECKED = 8
#: At most this many of a slot's lines are quoted in its refusal (the rest are counted).
QUOTED = 3


def declared(engine: Engine) -> tuple[Slot, ...]:
    """The engine's slots (none when it declares none)."""
    slots: tuple[Slot, ...] = getattr(engine, "slots", ())
    return slots


def _starts(text: str, words: Sequence[str]) -> bool:
    return any(text == w or text.startswith(w + " ") for w in words)


def slot_of(engine: Engine, line: str) -> Slot | None:
    """The slot `line` fills, or None.  The longest order word the line starts with decides, so
    that "NO TRADE" is not read as another word's line."""
    text = " ".join(line.upper().split())
    best = max((w for w in engine.order_words if _starts(text, [w])), key=len, default=None)
    if best is None:
        return None
    return next((s for s in declared(engine) if best in s.words), None)


@dataclass(frozen=True)
class Doubled:
    """Lines (indices into the message) that fill one slot."""

    slot: Slot
    at: tuple[int, ...]


def doubled(engine: Engine, orders: Sequence[str]) -> list[Doubled]:
    """Each slot filled more than once by `orders` (between two of its `reset` lines)."""
    slots = declared(engine)
    if not slots or len(orders) < 2:
        return []
    open_: dict[str, list[int]] = {}
    out: list[Doubled] = []

    def close(name: str) -> None:
        at = open_.pop(name, [])
        if len(at) > 1:
            out.append(Doubled(next(s for s in slots if s.name == name), tuple(at)))

    for i, line in enumerate(orders):
        text = " ".join(line.upper().split())
        for s in slots:
            if s.reset and _starts(text, s.reset):
                close(s.name)
        slot = slot_of(engine, line)
        if slot is not None:
            open_.setdefault(slot.name, []).append(i)
    for name in list(open_):
        close(name)
    return sorted(out, key=lambda d: d.at)


def _only_later(engine: Engine, state: State, player: str, orders: Sequence[str], d: Doubled, result: Outcome) -> bool:
    """The engine kept only the last line of the slot (a replacement the rules allow)."""
    if not (d.slot.replaces and result.accepted):
        return False
    drop = set(d.at[:-1])
    again = engine.apply(state, player, [o for i, o in enumerate(orders) if i not in drop])
    return again.accepted and again.state == result.state


def one_per_slot(engine: Engine, state: State, player: str, orders: Sequence[str], result: Outcome) -> Outcome:
    """`result`, or a refusal quoting the lines of each slot the message filled twice.

    A line the engine refused before any line of its slot was taken keeps the engine's own reason
    (it failed on its own); the slot's reason covers the first line taken and every later one."""
    found = doubled(engine, orders)[:CHECKED]
    bad = [d for d in found if not _only_later(engine, state, player, orders, d, result)]
    if not bad:
        return result
    same = len(result.lines) == len(orders)
    lines = [result.lines[i] if same else LineResult(o, True) for i, o in enumerate(orders)]
    changed = False
    for d in bad:
        first = next((i for i in d.at if lines[i].ok), None)
        at = [i for i in d.at if first is not None and i >= first]
        if len(at) < 2:
            continue
        changed = True
        quoted = " and ".join(f'"{orders[i].strip()}"' for i in at[:QUOTED])
        if len(at) > QUOTED:
            quoted += f" and {len(at) - QUOTED} more"
        why = f"{len(at)} orders for {d.slot.name} in one message ({quoted}): send only the one you mean"
        if d.slot.hint:
            why += f"; {d.slot.hint}"
        offered = tuple(orders[j] for j in at[:QUOTED])
        for i in at:
            lines[i] = LineResult(orders[i], False, why, offered)
    return Outcome(state, [], lines) if changed else result
