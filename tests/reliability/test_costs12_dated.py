"""`pbem verify`'s check that a record was not dated back reads each signed input once (costs12).

`Resigned.dated_back` looks, for each `process` event taken as older than chained resignations, for the latest
input before it that its provider signed after they were: it read every signed input for each event, so an export
with 2,000 such events and 2,000 signed inputs after them took 0.16 s, 8,000 about 2.6 s (15.9 at 4x on 271d97f).
The inputs signed since are now sorted once with the latest of them so far: one search an event.  What it says is
what reading them all says, on random records.
"""

from __future__ import annotations

import random
from typing import Any

from pbem.trust import resigns
from tests.growth import step_growth

BOUND = int((resigns.SINCE + resigns.SKEW).timestamp())


def _gone(events: list[dict[str, Any]]) -> resigns.Resigned:
    r = resigns.Resigned({"players": []}, lambda doc, e, seat: None)
    r.old = events
    return r


def _reference(events: list[dict[str, Any]], signed: dict[int, tuple[str, int]]) -> tuple[int, int] | None:
    """(the event, the input) `dated_back` names, reading every signed input for each event (271d97f)."""
    for e in events:
        before = [(t, seq, who) for seq, (who, t) in signed.items() if seq <= e.get("input_seq", 0) and t >= BOUND]
        if before:
            return e["seq"], max(before)[1]
    return None


def test_each_event_costs_one_search() -> None:
    def work(k: int) -> Any:
        gone = _gone([{"seq": i, "input_seq": i, "at": "2025-01-01"} for i in range(k)])
        signed = {k + i: ("Alice", BOUND + i) for i in range(k)}  # every one after every event: none is before
        return lambda: gone.dated_back(signed)

    # lines of Python executed (`step_growth`), not CPU time: no load can change them; 4.0, and 15.5 for
    # `_reference` (271d97f's reading of every signed input for each event)
    g = step_growth(work, 100)
    assert g.ratio <= 6, f"100 and 400 events and signed inputs: {g}"


def test_it_names_what_reading_every_signed_input_names() -> None:
    rng = random.Random(12)
    for _ in range(1_500):
        events = [{"seq": i, "input_seq": rng.randint(0, 12), "at": "x"} for i in range(rng.randint(0, 4))]
        signed = {rng.randint(1, 12): (rng.choice("AB"), BOUND + rng.randint(-3, 3)) for _ in range(rng.randint(0, 8))}
        said, want = _gone(events).dated_back(signed), _reference(events, signed)
        if want is None:
            assert said == "", (events, signed)
        else:
            assert f"event {want[0]} " in said and f"input {want[1]}," in said, (events, signed, said)
