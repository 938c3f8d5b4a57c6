"""Every regular expression in pbem costs time linear in the text it reads: generated runs of the characters
that make a backtracking pattern superlinear.

Python's `re` backtracks: two unbounded quantifiers that can match the same characters (`\\s*\\**\\s*`,
`.*[@<].*`), or a token pattern tried again at every character of a run it cannot finish (`findall` of
`[a-z]+=`), cost the square of the run.  Such patterns had been found one by one in single stages (issue 26);
this test finds them all: it collects every compiled pattern of every pbem module and runs it as pbem reads it
(`reader`: `search`, the worst case, every start tried, unless every call of it is `match` or `fullmatch`) over runs of one or two "atoms" (spaces, tabs, stars, dashes, quote marks,
letters, addresses, encoded words, line breaks ...), after a few prefixes that open alternatives ("On ",
"From: ").  Four times the run may cost at most `MAX_GROWTH` times the time (linear is 4, quadratic 16).
Found this way (2026-12-04) and made linear with possessive quantifiers or a look-behind: the furniture of
a reply (an Outlook header block, a marker, an attribution: 25 s for one 16 KB line of a reply), the label
above a quoted copy, the Authentication-Results and DKIM tag readers, the address in a display name, and
Dynasties' card-list splitter.
"""

from __future__ import annotations

import ast
import functools
import importlib
import itertools
import pkgutil
import random
import re
from collections.abc import Callable
from pathlib import Path

import pbem
from tests.growth import growth, own_cpu

PACKAGE = Path(pbem.__file__).resolve().parent

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


def _search(p: re.Pattern, text: str, method: str = "search") -> float:
    subject: str | bytes = text.encode("utf-8") if isinstance(p.pattern, bytes) else text
    # CPU time of this thread (a pause of this process on a shared machine is no cost; a search starts no thread):
    # `own_cpu`, not a `Window`, whose six reads of /proc (0.1 ms) cost more than most searches screened here
    return own_cpu(functools.partial(getattr(p, method), subject))


LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@functools.cache
def _uses() -> dict[str, set[str]]:
    """{a name: how pbem's source reads it}: `match` or `fullmatch` where it is called so (from the string's start,
    or once from a place, `P.match(line, pos)` outside any loop), `pattern` where its text is spliced into another
    pattern (checked there), `search` for any other use (searched, called at places in a loop, passed on).

    Each module's tree is walked once, each node handed its parent, grandparent and whether a loop holds it (three
    walks before, one of them again under every loop: 2.1 of the test's CPU s, now about 0.8; the same answers)."""
    uses: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        todo: list[tuple[ast.AST, ast.AST | None, ast.AST | None, bool]] = [(tree, None, None, False)]
        while todo:
            node, up, call, looped = todo.pop()
            inner = looped or isinstance(node, LOOPS)
            todo.extend((child, node, up, inner) for child in ast.iter_child_nodes(node))
            if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
                continue
            # neither `up` nor `call` is a loop: `looped` (a loop above the name) is whether a loop holds the call
            how = "search"
            if isinstance(up, ast.Attribute) and up.attr == "pattern":
                how = "pattern"
            elif (
                isinstance(up, ast.Attribute)
                and up.attr in ("match", "fullmatch")
                and isinstance(call, ast.Call)
                and call.func is up
                and (len(call.args) < 2 or not looped)
            ):
                how = up.attr
            uses.setdefault(node.id, set()).add(how)
    return uses


def reader(name: str) -> str:
    """How pbem reads the top-level pattern `name` (`_uses`): `match` or `fullmatch` where that is every call of it,
    else `search`.  A pattern read only from a line's start (the greetings' `_GREETING.match(line)`) is timed as it
    is read: searched, an alternation of a hundred greetings was tried at each character of a run, and the scan of
    two such patterns took 50 of test_costs3_regexes' 59 s, and `pbem.trust.pressed._SEAT` (read by `fullmatch`,
    400 characters tried lazily at every start when searched) 37 of this test's 56 s (2026-12-06)."""
    calls = _uses().get(name.rsplit(".", 1)[-1], set()) - {"pattern"}
    return next(iter(calls)) if len(calls) == 1 and calls <= {"match", "fullmatch"} else "search"


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
        read = functools.partial(_search, p, method=reader(name))  # as pbem reads it (`reader`)
        for prefix, atom in runs():
            short = prefix + atom * (N // len(atom))
            t1 = read(short)
            if t1 < FLOOR:
                continue
            long = prefix + atom * (4 * N // len(atom))
            t1 = min(t1, read(short))  # the least of two: the machine is shared
            t4 = read(long)
            if t4 / t1 > MAX_GROWTH:  # the least of two; a first reading within the bound is the least's bound too
                t4 = min(t4, read(long))
            if t4 / t1 > MAX_GROWTH and confirmed(read, run_of(prefix, atom)):
                slow.append(f"{name} on {prefix!r} + {atom!r} x {N // len(atom)}: {t1:.4f} s, at 4x {t4:.4f} s")
                break
    assert slow == [], "\n".join(slow)


def test_the_check_finds_a_quadratic_pattern() -> None:
    """The check itself can fail: the furniture pattern this test found costs the square of a run of spaces.
    Shown at half the run (N // 2): the square is already 16 times the time at four times the run, and the run
    of 4 * N costs 16 s of CPU."""
    old = re.compile(r"^\s*\**\s*(?:from|von|de)\s*:", re.IGNORECASE)
    t1 = min(_search(old, " " * (N // 2)) for _ in range(2))
    t4 = _search(old, " " * 4 * (N // 2))  # once (0.9 s): a busy machine can only raise the ratio checked (suite8)
    assert t1 >= FLOOR and t4 / t1 > MAX_GROWTH


def test_the_patterns_are_found() -> None:
    names = {n for n, _ in patterns()}
    assert {"pbem.orders.furniture._HEADER_FROM", "pbem.trust.dkim._TAG", "pbem.orders.own_mail._LABEL"} <= names
    assert len(names) > 50
