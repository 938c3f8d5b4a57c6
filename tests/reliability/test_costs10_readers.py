"""A step's label read against the answered mail's title, and verify's held_failed notices against the held
messages: each costs linear in its input (costs10).

* `pbem.orders.extract.off_step`: every line labelled with a step ("Turn 3: PASS") read the steps the title of the
  mail it answers names, again for each line.  The title is pbem's own subject, or a reply's own subject when it
  names no mail of pbem's (up to the 2,000 characters a subject keeps): 1,000 and 4,000 labelled lines answering a
  title of 2,000 characters cost 0.16 and 0.62 s on ba1be06, 4.7 times the same lines answering a short title.  Now
  the title is read once (`_steps_named`): the same as a short title.
* `pbem.trust.dropped.unfiled` (`pbem verify --mail`): every held_failed notice was compared with every held
  message, and the list of all their lines joined again for each notice: 400 and 1,600 of each took 28 and 454 ms
  on ba1be06 (16.4 at 4x).  Now each notice asks only the held messages holding its rarest line, once for each set of
  lines, and the list is joined once: 0.4 and 2.0 ms.  Its answers are those of the loop it replaces on a corpus of
  random notices and held messages (`_unfiled_before`, ba1be06's code).
"""

from __future__ import annotations

import random

import pytest

from pbem.orders.extract import extract
from pbem.trust import dropped
from pbem.trust.dropped import Held, _norm
from pbem.trust.quote import clip
from tests.growth import least, step_growth

LINES = 1000
TITLE = ("Turn 5, Alice to play " + "year 12 " * 400)[:2000]  # a subject's most: 2,000 characters
MAX_TITLE_COST = 1.6  # labelled lines answering the long title over the same answering a short one (4.7 on ba1be06)
MAX_GROWTH = 6.0  # `unfiled` at 4x notices and held messages: linear 4; every notice against every held, 16


def test_labelled_lines_cost_the_same_whatever_the_length_of_the_title_they_answer() -> None:
    text = "\n".join(f"Turn {i % 4 + 1}: NO EVENT" for i in range(LINES))
    short = least(lambda: lambda: extract(text, "", None, None, lambda: "Turn 5, Alice to play"))
    long = least(lambda: lambda: extract(text, "", None, None, lambda: TITLE), within=MAX_TITLE_COST * short, most=5)
    assert long <= MAX_TITLE_COST * short, f"{LINES} labelled lines: {long:.4f} s against {short:.4f} s"
    ex = extract(text, "", None, None, lambda: TITLE)
    told = [p for p in ex.problems if "names Turn 1" in p]
    assert told and "is for Turn 5" in told[0], "a label of another step is still set aside and told"


def _unfiled_before(
    notices: list[tuple[str, list[tuple[str, str]]]], held: list[Held], waiting: set[str]
) -> tuple[list[str], list[str]]:
    """ba1be06's `unfiled`: every notice against every held message."""
    out: list[str] = []
    notes: list[str] = []
    filed = [{_norm(line) for line in h.lines} for h in held]
    known = {h.message for h in held}
    for name, said in notices:
        quoted = {_norm(line) for line, _ in said}
        if not quoted or any(quoted <= lines for lines in filed):
            continue
        lines = clip("; ".join(line for line, _ in said))
        if waiting <= known:
            listed = "; ".join(line for h in held for line in h.lines)
            out.append(
                f"{name} says your held orders {lines} could not be applied at the deadline, but no held message of "
                + (
                    f"yours put them on file (the held messages the deadline did not apply listed {clip(listed)})"
                    if held
                    else "yours was left unapplied at a deadline: the export records none"
                )
            )
        else:
            unread = ", ".join(f"<{clip(key, 80)}>" for key in sorted(waiting - known)[:3])
            notes.append(
                f"{name} quotes held orders ({lines}) that no acknowledgement in this mail put on file: the export's "
                f"held message {unread}, never applied, may hold them, but its acknowledgement is not in this folder "
                "(not compared: give the folder that holds it)"
            )
    return out, notes


LINE_POOL = ("NO EVENT", "no  event", "PLAY Spain", "TRIBUTE Gold 4", "MELD Maria", "PASS", "VOTE red", "")


def _case(rng: random.Random, n: int) -> tuple[list[tuple[str, list[tuple[str, str]]]], list[Held], set[str]]:
    held = [Held(f"ack {i}", "2026-12-01", rng.sample(LINE_POOL, rng.randint(0, 4)), f"<m{i}@p>") for i in range(n)]
    notices = [(f"notice {i}", [(line, "why") for line in rng.sample(LINE_POOL, rng.randint(0, 3))]) for i in range(n)]
    waiting = {h.message for h in held if rng.random() < 0.8} | ({"<other@p>"} if rng.random() < 0.3 else set())
    return notices, held, waiting


@pytest.mark.parametrize("seed", range(60))
def test_unfiled_says_what_comparing_every_notice_with_every_held_message_said(seed: int) -> None:
    rng = random.Random(seed)
    notices, held, waiting = _case(rng, rng.randint(0, 6))
    assert dropped.unfiled(notices, held, waiting) == _unfiled_before(notices, held, waiting)


def test_unfiled_grows_linearly_in_the_notices_and_held_messages() -> None:
    def work(n: int):
        held = [
            Held(f"ack {i}", "", [f"PLAY card {i}", "NO EVENT", f"TRIBUTE Gold {i % 5}"], f"<m{i}@p>") for i in range(n)
        ]
        notices = [(f"notice {i}", [(f"PLAY other {i}", "why"), ("NO EVENT", "why")]) for i in range(n)]
        waiting = {h.message for h in held}
        return lambda: dropped.unfiled(notices, held, waiting)

    # lines of Python executed (`step_growth`), not CPU time: 4.0, and 15.3 for `_unfiled_before` (ba1be06's)
    g = step_growth(work, 100)
    assert g.ratio <= MAX_GROWTH, f"unfiled, 100 and 400 notices and held messages: {g}"
