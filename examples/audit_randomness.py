#!/usr/bin/env python3
"""Recompute every random value of a finished pbem game from its revealed seed, without pbem.

Usage:  python3 audit_randomness.py GAME.json

GAME.json is the JSON export of a finished game (`pbem export NAME --format json`).
Only the Python standard library is used, so anyone can read and run this file.

What it checks (docs/export-format.md, "Randomness"):

1. SHA-256 of the seed equals the commitment every player received at the start.
   A game with a join step (its export has `salts`, in seat order) is dealt from
   the dealing seed: the 64 hex digits of SHA-256 over the seed's ASCII bytes,
   then for each seat in order the salt's length in UTF-8 bytes (4 bytes,
   big-endian) and the salt's UTF-8 bytes; the generator below runs on it.
2. Every draw the game made is listed, in order, in the `rng` field of the event
   that reports it, and the draws use the generator's blocks 0, 1, 2, ... with no
   gap and no block used twice: nobody can have skipped or re-rolled a value.
3. Each draw's value is what the generator gives from the seed:
   block i = SHA-256(seed ":" i) read as a 256-bit big-endian integer;
   below(n) takes blocks until one is under the largest multiple of n that fits in
   256 bits and returns it modulo n; a die is below(sides) + 1; a coin below(2);
   a shuffle is Fisher-Yates over the listed `before` order: for i from the last
   index down to 1, swap item i with item below(i + 1).
4. Where the event states the result in a field of its own (a deck order, a
   seating, a coin), that field equals the recomputed value.

It prints "OK" and a one-line summary, or "MISMATCH" naming the first event that
differs, and exits 0 or 1.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

#: Event fields that state a draw's result, checked against the recomputed value.
RESULT_FIELDS = {"shuffle": ("deck", "seats", "players"), "coin": ("coin",), "die": ("roll",)}


class Generator:
    """SHA-256 in counter mode, as pbem's engines use it."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.n = 0

    def block(self) -> int:
        digest = hashlib.sha256(f"{self.seed}:{self.n}".encode("ascii")).digest()
        self.n += 1
        return int.from_bytes(digest, "big")

    def below(self, bound: int) -> int:
        limit = (1 << 256) - ((1 << 256) % bound)
        while True:
            x = self.block()
            if x < limit:
                return x % bound

    def shuffle(self, items: list[Any]) -> list[Any]:
        items = list(items)
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


def recompute(gen: Generator, rec: dict[str, Any]) -> Any:
    op = rec.get("op")
    if op == "shuffle":
        return gen.shuffle(rec["before"])
    if op == "below":
        return gen.below(rec["bound"])
    if op == "die":
        return gen.below(rec["sides"]) + 1
    if op == "coin":
        return gen.below(2)
    raise ValueError(f"unknown draw {op!r}")


def deal_seed(seed: str, salts: list[str]) -> str:
    """The seed a game with a join step is dealt from (see point 1 above)."""
    h = hashlib.sha256(seed.encode("ascii"))
    for salt in salts:
        raw = salt.encode("utf-8")
        h.update(len(raw).to_bytes(4, "big") + raw)
    return h.hexdigest()


def audit(doc: dict[str, Any]) -> tuple[bool, str]:
    """(True, summary) if every random value is reproduced from the seed; else (False, the first mismatch)."""
    seed = doc.get("seed")
    if not seed:
        return False, "the seed is not revealed in this export (is the game over?)"
    if hashlib.sha256(seed.encode("ascii")).hexdigest() != doc.get("seed_commitment"):
        return False, "SHA-256 of the seed does not equal the commitment"
    if doc.get("salts") is not None:
        seed = deal_seed(seed, doc["salts"])
    gen = Generator(seed)
    draws = 0
    for ev in sorted(doc.get("events", []), key=lambda e: e["seq"]):
        for rec in ev.get("data", {}).get("rng", []):
            where = f"event {ev['seq']} ({ev['kind']}: {ev['text'][:60]!r})"
            if rec.get("at") != gen.n:
                return False, f"{where}: its draw starts at block {rec.get('at')}, but the previous draw ended at " + (
                    f"block {gen.n} (a draw is missing, hidden or repeated)"
                )
            try:
                value = recompute(gen, rec)
            except (KeyError, TypeError, ValueError) as exc:
                return False, f"{where}: unreadable draw record {rec!r} ({exc})"
            if value != rec.get("value"):
                return False, f"{where}: the seed gives {value!r}, the export says {rec.get('value')!r}"
            for name in RESULT_FIELDS.get(rec["op"], ()):
                if name in ev["data"] and len(ev["data"]["rng"]) == 1 and ev["data"][name] != value:
                    return False, f"{where}: its {name!r} is {ev['data'][name]!r}, the seed gives {value!r}"
            draws += 1
    return True, f"{draws} random draws ({gen.n} generator blocks) reproduced from the seed"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    ok, message = audit(doc)
    print(("OK: " if ok else "MISMATCH: ") + message)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
