"""The game's deterministic random generator, derived from the game seed.

A counter-mode generator over SHA-256: block ``i`` is
``SHA-256(seed || ":" || i)``.  Its whole state is the seed (secret until the
game ends) and one counter, both kept in the game state under ``"rng"``, so a
snapshot carries it and replaying the accepted orders reproduces every
shuffle, draw, die and coin.  Anyone holding the revealed seed can recompute
every value with a few lines of any language (see README, "Fairness").

Integers are drawn by rejection sampling, so they are exactly uniform.

An auditor's trail: an `Rng` built with ``log=[]`` appends one record per
draw (``{"op", "at", ...,"value"}``: the operation, the counter it started
at, its bound or the order of the items before a shuffle, and the result).
Engines put these records in the ``rng`` field of the event that reports the
draw, so `examples/audit_randomness.py` can recompute every value from the
revealed seed without pbem (docs/export-format.md, "Randomness").
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def commitment(seed: str) -> str:
    """The public commitment to a seed: SHA-256 of its text, in hex."""
    return hashlib.sha256(seed.encode("ascii")).hexdigest()


def init_state(seed: str) -> dict[str, Any]:
    """The generator part of a new game state."""
    return {"seed": seed, "n": 0}


class Rng:
    """A view onto ``state["rng"]`` that advances its counter as it draws."""

    def __init__(self, rng_state: dict[str, Any], log: list[dict[str, Any]] | None = None) -> None:
        self._st = rng_state
        self.log = log

    def _record(self, op: str, at: int, **fields: Any) -> None:
        if self.log is not None:
            self.log.append({"op": op, "at": at, **fields})

    def _block(self) -> int:
        n = self._st["n"]
        self._st["n"] = n + 1
        digest = hashlib.sha256(f"{self._st['seed']}:{n}".encode("ascii")).digest()
        return int.from_bytes(digest, "big")

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; each call uses at least one block."""
        at = self._st["n"]
        value = self._below(n)
        self._record("below", at, bound=n, value=value)
        return value

    def _below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 256) - ((1 << 256) % n)
        while True:
            x = self._block()
            if x < limit:
                return x % n

    def die(self, sides: int = 6) -> int:
        """A die roll, 1..sides."""
        at = self._st["n"]
        value = self._below(sides) + 1
        self._record("die", at, sides=sides, value=value)
        return value

    def coin(self) -> int:
        """0 or 1."""
        at = self._st["n"]
        value = self._below(2)
        self._record("coin", at, value=value)
        return value

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates in place: for i from the last index down to 1, swap item i with item below(i + 1)."""
        at, before = self._st["n"], (list(items) if self.log is not None else [])
        for i in range(len(items) - 1, 0, -1):
            j = self._below(i + 1)
            items[i], items[j] = items[j], items[i]
        self._record("shuffle", at, before=before, value=list(items))
