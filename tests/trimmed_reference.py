"""`own_mail.trimmed_in_quote` as it was before perf35 (36ff7173), kept as the reference its new reading is checked
against: it asked the reader (`keep`) of every quoted line first, then walked the runs (tests/test_perf35.py).

As a pytest plugin (`python3 -m pytest -p tests.trimmed_reference ...`), every call of `trimmed_in_quote` made by the
tests run is answered by both and fails the test where they differ; the calls compared, those with a line told, and
those whose old walk reached the cap (`QUOTED_ORDERS`) are counted into `PBEM_TRIMMED_COUNTS` (a file) if set.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from itertools import islice, takewhile
from typing import Any

from pbem.orders import own_mail
from pbem.orders.own_mail import (
    _BLANK,
    _QUOTED,
    CHANGED,
    GAP,
    QUOTED_ORDERS,
    SPOTS,
    TRIMMED,
    _words,
    chosen,
    marked_off,
)

COUNTS = {"compared": 0, "told": 0, "capped": 0, "differ": 0}


def old_trimmed_in_quote(
    lines: list[str], per_line: list[list[str]], drop: list[bool], sent: list[str], keep: Callable[[str], bool]
) -> list[tuple[str, str]]:
    """The listed orders the writer kept of a quoted copy's list, the list's other lines deleted (">     NO EVENT"
    alone under "> Legal orders now (copy one per line):", the quote cut there or going on), each as (the line as
    quoted, `TRIMMED`): read as nothing and told nothing before (players33).  A run of quoted orders (`keep`, no mark
    of choice; blank quoted lines between) right under a line of the copy where a sent mail has that line over a block
    of two lines or more that holds each of them, in its order, and more.  Where the quote ends with the run and the
    run is the block's first lines, a client may have cut the quote there: told only for the block's first line
    alone.  Not read (a quoted order is pbem's line): told, with the line to send.  Linear: `QUOTED_ORDERS` quoted
    lines looked at, `SPOTS` places of a line above a run, `GAP` lines of a run and of a block."""
    split = [text.split("\n") for text in sent]
    mine = {
        n: said.strip()
        for n, line in enumerate(lines[: QUOTED_ORDERS * GAP])
        if per_line[n]
        and (said := marked_off(line)) is not None
        and keep(said.strip())
        and not chosen(said.strip())
        and not _BLANK.search(said)  # "MELD <Person> ...": the syntax's line, no order
    }
    if not mine:
        return []
    where: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    for t, rows in enumerate(split):
        for i, row in enumerate(rows):
            spots = where.setdefault(tuple(_words(row)), []) if row.strip() else None
            if spots is not None and len(spots) < SPOTS:
                spots.append((t, i))
    last = max((g for g, ws in enumerate(per_line) if ws and _QUOTED.match(lines[g])), default=-1)  # the quote's end
    out: list[tuple[str, str]] = []
    n, runs = 0, 0
    while n < len(lines) and runs < QUOTED_ORDERS:
        if n not in mine:
            n += 1
            continue
        k = n - 1  # the line with words above the run, past blank quoted lines
        while k >= 0 and n - k <= GAP and _QUOTED.match(lines[k]) and not per_line[k]:
            k -= 1
        runs, start, n = runs + 1, n, n + 1
        if k < 0 or not drop[k] or not _QUOTED.match(lines[k]):
            continue
        heading = (marked_off(lines[k]) or "").rstrip().endswith((":", "\uff1a"))
        for t, i in where.get(tuple(per_line[k]), []):
            block = [r.strip() for r in islice(takewhile(str.strip, split[t][i + 1 :]), GAP)]
            found = _quoted_of(lines, per_line, start, block)
            if not found or len(found) == len(block):
                continue  # not this place, or the list whole (answers typed between its lines)
            typed = [(marked_off(lines[g]) or "").strip() for g in found]
            if not [r for r in block if r not in typed and keep(r) and not _BLANK.search(r)]:
                break  # no order of the list deleted
            if found[-1] == last and block[: len(typed)] == typed and (len(typed) > 1 or not heading):
                break  # the quote cut under the list's first lines: a client's cut as well
            if not _list_ends(lines, per_line, found[-1], keep):
                break  # a line changed or rewrapped there: `changed_in_quote`'s, or the copy's
            out += [(lines[g].strip(), TRIMMED) for g in found if g in mine]
            n = found[-1] + 1
            break
    COUNTS["capped"] += runs >= QUOTED_ORDERS
    return out[:CHANGED]


def _list_ends(lines: list[str], per_line: list[list[str]], at: int, keep: Callable[[str], bool]) -> bool:
    """Whether the quoted list ends under line `at`: the quote ends, or goes on after a blank line with a line that is
    no order (the report's next part), as a list the writer cut goes on; a line changed into another order or typed
    there, or the rest of a line a client rewrapped, follows it with no blank line between."""
    g, blank = at + 1, False
    while g < len(lines) and (not per_line[g] or not _QUOTED.match(lines[g])):
        blank, g = blank or not per_line[g], g + 1
    return g >= len(lines) or (blank and not keep((marked_off(lines[g]) or "").strip()))


def _quoted_of(lines: list[str], per_line: list[list[str]], start: int, block: list[str]) -> list[int]:
    """The quoted lines from `start` on that are lines of `block` in its order (blank lines and the writer's own,
    unquoted, passed over; at most `GAP` lines past the last found), up to the first quoted line that is none."""
    found: list[int] = []
    at, g = 0, start
    while g < len(lines) and at < len(block) and g - (found[-1] if found else start) <= GAP:
        if per_line[g] and _QUOTED.match(lines[g]):
            said = (marked_off(lines[g]) or "").strip()
            if said not in block[at:]:
                break
            at = block.index(said, at) + 1
            found.append(g)
        g += 1
    return found


def both(
    lines: list[str],
    per_line: list[list[str]],
    drop: list[bool],
    sent: list[str],
    keep: Callable[[str], bool],
    quoted: dict[int, str] | None = None,
) -> list[tuple[str, str]]:
    """The new reading, checked against the old one on the same arguments."""
    new = _NEW(lines, per_line, drop, sent, keep, quoted)
    old = old_trimmed_in_quote(lines, per_line, drop, sent, keep)
    COUNTS["compared"] += 1
    COUNTS["told"] += bool(old)
    if new != old:
        COUNTS["differ"] += 1
        raise AssertionError(f"trimmed_in_quote reads otherwise than before perf35: {new!r} != {old!r}")
    return new


_NEW = own_mail.trimmed_in_quote


def pytest_configure(config: Any) -> None:
    own_mail.trimmed_in_quote = both  # type: ignore[assignment]


def pytest_unconfigure(config: Any) -> None:
    own_mail.trimmed_in_quote = _NEW  # type: ignore[assignment]
    where = os.environ.get("PBEM_TRIMMED_COUNTS")
    if where:
        with open(f"{where}.{os.getpid()}", "w") as f:
            json.dump(COUNTS, f)
