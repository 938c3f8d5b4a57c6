"""Queuing outgoing mail in the record, and sending it after commit.

Queue functions only add `OutboxMessage` rows inside the caller's
transaction (transactional outbox).  `send_pending` runs after commit (from
the poll's `Dispatcher` thread, while the next message is handled): it
sends each queued message with its stable Message-ID and marks it sent in its
own small transaction (one UPDATE), so a crash mid-send causes at most one duplicate.
Transient failures are retried on later runs with exponential backoff; after
`[smtp] max_attempts` the message is marked failed and the moderator is told.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
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
from .record.db import reading, transaction
from .record.home_secrets import message_id_key
from .record.models import GameEvent, OutboxMessage
from .reports import render_pair

log = logging.getLogger("pbem.outbox")


def _queue(
    s: Session,
    cfg: Config,
    *,
    key: tuple,
    to: str,
    to_name: str,
    subject: str,
    text: str,
    html: str | None,
    purpose: str,
    when: datetime,
    game_id: int | None = None,
    player: str = "",
    upto_seq: int = 0,
    in_reply_to: str | None = None,
    references: tuple[str, ...] = (),
    auto: str = "auto-generated",
    keep: tuple[str, str | None] | None = None,
) -> None:
    """Add one message to the outbox.  `keep` is the (text, html) to keep once sent, if `text` holds a secret.

    A plain INSERT in the session's transaction: no ORM object is needed, and
    building one cost more than composing the mail.
    """
    mid = stable_message_id(cfg.domain, *key, secret=message_id_key(s))

    def build(t: str, h: str | None) -> bytes:
        return compose(
            sender=cfg.moderator_address,
            sender_name=cfg.moderator_name,
            to=to,
            to_name=to_name,
            subject=subject,
            text=t,
            html=h,
            message_id=mid,
            when=when,
            auto=auto,
            in_reply_to=in_reply_to,
            references=references,
        )

    s.connection().execute(
        OutboxMessage.__table__.insert().values(
            message_id=mid,
            game_id=game_id,
            player=player,
            purpose=purpose,
            upto_seq=upto_seq,
            to_addr=to,
            raw=build(text, html),
            keep_raw=build(*keep) if keep else None,
            status="queued",
            attempts=0,
            last_error="",
            next_attempt_at=when,
            created_at=when,
            sent_at=None,
        )
    )


REDACTED = "[redacted once sent]"


def last_report_seq(s: Session, game_id: int, player: str) -> int:
    return last_report_seqs(s, game_id).get(player, 0)


def last_report_seqs(s: Session, game_id: int) -> dict[str, int]:
    """For each player of the game, the last event seq their reports covered (one query)."""
    q = (
        select(OutboxMessage.player, func.max(OutboxMessage.upto_seq))
        .where(OutboxMessage.game_id == game_id, OutboxMessage.purpose == "report")
        .group_by(OutboxMessage.player)
    )
    return {player: seq or 0 for player, seq in s.exec(q).all()}


@dataclass
class Moment:
    """What every report at one point of a game shares, read once however many players are told."""

    requests: list
    result: Any
    deadline: Any
    events: list[GameEvent]  # rows after `after`, in order
    after: int

    @classmethod
    def read(cls, s: Session, loaded: store.Loaded, after: int) -> Moment:
        eng = loaded.engine
        return cls(
            eng.requests(loaded.state),
            eng.result(loaded.state),
            store.current_deadline(s, loaded.game.id),
            store.events_for(s, loaded.game.id, after),
            after,
        )


def report_context(
    s: Session,
    cfg: Config,
    loaded: store.Loaded,
    player: str,
    since: int,
    code: str | None = None,
    moment: Moment | None = None,
) -> dict[str, Any]:
    """Everything a report template gets: only `player`'s view and the events they may see."""
    if moment is None or moment.after > since:
        moment = Moment.read(s, loaded, since)
    eng = loaded.engine
    game = loaded.game
    happened = [r.text for r in moment.events if r.seq > since and store.event_of(r).visible_to(player)]
    requests, result, dl = moment.requests, moment.result, moment.deadline
    reqs = [r for r in requests if r.player == player]
    waiting = sorted({r.player for r in requests if not r.answered})
    view = eng.view(loaded.state, player)
    asked = [
        {
            "prompt": r.prompt,
            "syntax": list(r.syntax),
            "legal": list(r.legal),
            "default": list(r.default),
            "on_file": list(r.on_file),
            "answered": r.answered,
        }
        for r in reqs
    ]
    return {
        "title": eng.title,
        "game_name": game.name,
        "player": player,
        "view": view,
        "sections": view["sections"],
        "happened": happened,
        "asked": asked,
        "deadline": store.aware(dl.due_at).strftime("%Y-%m-%d %H:%M UTC") if (dl and reqs and result is None) else None,
        "waiting": waiting,
        "commitment": game.seed_commitment if since == 0 else None,
        "result": None if result is None else {"summary": result.summary, "scores": result.scores},
        "seed": game.seed if result is not None else None,
        "commitment_final": game.seed_commitment,
        "insecure_seed": game.insecure_seed,
        "code": code,
        "moderator": cfg.moderator_name,
    }


