"""The outbox queue in the record (transactional outbox, docs/architecture.md principle 8).

Queuing is a plain INSERT in the caller's transaction; the sender
(`pbem.mail.outbound.sender`) reads queued rows after commit, and what it sent is
folded back in by `pbem.record.sentlog`.  These are the queue's only queries;
those on the poll's hot path are Core statements built once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import Select, bindparam, func, or_, update
from sqlalchemy import select as core_select
from sqlmodel import Session, select

from pbem.record.db import fetch, insert
from pbem.record.models import OutboxMail, OutboxMessage, Seat

COUNTED = ("ack", "notice", "status", "stranger")  # the purposes the answers budget counts (`pbem.app.answers`)
LIMIT = "limit"  # the one "too many messages" notice per address and window
NEWS = "news"  # a notice of the game moving on (a deadline, a moderator's command) that answers no mail: not counted
#: The word that confirms a resignation, mailed past the answers budget: one a seat and day (`pbem.app.resigning`)
RESIGN = "resign"
REPORTS = ("report", "status")  # a player's reports: regular ones, and the answers to STATUS


@dataclass(frozen=True)
class Window:
    """What the outbox holds for one address over the last hour (the answers budget, `pbem.app.answers`)."""

    answers: int = 0  # mails counted by the budget
    oldest: datetime | None = None  # the oldest of them: the window passes an hour after it
    limited: bool = False  # the "too many messages" notice already went out


_C = OutboxMessage.__table__.c  # type: ignore[attr-defined]
Q_QUEUED_IDS = select(_C.message_id).where(_C.message_id.in_(bindparam("ids", expanding=True)))


@cache
def _answers(addresses: int) -> Select[Any]:
    """Built once per number of addresses (binds a0, a1, ...), so that it runs precompiled (`db.fetch`)."""
    query: Select[Any] = (
        core_select(_C.to_addr, _C.purpose, func.count(), func.min(_C.created_at))
        .where(
            _C.to_addr.in_([bindparam(f"a{i}") for i in range(addresses)]),
            or_(*(_C.purpose == purpose for purpose in (*COUNTED, LIMIT))),  # plain binds: no IN list to expand
            _C.created_at > bindparam("since"),
        )
        .group_by(_C.to_addr, _C.purpose)
    )
    return query


def queue(s: Session, rows: dict[str, Any] | list[dict[str, Any]]) -> None:
    """Add rows built by `pbem.mail.outbound.outgoing.outbox_row` (no ORM object: the INSERT is what costs): each
    row's head in `outbox`, its bytes (`raw`, `keep_raw`) in `outbox_mail` under the same id (migration 0022)."""
    conn = s.connection()
    mails = []
    for row in rows if isinstance(rows, list) else [rows]:
        head = {k: v for k, v in row.items() if k not in _BYTES}
        oid = insert(conn, OutboxMessage.__table__, head)  # type: ignore[attr-defined]
        assert oid is not None
        raw, keep = row["raw"], row.get("keep_raw")
        mails.append({"id": oid, "raw": raw, "keep_raw": keep, "checksum": mail_checksum(raw, keep)})
    if mails:
        insert(conn, OutboxMail.__table__, mails)  # type: ignore[attr-defined]


_BYTES = ("raw", "keep_raw")  # an outbox row's columns that `outbox_mail` holds


def mail_checksum(raw: bytes, keep: bytes | None) -> bytes:
    """SHA-256 of a queued mail's bytes, kept with them (`outbox_mail.checksum`, migration 0024) and compared by the
    sender before it hands the mail over: SQLite does not see an overflow page overwritten (walk10)."""
    h = hashlib.sha256(len(raw).to_bytes(8, "big"))
    h.update(raw)
    h.update(keep if keep is not None else b"")
    return h.digest()


def intact(raw: bytes, keep: bytes | None, checksum: bytes | None) -> bool:
    """Whether a mail's bytes are those queued (a row without a checksum, queued before 0024 and sent, is)."""
    return checksum is None or bytes(checksum) == mail_checksum(bytes(raw), None if keep is None else bytes(keep))


