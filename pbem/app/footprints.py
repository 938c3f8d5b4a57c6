"""The lines a player signs every mail with, learnt from their earlier mails to pbem (players29).

A footer under the orders that starts with an order word and has a capital or a digit ("Play Corp Ltd. 2027",
"Trade Centre, 4 Market Street", a phone's "Play Store: 4.8 stars") looks like a mistyped order to
`pbem.app.lines.closing` and is refused, the whole message with it, every time the player writes.  The player's own
earlier mails say otherwise: a line they wrote in a mail of the game that pbem accepted, and that none of its applied
orders is, was set aside then (a line under their signature or sign-off, a footer under HELP or a JOIN; every line
read as an order there is left out, applied or not, so no order line of theirs is ever learnt).  So when a
message is refused, and a line of its orders is such a line, the message is decided again with them
(`Extracted.footers`): a refused line after every order among them that names nothing the game knows now is set
aside as a closing is (`lines.closing`), never applied, listed with the chatter.  A mistyped order sent twice is never
one: the mail that carried it was refused.  Read only for a refused message with orders: the player's `lookups.EARLIER` (3)
newest accepted mails of the game, their kept (redacted) copies, one statement on an index
(`lookups.earlier_mails`): the cost does not grow with the game's history.
"""

from __future__ import annotations

from dataclasses import replace

from pbem.app import intake, on_file, views
from pbem.app.decision import Decision
from pbem.app.facts import Facts
from pbem.mail.inbound.message import Inbound, parse
from pbem.orders import closings
from pbem.orders.extract import commanded, extract
from pbem.orders.typed import cleaned
from pbem.record import lookups
from pbem.record.db import Unit
from pbem.record.rows import Seat


def footer_keys(mails: list[tuple[str, tuple[str, ...]]]) -> frozenset[str]:
    """`pbem.orders.closings.footer_keys`, each line read as an order line is (`typed.cleaned`)."""
    return closings.footer_keys(mails, cleaned)


def _read_as_orders(text: str, words: tuple[str, ...]) -> tuple[str, ...]:
    """The lines of an earlier accepted mail read as orders, but those a command alone set aside as its footer."""
    ex = extract(text, "", words)
    if ex.orders and commanded(ex):
        return tuple(o for o in ex.orders if not closings.footer_marked(o, set()))
    return tuple(ex.orders)


def key(line: str) -> str:
    return closings.footprint_key(line)


def decided(s: Unit, msg: Inbound, facts: Facts, seat: Seat | None, cap: int) -> Decision:
    """`intake.decide`, again when the step a reply answers closed (`on_file.closed`), and again with the player's
    footers when it refused a message whose orders hold one of their earlier mails' lines."""
    d = intake.decide(msg, facts, cap)  # pure
    d = intake.decide(msg, facts, cap) if d.late and on_file.closed(s, facts, seat, d) else d
    ex, loaded = facts.extracted, facts.loaded
    if d.outcome != "rejected" or seat is None or ex is None or not ex.orders or loaded is None:
        return d
    if loaded.game.id is None:
        return d
    words = tuple(views.engine(loaded).order_words)
    texts = [parse(raw).text for raw in lookups.earlier_mails(s, loaded.game.id, seat.player)]
    # its order lines are never learnt, but a company's or an address's line a command alone set aside (players30:
    # "HELP" above "Play Corp Ltd. 2027", `pbem.app.footers`): the mail was accepted without it
    keys = footer_keys([(text, _read_as_orders(text, words)) for text in texts])
    if keys.isdisjoint(key(line) for line in ex.orders):
        return d
    facts.extracted = replace(ex, footers=keys)
    return intake.decide(msg, facts, cap)
