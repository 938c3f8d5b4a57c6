"""A seat's names in `pbem verify --mail` cost their number, however many times the seat was given away (costs12).

`receipts.seat_of` (a name and every other name its seat had, for 18 checks of a mailbox) made passes over the
record's renames, as many as renames, and looked each name up in the list found so far: 200 and 800 renames of one
seat took 0.23 and 15.9 s (70 at 4x) on 271d97f.  `_Chain.before` (the names before a seat's newcomer, followed
back) made a tuple of the names so far at each step: 250 and 1,000 renames 9 and 160 ms for 20 calls (17.5), asked
once for each mail.  Now
both follow each rename once; `seat_of` still gives the names in the order those passes found them (checked against
them on random renames), and `before` is kept per player.
"""

from __future__ import annotations

import random
from typing import Any

from pbem.trust.receipts import _Chain, seat_of
from tests.growth import growth, step_growth


def _passes(doc: dict[str, Any], name: str) -> list[str]:
    """`seat_of` as 271d97f made it: the reference for the order of the names."""
    seat = [name]
    renames = [(str(o["player"]), str(o["lines"][0])) for o in doc["orders"] if o.get("kind") == "rename"]
    renames += [(str(e["data"].get("player", "")), str(e["data"]["newcomer"])) for e in doc["events"]]
    for _ in range(len(renames) + 1):
        for old, new in renames:
            for a, b in ((old, new), (new, old)):
                if a in seat and b and b not in seat:
                    seat.append(b)
    return seat


def _renamed(k: int) -> dict[str, Any]:
    """A record whose one seat was given to a newcomer `k` times: P0, P1, ... Pk."""
    orders = [{"kind": "rename", "seq": i + 1, "player": f"P{i}", "lines": [f"P{i + 1}"]} for i in range(k)]
    return {"orders": orders, "events": []}


def test_a_seats_names_cost_their_renames_once() -> None:
    def work(k: int) -> Any:
        doc = _renamed(k)
        return lambda: (seat_of(doc, "P0"), seat_of(doc, f"P{k}"))

    # lines of Python executed (`step_growth`), not CPU time: 3.9, and 15.6 for `_passes` (271d97f's)
    g = step_growth(work, 50)
    assert g.ratio <= 6, f"seat_of with 50 and 200 renames of one seat: {g}"


def test_a_newcomers_earlier_names_are_followed_once() -> None:
    def work(k: int) -> Any:
        rows = _renamed(k)["orders"]
        return lambda: [_Chain(rows, [], {}).before(f"P{k}") for _ in range(20)]

    g = growth(work, 250, bound=6)
    assert g.ratio <= 6, f"before() with 250 and 1,000 renames of one seat: {g}"


def test_the_names_come_in_the_order_the_passes_found_them() -> None:
    """Random renames among a few names (and ""): chains, cycles, a name given twice, a newcomer named by an event."""
    rng = random.Random(12)
    for _ in range(400):
        names = [f"N{i}" for i in range(rng.randint(1, 6))] + [""]
        doc = {
            "orders": [
                {"kind": "rename", "player": rng.choice(names), "lines": [rng.choice(names)]}
                for _ in range(rng.randint(0, 9))
            ],
            "events": [
                {"kind": "moderator", "data": {"player": rng.choice(names), "newcomer": rng.choice(names)}}
                for _ in range(rng.randint(0, 2))
            ],
        }
        doc["events"] = [e for e in doc["events"] if e["data"]["newcomer"]]
        for name in names:
            assert seat_of(doc, name) == _passes(doc, name), (doc, name)
