"""Who sent a message, looked up cheaply before anything costly is done for it (issue 12).

Only a registered seat's message may cost a key derivation: `is_registered`
(the sender is a seat of any game) is one indexed look-up, and the check ahead
of handling (`pbem.app.ahead`) derives a code only for a seat of the game the
message names.  A stranger's mail costs a word search and at most one look-up;
its statements are built once.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import Select, bindparam
from sqlmodel import Session, select

from pbem.mail.inbound.message import Inbound
from pbem.record.models import Seat


def is_registered(s: Session, msg: Inbound) -> bool:
    """Whether the sender is a seat of any game (one indexed look-up): only then is a code ever checked."""
    return bool(msg.sender) and s.connection().execute(_any_seat(), {"address": msg.sender}).first() is not None


@cache
def _any_seat() -> Select[Any]:
    """Built once: a stranger's mail should cost the look-up, not the building of its statement."""
    return select(Seat.id).where(Seat.address == bindparam("address")).limit(1)
