"""Orders wrapped in what people and their mail clients add: exactly the orders come out.

Each case draws a greeting, a sign-off, a client signature, an attribution (in
one of eight languages, on one or two lines), a quoting style (quoted report
above or below, Outlook header block, forwarded message, Yahoo's run-on
attribution) and a body format (plain, format=flowed with DelSp, HTML only),
builds the raw message and reads it back through `parse` and `extract`.  The
quoted report itself is full of order lines, so any quote that leaks shows.
"""

from __future__ import annotations

import random

from pbem import engine as registry
from pbem.mail.inbound.message import parse
from pbem.orders.extract import extract
from tests.mail_styles import CODE, build, message_lines, own_text


def test_exactly_the_orders_come_out_of_any_wrapping() -> None:
    words = registry.get("habsburg").order_words
    for seed in range(600):
        rng = random.Random(seed)
        own, orders, chatter = own_text(rng)
        raw = build(rng, message_lines(rng, own))
        msg = parse(raw, "games@example.org")
        ex = extract(msg.text, msg.subject, words)
        assert ex.orders == orders, (seed, msg.text)
        assert ex.code == CODE, (seed, msg.text)
        assert ex.chatter == chatter, (seed, msg.text)
        assert not ex.problems and not ex.help and not ex.press, (seed, msg.text)
