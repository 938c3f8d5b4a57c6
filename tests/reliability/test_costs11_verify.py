"""`pbem verify`'s readers of resignations: each costs linear in the record and the player's mail (costs11).

* `verify._interventions` read the name of every seat at each `process`, `resign` and `address` event by sorting
  the record's inputs (or a partial export's events) again for every seat (`_name_at`): a game where a moderator
  processed the steps of a player who resigned, 500 and 2,000 `process` events, took 0.07 and 1.05 s on 4adb736
  (15.1 at 4x).  `verify._Names` reads the replacements once and bisects: 3.1 and 12.4 ms.
* `resigns.Gone.at`, who had resigned at a press's "Bob resigned: ..." (`pbem verify --mail`), read every
  resignation and replacement up to the mail's place for each press not sent: 300 and 1,200 of each took 42 and
  672 ms (16.1).  It keeps who had resigned after each and bisects: 0.4 and 1.9 ms.

Both answer as 4adb736's code did (kept here) on random records.
"""

from __future__ import annotations

import random
from typing import Any

from pbem.engine.seats import RENAME
from pbem.orders.moderator import processed, resigned
from pbem.trust import resigns, verify
from tests.growth import step_growth

MAX_GROWTH = 6.0  # at 4x the events: linear 4; each read again for each, 16
AT = "2026-12-08T00:00:00+00:00"


def _processed_record(n: int) -> dict[str, Any]:
    """Bob resigns, then the moderator processes n - 1 steps that asked only him, an input of Alice's between each."""
    players = [{"name": "Alice", "seat": 0}, {"name": "Bob", "seat": 1}]
    orders = [{"seq": i + 1, "kind": "orders", "player": "Alice", "lines": ["PASS"]} for i in range(n)]
    events = [{"seq": 1, "input_seq": 1, "kind": "moderator", "visibility": "public", "text": resigned("Bob"),
               "data": {"action": "resign", "player": "Bob", "seat": 1}, "at": AT}]  # fmt: skip
    events += [
        {"seq": i + 1, "input_seq": i + 1, "kind": "moderator", "visibility": "public", "text": processed(["Bob"]),
         "at": AT, "data": {"action": "process", "players": ["Bob"], "step": "s", "deadline": AT}}
        for i in range(1, n)
    ]  # fmt: skip
    return {"players": players, "orders": orders, "events": events}


def test_each_process_event_reads_the_seats_names_without_the_record_again() -> None:
    def work(n: int):
        doc = _processed_record(n)
        return lambda: verify._interventions(doc, verify.Verification(ok=True))

    v = verify.Verification(ok=True)
    verify._interventions(_processed_record(4), v)
    assert "process 3, resign 1" in v.checked[0] and not v.notes
    # lines of Python executed (`step_growth`), not CPU time: 4.0, and 15.4 with `_name_at_before` (4adb736's)
    g = step_growth(work, 100)
    assert g.ratio <= MAX_GROWTH, f"100 and 400 process events' seat names: {g}"


def _name_at_before(doc: dict[str, Any], e: dict[str, Any], seat: int) -> str | None:
    """4adb736's `verify._name_at`: the record's replacements sorted and read again for each question."""
    name = next((str(p["name"]) for i, p in enumerate(doc["players"]) if p.get("seat", i) == seat), None)
    if doc.get("version") == verify.PARTIAL_VERSION:
        given = [
            (x["data"].get("player"), x["data"].get("newcomer"))
            for x in sorted(doc["events"], key=lambda x: x["seq"])
            if x["kind"] == "moderator" and isinstance(x.get("data"), dict) and x["data"].get("action") == "replace"
            and x["seq"] < e["seq"]
        ]  # fmt: skip
    else:
        given = [
            (o["player"], o["lines"][0])
            for o in sorted(doc["orders"], key=lambda o: o["seq"])
            if o["kind"] == RENAME and o["lines"] and o["seq"] <= e.get("input_seq", 0)
        ]
    for old, new in given:
        name = str(new) if name is not None and old == name and new else name
    return name


