"""Who sent a message, looked up cheaply before anything costly is done for it (issue 12).

Only a registered seat's message may cost a key derivation: `is_registered`
(the sender is a seat of any game) is one indexed look-up, and `warm_code`
derives a code only for a seat of the game the message names.  A stranger's
mail costs a word search and at most one look-up; its statements are built once.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from sqlalchemy import Select, bindparam, func
from sqlmodel import Session, col, select

from ..codes import check_code
from ..config import Config
from ..mail.message import Inbound
from ..orders.extract import extract
from ..record.db import reading
from ..record.models import Game, Seat

_CODE_WORD = re.compile(r"code", re.IGNORECASE)  # no mail without it holds a player code


def is_registered(s: Session, msg: Inbound) -> bool:
    """Whether the sender is a seat of any game (one indexed look-up): only then is a code ever checked."""
    return bool(msg.sender) and s.connection().execute(_any_seat(), {"address": msg.sender}).first() is not None


@cache
def _any_seat() -> Select[Any]:
    """Built once: a stranger's mail should cost the look-up, not the building of its statement."""
    return select(Seat.id).where(Seat.address == bindparam("address")).limit(1)


@cache
def _seat_code_hash() -> Select[Any]:
    return (
        select(Seat.code_hash)
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(Game.name == bindparam("game"), func.lower(Seat.address) == bindparam("address"))
        .order_by(col(Seat.id).desc())
    )


def warm_code(cfg: Config, msg: Inbound) -> None:
    """Run the deliberately slow code hash before the write lock is taken.

    The check under the lock then finds it cached; meanwhile the mail sender,
    which needs the lock to mark mail sent, keeps going (the hash releases the GIL).
    Only the code of a registered seat of the game named is ever derived: a
    stranger's mail costs a word search and at most one indexed look-up.
    """
    if msg.auto or msg.problem or not msg.game or not msg.sender:
        return
    if not (_CODE_WORD.search(msg.subject) or _CODE_WORD.search(msg.text)):
        return
    with reading(cfg.database_url) as conn:
        params = {"game": msg.game.lower(), "address": msg.sender.lower()}
        stored = conn.execute(_seat_code_hash(), params).scalars().first()
    code = extract(msg.text, msg.subject, ()).code if stored else None  # the code needs no order words
    if stored and code:
        check_code(code, stored)
