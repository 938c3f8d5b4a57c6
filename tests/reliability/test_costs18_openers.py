"""A line of thousands of connectives before its order is read once, linear, and never raises (costs18).

`labelled_order` reads an order after a connective or a greeting ("Also: PASS", "Hallo, PASS",
`pbem.orders.openers`), and what follows as the line it would be alone: a connective after a greeting, a label after
a connective ("Hi, also: my order: PASS").  It called itself once for each connective taken off, copying the rest of
the line each time: a reply of one line, "Also: " 2,000 times and PASS (12 KB, well under the 64,000 characters a
body may have), raised RecursionError out of `extract`, and 10,000 cost 3.4 s before it did.  Now at most
`OPENERS_TAKEN` (4) are taken off in turn; a line of more is not read as an order.

The generator: a connective of each of the 13 languages, alone and after a greeting, 2,000 times before PASS, each
line read by `extract` as a reply's.  On 9fb0ae7 14 of 16 raised RecursionError; now none, each in milliseconds.
Greetings in a row ("Hi, Hi, ... PASS") were read in milliseconds on 9fb0ae7 too: a greeting is taken off once.
"""

from __future__ import annotations

import pytest

from pbem.orders.extract import extract, labelled_order

UNITS = (
    "Also: ",
    "and also: ",
    "Alors : ",
    "Außerdem: ",
    "Y también: ",
    "Inoltre: ",
    "Ook: ",
    "Também: ",
    "Także: ",
    "Dessutom: ",
    "また\uff1a",
    "另外\uff1a",
    "Итак: ",
    "그리고: ",
    "Hi, also: ",
    "Hi, Hi, ",
)
TIMES = 2000


@pytest.mark.parametrize("unit", UNITS)
def test_a_line_of_thousands_of_openers_is_read_without_raising(unit: str) -> None:
    got = extract(unit * TIMES + "PASS", order_words=["PASS"])
    assert got.orders == [], got.orders


def test_a_few_openers_in_turn_are_still_read() -> None:
    for line in ("Also: PASS", "Hi, also: my order: PASS", "Also: also: also: PASS", "Hallo zusammen, also: PASS"):
        assert labelled_order(line, ["PASS"]) == "PASS", line
