"""Press as players write it: one line with a colon, or lines up to END PRESS, among orders.

A generator writes messages of orders and press blocks in both forms, names of several words and
scripts, and press texts that look like orders; the reading must give back exactly the blocks and the
orders written, in order. Found by trying the product: `PRESS TO ALL: shall we gang up on Bob?` on its
own line refused the whole message ("press must end with a line END PRESS").
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import engine as registry
from pbem.orders.extract import Press, extract

HH = registry.get("habsburg").order_words
_NAMES = ["Bob", "Carol", "Zoë Müller", "ALL", "Ana Lúcia", "Дмитрий"]
_TEXTS = ["shall we gang up on Bob?", "NO EVENT, trust me", "PLAY Juan I think", "ok", "Deal: Bohemia for Saxony"]
_ORDERS = ["NO EVENT", "PLAY Juan", "END TURN"]
# the strategies made once (a strategy made at every draw is validated again at its first draw); the same examples
_TO = st.lists(st.sampled_from(_NAMES), min_size=1, max_size=2, unique=True)
_BODY = st.lists(st.sampled_from(_TEXTS), min_size=1, max_size=3)
_HEAD = st.sampled_from(["PRESS TO", "Press to", "press to"])
_YES = st.booleans()
_PIECES = st.integers(1, 5)
_ORDER = st.sampled_from(_ORDERS[:2])


def _block(draw: st.DrawFn) -> tuple[str, Press]:
    to = draw(_TO)
    body = draw(_BODY)
    head = f"{draw(_HEAD)} {', '.join(to)}"
    if len(body) == 1 and draw(_YES):
        return f"{head}: {body[0]}", Press(to, body)
    if draw(_YES):  # the first line on the PRESS line, the rest below it
        return "\n".join([f"{head}: {body[0]}", *body[1:], "END PRESS"]), Press(to, body)
    return "\n".join([head, *body, "END PRESS"]), Press(to, body)


@st.composite
def _messages(draw: st.DrawFn) -> tuple[str, list[Press], list[str]]:
    parts: list[str] = []
    press: list[Press] = []
    orders: list[str] = []
    for _ in range(draw(_PIECES)):
        if draw(_YES):
            text, block = _block(draw)
            parts.append(text)
            press.append(block)
        else:
            order = draw(_ORDER)
            parts.append(order)
            orders.append(order)
    return "\n".join(parts) + "\n", press, orders


@settings(max_examples=300, deadline=None)
@given(_messages())
def test_press_in_either_form_among_orders_is_read_as_written(message: tuple[str, list[Press], list[str]]) -> None:
    text, press, orders = message
    ex = extract(text, "", HH)
    once = [b for k, b in enumerate(press) if not any(_same(b, a) for a in press[:k])]  # a repeat: sent once
    assert ex.chatter == [] and len(ex.problems) == len(press) - len(once)
    assert all(p.endswith(" repeats a press above it in the same message: sent once") for p in ex.problems)
    assert ex.press == once
    assert ex.orders == orders


def _same(a: Press, b: Press) -> bool:
    return [t.casefold() for t in a.to] == [t.casefold() for t in b.to] and a.body == b.body


def test_a_press_of_one_line_above_another_press_is_not_carried_into_it() -> None:
    ex = extract("PRESS TO Bob: hi\nPRESS TO Carol: ho\nmore\nEND PRESS\nNO EVENT\n", "", HH)
    assert ex.press == [Press(["Bob"], ["hi"]), Press(["Carol"], ["ho", "more"])] and ex.orders == ["NO EVENT"]


def test_a_press_head_without_text_or_end_is_refused_and_says_both_forms() -> None:
    ex = extract("PRESS TO ALL\nwe should talk\n", "", HH)
    assert ex.press == [] and ex.problems == [
        '"PRESS TO ALL": press must end with a line "END PRESS", or be one line: PRESS TO ALL: <message>;'
        " nothing was sent"
    ]


def test_many_one_line_press_lines_are_read_in_one_pass() -> None:
    text = "".join(f"PRESS TO Bob: note {k}\n" for k in range(20_000))
    ex = extract(text, "", HH)
    assert len(ex.press) == 20_000 and ex.press[-1] == Press(["Bob"], ["note 19999"])
