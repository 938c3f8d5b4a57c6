"""An outgoing mail as data, and the row the outbox keeps for it.

The use-case layer decides mails as `Mail` values (recipient, kind of mail =
template name, template context, purpose, key) and never builds a body; this
module renders the template pair (`pbem.render.templates.render_mail`) and composes the
MIME message with its stable Message-ID (`pbem.mail.outbound.compose`).

A mail about a game carries a `Receipt`: where the game's chained record
stood when it was rendered (`X-Pbem-Record: <entries> <head>` and a line
"Record #214, 4f1a9c2e..."), and for the acknowledgement of accepted orders
the input it recorded (`X-Pbem-Input: <seq> <hash>`).  A report that states
the seed commitment also carries it as `X-Pbem-Commitment`.  So a player's
mailbox is a receipt that `pbem verify --mail` checks (`pbem.trust.receipts`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from pbem.home.stages import stage
from pbem.mail.outbound.compose import Body, Envelope, compose, earlier_forms, stable_message_id
from pbem.mail.outbound.sealed import seal
from pbem.render.templates import render_mail

REDACTED = "[redacted once sent]"
RECORD_HEADER = "X-Pbem-Record"
INPUT_HEADER = "X-Pbem-Input"
COMMITMENT_HEADER = "X-Pbem-Commitment"
#: On the mails that state the commitment, in a game with a key: the checks its entries promise (`signing.promised`).
BINDINGS_HEADER = "X-Pbem-Bindings"


class Letterhead(Protocol):
    """Whom a home's mail is from: all that composing reads of the settings (`pbem.home.policy.Policy`
    has it; so does the whole `pbem.home.config.Config`, for the sender's own alerts)."""

    @property
    def domain(self) -> str: ...  # the Message-IDs' right-hand side
    @property
    def moderator_address(self) -> str: ...
    @property
    def moderator_name(self) -> str: ...
    @property
    def home(self) -> Path | None: ...  # its `outbox.key` seals the queued mails that carry a code


@dataclass(frozen=True)
class Receipt:
    """The record of a game when a mail was rendered: `entries` entries ending at `head` (the chain's
    hash after the last of them); `input`: (seq, hash) of the input the mail acknowledges."""

    entries: int
    head: str
    input: tuple[int, str] | None = None
    # set for a game with a signing key (`pbem.trust.signing.receipt_fields`): the receipt is signed
    game: str = ""
    header: str = ""
    key: str | None = field(default=None, repr=False)
    bindings: int = 0  # the game's format mark (`pbem.trust.asked.BINDINGS`), in H: told by BINDINGS_HEADER

    def context(self) -> dict[str, Any]:
        """What the templates get: `record` (the line every game mail shows) and `receipt` (the ack's input)."""
        receipt = None if self.input is None else {"seq": self.input[0], "hash": self.input[1]}
        record: dict[str, Any] = {"entries": self.entries, "head": self.head}
        if self.key:
            from pbem.trust.signing import fingerprint, public_key

            record["key"] = fingerprint(public_key(self.key))
            record["bindings"] = self.bindings  # which checks the game promises (the invitation says it)
        return {"record": record, "receipt": receipt}

    def headers(self) -> tuple[tuple[str, str], ...]:
        out = [(RECORD_HEADER, f"{self.entries} {self.head}")]
        if self.input is not None:
            out.append((INPUT_HEADER, f"{self.input[0]} {self.input[1]}"))
        if self.key:
            from pbem.trust.signing import headers_for

            out.extend(headers_for(self.game, self.header, self.key, self.entries, self.head, self.input))
        return tuple(out)


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


def message_id(head: Letterhead, mail: Mail, secret: bytes) -> str:
    """`mail`'s stable Message-ID, keyed with the home's secret (see `stable_message_id`)."""
    return stable_message_id(head.domain, mail.purpose, *mail.key, secret=secret)


def thread_root(head: Letterhead, thread: str, secret: bytes) -> str | None:
    """The Message-ID of the first report to a seat's player (`Seat.thread`), which their later mail references
    so that mail clients thread a game; None for seats made before threads existed.  Named without a restore
    epoch (`bytes(secret)`): a seat's first report made before a restore keeps its id; one made after it carries the
    epoch, and a reply naming either form is looked up by both (`pbem.record.home_secrets.variants`)."""
    return stable_message_id(head.domain, "report", "thread", thread, secret=bytes(secret)) if thread else None


def outbox_row(
    head: Letterhead,
    mail: Mail,
    when: datetime,
    secret: bytes,
    game_id: int | None = None,
    receipt: Receipt | None = None,
) -> dict[str, Any]:
    """The outbox row for `mail`: the composed message (and its redacted copy when it holds a secret).
    `receipt`: the game's record as this mail is rendered (a mail about no game has none)."""
    mid = message_id(head, mail, secret)
    extra = receipt.headers() if receipt is not None else ()
    commitment = mail.context.get("commitment")
    if isinstance(commitment, str) and commitment:
        extra += ((COMMITMENT_HEADER, commitment),)
        if receipt is not None and receipt.key:  # which checks the game promises, bound by the signed H (fairness26)
            from pbem.trust.signing import promised

            extra += ((BINDINGS_HEADER, promised(receipt.bindings)),)
    record = receipt.context() if receipt is not None else {"record": None, "receipt": None}

    def build(ctx: dict[str, Any]) -> bytes:
        with stage("rendering"):
            r = render_mail(
                mail.kind,
                {
                    **ctx,
                    **record,
                    "moderator": head.moderator_name,
                    "moderator_address": head.moderator_address,
                    "now": when.isoformat(),  # the render time: deadlines are told as "in 23 hours" from it
                },
            )
        with stage("composing"):
            envelope = Envelope(
                sender=head.moderator_address,
                sender_name=head.moderator_name,
                to=mail.to,
                to_name=mail.to_name,
                message_id=mid,
                when=when,
                auto="auto-replied" if mail.in_reply_to else "auto-generated",
                in_reply_to=mail.in_reply_to,
                references=(*mail.references, *earlier_forms(mid, secret)),
                extra=extra,
            )
            return compose(envelope, Body(r.subject, r.text, r.html, r.images))

    secret_text = mail.secret and mail.context.get(mail.secret)
    raw = build(mail.context)
    keep_raw = None
    if secret_text and mail.secret:  # the code never reaches the record in clear (`pbem.mail.outbound.sealed`)
        assert head.home is not None, "a mail carrying a code is sealed with its home's key"
        raw, keep_raw = seal(head.home, raw), build({**mail.context, mail.secret: REDACTED})
    return dict(
        message_id=mid,
        game_id=game_id if game_id is not None else mail.game_id,
        player=mail.player,
        purpose=mail.purpose,
        upto_seq=mail.upto_seq,
        to_addr=mail.to,
        raw=raw,
        keep_raw=keep_raw,
        status="queued",
        attempts=0,
        last_error="",
        next_attempt_at=when,
        created_at=when,
        sent_at=None,
    )
