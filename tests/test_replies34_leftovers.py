"""players34, part A: players33's leftovers, each a class with its generator (counts on 36ff7173 and now).

1. An acknowledgement before the order ("OK, NO EVENT", "Yes: PASS", "Okay - VOTE RED", "Ja, ...", "Oui, ...") and a
   chat's "+1" after it ("NO EVENT +1") were told ("an order line starts with its order word", or refused whole).
   Now an acknowledgement word and its mark (`pbem.orders.openers.ACKNOWLEDGED`) is read as a connective is: before
   an order word in capitals only ("OK, take care" stays a remark, "ok, no event" is told); a "+1" is a tail taken
   off as a courtesy is (`pbem.orders.typed._THANKS`), but never after a number ("TRIBUTE Gold 5 +1" may mean 6: it
   is refused with its reason).  `ack_cases`: every legal order of each game's first step (50 orders) under 13
   acknowledgements and 4 forms of "+1": of the 850 cases, on 36ff7173 50 read, 698 told, 102 told as they must be
   (a bare "+1" after a number), 0 untold, 0 misapplied; now 748 read, 0 told, 102 told as they must be.

`REPLIES34_ALL=1 python3 -m pytest tests/test_replies34_leftovers.py -n 0 -s` runs every case and prints the counts;
the suite a sample.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable

from tests.replies27 import KINDS, first_state, intake

SAMPLED = 24  # cases of each generator a suite run reads (all with REPLIES34_ALL=1)


def _chosen(every: list[tuple[str, ...]], tag: str) -> list[tuple[str, ...]]:
    if os.environ.get("REPLIES34_ALL") or len(every) <= SAMPLED:
        return every
    return random.Random(f"replies34:{tag}").sample(every, SAMPLED)


def _legal(kind: str) -> list[str]:
    eng, state = first_state(kind)
    return list(next(r for r in eng.requests(state) if r.player == "Alice").legal)


def judge(kind: str, body: str, meant: str | None) -> str:
    """ "read" (`meant` applied, or nothing when `meant` is None), "told" (nothing applied; a line refused or a note
    quoting the order), "untold" or "misapplied"."""
    eng, state = first_state(kind)
    got = intake(eng, state, "Alice", body)
    if meant is None:
        return "misapplied" if got.applied else "read"
    if got.applied:
        return "read" if got.state == eng.apply(state, "Alice", [meant]).state else "misapplied"
    return "told" if got.refused or any(meant.upper() in n.upper() for n in got.notes) else "untold"


def _run(cases: list[tuple[str, ...]], how: Callable[..., str], tag: str) -> list[str]:
    counts: Counter[str] = Counter()
    bad = []
    for case in _chosen(cases, tag):
        got = how(*case)
        counts[got] += 1
        if got not in ("read", "told, as it must be"):
            bad.append(f"{got}: {case}")
    if os.environ.get("REPLIES34_ALL"):
        print(tag, dict(counts))
    return bad


#: Acknowledgement words players type before their order, each with the marks they put after it.
ACKS = ("OK, {o}", "Ok, {o}", "OK: {o}", "OK - {o}", "Okay, {o}", "ok, {o}", "Yes, {o}", "Sure, {o}", "Alright, {o}",
        "OK! {o}", "Agreed: {o}", "Ja, {o}", "Oui, {o}")  # fmt: skip
#: "+1" after the order, as a chat's agreement.
PLUS = ("{o} +1", "{o} +1!", "{o}  +1", "{o} (+1)")


def ack_cases() -> list[tuple[str, ...]]:
    """(game, the order meant, the line typed): each legal order of each game's first step, with each form."""
    return [(k, o, f.format(o=o)) for k in KINDS for o in _legal(k) for f in (*ACKS, *PLUS)]


def ambiguous(order: str, line: str) -> bool:
    """ "TRIBUTE Gold 5 +1": a "+1" after a number may add to it; told, never read."""
    return line.endswith(("+1", "+1!")) and order[-1:].isdigit()


def ack_outcome(kind: str, order: str, line: str) -> str:
    got = judge(kind, f"Hi,\n\n{line}\n\nThanks\nAlice\n", order)
    return ("told, as it must be" if got == "told" else f"{got}, to be told") if ambiguous(order, line) else got


def test_an_acknowledgement_before_the_order_or_plus_one_after_it_is_read() -> None:
    """See the module docstring's figures."""
    bad = _run(ack_cases(), ack_outcome, "acks")
    assert not bad, f"{len(bad)}:\n" + "\n".join(bad[:30])
