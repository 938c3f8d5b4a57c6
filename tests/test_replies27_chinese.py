# ruff: noqa: RUF001, RUF002
"""players27, item 2: a choice said in Chinese around an order, simplified and traditional, as in the other languages.

The decision taken for "I want PASS" (README's players' guide, `tests/test_replies24_said.py`'s `PROSE`) stands for
every language: the choice said before the order ("I want PASS", "私はPASS", "我要PASS") is a sentence, never read
(the deadline's and `pbem verify`'s readings have no state to tell it from a remark), told with the order to send;
the choice said after the order, run into it as Japanese, Chinese and Korean write it ("PASSにします", "PASS로
하겠습니다", "PASS吧"), is read (`pbem.orders.typed._SAID_SO`).  A negation ("我不要PASS", "别PASS", "不PASS") is neither
read nor offered: "write it as: PASS" under "I don't want PASS" told the player to send what they refused.

Generated: each form of `SAID` (read as the order alone, nothing told), `SENTENCE` (not read, told with the order
to send) and `NEGATED` (not read, no order offered) around each of the first `ORDERS` legal orders of each game's
first step, read as the intake reads a mail (`tests/replies27.intake`).  On efd12b07 312 of the 600 cases failed: 180
`NEGATED` (15 of the 18 forms, "我不要PASS", "别PASS", "I don't want PASS", told "write it as: PASS"; "不PASS" as a
typo of it, `pbem.orders.near`), 72 `SAID` ("PASS就行", "PASS就可以了", "PASS就好了" refused as no order, "我的選擇：PASS"
in traditional characters not read where "我的选择：PASS" is), 60 `SENTENCE` ("我要PASS吧", "就PASS吧", "那就PASS吧": listed,
untold, where "我要PASS" is told).  Now none does.  Every case runs in the suite (about 1 s).
"""

from __future__ import annotations

import pytest

from tests.replies27 import KINDS, around_orders, first_state, intake

#: The choice said after the order, run into it: read as the order.
SAID = (
    "{o}吧",
    "{o}吧。",
    "{o}吧！",
    "{o}就好",
    "{o}就好了",
    "{o}好了",
    "{o}就行",
    "{o}就行了",
    "{o}就可以",
    "{o}就可以了",
    "{o} 吧",
    "{o}，谢谢",
    "{o}，謝謝",
    "我的选择：{o}",
    "我的選擇：{o}",
)
#: The choice said before the order (a sentence, as "I want PASS"): not read, told with the order to send.
SENTENCE = (
    "我要{o}",
    "我要 {o}",
    "我选{o}",
    "我選{o}",
    "我选择{o}",
    "我選擇{o}",
    "我想{o}",
    "选{o}",
    "選{o}",
    "我要{o}吧",
    "我选{o}吧",
    "我選{o}吧",
    "就{o}吧",
    "那就{o}吧",
    "我要选{o}",
    "I want {o}",
    "I choose {o}",
)
#: A negation: neither read nor offered.
NEGATED = (
    "我不要{o}",
    "不要{o}",
    "别{o}",
    "別{o}",
    "不{o}",
    "不选{o}",
    "不選{o}",
    "我不选{o}",
    "我不選{o}",
    "我不想{o}",
    "我不要{o}吧",
    "别{o}了",
    "不要{o}吧",
    "没有{o}",
    "沒有{o}",
    "I don't want {o}",
    "I will not {o}",
    "I won't {o}",
)


def cases() -> list[tuple[str, str, str, str]]:
    """(game, the order, the line typed, its class: said, sentence or negated)."""
    return around_orders({"said": SAID, "sentence": SENTENCE, "negated": NEGATED})


def misread(kind: str, order: str, line: str, cls: str) -> str:
    eng, state = first_state(kind)
    got = intake(eng, state, "Alice", line + "\n")
    offered = [n for n in got.notes if n.startswith(f'"{line}"') and n.endswith(f": {order}")]
    if cls == "said":
        ok = got.applied == [order] and not got.notes
    elif cls == "sentence":
        ok = not got.applied and not got.refused and len(offered) == 1
    else:
        ok = not got.applied and not got.refused and not offered
    return "" if ok else f"{kind} {cls}: {line!r} applied {got.applied}, refused {got.refused}, told {got.notes}"


@pytest.mark.parametrize("kind", KINDS)
def test_a_choice_said_in_chinese_is_read_after_the_order_told_before_it_and_a_negation_never_offered(
    kind: str,
) -> None:
    chosen = [c for c in cases() if c[0] == kind]
    failures = [why for case in chosen if (why := misread(*case))]
    assert not failures, f"{len(failures)} of {len(chosen)} misread:\n" + "\n".join(failures)
