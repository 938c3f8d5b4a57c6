"""Queuing outgoing mail in the record, and sending it after commit.

Queue functions only add `OutboxMessage` rows inside the caller's
transaction (transactional outbox).  `send_pending` runs after commit: it
sends each queued message with its stable Message-ID and marks it sent in its
own small transaction (one UPDATE), so a crash mid-send causes at most one duplicate.
Transient failures are retried on later runs with exponential backoff; after
`[smtp] max_attempts` the message is marked failed and the moderator is told.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from .config import Config
from .engine.base import Event
from .mail.compose import compose, stable_message_id
from .mail.transport import PermanentSendError, Sender, TransientSendError, TransportError
from .record import store
from .record.models import GameEvent, OutboxMessage
from .reports import render_pair

log = logging.getLogger("pbem.outbox")


def _queue(s: Session, cfg: Config, *, key: tuple, to: str, to_name: str, subject: str, text: str, html: str | None,
           purpose: str, when: datetime, game_id: int | None = None, player: str = "", upto_seq: int = 0,
           in_reply_to: str | None = None, references: tuple[str, ...] = (),
           auto: str = "auto-generated", keep: tuple[str, str | None] | None = None) -> OutboxMessage:
    """Add one message to the outbox.  `keep` is the (text, html) to keep once sent, if `text` holds a secret."""
    mid = stable_message_id(cfg.domain, *key)

    def build(t: str, h: str | None) -> bytes:
        return compose(sender=cfg.moderator_address, sender_name=cfg.moderator_name, to=to, to_name=to_name,
                       subject=subject, text=t, html=h, message_id=mid, when=when, auto=auto,
                       in_reply_to=in_reply_to, references=references)

    row = OutboxMessage(message_id=mid, game_id=game_id, player=player, purpose=purpose, upto_seq=upto_seq,
                        to_addr=to, raw=build(text, html), keep_raw=build(*keep) if keep else None,
                        next_attempt_at=when, created_at=when)
    s.add(row)
    return row


REDACTED = "[redacted once sent]"


def last_report_seq(s: Session, game_id: int, player: str) -> int:
    q = select(func.max(OutboxMessage.upto_seq)).where(OutboxMessage.game_id == game_id,
                                                        OutboxMessage.player == player,
                                                        OutboxMessage.purpose == "report")
    return s.exec(q).one() or 0


def report_context(s: Session, cfg: Config, loaded: store.Loaded, player: str, since: int,
                   code: str | None = None) -> dict[str, Any]:
    """Everything a report template gets: only `player`'s view and the events they may see."""
    eng = loaded.engine
    game = loaded.game
    rows: list[GameEvent] = store.events_for(s, game.id, since)
    happened = [r.text for r in rows if store.event_of(r).visible_to(player)]
    requests = eng.requests(loaded.state)
    reqs = [r for r in requests if r.player == player]
    result = eng.result(loaded.state)
    dl = store.current_deadline(s, game.id)
    waiting = sorted({r.player for r in requests if not r.answered})
    view = eng.view(loaded.state, player)
    asked = [{"prompt": r.prompt, "syntax": list(r.syntax), "legal": list(r.legal), "default": list(r.default),
              "on_file": list(r.on_file), "answered": r.answered} for r in reqs]
    return {
        "title": eng.title, "game_name": game.name, "player": player, "view": view,
        "sections": view["sections"], "happened": happened, "asked": asked,
        "deadline": store.aware(dl.due_at).strftime("%Y-%m-%d %H:%M UTC") if (dl and reqs and result is None) else None,
        "waiting": waiting, "commitment": game.seed_commitment if since == 0 else None,
        "result": None if result is None else {"summary": result.summary, "scores": result.scores},
        "seed": game.seed if result is not None else None, "commitment_final": game.seed_commitment,
        "code": code, "moderator": cfg.moderator_name,
    }


def queue_report(s: Session, cfg: Config, loaded: store.Loaded, player: str, when: datetime,
                 code: str | None = None, extra: str = "", since: int | None = None,
                 subject: str | None = None) -> OutboxMessage | None:
    """Queue `player`'s private report covering events since their last one.

    `extra` makes the Message-ID unique when the same point is reported twice
    (a STATUS request, a replacement player's first report).
    """
    seat = loaded.seat_for_player(player)
    if seat is None:
        return None
    if since is None:
        since = last_report_seq(s, loaded.game.id, player)
    ctx = report_context(s, cfg, loaded, player, since, code=code)
    text, html = render_pair("report", **ctx)
    keep = render_pair("report", **{**ctx, "code": REDACTED}) if code else None
    if subject is None:
        subject = f"[pbem {loaded.game.name}] {ctx['view']['turn']}"
        if ctx["result"] is not None:
            subject = f"[pbem {loaded.game.name}] Final report: {ctx['result']['summary']}"
    return _queue(s, cfg, key=(loaded.game.name, "report", player, loaded.event_seq, loaded.seq, seat.id, extra),
                  to=seat.address, to_name=seat.display_name or player, subject=subject, text=text, html=html,
                  purpose="report", when=when, game_id=loaded.game.id, player=player, upto_seq=loaded.event_seq,
                  keep=keep)


