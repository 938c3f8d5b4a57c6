# ruff: noqa: RUF001, RUF002
"""players28, item 3: a word that holds a negation but says yes ("不错", not bad; "没问题", no problem; "not bad",
"pas mal", "kein Problem") before an order chooses it; a negation proper ("我不要PASS", "je ne veux pas PASS", "ich will
nicht PASS", "no quiero PASS") neither reads nor offers it.

The choice said before the order is a sentence, never read, told with the order to send (README's players' guide,
`tests/test_replies27_chinese.py`); a negation is neither read nor offered (`pbem.orders.extract._negated`).  The
Chinese check found any of 不别別没沒 in the words before the order, so "不错，我选PASS" (not bad, I choose PASS) was
offered nothing; the other languages' negations were English only, so "je ne veux pas PASS" was told "write it as:
PASS", the order refused.  Now a negation counts in the order's own clause only (after the last comma or stop), a
Chinese word that says yes (`_AFFIRMING_ZH`) is no negation, and French, German and Spanish negations are read.

Generated: each form of `AFFIRMED` (told the order, nothing applied) and `NEGATED` (nothing applied, nothing offered;
a Japanese negation after the order, run into it, may be refused with its reason) around each of the first `ORDERS`
legal orders of each game's first step, read as the intake reads a mail (`tests/replies27.intake`).  On c83d8ea7 210
of the 408 cases failed: 96 `AFFIRMED` (every Chinese and Japanese one told nothing: "不错，我选PASS"), 108 `NEGATED` in
French, German and Spanish told "write it as: <the order>", and 6 `NEGATED` in Japanese misapplied: Dynasties read
"TRIBUTE Copper 2にしません" ("I will not ...") as TRIBUTE Copper 2, its parser dropping words in other scripts unseen
(`pbem.engine.dynasties.cards._TOKEN`; now refused: "にしません" is no card name).  Now none fails.  Every case runs in
the suite (`python3 -m pytest tests/test_replies28_negations.py -n 0`, about 1 s).
"""

from __future__ import annotations

import pytest

from tests.replies27 import KINDS, around_orders, first_state, intake

#: A choice said before the order after a word holding a negation that says yes: told with the order to send.
AFFIRMED = (
    "不错，我选{o}",
    "不錯，我選{o}",
    "不错，{o}吧",
    "没问题，{o}吧",
    "沒問題，我選{o}",
    "不客气，我选{o}",
    "没关系，我选{o}",
    "不好意思，我选{o}",
    "not bad, I choose {o}",
    "No problem, I choose {o}",
    "no problem I choose {o}",
    "pas mal, je choisis {o}",
    "Pas de problème, je choisis {o}",
    "nicht schlecht, ich nehme {o}",
    "kein Problem, ich nehme {o}",
    "no hay problema, elijo {o}",
    "No, mejor elijo {o}",
    "悪くない、私は{o}",
    "問題ない、私は{o}",
)
#: A negation proper: neither read nor offered.
NEGATED = (
    "不错，但我不要{o}",
    "没问题，不过我不选{o}",
    "我真的不想{o}",
    "I do not want {o}",
    "je ne veux pas {o}",
    "je ne choisis pas {o}",
    "jamais {o}",
    "ich will nicht {o}",
    "ich nehme nicht {o}",
    "bitte kein {o}",
    "no quiero {o}",
    "no elijo {o}",
    "nunca {o}",
    "{o}にしません",
    "{o}にしない",
)


def cases() -> list[tuple[str, str, str, str]]:
    """(game, the order, the line typed, its class: affirmed or negated)."""
    return around_orders({"affirmed": AFFIRMED, "negated": NEGATED})


def misread(kind: str, order: str, line: str, cls: str) -> str:
    eng, state = first_state(kind)
    got = intake(eng, state, "Alice", line + "\n")
    offered = [n for n in got.notes if n.startswith(f'"{line}"') and n.endswith(f": {order}")]
    if cls == "affirmed":
        ok = not got.applied and not got.refused and len(offered) == 1
    else:
        ok = not got.applied and not offered and (not got.refused or line.startswith(order))
    return "" if ok else f"{kind} {cls}: {line!r} applied {got.applied}, refused {got.refused}, told {got.notes}"


@pytest.mark.parametrize("kind", KINDS)
def test_a_word_holding_a_negation_that_says_yes_chooses_the_order_and_a_negation_never_offers_it(kind: str) -> None:
    chosen = [c for c in cases() if c[0] == kind]
    failures = [why for case in chosen if (why := misread(*case))]
    assert not failures, f"{len(failures)} of {len(chosen)} misread:\n" + "\n".join(failures)
