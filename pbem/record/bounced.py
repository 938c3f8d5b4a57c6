"""The record's answers about a bounce (`pbem.app.bounced`): whom pbem sent the mails that came back, and which
seats of games still running an address holds, and each bouncing address's run of bounces (`AddressBounce`,
months4).  Plain data out; each an indexed look-up."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, insert, select
from sqlmodel import Session

from pbem.record import models, store

_O = models.OutboxMessage.__table__.c  # type: ignore[attr-defined]
_S = models.Seat.__table__.c  # type: ignore[attr-defined]
_G = models.Game.__table__.c  # type: ignore[attr-defined]
_B = models.AddressBounce.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Run:
    """An address's run of bounces (`models.AddressBounce`): since when, the newest, how many, the newest's reason
    (one line), and how many times the moderator was told of it."""

    address: str
    first_at: datetime
    last_at: datetime
    bounces: int
    told: int
    reason: str = ""


def runs(s: Session, addresses: list[str]) -> dict[str, Run]:
    """The runs of bounces of these addresses (lower case), those that have one; by the table's key."""
    if not addresses:
        return {}
    rows = s.connection().execute(select(_B).where(_B.c.address.in_(sorted(set(addresses))))).all()
    return {
        str(r.address): Run(str(r.address), _aware(r.first_at), _aware(r.last_at), int(r.bounces), int(r.told),
                            str(r.reason))
        for r in rows
    }  # fmt: skip


def keep(s: Session, run: Run) -> None:
    """Write `run` as its address's run (the one before replaced)."""
    s.connection().execute(delete(_B).where(_B.c.address == run.address))
    s.connection().execute(insert(_B).values(**{k: getattr(run, k) for k in Run.__dataclass_fields__}))


def _aware(at: datetime) -> datetime:
    out = store.aware(at)
    assert out is not None
    return out


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