def queue_reports(s: Session, cfg: Config, loaded: store.Loaded, players: list[str], when: datetime) -> None:
    """Queue each of `players`' reports at the current point, reading what they share once."""
    if not players:
        return
    seqs = last_report_seqs(s, loaded.game.id)
    moment = Moment.read(s, loaded, min(seqs.get(p, 0) for p in players))
    for p in players:
        queue_report(s, cfg, loaded, p, when, since=seqs.get(p, 0), moment=moment)


def queue_report(
    s: Session,
    cfg: Config,
    loaded: store.Loaded,
    player: str,
    when: datetime,
    code: str | None = None,
    extra: str = "",
    since: int | None = None,
    subject: str | None = None,
    moment: Moment | None = None,
) -> None:
    """Queue `player`'s private report covering events since their last one.

    `extra` makes the Message-ID unique when the same point is reported twice
    (a STATUS request, a replacement player's first report).
    """
    seat = loaded.seat_for_player(player)
    if seat is None:
        return
    if since is None:
        since = last_report_seq(s, loaded.game.id, player)
    ctx = report_context(s, cfg, loaded, player, since, code=code, moment=moment)
    text, html = render_pair("report", **ctx)
    keep = render_pair("report", **{**ctx, "code": REDACTED}) if code else None
    if subject is None:
        subject = f"[pbem {loaded.game.name}] {ctx['view']['turn']}"
        if ctx["result"] is not None:
            subject = f"[pbem {loaded.game.name}] Final report: {ctx['result']['summary']}"
    _queue(
        s,
        cfg,
        key=(loaded.game.name, "report", player, loaded.event_seq, loaded.seq, seat.id, extra),
        to=seat.address,
        to_name=seat.display_name or player,
        subject=subject,
        text=text,
        html=html,
        purpose="report",
        when=when,
        game_id=loaded.game.id,
        player=player,
        upto_seq=loaded.event_seq,
        keep=keep,
    )


def queue_reply(
    s: Session,
    cfg: Config,
    *,
    to: str,
    to_name: str,
    template: str,
    subject: str,
    when: datetime,
    in_reply_to: str,
    references: tuple[str, ...] = (),
    game_id: int | None = None,
    player: str = "",
    purpose: str = "ack",
    key_id: str | None = None,
    **ctx: Any,
) -> None:
    text, html = render_pair(template, moderator=cfg.moderator_name, **ctx)
    _queue(
        s,
        cfg,
        key=(purpose, key_id or in_reply_to, to),
        to=to,
        to_name=to_name,
        subject=subject,
        text=text,
        html=html,
        purpose=purpose,
        when=when,
        game_id=game_id,
        player=player,
        in_reply_to=in_reply_to,
        references=references,
        auto="auto-replied",
    )


def queue_notice(
    s: Session,
    cfg: Config,
    *,
    to: str,
    subject: str,
    body: str,
    when: datetime,
    key: tuple,
    game_id: int | None = None,
    player: str = "",
    purpose: str = "notice",
    in_reply_to: str | None = None,
    keep_body: str | None = None,
) -> None:
    text, html = render_pair("notice", body=body, moderator=cfg.moderator_name)
    keep = render_pair("notice", body=keep_body, moderator=cfg.moderator_name) if keep_body is not None else None
    _queue(
        s,
        cfg,
        key=(purpose, *key),
        to=to,
        to_name="",
        subject=subject,
        text=text,
        html=html,
        purpose=purpose,
        when=when,
        game_id=game_id,
        player=player,
        in_reply_to=in_reply_to,
        auto="auto-replied" if in_reply_to else "auto-generated",
        keep=keep,
    )


def replies_in_last_hour(s: Session, address: str, when: datetime) -> int:
    q = (
        select(func.count())
        .select_from(OutboxMessage)
        .where(
            OutboxMessage.to_addr == address,
            OutboxMessage.created_at > when - timedelta(hours=1),
            OutboxMessage.purpose.in_(("ack", "notice")),
        )
    )
    return s.exec(q).one()


