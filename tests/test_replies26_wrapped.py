"""players26, item 2: an order a hard wrap parted over two or more lines.

Some clients and forwarders wrap a mail at 20 to 40 columns: "PLAYS Gold 5, Silver 3" arrives as "PLAYS Gold 5," and
"Silver 3", and the first line was read alone (a half order: refused, or applied without its rest) and the second
listed as not read.  Now a line under an order is read as its rest when the order ends with a comma, "+", "&" or
"and", or that line starts so, and it is no order, command or quote of its own (`pbem.orders.extract._wrapped`):
the engine takes or refuses the order whole, never its first half alone.

Generated: every legal order of the first step of the four seeded games (every player's) wrapped at 20, 30 and 40
columns (`textwrap.wrap`, a word never cut), 156 wrapped lines.  Of the 35 whose every break falls after a comma
(the lists: "PLACE-START Spain 3," / "France 1, France 2"), 35 were read in part on 8080c21, none is now.  Every
wrapped order is also applied as read: none may be applied as another order than the whole one (0 on 8080c21 and
now; 140 refused and 16 applied as the whole one on 8080c21, now 35 read whole, 100 refused, 21 applied as the whole
one: a wrap inside a name, "EVENT CLAIM First" / "Cousins TARGET Carol", is still refused, not offered).
"""

from __future__ import annotations

import textwrap

from pbem import engine as registry
from pbem.orders.extract import extract

WIDTHS = (20, 30, 40)
MARKS = (",", "+", "&")


def cases() -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(game, player, the legal order, its wrapped lines) for each wrap that parts the order."""
    out = []
    for kind in registry.available():
        eng = registry.get(kind)
        state = eng.setup(["Alice", "Bob"] if kind == "italian-wars" else ["Alice", "Bob", "Carol"], "s", {})[0]
        for req in eng.requests(state):
            for order in req.legal:
                for width in WIDTHS:
                    lines = textwrap.wrap(order, width, break_long_words=False, break_on_hyphens=False)
                    if len(lines) > 1:
                        out.append((kind, req.player, order, tuple(lines)))
    return out


def _marked(lines: tuple[str, ...]) -> bool:
    return all(line.endswith(MARKS) or line.lower().endswith(" and") for line in lines[:-1])


def test_an_order_wrapped_after_a_comma_is_read_whole_and_no_wrap_applies_another_order() -> None:
    failures = []
    every = cases()
    for kind, player, order, lines in every:
        eng = registry.get(kind)
        got = extract("Hi all,\n" + "\n".join(lines) + "\nCheers\n", "", tuple(eng.order_words)).orders
        if _marked(lines) and got != [order]:
            failures.append(f"{kind}: {lines} read as {got}")
        state = eng.setup(["Alice", "Bob"] if kind == "italian-wars" else ["Alice", "Bob", "Carol"], "s", {})[0]
        out = eng.apply(state, player, got)
        if out.accepted and out.state != eng.apply(state, player, [order]).state:
            failures.append(f"{kind}: {lines} applied as {got}, another order than {order!r}")
    assert sum(_marked(c[3]) for c in every) == 35 and len(every) == 156, "the generator drew other orders"
    assert not failures, f"{len(failures)} of {len(every)}:\n" + "\n".join(failures)


def test_a_list_goes_on_below_its_order_line_only_when_a_mark_says_so() -> None:
    words = tuple(registry.get("dynasties").order_words)
    assert extract("PLAYS Gold 5,\nSilver 3\n", "", words).orders == ["PLAYS Gold 5, Silver 3"]
    assert extract("PLAYS Gold 5\n, Silver 3 +\nPlatinum King\n", "", words).orders == [
        "PLAYS Gold 5 , Silver 3 + Platinum King"
    ]
    assert extract("PLAYS Gold 5 and\nSilver 3\nTRIBUTE Gold 4\n", "", words).orders == [
        "PLAYS Gold 5 and Silver 3",
        "TRIBUTE Gold 4",
    ]
    ex = extract("PLAYS Gold 5\nSilver 3 was a good card\n", "", words)  # no mark: a remark under the order
    assert ex.orders == ["PLAYS Gold 5"] and ex.chatter == ["Silver 3 was a good card"]
    ex = extract("TRIBUTE Gold 4,\nTRIBUTE Gold 5\n\nthanks,\n", "", words)  # an order or a blank line ends it
    assert ex.orders == ["TRIBUTE Gold 4", "TRIBUTE Gold 5"]
    assert extract("TRIBUTE Gold 4,\n> PLAYS Gold 5\n", "", words).orders == ["TRIBUTE Gold 4"]
