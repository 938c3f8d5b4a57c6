"""Lists of names written as players write them: "+" both between names and for a name's "&", commas in a plan.

Found by the players' testers (replies3): "NEGATE-PLAN Lie Prone + Falcons + Sakers" (own card + target, the
target "Falcons & Sakers" typed with "+") was refused as "cannot read ... as <own Negate card> > <target card>":
the pair reader split the typed words without reading "+" as the "&" of a name or as the break between the two
names.  And "NEGATE-PLAN Resist Cavalry > French Horsemen, Lie Prone > Falcons & Sakers" (a plan's items in a list
with commas) was refused as naming no target.  Both are read now when there is one reading, and the
acknowledgement shows the plan as understood.
"""

from __future__ import annotations

import pytest

from pbem import engine as registry
from pbem.orders.extract import extract
from tests.test_order_reading import _lines_naming_ampersands, _names_of


def _names_in(text: str, names: list[str]) -> list[str]:
    """The names `text` holds, in their order (longest names first, so that "Hedges & Trees" is one)."""
    at: list[tuple[int, str]] = []
    for name in sorted(names, key=len, reverse=True):
        if name in text:
            at.append((text.index(name), name))
            text = text.replace(name, "\0" * len(name))
    return [n for _, n in sorted(at)]


@pytest.mark.parametrize("kind", ["habsburg", "italian-wars"])
def test_every_legal_line_naming_an_ampersand_reads_the_same_with_plus_between_and_inside_names(kind: str) -> None:
    """Every legal line naming two names or more, one of them with "&", written with "+" between every two names
    and "+" (or "and") for the "&": read as the line itself (the mixed use of "+" is unambiguous here)."""
    eng = registry.get(kind)
    names = _names_of(kind)
    tried = 0
    for state, player, line in _lines_naming_ampersands(kind):
        want = eng.apply(state, player, [line])
        head, _, rest = line.partition(" ")
        named = _names_in(rest.replace(" > ", " "), names)
        if not want.accepted or "&" not in line or len(named) < 2 or ";" in rest:
            continue
        for sep, amp in ((" + ", " + "), ("+", "+"), (" + ", " and "), (" and ", " + ")):
            typed = f"{head} " + sep.join(n.replace(" & ", amp) for n in named)
            ex = extract(typed, "", eng.order_words)
            got = eng.apply(state, player, ex.orders)
            assert got.accepted, (line, typed, [r.reason for r in got.lines])
            assert [r.understood for r in got.lines] == [r.understood for r in want.lines], typed
            assert got.state == want.state, typed
            tried += 1
    assert tried >= 8, tried


def test_a_negate_plan_written_as_a_list_with_commas_is_read_as_its_items() -> None:
    from pbem.engine.italian_wars.cards import NEGATORS
    from pbem.engine.italian_wars.orders import _targets

    eng = registry.get("italian-wars")
    state, player, _ = _lines_naming_ampersands("italian-wars")[0]
    pairs = [(o, t) for o in NEGATORS for t in _targets(o)]
    firsts = list(dict.fromkeys(o for o, _ in pairs))
    plan = [next((o, t) for oo, t in pairs if oo == o) for o in firsts[:3]]
    want = eng.apply(state, player, ["NEGATE-PLAN " + "; ".join(f"{o} > {t}" for o, t in plan)])
    assert want.accepted
    for sep in (", ", ","):
        typed = "NEGATE-PLAN " + sep.join(f"{o} > {t.replace(' & ', ' + ')}" for o, t in plan)
        got = eng.apply(state, player, extract(typed, "", eng.order_words).orders)
        assert got.accepted, (typed, [r.reason for r in got.lines])
        assert got.state == want.state and [r.understood for r in got.lines] == [r.understood for r in want.lines]
    # one ">" for two items is no plan of two: refused with its reason, nothing guessed
    o1, t1 = plan[0]
    o2, _ = plan[1]
    bad = eng.apply(state, player, [f"NEGATE-PLAN {o1} > {t1}, {o2}"])
    assert not bad.accepted and bad.lines[0].reason
