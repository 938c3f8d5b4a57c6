"""The DKIM evidence kept with each player's mail (`DkimEvidence`, issue 25): written with the message,
read by the export.  See `pbem.trust.dkim` for what is kept and why."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import bindparam
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from pbem.record.db import fetch
from pbem.record.models import DkimEvidence, GameEvent, InboundMessage
from pbem.trust.dkim import Evidence


def keep(s: Session, message_id: str, body_hash: str, ev: Evidence) -> None:
    """File `ev` with the inbound message just recorded (unique by Message-ID and body hash)."""
    row = s.exec(
        select(InboundMessage.id).where(InboundMessage.message_id == message_id, InboundMessage.body_hash == body_hash)
    ).first()
    if row is None:
        return
    values = dict(
        inbound_id=row,
        domain=ev.domain[:253],
        selector=ev.selector[:253],
        verified=ev.verified,
        headers=ev.headers,
        body=ev.body,
        key=ev.key,
    )
    s.connection().execute(DkimEvidence.__table__.insert(), values)  # type: ignore[attr-defined]


def of_game(s: Session, game_id: int) -> dict[int, Evidence]:
    """The evidence of every inbound message of game `game_id`, by the message's record id (one query)."""
    rows = s.exec(
        select(DkimEvidence)
        .join(InboundMessage, col(InboundMessage.id) == col(DkimEvidence.inbound_id))
        .where(InboundMessage.game_id == game_id)
    ).all()
    return {r.inbound_id: Evidence(r.domain, r.selector, r.verified, r.headers, r.body, r.key) for r in rows}


_EVENTS = GameEvent.__table__.c  # type: ignore[attr-defined]
#: Built once, run on the connection: through the ORM session this one probe cost a report's loading ~1 ms of CPU.
Q_DEAL = core_select(_EVENTS.data_json).where(_EVENTS.game_id == bindparam("gid"), _EVENTS.kind == "salts").limit(1)


def deal_of(s: Session, game_id: int) -> dict[str, Any] | None:
    """The data of game `game_id`'s deal (its `salts` event), whose weakness the report listing the salts and the
    final one state."""
    rows = fetch(s.connection(), Q_DEAL, {"gid": game_id})
    data: dict[str, Any] | None = json.loads(rows[0][0]) if rows else None
    return data


def as_export(found: dict[int, Evidence], message_ids: dict[Any, str]) -> list[dict[str, Any]]:
    """The export's `evidence` list: one entry per message listed, in the order of `message_ids`."""
    return [found[i].to_json(mid) for i, mid in message_ids.items() if i in found]