NAMES = ("Alice", "Bob", "Carol", "Dan", "Eve")


def _random_record(rng: random.Random) -> dict[str, Any]:
    """Seats (some named alike, some without a seat number), renames and `replace` events in any order of their
    positions, some renaming a name nobody holds, some to nobody."""
    players = [{"name": rng.choice(NAMES), **({"seat": k} if rng.random() < 0.8 else {})} for k in range(3)]
    orders, events = [], []
    for _ in range(rng.randint(0, 12)):
        seq = rng.randint(1, 20)
        old, new = rng.choice(NAMES), rng.choice((*NAMES, ""))
        orders.append({"seq": seq, "kind": rng.choice((RENAME, RENAME, "orders")), "player": old,
                       "lines": [new] if rng.random() < 0.9 else []})  # fmt: skip
        events.append({"seq": seq, "kind": "moderator", "data": {"action": rng.choice(("replace", "say")),
                       "player": old, "newcomer": new}})  # fmt: skip
    version = verify.PARTIAL_VERSION if rng.random() < 0.5 else 1
    return {"players": players, "orders": orders, "events": events, "version": version}


def test_the_seats_names_are_those_read_again_for_each_event() -> None:
    for seed in range(60):
        rng = random.Random(seed)
        doc = _random_record(rng)
        names = verify._Names(doc)
        for at in range(0, 22):
            e = {"seq": at, "input_seq": at}
            for seat in (-1, 0, 1, 2, 3, True):
                assert names.at(doc, e, seat) == _name_at_before(doc, e, seat), (seed, at, seat)


def _marks(n: int, rng: random.Random | None = None) -> list[dict[str, Any]]:
    """n resignations and replacements of seats, with other events between them."""
    rows: list[dict[str, Any]] = []
    for i in range(n):
        seat = rng.randint(0, 3) if rng else (i // 2) % 4
        action = rng.choice(("resign", "replace", "process")) if rng else ("resign", "replace")[i % 2]
        rows.append({"kind": "moderator", "data": {"action": action, "seat": seat, "player": NAMES[seat]}})
        rows.append({"kind": "press", "data": {"from": "Alice"}})
    return rows


class _GoneBefore:
    """4adb736's `resigns.Gone`: every resignation and replacement up to a place read again for each question."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.marks = [(n, row) for n, row in enumerate(rows, 1) if resigns._action(row) in ("resign", "replace")]

    def at(self, place: int) -> set[str]:
        seats: dict[object, str] = {}
        for n, row in self.marks:
            if n > place:
                break
            if resigns._action(row) == "resign":
                seats[row["data"].get("seat")] = str(row["data"].get("player"))
            else:
                seats.pop(row["data"].get("seat"), None)
        return set(seats.values())


def test_who_had_resigned_at_each_press_is_read_once() -> None:
    def work(n: int):
        rows = _marks(n)

        def run() -> list[set[str]]:
            gone = resigns.Gone(rows)
            return [gone.at(p) for p in range(len(rows), 0, -1)]

        return run

    assert [resigns.Gone(_marks(2)).at(p) for p in range(5)] == [set(), {"Alice"}, {"Alice"}, set(), set()]
    # lines of Python executed (`step_growth`): 4.0, and 15.5 with `_GoneBefore` (4adb736's)
    g = step_growth(work, 100)
    assert g.ratio <= MAX_GROWTH, f"100 and 400 presses against as many resignations: {g}"


def test_who_had_resigned_is_what_reading_again_says() -> None:
    for seed in range(30):
        rng = random.Random(seed)
        rows = _marks(rng.randint(0, 20), rng)
        gone, before = resigns.Gone(rows), _GoneBefore(rows)
        places = range(-1, len(rows) + 2)
        assert [gone.at(p) for p in places] == [before.at(p) for p in places], seed
