"""What a player's provider vouches for (issue 25): the DKIM evidence of a player's mail, taken at arrival.

`take` checks the signature of a registered player's mail about a game on the raw bytes as they arrived
(`pbem.trust.dkim.capture`, one DNS lookup with a deadline), before anything is redacted, and decides what
may be kept: the body only when the stored copy is the mail itself (no code was redacted, nothing cut).
A JOIN whose signature verified gets one more line, ``DKIM <SHA-256 of the signature>``, which pbem adds
and no player can type (DKIM is no order word): the deal is stirred with it (`pbem.trust.deal`), so a deal
depends on bytes only the player's provider could make.  `keep` files the evidence with the message.
"""

from __future__ import annotations

import dataclasses
import logging

from pbem.mail.inbound.message import Inbound
from pbem.orders.extract import Extracted
from pbem.record import evidence
from pbem.record.db import Unit
from pbem.trust import deal as joining
from pbem.trust import dkim

log = logging.getLogger(__name__)


def take(
    original: bytes, stored: bytes, ex: Extracted | None, words: tuple[str, ...] | None
) -> tuple[dkim.Evidence | None, Extracted | None]:
    """The evidence of one player's mail (None when unsigned), and its lines with the JOIN's contribution
    (`words`: the game's order words now, JOIN and SALT while its join step is open)."""
    secrets = (ex.code,) if ex is not None and ex.code else ()
    try:
        ev = dkim.capture(original, keep_body=stored == original, secrets=secrets)
    except Exception:  # nothing about one message may stop the poll (a resolver failing in a new way)
        log.warning("the DKIM check of one message failed; it is kept as unsigned", exc_info=True)
        return None, ex
    if ev is None or not ev.verified or ex is None or words != joining.ORDER_WORDS:
        return ev, ex
    signed = dkim.contribution(ev.to_json(""))
    if signed and any(joining.is_join_line(line) for line in ex.orders):
        ex = dataclasses.replace(ex, orders=[*ex.orders, f"{joining.DKIM_WORD} {signed}"])
    return ev, ex


def keep(s: Unit, msg: Inbound, ev: dkim.Evidence | None) -> None:
    if ev is not None:
        evidence.keep(s, msg.message_id, msg.body_hash, ev)
