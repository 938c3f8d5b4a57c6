"""What makes two deliveries the same message (pure; issue 12, "Intake is exactly-once").

A message is the same message as one already read when it has the same
Message-ID and the same sender (the shell looks that up), or, when it has no
Message-ID, the same content: every header except the trace and delivery
headers below, plus the body.  Mail picks up headers on its way (each relay
prepends `Received`; the final server adds `Delivered-To`, `Return-Path`,
authentication and spam verdicts), so a copy delivered twice, through a
forwarder, a retried relay or a mailbox moved between servers, differs only
in those.  `content_hash` leaves them out; `missing_message_id` makes the
stand-in Message-ID of a message without one from it, so that both rules
become one lookup by (Message-ID, sender).

The headers left out, and why:
* trace fields (RFC 5321 section 4.4, RFC 5322 section 3.6.7): `Received`,
  `Return-Path`, and the `Resent-*` fields a redirect adds;
* delivery: `Delivered-To` (Postfix, Dovecot LDA, qmail), `X-Original-To`
  (Postfix), `Envelope-To` (Exim), `X-Envelope-From`/`-To`, `X-Rcpt-To`;
* verdicts added on receipt: `Authentication-Results` (RFC 8601), `Received-SPF`
  (RFC 7208), the ARC set (`ARC-*`, RFC 8617), `DKIM-Signature` (a forwarder
  may add its own signature; the signed content itself is still compared),
  spam and virus scanners (`X-Spam-*`, `X-Virus-*`, `X-Rspamd-*`,
  `X-Amavis-*`), Gmail's and Exchange's own stamps (`X-Received`,
  `X-Gm-*`, `X-Google-*`, `X-MS-Exchange-*`, `X-Microsoft-Antispam*`,
  `X-Forefront-*`, `X-Original-Arrival-Time`);
* mailbox state kept in the message by mbox and Maildir tools: `Status`,
  `X-Status`, `X-Keywords`, `X-UID`, `X-IMAPbase`, `Content-Length`, `Lines`.

Header values are compared unfolded with runs of white space made one, and the
body with its line endings made LF and trailing white space at its end removed,
because servers change both (IMAP hands out CRLF, Maildir keeps LF).  A relay
that re-encodes the body (an 8BITMIME downgrade) makes a different content;
such mail nearly always carries a Message-ID, which is then what counts.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

TRACE = frozenset(
    {
        "received",
        "return-path",
        "delivered-to",
        "x-original-to",
        "envelope-to",
        "x-envelope-from",
        "x-envelope-to",
        "x-rcpt-to",
        "authentication-results",
        "received-spf",
        "dkim-signature",
        "x-received",
        "x-original-arrival-time",
        "status",
        "x-status",
        "x-keywords",
        "x-uid",
        "x-imapbase",
        "content-length",
        "lines",
    }
)
TRACE_PREFIXES = (
    "resent-",
    "arc-",
    "x-spam-",
    "x-virus-",
    "x-rspamd-",
    "x-amavis-",
    "x-gm-",
    "x-google-",
    "x-ms-exchange-",
    "x-microsoft-antispam",
    "x-forefront-",
)


def is_trace(name: str) -> bool:
    """A header added on the way or on delivery, not written by the sender."""
    name = name.strip().lower()
    return name in TRACE or name.startswith(TRACE_PREFIXES)


def content_hash(raw: bytes) -> str:
    """SHA-256 of what the sender wrote: the headers that are not trace headers, in order, and the body."""
    text = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    head, sep, body = text.partition(b"\n\n")
    if not sep and b":" not in text.split(b"\n", 1)[0]:
        head, body = b"", text
    fields: list[list[bytes]] = []  # each field's lines: joined once (adding each continuation line to the bytes
    # so far copied them again for each line: 5 s for a header folded over 1.9 MB)
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1].append(line.strip())
        elif line:
            fields.append([line])
    h = hashlib.sha256()
    for lines in fields:
        if b":" not in lines[0]:  # (its name runs on to a continuation line: joined, as it reads)
            lines = [b" ".join(lines)]
        name, _, value = lines[0].partition(b":")
        if is_trace(name.decode("latin-1")):
            continue
        h.update(name.strip().lower() + b":")
        _words_hashed(h, [value, *lines[1:]])
        h.update(b"\n")
    h.update(b"\n" + body.rstrip())
    return h.hexdigest()


_WORD = re.compile(rb"\S+")


def _words_hashed(h: Any, pieces: list[bytes]) -> None:
    """`h.update(b" ".join(b" ".join(pieces).split()))`, a word at a time: the words' list and their join held some 17
    bytes a byte of a long header of a mail with no Message-ID (costs26)."""
    first = True
    for piece in pieces:
        for m in _WORD.finditer(piece):
            if not first:
                h.update(b" ")
            h.update(m.group())
            first = False


def missing_message_id(raw: bytes) -> str:
    """The stand-in Message-ID of a message without one: the same for every delivery of the same content."""
    return f"<missing.{content_hash(raw)[:32]}@pbem.invalid>"


def sent_at(date: str, arrived: datetime) -> datetime:
    """When the message says it was written (its Date), never later than it arrived.

    A Date in the future (a wrong clock, a forgery) counts as the arrival time, so
    it cannot make every later message look older; no readable Date counts as
    the arrival time too.
    """
    if arrived.tzinfo is None:
        arrived = arrived.replace(tzinfo=UTC)
    try:
        when = parsedate_to_datetime(date) if date else None
        if when is None:
            return arrived
        return min((when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC), arrived)
    except (TypeError, ValueError, IndexError, OverflowError):  # a Date no calendar holds
        return arrived
