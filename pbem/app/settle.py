"""A decision to the record, in its transaction: the reports finished (pure, `pbem.app.finish`), then
written (`pbem.app.apply`, writes only).  Every shell that decides (the poll, deadlines, the moderator's
commands, game creation) ends here, with the home's `Policy` for the letterhead and the threads."""

from __future__ import annotations

from datetime import datetime

from pbem.app.apply import apply, prepare
from pbem.app.decision import Decision
from pbem.app.finish import Unread, finish
from pbem.app.reporting import Look
from pbem.home.policy import Policy
from pbem.mail.inbound.message import Inbound
from pbem.record import recent, store
from pbem.record.db import Unit


def settle(
    s: Unit,
    policy: Policy,
    d: Decision,
    when: datetime,
    loaded: store.Loaded | None = None,
    inbound: tuple[Inbound, bytes] | None = None,
) -> store.Loaded | None:
    """Finish `d` against the game as loaded and write it; returns the game as it stands after it."""
    secret = prepare(s, loaded, d)
    look = Look(secret, policy.domain, policy.moderator_name, when)
    try:
        d = finish(d, loaded, look)
    except Unread as unread:  # a player who resigned is reported to after all (their STATUS, the end): read once
        assert loaded is not None
        recent.widen(s, loaded, unread.since)
        d = finish(d, loaded, look)
    return apply(s, policy, d, when, secret, loaded, inbound)
