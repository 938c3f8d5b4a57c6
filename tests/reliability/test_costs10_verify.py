"""`pbem verify --mail`'s readers of a deadline's run: each costs linear in the chain and the player's mail (costs10).

A long game where a player held orders every step, or a moderator processed steps, gives verify one held message,
one notice and one `process` event a step.  Each of these read the chain again for each of them:

* `pbem.trust.dropped`: the positions a held message's deadline may have met (`_window`) built the list of the
  chain's inputs and looked for the first deadline after it from the start, for each held message (and in
  `failed_untrue` for each notice and held message again): 500 and 2,000 steps took 0.19 and 3.28 s on ba1be06
  (17.2 at 4x).  Now `_Windows` reads the chain once: the running latest time of the deadlines' and held inputs,
  bisected, and the held inputs by their time: 1.4 and 7.1 ms.  Its answers are `_window`'s (`_window_before`,
  ba1be06's code) on a corpus of random chains: times equal, out of order, missing.
* `pbem.trust.due.early`: the players a deadline's defaults named after a `process` event were read from a slice of
  the rest of the chain, copied for each such input: 2,000 and 8,000 steps 18 and 270 ms (14.7); now 6 and 26 ms.
* `pbem.trust.noticed.untrue`: the input before each notice was the greatest of every input before it (all read),
  and the defaults it applied read from a copy of the rest of the chain: 2,000 and 8,000 steps 0.47 and 10.8 s
  (23.2); now 4 and 21 ms.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from pbem.trust import dropped, due, noticed
from tests.growth import growth, step_growth

MAX_GROWTH = 6.0  # at 4x the steps: linear 4; each read again for each step, 16
T0 = datetime(2026, 12, 1, tzinfo=UTC)


def _chain(n: int) -> list[dict[str, Any]]:
    """n steps: a held message's orders, the deadline's input with Alice's defaults, a moderator's `process`."""
    rows: list[dict[str, Any]] = []
    for i in range(n):
        at = (T0 + timedelta(hours=i + 1)).isoformat()
        rows.append({"seq": 2 * i + 1, "kind": "orders", "lines": ["NO EVENT"], "at": at, "message_id": f"<h{i}@p>"})
        rows.append({"seq": 2 * i + 2, "kind": "deadline", "lines": [], "at": at})
        rows.append({"kind": "default-orders", "input_seq": 2 * i + 2, "visibility": "public",
                     "data": {"player": "Alice", "lines": ["PASS"]}})  # fmt: skip
        rows.append({"kind": "moderator", "input_seq": 2 * i + 2, "visibility": "public",
                     "data": {"action": "process", "players": ["Bob"]}})  # fmt: skip
    return rows


def test_the_windows_of_every_held_message_cost_the_chain_once() -> None:
    def work(n: int):
        rows, ids = _chain(n), {f"<h{i}@p>" for i in range(n)}
        received = [T0 + timedelta(hours=i, minutes=30) for i in range(n)]

        def run() -> list[list[int] | None]:
            within = dropped._Windows(rows, ids)
            return [within.of(r) for r in received]

        return run

    assert work(3)() == [[0, 1], [2, 5], [6, 9]]  # the input before, and the held message its deadline applied
    # lines executed, not CPU time (a linear CPU reading of 6.3 once failed the bound under load): 4.0, and 15.7 with
    # ba1be06's `_window_before` read for each held message
    g = step_growth(work, 50)
    assert g.ratio <= MAX_GROWTH, f"the windows of n held messages: {g}"


def _window_before(rows: list[dict[str, Any]], received: datetime, held: set[str]) -> list[int] | None:
    """ba1be06's `_window`: the chain read again for each held message."""
    inputs = [i for i, row in enumerate(rows, 1) if "lines" in row]

    def at_deadline(row: dict[str, Any]) -> datetime | None:
        if row.get("kind") != "deadline" and not (row.get("kind") == "orders" and row.get("message_id") in held):
            return None
        at = dropped._when(row.get("at"))
        return at if at is not None and at >= received else None

    first = next((k for k, i in enumerate(inputs) if at_deadline(rows[i - 1]) is not None), None)
    if first is None:
        return None
    when = at_deadline(rows[inputs[first] - 1])
    run = [i for i in inputs[first:] if at_deadline(rows[i - 1]) == when and rows[i - 1].get("kind") != "deadline"]
    return [inputs[first - 1] if first > 0 else 0, *run]


def _random_chain(rng: random.Random) -> tuple[list[dict[str, Any]], set[str]]:
    rows: list[dict[str, Any]] = []
    for seq in range(1, rng.randint(0, 30)):
        kind = rng.choice(("orders", "orders", "deadline", "rename", "event"))
        hour = rng.choice((seq, seq, seq - 1, rng.randint(0, 30)))  # mostly in order, some equal, some not
        at = "not a time" if rng.random() < 0.05 else (T0 + timedelta(hours=hour)).isoformat()
        if kind == "event":
            rows.append({"kind": "note", "visibility": "public"})
        else:
            rows.append({"seq": seq, "kind": kind, "lines": [], "at": at, "message_id": f"<m{rng.randint(0, 9)}@p>"})
    return rows, {f"<m{k}@p>" for k in range(rng.randint(0, 10))}


@pytest.mark.parametrize("seed", range(80))
def test_the_windows_are_those_read_from_the_start_for_each_held_message(seed: int) -> None:
    rng = random.Random(seed)
    rows, held = _random_chain(rng)
    within = dropped._Windows(rows, held)
    for hour in range(-1, 32):
        received = T0 + timedelta(hours=hour, minutes=rng.choice((0, 30)))
        assert within.of(received) == _window_before(rows, received, held), (seed, hour)


def test_the_defaults_after_each_process_event_are_read_once() -> None:
    def work(n: int):
        rows = _chain(n)
        reports = [(4 * i + 1, f"mail {i}", T0 + timedelta(hours=i)) for i in range(n)]
        return lambda: due.early(rows, reports)

    found = due.early(_chain(3), [])
    assert (
        len(found) == 2
        and "applied for Alice, whom the moderator's process event before it did not name" in found[0][1]
    )
    g = growth(work, 2000, bound=MAX_GROWTH)
    assert g.ratio <= MAX_GROWTH, f"due.early after n process events: {g}"


def test_each_notice_reads_its_own_deadline_run_only() -> None:
    def work(n: int):
        rows = _chain(n)
        deadlines = [k for k, row in enumerate(rows, 1) if row.get("kind") == "deadline"]
        return lambda: [(noticed._input_before(rows, at), noticed._applied(rows, at, ["Alice"])) for at in deadlines]

    assert work(2)() == [(1, ["PASS"]), (5, ["PASS"])]
    g = growth(work, 2000, bound=MAX_GROWTH)
    assert g.ratio <= MAX_GROWTH, f"n notices' inputs before and lines applied: {g}"
