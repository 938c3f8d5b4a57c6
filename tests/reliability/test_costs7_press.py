"""verify --mail's check of the "Press sent to NAMES." notes costs time linear in the presses (costs7).

Each note takes the earliest press of the reader's to those names the export records at or before its mail's head,
each press once (`receipts._press`).  It was found by a scan of every press from the first, past those taken
already: a player who sent n presses to the same players and kept the n answers cost the square of n (4,000
notes and 4,000 forged: 1.1 s of verify, 0.016 s now).  The generator: n honest notes and n forged ones (no press to those names) at n and 4n,
the CPU time compared; the same problems named.  On 21a928b: 0.02 s -> 0.27 s at 4x (13), failing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pbem.trust import receipts
from tests.growth import growth

FLOOR = 5e-3
MAX_GROWTH = 9.0


@dataclass
class _Mail:
    record: tuple[int, str]
    name: str
    raw: bytes = b""


@dataclass
class _Chain:
    rows: list[dict[str, Any]]
    names: list[str] = field(default_factory=list)

    def place(self, n: int, head: str, names: list[str]) -> int:
        return n


@dataclass
class _Check:
    reader: str = "Alice"
    problems: list[str] = field(default_factory=list)

    def problem(self, at: int, how: str, rank: int = 1) -> None:
        self.problems.append(how)


class _Plains:
    def of(self, m: _Mail) -> str:
        return "  NOTE Press sent to Bob, Carol.\n" if m.name.startswith("honest") else "  NOTE Press sent to Dan.\n"


def _run(n: int, checks: list[tuple[int, _Check]]) -> Callable[[], object]:
    rows = [{"kind": "press", "data": {"from": "Alice", "to": ["Bob", "Carol"]}} for _ in range(n)]
    mails = [_Mail((k + 1, ""), f"honest {k}") for k in range(n)] + [_Mail((n, ""), f"forged {k}") for k in range(n)]
    c = _Check()
    checks.append((n, c))
    return functools.partial(receipts._press, _Chain(rows), {"players": [{"name": "Alice"}]}, mails, c, _Plains())  # type: ignore[arg-type]


def test_the_press_notes_are_matched_in_linear_time() -> None:
    checks: list[tuple[int, _Check]] = []
    g = growth(lambda n: _run(n, checks), 500, bound=MAX_GROWTH, floor=FLOOR)
    assert all(len(c.problems) == n for n, c in checks) and {n for n, _ in checks} == {500, 2000}  # each forged one
    assert g.ratio <= MAX_GROWTH, str(g)
