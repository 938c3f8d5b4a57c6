"""What a refusal offers is legal now (pure): every line shown as "would be accepted" is accepted alone.

An engine refuses a line with a `RuleError` whose list says what could be typed instead.  Those lists
are built in many places (a rule's own list, the name matcher's candidate names, a syntax form), and
not every entry is a whole order that the engine takes right now: the name matcher offers card names
("Silver Coronation"), a rule may offer a line whose card has just been played.  `legal_now` makes the
guarantee once, for every engine and every refusal: each offered order line is applied alone to the
state the message was refused in and kept only when the engine accepts it; entries that are not order
lines (names the refused line could have used) move to `LineResult.names`; a refusal left with no
legal line offers its own order word with each of those names that the engine takes now ("PLAYS Gold 5" in a
Dynasties Tribute step, Gold 5 not in hand: "PLAYS Silver 2", ...; walk6: it offered the Tributes, another order,
in 216 of 224 generated refusals of an order word with a name it does not take, where it takes others:
tests/engine/test_offers_same_order.py), else the player's own requested lines that are legal now.

Cost: one `apply` per distinct candidate, at most `BUDGET` per message (about 0.2 ms each for the
largest state), so a refusal costs a bounded, linear amount; candidates past the budget are not shown
and `LineResult.unchecked` counts them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from functools import cache

from pbem.engine.base import Engine, LineResult, Outcome, State

#: At most this many candidate lines are tried per refused message.
BUDGET = 400
#: Names a refused line could have used, each tried after the line's own order word (walk6), at most.
NAMED = 12


@cache
def _word_starts(order_words: tuple[str, ...]) -> tuple[str, ...]:
    """Each order word followed by a space, the prefixes `str.startswith` tests in one call (made once a kind)."""
    return tuple(w + " " for w in order_words)


def is_order(engine: Engine, line: str) -> bool:
    """True when `line` starts with one of the engine's order words (a whole order, not a bare name)."""
    text = line.strip().upper()
    words = tuple(engine.order_words)
    return text in words or text.startswith(_word_starts(words))


def order_word(engine: Engine, line: str) -> str:
    """The longest of the engine's order words `line` starts with (any case, its blanks made one), "" for none."""
    text = " ".join(line.split()).upper()
    return max((w for w in engine.order_words if text == w or text.startswith(w + " ")), key=len, default="")


def is_name(engine: Engine, entry: str, word: str) -> bool:
    """Whether an entry a refusal lists is a name, not an order: it starts with no order word, or it is an order
    word alone written as a name (not in capitals) in the refusal of another order: Sixteen Thirty's DISCARD refusal
    lists the card "Assassin", also the order ASSASSIN, which was offered alone (players25: 3 generated refusals)."""
    if not is_order(engine, entry):
        return True
    bare = " ".join(entry.split())
    return bool(word) and bare != bare.upper() and bare.upper() != word and bare.upper() in engine.order_words


class _Checker:
    """Applies candidate lines alone to one state, each once, within the budget."""

    def __init__(self, engine: Engine, state: State, player: str, budget: int) -> None:
        self.engine, self.state, self.player, self.left = engine, state, player, budget
        self.seen: dict[str, bool] = {}
        self.unchecked = 0

    def keep(self, lines: Iterable[str]) -> list[str]:
        out: list[str] = []
        for line in dict.fromkeys(lines):
            if line not in self.seen:
                if self.left <= 0:
                    self.unchecked += 1
                    continue
                self.left -= 1
                self.seen[line] = self.engine.apply(self.state, self.player, [line]).accepted
            if self.seen[line]:
                out.append(line)
        return out


def _items(line: str) -> list[str]:
    """A line's items after its first word, as a list of orders names them: "PLACE-START Denmark 3, France 3" is
    ["DENMARK 3", "FRANCE 3"] (case and runs of blanks ignored)."""
    rest = line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else ""
    return [" ".join(part.split()).upper() for part in rest.split(",") if part.strip()]


def ranked(line: str, legal: list[str]) -> list[str]:
    """`legal` with the lines holding most of what `line` wrote first (each item of its list counted as often as
    written), in their order otherwise: a malformed Sixteen Thirty placement, "PLACE-START Denmark 3, France 3",
    was offered the first 15 of 138 placements, none with Denmark 3 or France 3 (walk8).  Linear in the lines'
    items; a line that names nothing any offer holds keeps the order."""
    wrote = Counter(_items(line))
    if not wrote or len(legal) < 2:
        return legal
    held = [sum((Counter(_items(ln)) & wrote).values()) for ln in legal]
    if not any(held):
        return legal
    return [ln for _, _, ln in sorted(zip((-h for h in held), range(len(legal)), legal, strict=True))]


def legal_now(engine: Engine, state: State, player: str, outcome: Outcome, budget: int = BUDGET) -> Outcome:
    """`outcome` (a refusal of `player`'s message at `state`) with only legal-now lines offered."""
    if outcome.accepted:
        return outcome
    check = _Checker(engine, state, player, budget)
    asked: list[str] | None = None
    lines: list[LineResult] = []
    for r in outcome.lines:
        if r.ok:
            lines.append(r)
            continue
        before = check.unchecked
        word = order_word(engine, r.line)
        names = tuple(n for n in r.legal if is_name(engine, n, word))
        offered = check.keep(ranked(r.line, [n for n in r.legal if not is_name(engine, n, word)]))
        if not offered and names and word:  # the order typed, with a name it takes
            offered = check.keep(f"{word} {n}" for n in names[:NAMED])
        if not offered:
            if asked is None:
                asked = [ln for q in engine.requests(state) if q.player == player and not q.answered for ln in q.legal]
            offered = check.keep(asked)
        lines.append(replace(r, legal=tuple(offered), names=names, unchecked=check.unchecked - before))
    return Outcome(outcome.state, outcome.events, lines)
