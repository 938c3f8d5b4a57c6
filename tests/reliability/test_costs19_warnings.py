"""`pbem verify`'s warnings one an entry, of a hostile export: the first `ALIKE` of a kind whole, the rest counted (costs19).

The moderator is the verifier's adversary, and an export of n entries of one kind made n warnings of 230 to 460
characters each: a report of megabytes from a 64 MiB export, the verdict lost in it.  The generator: six kinds,
each n entries that warn (the moderator's starts before the join deadline, seats given away before it, JOINs taken
long after it, deadlines applied long after the deadline the chain gives, signed mails recorded as arriving after a
deadline signed long before, and, in `verify --sent`, signed mails an input applies without DKIM evidence in the
export).  On e5c877a 6 of 6 kinds grew with n: 500 and 2,000 lines at n = 500 and 2,000 (115 KB to 919 KB of
text at 2,000).  Now 0 of 6: 11 lines at any n, the last counting the others and naming the
first and last of them.  The suite runs n = 40; `PBEM_COSTS19_FULL=1` runs 500 and 2,000.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from pbem.trust import paced, verify, vouched
from pbem.trust.deal import STEP as JOIN
from pbem.trust.quote import ALIKE, Alike

START = datetime(2026, 1, 5, 12, tzinfo=UTC)
DUE = paced.Due(START + timedelta(days=30), 0, "the invitation")
SIZES = (500, 2000) if os.environ.get("PBEM_COSTS19_FULL") else (40,)


def _joined(rows: list[dict[str, Any]]) -> list[str]:
    return paced.join_kept(rows, lambda k: (JOIN,), [DUE] * len(rows), timedelta(days=1))[1]


def starts(n: int) -> list[str]:
    rows = [{"kind": "start", "seq": k, "at": START.isoformat()} for k in range(1, n + 1)]
    return _joined([*rows, {"kind": "salts", "data": {"missing": ["Bob"]}}])


def seats_given(n: int) -> list[str]:
    data = [{"action": "replace", "player": f"P{k}", "newcomer": "N"} for k in range(n)]
    return _joined([{"kind": "moderator", "seq": k, "at": START.isoformat(), "data": d} for k, d in enumerate(data, 1)])


def late_joins(n: int) -> list[str]:
    at = (DUE.when + timedelta(days=2)).isoformat()
    return _joined([{"kind": "join", "seq": k, "player": f"P{k}", "at": at} for k in range(1, n + 1)])


def late_defaults(n: int) -> list[str]:
    pace = {"step_seconds": 86400, "opened": START.isoformat()}
    rows: list[dict[str, Any]] = [
        {"kind": "orders", "seq": 1, "lines": ["PASS"], "at": START.isoformat(), "pace": pace}
    ]
    rows += [
        {"kind": "deadline", "seq": k + 1, "lines": [], "at": (START + timedelta(days=2 * k)).isoformat()}
        for k in range(1, n + 1)
    ]
    v = verify.Verification(ok=True)
    found = paced.pace(rows)
    assert found is not None
    verify._applied(rows, {i: ("step", i) for i in range(len(rows) + 1)}, found, v)
    return v.notes


def held(n: int) -> list[str]:
    arrived = (START + timedelta(days=2)).isoformat()
    doc = {
        "orders": [{"seq": 1, "kind": "deadline", "at": (START + timedelta(days=1)).isoformat()}]
        + [{"seq": k + 2, "kind": "orders", "message_id": f"<m{k}@x>", "at": arrived} for k in range(n)],
        "messages": [{"message_id": f"<m{k}@x>", "received": arrived, "player": "Bob"} for k in range(n)],
    }
    return vouched.held_back(doc, [(f"m{k}@x", "Bob", int(START.timestamp())) for k in range(n)])


def unvouched(n: int) -> list[str]:
    """`verify --sent`: n signed Sent mails an input applies, none with DKIM evidence in the export."""
    from types import SimpleNamespace

    from pbem.trust import sent

    doc = {"seed": "s", "evidence": [], "orders": [{"message_id": f"<m{k}@x>", "seq": k} for k in range(n)]}
    left = SimpleNamespace(signed="example.org")
    mails = [SimpleNamespace(name=f"mail {k}", message_id=f"m{k}@x", left=left) for k in range(n)]
    c = sent.SentCheck(ok=True)
    sent._unvouched(doc, mails, "Alice", c)  # type: ignore[arg-type]
    return c.notes


KINDS: dict[str, Callable[[int], list[str]]] = {
    "starts": starts,
    "seats given": seats_given,
    "late joins": late_joins,
    "late defaults": late_defaults,
    "held back": held,
    "unvouched": unvouched,
}


@pytest.mark.parametrize("n", SIZES)
def test_each_kind_of_warning_is_at_most_alike_lines_whatever_the_entries(n: int) -> None:
    grew = {}
    for name, make in KINDS.items():
        said = [w for w in make(n) if w.startswith("WARNING")]
        if len(said) != ALIKE + 1 or f"and {n - ALIKE:,} more like these" not in said[-1]:
            grew[name] = (len(said), sum(map(len, said)))
    assert not grew, f"{len(grew)} of {len(KINDS)} kinds not capped at n = {n:,}: (lines, characters) {grew}"


def test_a_few_are_all_shown_and_the_count_names_the_first_and_last_not_shown() -> None:
    assert len(starts(ALIKE)) == ALIKE and len(starts(1)) == 1
    assert starts(ALIKE + 1)[-1].endswith("not shown: input 11")
    assert held(ALIKE + 3)[-1].endswith("not shown: <m10@x> to <m12@x>")
    kept = Alike("x", most=0)
    assert not kept.room("a" * 500) and kept.out()[0].endswith("(500 characters)")  # a place is clipped