def queue_reply(s: Session, cfg: Config, *, to: str, to_name: str, template: str, subject: str, when: datetime,
                in_reply_to: str, references: tuple[str, ...] = (), game_id: int | None = None, player: str = "",
                purpose: str = "ack", key_id: str | None = None, **ctx: Any) -> OutboxMessage:
    text, html = render_pair(template, moderator=cfg.moderator_name, **ctx)
    return _queue(s, cfg, key=(purpose, key_id or in_reply_to, to), to=to, to_name=to_name, subject=subject, text=text,
                  html=html, purpose=purpose, when=when, game_id=game_id, player=player, in_reply_to=in_reply_to,
                  references=references, auto="auto-replied")


def queue_notice(s: Session, cfg: Config, *, to: str, subject: str, body: str, when: datetime, key: tuple,
                 game_id: int | None = None, player: str = "", purpose: str = "notice",
                 in_reply_to: str | None = None, keep_body: str | None = None) -> OutboxMessage:
    text, html = render_pair("notice", body=body, moderator=cfg.moderator_name)
    keep = render_pair("notice", body=keep_body, moderator=cfg.moderator_name) if keep_body is not None else None
    return _queue(s, cfg, key=(purpose, *key), to=to, to_name="", subject=subject, text=text, html=html,
                  purpose=purpose, when=when, game_id=game_id, player=player, in_reply_to=in_reply_to,
                  auto="auto-replied" if in_reply_to else "auto-generated", keep=keep)


def replies_in_last_hour(s: Session, address: str, when: datetime) -> int:
    q = select(func.count()).select_from(OutboxMessage).where(
        OutboxMessage.to_addr == address, OutboxMessage.created_at > when - timedelta(hours=1),
        OutboxMessage.purpose.in_(("ack", "notice")))
    return s.exec(q).one()


@dataclass
class SendSummary:
    sent: int = 0
    retry: int = 0
    failed: int = 0


def send_pending(cfg: Config, sender: Sender, when: datetime, limit: int | None = None) -> SendSummary:
    """Send every due queued message.  Raises TransportError if the server cannot be reached at all.

    The loop uses plain SQL statements on one connection: a read of the message
    just before it is sent (a concurrent run may have taken it) and one UPDATE
    in its own transaction right after, so a crash between the two repeats at
    most that one message.
    """
    summary = SendSummary()
    table = OutboxMessage.__table__
    c = table.c
    with _connection(cfg) as conn:
        with conn.begin():
            ids = conn.execute(select(c.id).where(c.status == "queued", c.next_attempt_at <= when)
                               .order_by(c.id)).scalars().all()
        for n, oid in enumerate(ids):
            if limit is not None and n >= limit:
                break
            with conn.begin():
                got = conn.execute(select(c.raw, c.to_addr).where(c.id == oid, c.status == "queued")).first()
            if got is None:
                continue  # a concurrent run took it
            raw, to = got
            try:
                sender.send(raw, cfg.moderator_address, [to])
            except PermanentSendError as exc:
                _mark(cfg, oid, when, error=str(exc), permanent=True)
                summary.failed += 1
                continue
            except TransientSendError as exc:
                if _mark(cfg, oid, when, error=str(exc), permanent=False):
                    summary.failed += 1
                else:
                    summary.retry += 1
                raise TransportError(f"sending mail failed: {exc}") from None
            with conn.begin():  # sent: the player's code (if any) leaves the database with the mail
                conn.execute(table.update().where(c.id == oid).values(
                    status="sent", sent_at=when, last_error="", attempts=c.attempts + 1,
                    raw=func.coalesce(c.keep_raw, c.raw), keep_raw=None))
            summary.sent += 1
    return summary


def _connection(cfg: Config):
    from .record.db import engine_for

    return engine_for(cfg.database_url).connect()


def _mark(cfg: Config, oid: int, when: datetime, error: str, permanent: bool = False) -> bool:
    """Record a failed attempt; returns True if the message is now marked failed."""
    with store_session(cfg) as s:
        row = s.get(OutboxMessage, oid)
        row.attempts += 1
        row.last_error = error[:500]
        failed = permanent or row.attempts >= cfg.smtp.max_attempts
        if failed:
            row.status = "failed"
            if row.purpose != "alert":
                queue_notice(s, cfg, to=cfg.moderator_address, subject=f"[pbem] undeliverable mail to {row.to_addr}",
                             body=f"pbem gave up sending {row.message_id} ({row.purpose}) to {row.to_addr} "
                                  f"after {row.attempts} attempts.\nLast error: {row.last_error}",
                             when=when, key=("failed", row.message_id), purpose="alert")
        else:
            row.next_attempt_at = when + timedelta(minutes=2 ** min(row.attempts, 10))
        s.add(row)
        s.commit()
        if failed:
            log.warning("gave up on message %s to %s after %d attempts", row.message_id, row.to_addr, row.attempts)
        return failed


def store_session(cfg: Config):
    from .record.db import session

    return session(cfg.database_url)


def events_visible(events: list[Event], player: str) -> bool:
    return any(e.visible_to(player) for e in events)
