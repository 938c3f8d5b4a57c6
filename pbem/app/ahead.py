"""Checking players' codes ahead of the poll: the slow derivations on worker threads.

`warmed` passes the inbox's messages through in order while, a few messages
ahead, worker threads (two on a machine with two cores) parse each one, hand
the parsed message to the poll, read its seat's stored hash and, for one stored
with PBKDF2, its code, and run the check (`pbem.trust.codes.check_seat_code`,
cached per seat and code).
PBKDF2 releases the GIL, so the derivations for the next messages run on
whichever core is free while this one is handled; `intake.decide` then finds the answer in
the cache.  Nothing is written ahead, so a crash loses nothing.  Codes made since the keyed
hash (docs/security.md) cost microseconds to check where the message is handled; the threads
carry the PBKDF2 of codes stored before it, and the parse.
"""

from __future__ import annotations

import logging
import os
import re
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from pbem.home.app import Home
from pbem.mail.inbound.message import Inbound, parse
from pbem.mail.transports.seam import Incoming
from pbem.orders.extract import extract
from pbem.record.lookups import seat_code
from pbem.trust.codes import STRETCHED, check_seat_code

log = logging.getLogger("pbem.poll")
WARM_AHEAD = 6  # messages whose code check starts before they are handled
# Threads deriving codes: PBKDF2 releases the GIL, so with every message from a new seat two derivations run
# on two cores whenever the poll's own thread waits, instead of one thread setting the pace of the poll.
CODE_THREADS = max(1, min(2, os.cpu_count() or 1))
_CODE_WORD = re.compile(r"code", re.IGNORECASE)


def _warm_code(home: Home, msg: Inbound) -> None:
    """Run the code check of a registered seat whose code is stored with PBKDF2 before the message is handled.

    The check in `intake.decide` then finds it in the (seat, code) cache.  Only a message
    from a seat's registered address with a code costs a derivation.  A keyed hash (every code made
    since it) costs microseconds to check where it is handled: its message is not read here (a reply
    quoting a report holds the word "code", and reading it whole cost more than the check it warmed).
    """
    if msg.auto or msg.problem or not msg.game or not msg.sender:
        return
    if not (_CODE_WORD.search(msg.subject) or writers_code_word(msg.text)):
        return  # no mail without the word on a line of its writer's holds a player code: no look-up, no extraction
    seat = seat_code(home.cfg.database_url, msg.game, msg.sender)
    if seat is None or not seat[1].startswith(f"{STRETCHED}$"):
        return
    code = extract(msg.text, msg.subject, ()).code  # the code needs no order words
    if code:
        check_seat_code(seat[0], code, seat[1])


def writers_code_word(text: str) -> bool:
    """Whether a line of `text` not quoted with ">" holds the word "code" (in any case): the only lines `extract`
    reads a player's CODE from (the subject aside).  A reply quoting a report holds the word on a quoted line
    ("> Your secret player code is ..."): for it the seat was looked up on the threads ahead, a read of the
    record a reply (perf33: 0.27 ms of the 0.74 a reply those threads spent, in a poll of 300 replies at load 8),
    to find a keyed hash and warm nothing.  Linear: each "code" found, its line's start read back once, the search
    going on at the next line."""
    low = text.lower()
    at = low.find("code")
    while at >= 0:
        start = low.rfind("\n", 0, at) + 1
        if not low[start:at].lstrip(" \t").startswith(">"):
            return True
        end = low.find("\n", at)
        at = low.find("code", end) if end >= 0 else -1
    return False


def _warm_raw(home: Home, raw: bytes, parsed: Future[Inbound | None]) -> None:
    msg: Inbound | None = None
    try:
        msg = parse(raw, home.policy.moderator_address, home.policy.trust_authentication_results)
    except Exception:  # the message's own handling parses it again, and meets and reports the problem
        log.debug("parsing ahead of handling failed", exc_info=True)
    finally:
        parsed.set_result(msg)  # handed to the poll's thread: it does not parse the message a second time
    if msg is None:
        return
    try:
        _warm_code(home, msg)
    except Exception:  # only a cache warm: the message's own handling meets and reports the problem
        log.debug("code check ahead of handling failed", exc_info=True)


@dataclass(frozen=True)
class Ahead:
    """A message of the inbox, and its parsed form as soon as the worker thread has it (None: parse it again)."""

    item: Incoming
    parsed: Future[Inbound | None]


def warmed(home: Home, items: Iterator[Incoming], depth: int = WARM_AHEAD) -> Iterator[Ahead]:
    """The inbox's messages in order, each one parsed and its code check started `depth` messages ahead on a
    worker thread."""
    ahead: deque[Ahead] = deque()
    with ThreadPoolExecutor(CODE_THREADS, thread_name_prefix="pbem-codes") as pool:
        for item in items:
            slot = Ahead(item, Future())
            pool.submit(_warm_raw, home, item.raw, slot.parsed)
            ahead.append(slot)
            if len(ahead) > depth:
                yield ahead.popleft()
        while ahead:
            yield ahead.popleft()
