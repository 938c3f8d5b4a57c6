"""The record's answers about a bounce (`pbem.app.bounced`): whom pbem sent the mails that came back, and which
seats of games still running an address holds.  Plain data out; each an indexed look-up."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from pbem.record import models, store

_O = models.OutboxMessage.__table__.c  # type: ignore[attr-defined]
_S = models.Seat.__table__.c  # type: ignore[attr-defined]
_G = models.Game.__table__.c  # type: ignore[attr-defined]


def recipients(s: Session, message_ids: list[str]) -> list[str]:
    """The addresses pbem sent these Message-IDs to (those it never sent are not found), by the outbox's unique
    Message-ID; never a mail's bytes."""
    if not message_ids:
        return []
    rows = s.connection().execute(select(_O.to_addr).where(_O.message_id.in_(message_ids))).all()
    return sorted({str(r[0]).lower() for r in rows})


def seats_at(s: Session, address: str) -> list[tuple[str, str]]:
    """(game, player) of every seat `address` holds now in a game neither over nor abandoned (an address moved away
    or a seat given to someone else is not held now)."""
    q = select(_S.game_id).where(_S.address == address.lower()).distinct()
    out: list[tuple[str, str]] = []
    for (gid,) in s.connection().execute(q).all():
        game = store.game_by_id(s, int(gid))
        if game is None or store.is_over(s, int(gid)) or store.control_state(s, int(gid)) == "abandoned":
            continue
        out += [
            (game.name, seat.player) for seat in store.current_seats(s, int(gid)) if seat.address == address.lower()
        ]
    return sorted(out)


def asked_at(s: Session, address: str, since: datetime) -> list[tuple[str, str, str, int]]:
    """(game, player, the seat's address, the game's id) of each seat of a game not abandoned nor over that asked,
    after `since`, to move its mail to `address` (ADDRESS): pbem's word went there (an `ack` to no player,
    `outbox.asked_of`), and the seat's own answer (`address_asked`, an `ack` to its player) was queued in the same
    transaction, at the same time.  A seat whose address is `address` already (moved since) is left out.  Indexed
    look-ups: the words by (to_addr, purpose, created_at), at most `MOST_WORDS`; each seat's answer by (game_id,
    purpose, player, created_at), one probe a seat."""
    words = select(_O.game_id, _O.created_at).where(
        _O.to_addr == address.lower(), _O.purpose == "ack", _O.player == "", _O.created_at > since
    )
    out: set[tuple[str, str, str, int]] = set()
    for gid, at in s.connection().execute(words.limit(MOST_WORDS)).all():
        if gid is None or store.is_over(s, int(gid)) or store.control_state(s, int(gid)) == "abandoned":
            continue
        game = store.game_by_id(s, int(gid))
        for seat in store.current_seats(s, int(gid)):
            if game is None or seat.address == address.lower():
                continue
            asked = select(_O.id).where(  # one probe of (game_id, purpose, player, created_at)
                _O.game_id == gid, _O.purpose == "ack", _O.player == seat.player, _O.created_at == at
            )
            if s.connection().execute(asked.limit(1)).first() is not None:
                out.add((game.name, seat.player, seat.address, int(gid)))
    return sorted(out)


MOST_WORDS = 20  # words one bounce looks at (`addresses.CONFIRMS` an hour per address: a day's at most)