def last_report_seqs(s: Session, game_id: int, players: Iterable[str] | None = None) -> dict[str, int]:
    """For each player of the game (or each of `players`), the last event seq their reports covered.

    One statement of one index probe per player and kind of report (`ix_outbox_game_purpose_player_seq`):
    the newest report of each, however many reports the game has sent.
    """
    if players is None:
        players = s.exec(select(Seat.player).where(Seat.game_id == game_id).distinct()).all()
    wanted = sorted(set(players))
    if not wanted:
        return {}
    params: dict[str, Any] = {"gid": game_id, **{f"p{i}": p for i, p in enumerate(wanted)}}
    row = fetch(s.connection(), _newest_reports(len(wanted)), params)[0]
    found: dict[str, int] = {}
    for i, player in enumerate(wanted):
        seqs = [x for x in row[i * len(REPORTS) : (i + 1) * len(REPORTS)] if x is not None]
        if seqs:
            found[player] = max(seqs)
    return found


@cache
def _newest_reports(players: int) -> Select[Any]:
    """Built once per number of players: one index probe per player and kind of report."""
    query: Select[Any] = select(
        *(
            select(_C.upto_seq)
            .where(_C.game_id == bindparam("gid"), _C.purpose == purpose, _C.player == bindparam(f"p{i}"))
            .order_by(_C.upto_seq.desc())
            .limit(1)
            .scalar_subquery()
            for i in range(players)
            for purpose in REPORTS
        )
    )
    return query


def answers_in_last_hour(s: Session, addresses: Iterable[str], when: datetime) -> dict[str, Window]:
    """For each address, the answers queued to it in the hour before `when` (ONE statement on the
    (to_addr, purpose, created_at) index): how many the budget counts, the oldest, and whether the
    "too many messages" notice went out."""
    wanted = sorted({a for a in addresses if a})
    if not wanted:
        return {}
    found: dict[str, Window] = {}
    params: dict[str, Any] = {"since": when - timedelta(hours=1), **{f"a{i}": a for i, a in enumerate(wanted)}}
    for addr, purpose, n, oldest in fetch(s.connection(), _answers(len(wanted)), params):
        w = found.get(addr, Window())
        if purpose == LIMIT:
            found[addr] = Window(w.answers, w.oldest, True)
        else:
            first = min(oldest, w.oldest) if w.oldest is not None else oldest
            found[addr] = Window(w.answers + n, first, w.limited)
    return found


def stranger_answers(s: Session, address: str, when: datetime) -> tuple[int, int]:
    """(answers to strangers queued to `address` in the day before `when`, to anyone in the hour before):
    ONE statement, each count on an index ((to_addr, purpose, created_at) and (purpose, created_at))."""
    params = {"address": address, "day": when - timedelta(days=1), "hour": when - timedelta(hours=1)}
    row = fetch(s.connection(), _stranger_counts(), params)[0]
    return int(row[0]), int(row[1])


@cache
def _stranger_counts() -> Select[Any]:
    """Built once: every stranger's mail runs it."""
    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    since = table.c.created_at
    mine = (
        select(func.count())
        .select_from(table)
        .where(table.c.to_addr == bindparam("address"), table.c.purpose == "stranger", since > bindparam("day"))
        .scalar_subquery()
    )
    everyone = (
        select(func.count())
        .select_from(table)
        .where(table.c.purpose == "stranger", since > bindparam("hour"))
        .scalar_subquery()
    )
    return select(mine, everyone)


def asked_of(s: Session, game_id: int, address: str, since: datetime) -> bool:
    """Whether pbem queued a mail of this game's to `address` that reads no player (an ADDRESS word, `ack`) after
    `since`: ONE statement on the (to_addr, purpose, created_at) index.  An ADDRESS CONFIRM counts only then, so a
    word cannot be guessed by an address nobody asked to move to."""
    query = (
        core_select(_C.id)
        .where(
            _C.to_addr == bindparam("address"),
            _C.purpose == "ack",
            _C.created_at > bindparam("since"),
            _C.game_id == bindparam("game"),
            _C.player == "",
        )
        .limit(1)
    )
    return bool(fetch(s.connection(), query, {"address": address.lower(), "since": since, "game": game_id}))


def mailed_since(s: Session, game_id: int, purpose: str, player: str, since: datetime) -> bool:
    """Whether a mail of `purpose` to `player` of the game was queued after `since`: ONE statement on the
    (game_id, purpose, player) index (`RESIGN`: the one word a seat gets past its answers budget a day)."""
    query = (
        core_select(_C.id)
        .where(
            _C.game_id == bindparam("game"),
            _C.purpose == bindparam("purpose"),
            _C.player == bindparam("player"),
            _C.created_at > bindparam("since"),
        )
        .limit(1)
    )
    params = {"game": game_id, "purpose": purpose, "player": player, "since": since}
    return bool(fetch(s.connection(), query, params))


