"""`paced.join_kept` (the join deadline's check of `pbem verify`): linear in the chain, whatever its starts (costs18).

For each moderator's start before the join deadline the chain gives, it named the players whose salt was missing
from the next `salts` entry, found by a scan of the rest of the chain: a hostile export (the moderator is the
verifier's adversary) of n starts in the join step cost n squared, 0.48 and 7.3 s at 5,000 and 20,000.  Now the salts
entries are listed once and the next one found by bisection: 0.03 and 0.13 s, the same warnings.

The generator: n and 4n starts, each 31 days before the deadline in force, then one salts entry; counted, not timed
(`step_growth`, lines of Python at 200 and 800): 13.05 at 4x on 9fb0ae7 (26,523 and 346,023), 3.99 now.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.trust import paced
from pbem.trust.deal import STEP as JOIN
from pbem.trust.quote import ALIKE
from tests.growth import step_growth

N = 200
MAX_GROWTH = 5.0  # lines of Python at 4x: linear 4, a scan of the rest for each start 16


def _chain(n: int) -> tuple[list[dict[str, Any]], list[paced.Due | None]]:
    rows: list[dict[str, Any]] = [{"kind": "start", "seq": k, "at": "2026-01-01T00:00:00Z"} for k in range(1, n + 1)]
    rows.append({"kind": "salts", "data": {"missing": ["Bob"]}})
    return rows, [paced.Due(datetime(2026, 2, 1, tzinfo=UTC), 0, "the invitation")] * len(rows)


def _kept(n: int) -> tuple[str, list[str]]:
    rows, dues = _chain(n)
    return paced.join_kept(rows, lambda k: (JOIN,), dues, timedelta(days=1))


def test_the_join_deadlines_check_of_n_and_4n_starts_is_linear() -> None:
    refused, warnings = _kept(N)
    # the first `ALIKE` whole, the others counted in one line (costs19: they were N lines)
    assert refused == "" and len(warnings) == ALIKE + 1 and all("without the salt of Bob" in w for w in warnings[:-1])
    assert f"{N - ALIKE} more like these" in warnings[-1], warnings[-1]
    g = step_growth(lambda n: lambda: _kept(n), N)
    assert g.ratio <= MAX_GROWTH, f"join_kept, {N:,} and {4 * N:,} starts: {g}"
