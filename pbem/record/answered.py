"""The mails pbem sent that an inbound message names (its In-Reply-To / References), from the outbox.

One indexed look-up (the outbox's unique Message-ID) for at most `replies.MAX_REFERENCES` ids: the
cost of a reply does not grow with the history.  `pbem.mail.inbound.replies` decides what they prove.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import Select, bindparam, func, select
from sqlmodel import Session

from pbem.mail.inbound.replies import SentMail, looked_up
from pbem.record.db import fetch
from pbem.record.home_secrets import epochs_of, variants
from pbem.record.models import OutboxMail, OutboxMessage

_C = OutboxMessage.__table__.c  # type: ignore[attr-defined]
_M = OutboxMail.__table__.c  # type: ignore[attr-defined]


@cache
def _q_sent(ids: int) -> Select[Any]:
    """Built once per number of ids (binds m0, m1, ...), so that it runs precompiled (`db.fetch`)."""
    query: Select[Any] = (
        select(_C.message_id, _C.game_id, _C.player, _C.to_addr, _C.created_at, func.coalesce(_M.keep_raw, _M.raw))
        .join_from(OutboxMessage.__table__, OutboxMail.__table__, _M.id == _C.id)  # type: ignore[attr-defined]
        .where(_C.message_id.in_([bindparam(f"m{i}") for i in range(ids)]))
    )
    return query


def sent_mails(s: Session, references: tuple[str, ...]) -> dict[str, SentMail]:
    """The mails among `references` that pbem queued (sent or not yet), by Message-ID (a mail that
    carries a code: its redacted copy, `pbem.mail.outbound.sealed`)."""
    ids = looked_up(references)
    if not ids:
        return {}
    epochs = epochs_of(s)  # a restored home (months8): each id under its other forms too
    forms = {m: variants(m, epochs) for m in ids}
    asked = list(dict.fromkeys(f for fs in forms.values() for f in fs))
    rows = fetch(s.connection(), _q_sent(len(asked)), {f"m{i}": m for i, m in enumerate(asked)})
    found = {r[0]: SentMail(r[0], r[1], r[2], r[3], r[4], bytes(r[5] or b"")) for r in rows}
    if not epochs:
        return found
    out = dict(found)  # a reply to the old home's mail: the form this record holds (the same key, the same seat)
    for m, fs in forms.items():
        if m not in out and (hit := next((found[f] for f in fs if f in found), None)) is not None:
            out[m] = hit
    return out
