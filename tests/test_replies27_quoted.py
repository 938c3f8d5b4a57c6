# ruff: noqa: RUF001
"""players27, item 4 (found by `tests/test_replies27_realistic.py`'s hunt): a name quoted inside an order.

Players quote a card's, a country's or a player's name as they would in a sentence: `DISCARD "Close-Quarter
Advantage"`, `EVENT CLAIM “First Cousins” TARGET Carol`, `PLACE-START "Spain 3", "France 1", "France 2"`,
`EVENT PERSON «Peter»`.  Dynasties' parser reads past the marks; the other three games refused the order (the name
"not one of yours"), though quotes around a whole line were taken off already (`pbem.orders.typed.cleaned`).  Now a
pair of quote marks around a name after a space or a comma, closed before a space, a comma or the line's end, is
taken off (`typed._QUOTED_ITEM`): no legal line of any game holds a quote mark.

Generated: each legal order (up to `ORDERS`) of every player at each game's first step, each run of its words that
is not an order's keyword in capitals (a name) quoted with each pair of `MARKS`.  On efd12b07 294 of the 366 cases
were refused (every Habsburg, Italian Wars and Sixteen Thirty case; Dynasties none); now none is, and none is
applied as another order, then or now.  Every case runs in the suite (about 0.5 s).
"""

from __future__ import annotations

import re

import pytest

from pbem import engine as registry
from tests.replies27 import first_state, intake

MARKS = (('"', '"'), ("“", "”"), ("„", "“"), ("«", "»"), ("‘", "’"), ("「", "」"))
ORDERS = 12
_PART = re.compile(r"[^\s,>]+(?:\s+[^\s,>]+)*")


def quoted(order: str, words: tuple[str, ...], mark: tuple[str, str]) -> str:
    """`order` with each name in it quoted: the runs of words after the order word that are no keyword in capitals."""
    first, _, rest = order.partition(" ")
    out, run = [first], []
    for token in rest.split(" "):
        keyword = (token.isupper() and token.isalpha()) or not any(ch.isalnum() for ch in token)
        if keyword:
            out += [_close(run, mark), token] if run else [token]
            run = []
        else:
            run.append(token)
    if run:
        out.append(_close(run, mark))
    return " ".join(out)


def _close(run: list[str], mark: tuple[str, str]) -> str:
    said = " ".join(run)
    comma = said.endswith(",")
    return f"{mark[0]}{said.rstrip(',')}{mark[1]}{',' if comma else ''}"


def cases() -> list[tuple[str, str, str, str]]:
    out = []
    for kind in registry.available():
        eng, state = first_state(kind)
        for req in eng.requests(state):
            for order in req.legal[:ORDERS]:
                for mark in MARKS:
                    line = quoted(order, tuple(eng.order_words), mark)
                    if line != order:
                        out.append((kind, req.player, order, line))
    return out


def misread(kind: str, player: str, order: str, line: str) -> str:
    eng, state = first_state(kind)
    got = intake(eng, state, player, line + "\n")
    want = eng.apply(state, player, [order]).state
    return "" if got.applied and got.state == want else f"{kind}: {line!r} applied {got.applied}, refused {got.refused}"


@pytest.mark.parametrize("kind", sorted(registry.available()))
def test_a_name_quoted_inside_an_order_is_read_as_the_name(kind: str) -> None:
    chosen = [c for c in cases() if c[0] == kind]
    failures = [why for case in chosen if (why := misread(*case))]
    assert not failures, f"{len(failures)} of {len(chosen)}:\n" + "\n".join(failures[:30])
