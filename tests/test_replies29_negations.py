"""players29, item 3: a negation run into an order in Japanese, Chinese or Korean ("PASSにしません", "PASS不要",
"PASS 안 할게요") is set aside and told what it says, as "I don't want PASS" and "我不要PASS" are.

The line was taken for an order with words run into its last one, and refused with the engine's reason ("no card
named 2しません"), the whole message with it, where a negation before the order in any language was listed as not
read.  Now `pbem.orders.typed.said_not` reads the negative of `_SAID_SO`'s grammar (a particle, a verb of choosing in
a negative ending; "不要", "算了"; "안 ...", "하지 않...", "말고"), the line is set aside, and every negation, before
or after the order, is told: '"PASSにしません" was set aside: it says you do not want PASS, so nothing of it was
applied' (`pbem.orders.extract.negated_note`).  The affirmative forms after an order are read as before.

Generated: each form of `NEGATED_AFTER` and `NEGATED_BEFORE` (nothing applied, nothing refused, no order offered,
the note said) and of `SAID` (the order applied) around each of the first `ORDERS` legal orders of each game's first
step, read as the intake reads a mail (`tests/replies27.intake`).  On 90a53973 348 of the 420 cases failed: every
`NEGATED_AFTER` case (264, each refused with the engine's reason, the message with it) and every `NEGATED_BEFORE`
one (84, listed but not told what it says); now none fails, and `SAID` is read as before.  Every case runs in the
suite (`python3 -m pytest tests/test_replies29_negations.py -n 0`, about 1 s).
"""

from __future__ import annotations

import pytest

from tests.replies27 import KINDS, around_orders, first_state, intake

#: A negation run into the order after it: set aside, told what it says.
NEGATED_AFTER = (
    "{o}にしません",
    "{o}にしない",
    "{o}しません",
    "{o}を選ばない",
    "{o}を選びません",
    "{o}は選択しません",
    "{o}はやめます",
    "{o}はやめておきます",
    "{o}はなしで",
    "{o}は結構です。",
    "{o}不要",
    "{o}不要了",
    "{o}就算了",
    "{o}不选了",
    "{o}不選",
    "{o} 안 할게요",
    "{o}는 안 해요",
    "{o}는 하지 않겠습니다",
    "{o}를 선택하지 않겠습니다",
    "{o} 말고",
    "{o}는 싫어요",
    "{o}은 안 합니다.",
)
#: A negation before the order, as players28 read it (listed, no order offered): now told what it says too.
NEGATED_BEFORE = (
    "我不要{o}",
    "别{o}",
    "I do not want {o}",
    "I don't want {o}",
    "je ne veux pas {o}",
    "ich will nicht {o}",
    "no quiero {o}",
)
#: The affirmative run into the order: read as the order, as before.
SAID = ("{o}にします", "{o}でお願いします", "{o}吧", "{o}就好", "{o} 할게요", "{o}로 하겠습니다")


def cases() -> list[tuple[str, str, str, str]]:
    """(game, the order, the line typed, its class)."""
    return around_orders({"after": NEGATED_AFTER, "before": NEGATED_BEFORE, "said": SAID})


def misread(kind: str, order: str, line: str, cls: str) -> str:
    eng, state = first_state(kind)
    got = intake(eng, state, "Alice", line + "\n")
    if cls == "said":
        ok = got.applied == [order]
    else:
        offered = [n for n in got.notes if n.endswith(f": {order}")]
        said = f'"{line}" was set aside: it says you do not want {order}, so nothing of it was applied'
        ok = not got.applied and not got.refused and not offered and said in got.notes
    return "" if ok else f"{kind} {cls}: {line!r} applied {got.applied}, refused {got.refused}, told {got.notes}"


@pytest.mark.parametrize("kind", KINDS)
def test_a_negation_run_into_an_order_is_set_aside_and_told_what_it_says(kind: str) -> None:
    chosen = [c for c in cases() if c[0] == kind]
    failures = [why for case in chosen if (why := misread(*case))]
    assert not failures, f"{len(failures)} of {len(chosen)} misread:\n" + "\n".join(failures[:30])
