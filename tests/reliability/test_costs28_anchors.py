"""A pattern read only from the start is anchored, and a searched one starts with no run held by nothing (costs28).

`tests.reliability.pattern_uses` reads pbem's source: where each pattern is read (`match`, `fullmatch`, `search`,
`finditer`, `sub`, `split`, through names and the functions that receive it), and the runs a search of it may start
a match with.  On 36ff7173: 49 patterns read only by `match`/`fullmatch` started with neither `\\A` nor `^` (the timing
scans search a pattern they think is searched: `_SEAT` and `_MARKED_OFF` were each found so, by a margin), and three
searched patterns started with a run held by nothing: `dynasties.cards._TOKEN` and the Sixteen Thirty cards' split
(rewritten: the same words, one reading of a run), and `typed._PHONE` (`\\d[\\d ()./-]{5,}\\d`, shown linear below:
the digit before the run is one the run reads, but a start fails only where no digit follows in the run, and then
no later start before the run's end is a digit).  Now none of either.

The suite reads a sample of the modules that hold patterns (every tenth, and four of the past findings);
`PBEM_FULL_SIZE=1` reads all 82 (about 3 CPU s).
"""

from __future__ import annotations

import functools
import re

from tests.growth import growth, own_cpu
from tests.reliability import pattern_uses as uses
from tests.sizes import FULL

#: Searched patterns whose leading run is held by what the static reading cannot see: each with the texts that
#: would cost the square of a run were it not, timed at 1,000 and 4,000 characters (`tests.growth`).
SHOWN_LINEAR: dict[str, list[str]] = {
    "pbem.orders.typed._PHONE": ["1" + " " * 4, "1 ", "1(", "11-", "1 a"],
}
MAX_GROWTH = 9.0  # four times the text: linear 4, quadratic 16


FOLLOWED = ("pbem.orders.own_mail", "pbem.trust.pressed", "pbem.trust.prose", "pbem.trust.acked")


def _sample() -> tuple[str, ...]:
    found = uses.definers()
    if FULL:
        return tuple(found)
    return tuple(sorted({*found[::10], *FOLLOWED}))


def test_every_pattern_read_only_from_the_start_is_anchored() -> None:
    assert uses.only_matched_unanchored(_sample()) == []


def test_no_searched_pattern_starts_with_a_run_held_by_nothing() -> None:
    found = [f for f in uses.searched_runs(_sample()) if f.split(" ")[0] not in SHOWN_LINEAR]
    assert found == [], "\n".join(found)


#: Searched patterns whose run may repeat their lead (`uses.runs(p, leads=True)`), each with why that costs no square.
#: On 36ff7173 also `acked._PARAGRAPH` and `joined._BLOCK`, now read by `pbem.trust.spans`
#: (tests/reliability/test_costs28_blocks.py).
LEADS_BOUNDED: dict[str, str] = {
    "pbem.app.reading._UNSHOWN": "reads only the HTML pbem wrote itself (`sent_texts`), whose text is escaped",
    "pbem.orders.moderator._CODE_GIVEN": "searched only in a SAY text of at most `SAY_MAX` (400) characters",
    "pbem.orders.typed._POINTER": "a line's pointer: its run `.*` ends at the line's end, where `$` holds",
    "pbem.orders.typed._PHONE": "shown linear (`SHOWN_LINEAR`)",
    "pbem.record.schema._DOWN": "reads pbem's own migration files",
}


def test_no_searched_pattern_repeats_its_lead_into_an_unbounded_run() -> None:
    found = [f for f in uses.searched_runs(_sample(), leads=True) if f.split(" ")[0] not in LEADS_BOUNDED]
    assert found == [], "\n".join(found)
    assert uses.runs(re.compile(r"<p>(.{0,100000}?)</p>", re.S), leads=True)  # acked._PARAGRAPH on 36ff7173
    assert not uses.runs(re.compile(r"<p>([^<]{0,100000})</p>", re.S), leads=True)


def test_the_runs_shown_linear_cost_time_linear_in_their_text() -> None:
    import importlib

    for name, atoms in SHOWN_LINEAR.items():
        module, _, attr = name.rpartition(".")
        p = getattr(importlib.import_module(module), attr)
        assert uses.runs(p), f"{name}: no longer named; take it off SHOWN_LINEAR"
        for atom in atoms:
            g = growth(
                lambda k, a=atom, p=p: functools.partial(own_cpu, functools.partial(p.search, a * (k // len(a)) + "x")),
                1_000,
                bound=MAX_GROWTH,
                floor=0.2e-3,
            )
            assert g.ratio <= MAX_GROWTH, f"{name} on {atom!r}: {g}"


def test_the_check_names_the_old_forms() -> None:
    """The check can fail: each old form is named, each new one not."""
    old_marked_off = re.compile(r"\s*+>\s*+(?:>\s*+)?+(?!>)(.*)", re.DOTALL)
    assert not uses.anchored(old_marked_off) and uses.runs(old_marked_off)
    assert uses.anchored(re.compile(r"\A\s*+>\s*+(?:>\s*+)?+(?!>)(.*)", re.DOTALL))
    assert not uses.anchored(re.compile(r"^a|b")) and uses.anchored(re.compile(r"\A(?:a|b)"))
    assert uses.runs(re.compile(r"[^\W\d_]+\d+|\d+|[^\W\d_]+"))  # dynasties' _TOKEN on 36ff7173
    assert uses.runs(re.compile(r"[^\d]++\d+|[^\d]+$"))  # the Sixteen Thirty cards' split on 36ff7173
    assert uses.runs(re.compile(r"[\s.,;:!]+$"))  # typed._TRAILING before costs3
    assert uses.runs(re.compile(r"(?m)^\s*x"))  # a line's start does not hold a run that reads newlines
    for linear in (
        r"[^\W\d_]+\d*|\d+",
        r"[^\d]++\d*+",
        r"\b[A-Z]{3,}\b",
        r"(?<=</p>)\s*(?=<)",
        r"(?<!\s)\s*+(?:,|\+|;)",
        r"code\s*[:=]\s*(\S+)",
        r"(?m)^[ \t]*x",
        r"[ \t]{0,8}x",
    ):
        assert uses.runs(re.compile(linear)) == [], linear


def test_the_readings_are_followed() -> None:
    """Read through an import, a function's parameter, a loop over a tuple, and `match(text, pos)`."""
    found = {u.name: u.how for u in uses.uses(_sample())}
    assert found["pbem.trust.pressed._SEAT"] == {"fullmatch"}
    assert found["pbem.orders.own_mail._MARKED_OFF"] == {"match"}
    assert "fullmatch" in found["pbem.trust.prose.ACK_WHOLE[0]"]
