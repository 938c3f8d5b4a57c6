"""`pbem verify`'s deadlines computed from the chain (fairness16's `pbem.trust.paced`), read from a hostile export:
the moderator is the adversary of the verifier (costs16).

* `unlike` scanned, for each report or reminder stating a deadline, every place from its head to the next entry its
  reader may see: a record whose reader sees nothing for a long stretch (hidden events, other players' inputs) and
  a mailbox of many reports with heads before it cost the reports times the stretch.  500 and 2,000 reports over as
  many unseen entries: 264,522 and 4,058,022 lines of Python on a0540ce (15.3 at 4x).  Now the deadlines are indexed
  once (`paced.Told`) and each mail's window is two bisections: 4 at 4x, the same mails named.
* A step length of 10**14 seconds, a step opened in the year 9999, an input applied then, or an event moving the
  deadline to the year 1 or 9999 raised OverflowError out of `pbem verify` (a traceback, not an answer): 12 of the 12
  hostile cases below on a0540ce.  Now a step length longer than a `timedelta` is unreadable (refused, as one not a
  number of seconds), a deadline past the year 9999 is read as the latest time there is, and the defaults are
  compared by differences.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.trust import due, paced, receipts, verify
from pbem.trust.receipts import MailCheck, _Chain
from tests.growth import step_growth

START = datetime(2026, 1, 5, 12, tzinfo=UTC)
PACE = {"step_seconds": 172800, "opened": START.isoformat()}


def _unseen(n: int) -> tuple[_Chain, list[paced.Due | None], list[tuple[int, str, datetime, float]]]:
    """A record of one input (it chains the pace) then `n` hidden events its reader sees none of, and `n` reports
    with their heads at the input, each stating a deadline an hour early."""
    rows: list[dict[str, Any]] = [
        {"kind": "orders", "seq": 1, "player": "P", "lines": ["PASS"], "at": START.isoformat()}
    ]
    rows += [{"kind": "engine", "seq": k, "visibility": ["Q"], "text": "x"} for k in range(1, n + 1)]
    dues = paced.computed(rows, lambda k: ("step",), paced.pace([dict(rows[0], pace=PACE)]) or (timedelta(1), START))
    early = START + timedelta(hours=47)
    reports = [(1, f"report {k}", early, float(k)) for k in range(n)]
    return _Chain(rows, [], {}), dues, reports


def test_many_reports_over_a_long_unseen_stretch_are_each_a_bisection() -> None:
    """264,522 and 4,058,022 lines for 500 and 2,000 (15.3 at 4x) on a0540ce: each report scanned the stretch."""

    def work(n: int):  # type: ignore[no-untyped-def]
        ch, dues, reports = _unseen(n)
        return lambda: receipts._computed(ch, {}, reports, dues, MailCheck(ok=True))

    grew = step_growth(work, 500)
    assert grew.ratio < 5, f"reports over an unseen stretch, 500 and 2,000: {grew}"
    ch, dues, reports = _unseen(50)
    c = MailCheck(ok=True)
    receipts._computed(ch, {}, reports, dues, c)
    assert len(c.problems) == 50 and "1.0 hours earlier" in c.problems[0], c.problems[:1]


def test_the_index_answers_as_the_scan_did() -> None:
    """Random deadlines (none, repeated, to the second) and windows (empty, past the end): `Told.unlike` gives
    what a0540ce's scan of the window gave."""
    import random

    rng = random.Random(16)
    for _ in range(400):
        times = [START + timedelta(minutes=rng.randint(0, 4), seconds=rng.choice([0, 30])) for _ in range(6)]
        dues = [None if rng.random() < 0.2 else paced.Due(rng.choice(times), 0, "") for _ in range(rng.randint(1, 12))]
        told = paced.Told(dues)
        for _ in range(10):
            at = rng.randrange(len(dues))
            upto, stated = rng.randint(0, len(dues) + 2), rng.choice(times).replace(second=0)
            window = dues[at : max(upto, at + 1)]
            scan = None if any(d is None or d.when.replace(second=0) == stated for d in window) else dues[at]
            assert told.unlike(at, upto, stated) == scan, (dues, at, upto, stated)


def _rows(opened: str, seconds: object, at: str, moved: str) -> list[dict[str, Any]]:
    """An input chaining `seconds` and `opened`, an event moving the deadline to `moved`, then a deadline input at `at`."""
    return [
        {
            "kind": "orders",
            "seq": 1,
            "lines": ["PASS"],
            "at": opened,
            "pace": {"step_seconds": seconds, "opened": opened},
        },
        {"kind": "moderator", "seq": 1, "data": {"action": "extend", "deadline": moved}, "text": "x"},
        {"kind": "deadline", "seq": 2, "lines": [], "at": at},
    ]


