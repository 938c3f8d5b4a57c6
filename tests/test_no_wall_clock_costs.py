"""No test asserts on a cost read off the wall clock.

Two suites run at once on one machine (issue 22) failed two cost checks that timed code with
`time.perf_counter`: a 250 KB mail measured once at 1.08 s against 0.016 s (68x for a bound of 10x; it is
about 4x), and a growth of 9.03 for a bound of 9 (it is about 3.5).  The scheduler had paused the process; a
pause is no cost of the code under test.  Costs are CPU seconds (`time.process_time`), the least of a few
runs; the wall clock is for deadlines, where the waiting is the point, marked `# wall clock: deadline` on
the assert line (or `# wall clock: reported only` where an assert reads a value kept beside printed readings).

The check reads every test module: in each function, a name assigned from an expression that reads the
wall clock (`perf_counter`, `monotonic`, their `_ns` forms), or from such names, is a wall-clock
reading, and so is a list that such a value is appended to; an `assert` using one fails the check, unless
its line is marked.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
#: the clocks that time things (`time.time()` is read for timestamps, not for durations)
CLOCKS = {"perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns"}
#: an assert line that must read the clock says why: "# wall clock: deadline" (the waiting is the point) or
#: "# wall clock: reported only" (a value beside the readings, which are printed, not checked)
MARK = "# wall clock: "


def _reads_clock(node: ast.AST, tainted: set[str], clock_fns: set[str]) -> bool:
    """Does this expression read the wall clock: a clock call, a tainted name, or a call of a function that
    returns a reading?"""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            if (
                isinstance(f, ast.Attribute)
                and f.attr in CLOCKS
                and isinstance(f.value, ast.Name)
                and f.value.id == "time"
            ):
                return True
            if isinstance(f, ast.Name) and (f.id in CLOCKS or f.id in clock_fns):  # `from time import perf_counter`
                return True
        if isinstance(sub, ast.Name) and sub.id in tainted:
            return True
    return False


def _names(node: ast.AST) -> set[str]:
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}


def _tainted(fn: ast.AST, clock_fns: set[str]) -> set[str]:
    """The names in `fn` that hold wall-clock readings (to a fixed point: `t = perf_counter()`,
    `spent = perf_counter() - t`, `times.append(spent)`, `ratio = times[0] / times[1]`)."""
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in ast.walk(fn):
            new: set[str] = set()
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and node.value is not None:
                if _reads_clock(node.value, tainted, clock_fns):
                    for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                        new |= _names(target)
            elif isinstance(node, ast.For) and _reads_clock(node.iter, tainted, clock_fns):
                new = _names(node.target)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "extend")
                and isinstance(node.func.value, ast.Name)
                and any(_reads_clock(arg, tainted, clock_fns) for arg in node.args)
            ):
                new = {node.func.value.id}
            if new - tainted:
                tainted |= new
                changed = True
    return tainted


def wall_clock_asserts(source: str, filename: str = "<test>") -> list[tuple[int, str]]:
    """(line, innermost function) of every assert that uses a wall-clock reading and is not marked as a deadline.

    A function that returns a reading (`best`, `_stages` returning a dict of them) makes its calls readings."""
    tree = ast.parse(source, filename=filename)
    lines = source.splitlines()
    functions = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)]
    clock_fns: set[str] = set()
    changed = True
    while changed:
        changed = False
        for fn in functions:
            if fn.name in clock_fns:
                continue
            tainted = _tainted(fn, clock_fns)
            returns = [r.value for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None]
            if any(_reads_clock(value, tainted, clock_fns) for value in returns):
                clock_fns.add(fn.name)
                changed = True
    found: dict[int, str] = {}
    for fn in functions:  # outer functions first (ast.walk is breadth-first): an inner one names its own asserts
        tainted = _tainted(fn, clock_fns)
        for node in ast.walk(fn):
            marked = isinstance(node, ast.Assert) and MARK in lines[node.lineno - 1]
            if isinstance(node, ast.Assert) and not marked and _reads_clock(node.test, tainted, clock_fns):
                found[node.lineno] = fn.name
    return sorted(found.items())


def test_no_test_asserts_on_a_wall_clock_cost() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        text = path.read_text()
        if not any(clock in text for clock in CLOCKS):  # no clock read, so no reading to assert on: nothing to walk
            continue
        for line, fn in wall_clock_asserts(text, str(path)):
            offenders.append(f"{path.relative_to(TESTS.parent)}:{line} ({fn})")
    assert not offenders, "asserts on wall-clock time (use time.process_time, or mark a deadline):\n" + "\n".join(
        offenders
    )


def test_the_check_catches_the_two_cost_checks_that_failed() -> None:
    """The check itself: the code of both failures is found; its CPU-time form and a marked deadline are not."""
    once = """
def test_cost(world):
    times = []
    for raw in (hostile, plain):
        t = time.perf_counter()
        handle(raw)
        times.append(time.perf_counter() - t)
    assert times[0] / times[1] < 10, times
"""
    best = """
def stages():
    def best(f):
        times = []
        for _ in range(3):
            t = time.perf_counter()
            f()
            times.append(time.perf_counter() - t)
        return min(times)
    small = best(a)
    assert small < 1
"""
    cpu = once.replace("perf_counter", "process_time")
    assert wall_clock_asserts(best.replace("perf_counter", "process_time")) == []
    deadline = """
def test_deadline():
    started = time.monotonic()
    run()
    spent = time.monotonic() - started
    assert spent < 30  # wall clock: deadline
"""
    assert wall_clock_asserts(once) == [(8, "test_cost")]
    assert wall_clock_asserts(best) == [(11, "stages")]  # through the helper that returns the readings
    assert wall_clock_asserts(cpu) == []
    assert wall_clock_asserts(deadline) == []
    assert wall_clock_asserts(deadline.replace("  # wall clock: deadline", "")) == [(6, "test_deadline")]