@dataclass
class SendSummary:
    sent: int = 0
    retry: int = 0
    failed: int = 0


def send_pending(
    cfg: Config,
    sender: Sender,
    when: datetime,
    summary: SendSummary | None = None,
    abort: threading.Event | None = None,
    spent: dict[str, float] | None = None,
) -> SendSummary:
    """Send every due queued message.  Raises TransportError if the server cannot be reached at all.

    Each message is read just before it is sent (a concurrent run may have taken
    it), without waiting for the write lock, and marked sent right after in its
    own one-statement transaction, so a crash between the two repeats at most
    that one message.
    """
    summary = summary or SendSummary()
    spent = spent if spent is not None else {}
    c = OutboxMessage.__table__.c
    with reading(cfg.database_url) as conn:
        ids = (
            conn.execute(select(c.id).where(c.status == "queued", c.next_attempt_at <= when).order_by(c.id))
            .scalars()
            .all()
        )
    for oid in ids:
        if abort is not None and abort.is_set():
            break
        with reading(cfg.database_url) as conn:  # no lock: at worst a concurrent run sends it too, once
            got = conn.execute(select(c.raw, c.to_addr).where(c.id == oid, c.status == "queued")).first()
        if got is None:
            continue  # a concurrent run took it
        raw, to = got
        t0 = time.perf_counter()
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
        t1 = time.perf_counter()
        with transaction(cfg.database_url) as conn:  # sent: the player's code (if any) leaves with the mail
            conn.execute(
                OutboxMessage.__table__.update()
                .where(c.id == oid)
                .values(
                    status="sent",
                    sent_at=when,
                    last_error="",
                    attempts=c.attempts + 1,
                    raw=func.coalesce(c.keep_raw, c.raw),
                    keep_raw=None,
                )
            )
        t2 = time.perf_counter()
        spent["sending"] = spent.get("sending", 0.0) + (t1 - t0)
        spent["marking_sent"] = spent.get("marking_sent", 0.0) + (t2 - t1)
        summary.sent += 1
    return summary


class Dispatcher:
    """Sends queued mail on a background thread while the poll goes on with the next message.

    The poll nudges it after each committed message; it sends whatever is due
    with `send_pending`, so the guarantees are the same as a send after the
    run.  Mail is out sooner, and the time spent waiting on the mail server
    overlaps with handling orders.  The first TransportError stops it; `finish`
    re-raises it once every message has been handled, so nothing is lost and
    the run still exits with that reason.
    """

    def __init__(self, cfg: Config, sender: Sender, clock) -> None:
        self.cfg, self.sender, self.clock = cfg, sender, clock
        self.summary = SendSummary()
        self.spent: dict[str, float] = {"sending": 0.0, "marking_sent": 0.0}  # seconds: server, record lock + UPDATE
        self.error: BaseException | None = None
        self._wake = threading.Event()
        self._abort = threading.Event()
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="pbem-sender", daemon=True)
        self._interval = sys.getswitchinterval()

    def __enter__(self) -> Dispatcher:
        sys.setswitchinterval(min(self._interval, 0.001))  # answer the mail server promptly
        self._thread.start()
        return self

    def nudge(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            closing = self._closing
            try:
                send_pending(self.cfg, self.sender, self.clock(), self.summary, self._abort, self.spent)
            except BaseException as exc:  # kept for the poll to raise; sending stops for this run
                self.error = exc
                return
            if closing:
                return

    def finish(self) -> SendSummary:
        """Send what is still due, wait, and raise the sender's error if it had one."""
        self._stop()
        if self.error is not None:
            raise self.error
        return self.summary

    def _stop(self) -> None:
        self._closing = True
        self._wake.set()
        self._thread.join()
        sys.setswitchinterval(self._interval)

    def __exit__(self, exc_type, *_: object) -> None:
        if self._thread.is_alive():  # the poll failed: let the current mail finish, send nothing more
            self._abort.set()
            self._stop()


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
                queue_notice(
                    s,
                    cfg,
                    to=cfg.moderator_address,
                    subject=f"[pbem] undeliverable mail to {row.to_addr}",
                    body=f"pbem gave up sending {row.message_id} ({row.purpose}) to {row.to_addr} "
                    f"after {row.attempts} attempts.\nLast error: {row.last_error}",
                    when=when,
                    key=("failed", row.message_id),
                    purpose="alert",
                )
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
