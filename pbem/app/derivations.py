"""Per-sender budget on code checks (issue 26): what checking made-up codes may cost in one poll.

A registered player of another game who names this game with a made-up code
costs one code check per seat (to see whose code it is); a mail a minute,
each with a new code, was outside any budget.  Each address may cost at most
`DERIVATIONS_PER_SENDER` such checks per poll; past that the code is not
looked for (the mail is ignored as any stranger's).  Checking a seat's own
code is bounded already by the reply cap (`Outgoing.allowed`).  A check of a
keyed hash (codes made since docs/security.md's keyed hash) costs microseconds,
one of a code stored with PBKDF2 milliseconds: the budget bounds both.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

DERIVATIONS_PER_SENDER = 12  # code checks against other players' seats one address may cost in one poll
_derived: dict[str, int] = {}
_state = {"active": False}  # during a poll only (`pbem.app.poll.poll`): a message handled on its own counts nothing


def new_poll() -> None:
    """Start the per-poll counts afresh (the poll calls this first)."""
    _derived.clear()
    _state["active"] = True


@contextmanager
def per_poll() -> Iterator[None]:
    """Count from a fresh budget while the poll runs; outside it, count nothing."""
    new_poll()
    try:
        yield
    finally:
        end_poll()


def end_poll() -> None:
    _derived.clear()
    _state["active"] = False


def may_derive(sender: str, n: int) -> bool:
    """True (and counted) if `sender` may cost `n` more code checks in this poll: a player of another game
    naming this one with made-up codes costs one check per seat and mail, so it is capped per poll."""
    if not _state["active"]:
        return True
    key = sender.lower()
    if _derived.get(key, 0) + n > DERIVATIONS_PER_SENDER:
        return False
    _derived[key] = _derived.get(key, 0) + n
    return True
