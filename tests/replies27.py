"""What the intake makes of a message's text, pure, for the players27 generators (`tests/test_replies27_*.py`).

`intake` reads a body as `pbem.app.intake` does once the sender is known (`extract` with the step's order words,
`pbem.app.lines.seeming_told`, `pbem.app.footers.commands_only`, then the join step's reading, `pbem.app.join.joined_lines`, or the orders' reading:
the engine, `pbem.app.lines.read_again`, one slot one order) and says what it would do: the orders applied, the
commands asked, whether the message is refused.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pbem import engine as registry
from pbem.app import join
from pbem.app.footers import commands_only
from pbem.app.lines import read_again, seeming_told
from pbem.engine import slots
from pbem.engine.base import Engine
from pbem.orders.extract import Extracted, extract
from pbem.trust import deal as joining

PLAYERS = {"italian-wars": ["Alice", "Bob"]}


@dataclass
class Read:
    """What the intake would do with one message."""

    ex: Extracted
    applied: list[str] = field(default_factory=list)  # the order lines applied ([] for none or refused)
    refused: list[str] = field(default_factory=list)  # the lines the engine refused (the message then is)
    state: Any = None  # the state after the applied lines
    notes: list[str] = field(default_factory=list)

    @property
    def asked(self) -> set[str]:
        ex = self.ex
        got = {n for n, on in (("HELP", ex.help), ("STATUS", ex.status), ("HISTORY", ex.history is not None)) if on}
        return got | ({"BACK" if ex.away.back else "AWAY"} if ex.away is not None else set())


def players(kind: str) -> list[str]:
    return PLAYERS.get(kind, ["Alice", "Bob", "Carol"])


def first_state(kind: str, joining_step: bool = False) -> tuple[Engine, dict[str, Any]]:
    """The engine and state of a seeded game of `kind` at its first step (or its join step)."""
    eng = registry.get(kind)
    if joining_step:
        return joining.JoinStep(eng, players(kind), "s", {}), joining.open_state(players(kind))
    return eng, eng.setup(players(kind), "s", {})[0]


KINDS = ("habsburg", "italian-wars", "sixteen-thirty", "dynasties")
ORDERS = 3  # legal orders of each game's first step, at most


def around_orders(classes: dict[str, tuple[str, ...]]) -> list[tuple[str, str, str, str]]:
    """(game, the order, the line typed, its class): each form of each class (`{o}` the order) around each of
    Alice's first `ORDERS` legal orders of every kind's first step."""
    out = []
    for kind in KINDS:
        eng, state = first_state(kind)
        legal = next(r for r in eng.requests(state) if r.player == "Alice").legal[:ORDERS]
        for cls, forms in classes.items():
            out += [(kind, order, form.format(o=order), cls) for order in legal for form in forms]
    return out


def intake(eng: Engine, state: dict[str, Any], player: str, body: str, subject: str = "") -> Read:
    return judged(eng, state, player, extract(body, subject, tuple(eng.order_words)))


def judged(eng: Engine, state: dict[str, Any], player: str, ex: Extracted) -> Read:
    """What the intake does with a message read as `ex` (`pbem.app.reading.extracted` of a whole mail, or `extract`)."""
    ex = commands_only(eng, state, player, seeming_told(eng, state, player, ex))
    out = Read(ex, notes=list(ex.problems))
    if not ex.orders:
        return out
    if isinstance(eng, joining.JoinStep):
        lines, notes, result = join.joined_lines(eng, state, player, list(ex.orders))
        out.notes += notes
    else:
        result = eng.apply(state, player, list(ex.orders))
        lines, result, said, _ = read_again(eng, state, player, list(ex.orders), result, {"problems": []}, ex)
        result = slots.one_per_slot(eng, state, player, lines, result)
        out.notes += [str(n) for n in said["problems"]]  # type: ignore[attr-defined]
    if result.accepted:
        out.applied, out.state = list(lines), result.state
    else:
        out.refused = [r.line for r in result.lines if not r.ok]
    return out


class _Family(Protocol):
    family: str


T = TypeVar("T")
C = TypeVar("C", bound=_Family)


def sampled(every: Sequence[T], env: str, tag: str, kind: str, k: int) -> list[T]:
    """A realistic generator's suite sample: `k` of its cases drawn by a seed of `tag` and the game, or all of
    them when the environment variable `env` is set (the full run its docstring gives)."""
    if os.environ.get(env):
        return list(every)
    return random.Random(f"{tag}:{kind}").sample(list(every), k)


def tallied(kind: str, cases: Sequence[C], outcome: Callable[[C], tuple[str, str]], env: str) -> list[str]:
    """Each case's outcome ("read", "told", "untold", "misapplied", ...) counted by family, printed under `env`
    (the full run's figures); the cases neither read nor told, as lines for the test's message."""
    counts: Counter[tuple[str, str]] = Counter()
    failures = []
    for case in cases:
        how, said = outcome(case)
        counts[(case.family, how)] += 1
        if how not in ("read", "told"):
            failures.append(f"{how}: {kind} {said}")
    if os.environ.get(env):
        print(kind, sorted(counts.items()))
    return failures