def queued_ids(s: Session, message_ids: Iterable[str]) -> set[str]:
    """Which of these Message-IDs are already in the outbox (a reminder is queued once); in a restored home, under
    any of its forms (made before the restore, or under an earlier one: `pbem.record.home_secrets.variants`)."""
    from pbem.record.home_secrets import epochs_of, variants

    ids = list(message_ids)
    if not ids:
        return set()
    epochs = epochs_of(s)
    if not epochs:
        return set(s.connection().execute(Q_QUEUED_IDS, {"ids": ids}).scalars())
    forms = {m: variants(m, epochs) for m in ids}
    found = set(
        s.connection().execute(Q_QUEUED_IDS, {"ids": sorted({f for fs in forms.values() for f in fs})}).scalars()
    )
    return {m for m, fs in forms.items() if found.intersection(fs)}


@dataclass(frozen=True)
class GivenUp:
    """A mail pbem stopped trying to send (`pbem outbox list`)."""

    id: int
    to: str
    purpose: str
    game_id: int | None
    player: str
    attempts: int
    last_error: str
    created_at: datetime


_GIVEN_UP = (_C.id, _C.to_addr, _C.purpose, _C.game_id, _C.player, _C.attempts, _C.last_error, _C.created_at)
REQUEUE_BATCH = 500  # ids one UPDATE names (far below any driver's limit on bound values)


def given_up(s: Session, limit: int = 200) -> list[GivenUp]:
    """The mails marked failed, newest first (at most `limit`): their heads only, never their bodies (costs8)."""
    q = core_select(*_GIVEN_UP).where(_C.status == "failed").order_by(_C.id.desc()).limit(limit)
    return [GivenUp(r[0], *r[1:]) for r in s.connection().execute(q)]


def failed_count(s: Session) -> int:
    """How many mails are marked failed (counted in the status index)."""
    return int(s.connection().execute(core_select(func.count()).where(_C.status == "failed")).scalar() or 0)


def requeue(s: Session, ids: Iterable[int] | None, when: datetime) -> list[int]:
    """Queue failed mails again (`ids`, or every failed one with None), attempts reset: the ids queued.
    Each keeps its Message-ID, so a copy the server did accept meanwhile is recognised by the recipient.
    Reads the failed mails' ids only and updates them in batches: its memory is not the mails' bodies, and any
    number of `ids` is no list of bound values past a driver's limit (costs8)."""
    conn = s.connection()
    wanted = None if ids is None else set(ids)
    failed = conn.execute(core_select(_C.id).where(_C.status == "failed").order_by(_C.id)).scalars()
    done = [i for i in failed if wanted is None or i in wanted]
    for k in range(0, len(done), REQUEUE_BATCH):
        conn.execute(
            update(OutboxMessage)
            .where(_C.id.in_(done[k : k + REQUEUE_BATCH]))
            .values(status="queued", attempts=0, next_attempt_at=when, last_error="")
        )
    return done


#: The purposes of a game's flow withdrawn when the game is abandoned (`withdraw`): its reports, STATUS answers,
#: reminders and notices.  An acknowledgement, a press and the moderator's own mail still go out.
FLOW = ("report", "status", "reminder", NEWS, "notice")
WITHDRAWN = "withdrawn"  # a status: never sent, kept (its Message-ID, recipient and text) for the record


def withdraw(s: Session, game_id: int) -> int:
    """Mark the game's queued mail of its flow (`FLOW`) withdrawn: a game abandoned before the poll that would have
    sent it mailed its players the Turn 1 reports (or the invitations to JOIN) after the notice that it was abandoned
    (walk8).  Returns how many; one UPDATE over the game's rows."""
    done = s.connection().execute(
        update(OutboxMessage)
        .where(_C.game_id == game_id, _C.status == "queued", _C.purpose.in_(FLOW))
        .values(status=WITHDRAWN)
    )
    return int(done.rowcount or 0)


def first_sent_since(s: Session, since: datetime) -> datetime | None:
    """When the first mail sent at or after `since` was marked sent (None: none yet): the end of a time the outbox
    could not send (`pbem.app.unsent`).  Read once when such a time ends, never on a poll that sent normally."""
    query = core_select(func.min(_C.sent_at)).where(_C.status == "sent", _C.sent_at >= bindparam("since"))
    found = s.connection().execute(query, {"since": since.astimezone(UTC)}).scalar()
    if not isinstance(found, datetime):
        return None
    return found if found.tzinfo is not None else found.replace(tzinfo=UTC)
