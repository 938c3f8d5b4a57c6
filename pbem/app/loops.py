"""Loop safety for autoresponders that do not say they are one (issue 26).

Auto-replies that mark themselves (Auto-Submitted, X-Autoreply, Precedence,
bounces) are never answered (`pbem.mail.inbound.loops`).  An unmarked "I am
away" answers pbem's answer, pbem answered it ("no orders found") and the
two went on every poll up to the hourly reply cap, forever.  Here: a mail
that holds chatter only (no order, command, press, problem or code) from an
address that already sent `CHATTER_ANSWERED` such mails in the last
`WINDOW` is not answered; it is recorded like any other.  The look-up reads
the newest `LOOK_BACK` inbound rows only: its cost does not grow with the
history.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from typing import Any

from pbem.mail.inbound.message import Inbound
from pbem.orders.extract import Extracted
from pbem.record.chatter import recent_count

CHATTER_ANSWERED = 3
WINDOW = timedelta(hours=24)
LOOK_BACK = 500
NO_ORDERS = "no orders found"
REASON = f"repeated mail without orders (more than {CHATTER_ANSWERED} in {WINDOW.total_seconds() / 3600:.0f} h): an autoresponder?"


def quieted(s: Any, msg: Inbound, ex: Extracted | None, when: datetime) -> Inbound:
    """`msg`, marked not to be answered if it is one more chatter-only mail from a repeating address."""
    if msg.auto or not chatter_only(ex) or not repeated(s, msg.sender, when):
        return msg
    return dataclasses.replace(msg, auto=REASON)


def chatter_only(ex: Extracted | None) -> bool:
    """Chatter and nothing else: no order, command, press, problem, nor a code (a person states a code)."""
    if ex is None or not ex.chatter or ex.code:
        return False
    return not (ex.orders or ex.press or ex.help or ex.status or ex.problems)


def repeated(s: Any, sender: str, when: datetime) -> bool:
    """True if `sender` sent `CHATTER_ANSWERED` or more mails without orders within `WINDOW` of `when`."""
    return bool(sender) and recent_count(s, sender, NO_ORDERS, when - WINDOW, LOOK_BACK) >= CHATTER_ANSWERED
