# ruff: noqa: RUF001
"""players26, item 3: a Japanese, Chinese or Korean saying of choice around an order, read by a grammar.

The reader knew a list of whole phrases run into an order's last word ("PASSでお願いします", "PASSにします",
"PASS吧", "PASS로 하겠습니다"): "PASSを選びます", "PASSを選択します", "PASSでいきます" said otherwise, Chinese "我要PASS" (the
choice said before the order) and Korean "PASS를 선택할게요" were refused with the order offered.  Now
`pbem.orders.typed._SAID_SO` is a grammar (a particle, then a verb of choosing in an affirmative ending); a negation
ends otherwise and stays refused, never read as the order ("PASSしません", "PASSを選ばない", "不PASS", "PASS 안 할게요").
The choice said before the order ("我要PASS", "我选PASS", "就PASS吧") stays a sentence, told with the order to send
(not read), as "I want PASS" and "私はPASS" are (`tests/test_replies24_said.py`'s `PROSE`).

Generated: each form below around each of the first legal orders (up to 6) of the four games' first step, read with
the game's order words (`extract`).  On 8080c21 308 of the 924 cases failed (14 of the 25 `SAID` forms, those
outside the old list, with each of the 22 orders; 62 of the suite's sample of 200); the negations were refused
already and still are.  Now none fails.  The suite runs a seeded sample of 200 (about 0.1 s); `REPLIES26_ALL=1` runs
every case (`REPLIES26_ALL=1 python3 -m pytest tests/test_replies26_polite.py -n 0`, about 1 s).
"""

from __future__ import annotations

import os
import random

from pbem import engine as registry
from pbem.orders.extract import extract

#: The player's choice said around the order `{o}`: read as the order.
SAID = (
    "{o}を選びます",
    "{o}を選択します",
    "{o}でいきます",
    "{o}で行きます",
    "{o}にします",
    "{o}にする",
    "{o}でお願いします",
    "{o}でよろしくお願いします",
    "{o}でいいです",
    "{o}を出します",
    "{o}に決めました",
    "{o}を提出します",
    "{o}でお願い",
    "{o}にしたいです",
    "{o}吧",
    "{o}好了",
    "{o}就好",
    "{o}할게요",
    "{o} 할게요",
    "{o}로 하겠습니다",
    "{o}를 선택할게요",
    "{o}로 선택합니다",
    "{o}로 갈게요",
    "{o} 부탁드립니다",
    "{o}로 해주세요",
)
#: A negation or a question around the order, or the choice said before it (a sentence: told): never read as it.
NOT = (
    "我要{o}",
    "我选{o}吧",
    "就{o}吧",
    "我决定：{o}",
    "{o}しません",
    "{o}を選びません",
    "{o}にしません",
    "{o}を選ばない",
    "{o}でお願いしません",
    "{o}でいいですか",
    "{o}はしない",
    "不{o}",
    "我不要{o}",
    "不选{o}吧",
    "{o} 안 할게요",
    "{o} 하지 않겠습니다",
    "{o}를 선택하지 않을게요",
)
ORDERS = 6  # legal orders of each game's first step, at most


def cases() -> list[tuple[str, str, str, bool]]:
    """(game, the order, the line typed, whether it is to be read as the order)."""
    out = []
    for kind in registry.available():
        eng = registry.get(kind)
        state = eng.setup(["Alice", "Bob"] if kind == "italian-wars" else ["Alice", "Bob", "Carol"], "s", {})[0]
        for order in eng.requests(state)[0].legal[:ORDERS]:
            out += [(kind, order, form.format(o=order), True) for form in SAID]
            out += [(kind, order, form.format(o=order), False) for form in NOT]
    return out


def misread(kind: str, order: str, line: str, meant: bool) -> str:
    got = extract(line + "\n", "", tuple(registry.get(kind).order_words)).orders
    if meant and got != [order]:
        return f"{kind}: {line!r} read as {got}, not as {order!r}"
    if not meant and order in got:
        return f"{kind}: {line!r} (a negation or a question) read as the order {order!r}"
    return ""


def test_a_choice_said_in_japanese_chinese_or_korean_is_read_and_a_negation_never() -> None:
    every = cases()
    chosen = every if os.environ.get("REPLIES26_ALL") else random.Random(26).sample(every, 200)
    failures = [why for case in chosen if (why := misread(*case))]
    assert not failures, f"{len(failures)} of {len(chosen)} misread:\n" + "\n".join(failures[:40])
