"""The game's deterministic random generator, derived from the game seed.

A counter-mode generator over SHA-256: block ``i`` is
``SHA-256(seed || ":" || i)``.  Its whole state is the seed (secret until the
game ends) and one counter, both kept in the game state under ``"rng"``, so a
snapshot carries it and replaying the accepted orders reproduces every
shuffle, draw, die and coin.  Anyone holding the revealed seed can recompute
every value with a few lines of any language (see README, "Fairness").

Integers are drawn by rejection sampling, so they are exactly uniform.
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

    def __init__(self, rng_state: dict[str, Any]) -> None:
        self._st = rng_state

    def _block(self) -> int:
        n = self._st["n"]
        self._st["n"] = n + 1
        digest = hashlib.sha256(f"{self._st['seed']}:{n}".encode("ascii")).digest()
        return int.from_bytes(digest, "big")

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; each call uses at least one block."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 256) - ((1 << 256) % n)
        while True:
            x = self._block()
            if x < limit:
                return x % n

    def die(self, sides: int = 6) -> int:
        """A die roll, 1..sides."""
        return self.below(sides) + 1

    def coin(self) -> int:
        """0 or 1."""
        return self.below(2)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
