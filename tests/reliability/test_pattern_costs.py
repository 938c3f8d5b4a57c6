"""Every regular expression in pbem costs time linear in the text it reads: generated runs of the characters
that make a backtracking pattern superlinear.

Python's `re` backtracks: two unbounded quantifiers that can match the same characters (`\\s*\\**\\s*`,
`.*[@<].*`), or a token pattern tried again at every character of a run it cannot finish (`findall` of
`[a-z]+=`), cost the square of the run.  Such patterns had been found one by one in single stages (issue 26);
this test finds them all: it collects every compiled pattern of every pbem module and runs it (`search`, the
worst case: every start is tried) over runs of one or two "atoms" (spaces, tabs, stars, dashes, quote marks,
letters, addresses, encoded words, line breaks ...), after a few prefixes that open alternatives ("On ",
"From: ").  Four times the run may cost at most `MAX_GROWTH` times the time (linear is 4, quadratic 16).
Found this way (2026-12-04) and made linear with possessive quantifiers or a look-behind: the furniture of
a reply (an Outlook header block, a marker, an attribution: 25 s for one 16 KB line of a reply), the label
above a quoted copy, the Authentication-Results and DKIM tag readers, the address in a display name, and
Dynasties' card-list splitter.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import pkgutil
import random
import re
import time
from collections.abc import Callable

import pbem
from tests.growth import growth

N = 4_000  # characters of the shorter run (the longer: 4 * N)
MAX_GROWTH = 9.0
FLOOR = 0.5e-3  # seconds: a search faster than this at N characters is not timed again (the timer's noise)
ATOMS = [" ", "\t", "\u3000", "*", "-", "=", "_", ">", "|", "@", "<", ".", ":", "(", '"', "\\", "'", ",", ";", "a", "1"]
ATOMS += ["\n", " \n", "\r\n", "on ", "a@b ", "<a@b> ", "=?", "=?u?q?", "x=", "code ", "and ", "> > ", "ab:"]
PREFIXES = ["", "On ", "From: ", "** ", "-- "]


def patterns() -> list[tuple[str, re.Pattern]]:
    """Every compiled pattern at the top of a pbem module."""
    found = []
    for info in pkgutil.walk_packages(pbem.__path__, "pbem."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and getattr(module, name) is value:
                found.append((f"{info.name}.{name}", value))
    return sorted({id(p): (n, p) for n, p in found}.values(), key=lambda item: item[0])


def runs() -> list[tuple[str, str]]:
    """(prefix, the atoms repeated): each atom alone, and seeded pairs of atoms alternating."""
    rng = random.Random(27)
    pairs = [a + b for a, b in rng.sample(list(itertools.permutations(ATOMS, 2)), 60)]
    return [(prefix, atom) for prefix in PREFIXES for atom in ATOMS + pairs]


def _search(p: re.Pattern, text: str) -> float:
    subject: str | bytes = text.encode("utf-8") if isinstance(p.pattern, bytes) else text
    t = time.process_time()  # CPU time: a pause of this process on a shared machine is no cost
    p.search(subject)  # type: ignore[arg-type]
    return time.process_time() - t


def run_of(lead: str, atom: str, end: str = "") -> Callable[[int], str]:
    """The text of k characters or so: `lead`, `atom` repeated, `end`."""
    return lambda k: lead + atom * (k // len(atom)) + end


def confirmed(search: Callable[[str], object], text: Callable[[int], str], n: int = N, floor: float = FLOOR) -> bool:
    """A screening's growth over the bound, read again at both sizes while it stays over (tests/growth.py): true
    if it stays over the bound (a square pattern does), false if the machine's noise made it."""
    return growth(lambda k: functools.partial(search, text(k)), n, bound=MAX_GROWTH, floor=floor).ratio > MAX_GROWTH


def test_every_pattern_costs_time_linear_in_its_text() -> None:
    slow = []
    for name, p in patterns():
        for prefix, atom in runs():
            short = prefix + atom * (N // len(atom))
            t1 = _search(p, short)
            if t1 < FLOOR:
                continue
            long = prefix + atom * (4 * N // len(atom))
            t1 = min(t1, _search(p, short))  # the least of two: the machine is shared
            t4 = _search(p, long)
            if t4 / t1 > MAX_GROWTH:  # the least of two; a first reading within the bound is the least's bound too
                t4 = min(t4, _search(p, long))
            if t4 / t1 > MAX_GROWTH and confirmed(functools.partial(_search, p), run_of(prefix, atom)):
                slow.append(f"{name} on {prefix!r} + {atom!r} x {N // len(atom)}: {t1:.4f} s, at 4x {t4:.4f} s")
                break
    assert slow == [], "\n".join(slow)


def test_the_check_finds_a_quadratic_pattern() -> None:
    """The check itself can fail: the furniture pattern this test found costs the square of a run of spaces.
    Shown at half the run (N // 2): the square is already 16 times the time at four times the run, and the run
    of 4 * N costs 16 s of CPU."""
    old = re.compile(r"^\s*\**\s*(?:from|von|de)\s*:", re.IGNORECASE)
    t1 = min(_search(old, " " * (N // 2)) for _ in range(2))
    t4 = min(_search(old, " " * 4 * (N // 2)) for _ in range(2))
    assert t1 >= FLOOR and t4 / t1 > MAX_GROWTH


def test_the_patterns_are_found() -> None:
    names = {n for n, _ in patterns()}
    assert {"pbem.orders.furniture._HEADER_FROM", "pbem.trust.dkim._TAG", "pbem.orders.own_mail._LABEL"} <= names
    assert len(names) > 50
