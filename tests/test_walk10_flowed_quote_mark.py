"""The styled players' format=flowed mail keeps an order holding ">" whole (walk10, Part B).

Walking four games by mail from "phones" (`tests/mail_styles.py`, the fuzz tests' and the styled games' mail
clients), an Italian Wars reply "NEGATE Line of Contravallation > Disordered" was refused: the helper soft-broke
the line before "> Disordered" without space-stuffing it, so the piece read as a quoted line (RFC 3676 4.5) and
the order was cut there.  pbem read the mail as the RFC says; the helper wrote what no client writes.  Now a piece
after a break that starts with ">" is space-stuffed.

Generator: two orders of the NEGATE form holding " > " soft-wrapped at every width from 8 to 40, DelSp yes and
no, read back by pbem's own `unflow`: the line whole.  On b1f92b21 the helper broke 16 of the 132 cases; 0 now.
"""

from __future__ import annotations

from pbem.mail.inbound.message import unflow
from tests.mail_styles import flowed_text, soft_wrap

ORDERS = ["NEGATE Line of Contravallation > Disordered", "NEGATE Pikemen > Cavalry Charge"]


def test_a_flowed_order_holding_a_quote_mark_reads_back_whole() -> None:
    wrong = []
    cases = [(o, w, d) for o in ORDERS for w in range(8, 41) for d in (False, True)]
    for order, width, delsp in cases:
        got = unflow(flowed_text(soft_wrap(order, width, delsp)), delsp).rstrip("\n")
        if got.strip() != order:
            wrong.append(f"{order!r} at {width} (DelSp {delsp}): {got!r}")
    assert wrong == [], f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong)
