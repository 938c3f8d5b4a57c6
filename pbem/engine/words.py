"""Counts in words: `count(1, "card")` is "1 card", `count(2, "card")` is "2 cards".

Pure (standard library only), so that engines' views, the history page and
every command's output say "1 game" and "3 games" with the same helper.
"""

from __future__ import annotations


def plural(n: int, noun: str, many: str | None = None) -> str:
    """The noun for `n` things: `noun` for exactly one, else `many` (default: noun + "s")."""
    return noun if n == 1 else (many or noun + "s")


def count(n: int, noun: str, many: str | None = None) -> str:
    """`n` and the noun in the right number: "1 card", "0 cards", "2 polls"."""
    return f"{n} {plural(n, noun, many)}"
