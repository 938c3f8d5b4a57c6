"""Building outgoing messages (pure): multipart text + HTML with stable ids.

Every message carries `Auto-Submitted` (auto-generated for reports,
auto-replied for answers to a player's mail), an `X-Loop` naming the
moderator so our own mail is never answered, and threading headers.
"""

from __future__ import annotations

import hashlib
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from datetime import datetime


def stable_message_id(domain: str, *key: object) -> str:
    digest = hashlib.sha256("\x1f".join(str(k) for k in key).encode()).hexdigest()[:32]
    return f"<pbem.{digest}@{domain}>"


def compose(*, sender: str, sender_name: str, to: str, to_name: str, subject: str, text: str, html: str | None,
            message_id: str, when: datetime, auto: str = "auto-generated", in_reply_to: str | None = None,
            references: tuple[str, ...] = ()) -> bytes:
    msg = EmailMessage()
    msg["From"] = formataddr((sender_name, sender))
    msg["To"] = formataddr((to_name, to))
    msg["Subject"] = subject
    msg["Date"] = format_datetime(when)
    msg["Message-ID"] = message_id
    msg["Auto-Submitted"] = auto
    msg["X-Loop"] = sender
    msg["X-Mailer"] = "pbem"
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
        msg["References"] = " ".join([*references, in_reply_to][-10:])
    # quoted-printable keeps every line under SMTP's 998-character limit, whatever the report holds
    msg.set_content(text, charset="utf-8", cte="quoted-printable")
    if html is not None:
        msg.add_alternative(html, subtype="html", charset="utf-8", cte="quoted-printable")
    return msg.as_bytes()