HOSTILE = [
    ("2026-01-05T12:00:00+00:00", 10**14, "2026-01-09T12:00:00+00:00", "2026-01-08T12:00:00+00:00"),
    ("2026-01-05T12:00:00+00:00", 2**62, "2026-01-09T12:00:00+00:00", "2026-01-08T12:00:00+00:00"),
    ("9999-12-31T00:00:00+00:00", 172800, "9999-12-31T23:00:00+00:00", "9999-12-31T23:59:00+00:00"),
    ("9999-12-31T00:00:00+00:00", 10**13, "9999-12-31T23:00:00+00:00", "nan"),
    ("2026-01-05T12:00:00+00:00", 172800, "2026-01-09T12:00:00+00:00", "0001-01-01T00:00:00+00:00"),
    ("2026-01-05T12:00:00+00:00", 172800, "0001-01-01T00:00:00+00:00", "9999-12-31T23:59:59+00:00"),
    ("0001-01-01T00:00:00+00:00", 172800, "0001-01-01T00:00:00+00:00", "0001-01-01T00:00:00+00:00"),
    ("2026-01-05T12:00:00+00:00", 172800, "9999-12-31T23:59:59+00:00", "-1"),
    ("9999-12-31T23:59:59+00:00", 1, "9999-12-31T23:59:59+00:00", "9999-12-31T23:59:59+00:00"),
    ("2026-01-05T12:00:00+00:00", 10**13, "9999-12-31T23:59:59+00:00", "2026-01-05T12:00:00"),
    ("2026-01-05T12:00:00+00:00", 172800, "2026-01-05T12:00:00", "0001-01-01T00:00:00"),
    ("9999-12-31T00:00:00+00:00", 86400, "9999-12-31T00:00:00+00:00", "9999-12-31T00:00:00+00:00"),
]


def test_absurd_times_and_step_lengths_are_read_not_raised() -> None:
    """12 of these 12 raised OverflowError on a0540ce (`pace`, `computed`, `verify._applied` or `due.late`)."""
    raised = []
    for case in HOSTILE:
        rows = _rows(*case)
        told = [(1, "a report", START + timedelta(days=2))]
        try:
            due.late(rows, told, {3: 1_800_000_000}, lambda k: ("step",))
            due.early(rows, told, lambda k: ("step",))
            found = paced.pace(rows)
            if found is not None:
                dues = paced.computed(rows, lambda k: ("step",), found)
                paced.Told(dues).unlike(1, 3, START)
                verify._applied(
                    rows, {0: ("step",), 1: ("step",), 2: ("step",), 3: ("step",)}, found, verify.Verification(ok=True)
                )
        except verify.Refused:
            pass
        except OverflowError as exc:
            raised.append((case, str(exc)))
    assert not raised, f"{len(raised)} of {len(HOSTILE)} raised: {raised[:2]}"


def test_a_step_length_of_millennia_is_refused_by_pbem_verify() -> None:
    """The seeded game's record with a step length of 10**14 seconds: OverflowError out of `pbem verify` on a0540ce
    (its `_paced`, before any other check of the pace); now refused as an unreadable step length."""
    from pbem.trust import chain
    from tests.test_history_golden import seeded_export

    doc = seeded_export("italian-wars")
    doc["orders"][0]["pace"] = dict(doc["orders"][0]["pace"], step_seconds=10**14)
    try:
        verify._paced(chain.sequence(doc["orders"], doc["events"]), verify.Verification(ok=True))
    except verify.Refused as refused:
        assert "is not a number of seconds" in str(refused), refused
    else:
        raise AssertionError("a step length of 10**14 seconds was read")


def _join_rows(opened: str, seconds: object, at: str, moved: str) -> list[dict[str, Any]]:
    """A join step (fairness17's): the first input chaining `seconds`, `opened` and the chained join moves, a
    `join-missing` event at `at` moving the deadline to `moved`, a seat given away, a JOIN and the start at `at`."""
    pace = {"step_seconds": seconds, "opened": opened, "join": "chained"}
    at_join = {"at": at, "text": "x"}
    return [
        {"kind": "join", "seq": 1, "player": "Alice", "lines": ["JOIN"], "at": opened, "pace": pace},
        {"kind": "moderator", "seq": 1, "data": {"action": paced.JOIN_MISSING, "deadline": moved}, **at_join},
        {"kind": "moderator", "seq": 2, "data": {"action": "replace", "player": "Bob", "newcomer": "Dora"}, **at_join},
        {"kind": "join", "seq": 2, "player": "Carol", "lines": ["JOIN"], "at": at},
        {"kind": "start", "seq": 3, "lines": [], "at": at},
    ]


def test_absurd_times_on_the_join_step_are_read_not_raised() -> None:
    """The same hostile times on the join step fairness17 computes (`computed` with `join`, `join_kept`): read or
    refused, never OverflowError (its comparisons first added to the deadline, as `verify._applied` once did)."""
    raised = []
    for case in HOSTILE:
        rows = _join_rows(*case)
        try:
            found = paced.pace(rows)
            if found is not None:
                dues = paced.computed(rows, lambda k: (paced.JOIN,), found, join=True)
                paced.join_kept(rows, lambda k: (paced.JOIN,), dues, found[0])
                paced.Told(dues).unlike(1, 4, START)
        except verify.Refused:
            pass
        except OverflowError as exc:
            raised.append((case, str(exc)))
    assert not raised, f"{len(raised)} of {len(HOSTILE)} raised: {raised[:2]}"
