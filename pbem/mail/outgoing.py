"""An outgoing mail as data, and the row the outbox keeps for it.

The use-case layer decides mails as `Mail` values (recipient, kind of mail =
template name, template context, purpose, key) and never builds a body; this
module renders the template pair (`pbem.reports.render_mail`) and composes the
MIME message with its stable Message-ID (`pbem.mail.compose`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..config import Config
from ..reports import render_mail
from .compose import compose, stable_message_id

REDACTED = "[redacted once sent]"


@dataclass(frozen=True)
class Mail:
    """One mail to queue.  `key` makes its Message-ID: the same decision queues the same ids.

    `secret` names a context entry (a player code) that the copy kept once the
    mail is sent shows as REDACTED.
    """

    to: str
    kind: str
    context: dict[str, Any]
    purpose: str
    key: tuple[object, ...]
    to_name: str = ""
    player: str = ""
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    secret: str | None = None
    upto_seq: int = 0
    game_id: int | None = field(default=None, compare=False)


def message_id(cfg: Config, mail: Mail, secret: bytes) -> str:
    """`mail`'s stable Message-ID, keyed with the home's secret (see `stable_message_id`)."""
    return stable_message_id(cfg.domain, mail.purpose, *mail.key, secret=secret)


def thread_root(cfg: Config, thread: str, secret: bytes) -> str | None:
    """The Message-ID of the first report to a seat's player (`Seat.thread`), which their later mail references
    so that mail clients thread a game; None for seats made before threads existed."""
    return stable_message_id(cfg.domain, "report", "thread", thread, secret=secret) if thread else None


def outbox_row(cfg: Config, mail: Mail, when: datetime, secret: bytes, game_id: int | None = None) -> dict[str, Any]:
    """The outbox row for `mail`: the composed message (and its redacted copy when it holds a secret)."""
    mid = message_id(cfg, mail, secret)

    def build(ctx: dict[str, Any]) -> bytes:
        r = render_mail(mail.kind, {**ctx, "moderator": cfg.moderator_name, "moderator_address": cfg.moderator_address})
        return compose(
            sender=cfg.moderator_address,
            sender_name=cfg.moderator_name,
            to=mail.to,
            to_name=mail.to_name,
            subject=r.subject,
            text=r.text,
            html=r.html,
            message_id=mid,
            when=when,
            auto="auto-replied" if mail.in_reply_to else "auto-generated",
            in_reply_to=mail.in_reply_to,
            references=mail.references,
        )

    secret_text = mail.secret and mail.context.get(mail.secret)
    return dict(
        message_id=mid,
        game_id=game_id if game_id is not None else mail.game_id,
        player=mail.player,
        purpose=mail.purpose,
        upto_seq=mail.upto_seq,
        to_addr=mail.to,
        raw=build(mail.context),
        keep_raw=build({**mail.context, mail.secret: REDACTED}) if (secret_text and mail.secret) else None,
        status="queued",
        attempts=0,
        last_error="",
        next_attempt_at=when,
        created_at=when,
        sent_at=None,
    )
