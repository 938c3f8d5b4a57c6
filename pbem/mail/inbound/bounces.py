"""What a bounce says (pure): which addresses mail could not reach, why, and which mail of pbem's came back.

`pbem.mail.inbound.loops` already tells a bounce from a person's mail (a null or daemon sender, a DSN, a
`multipart/report`, `X-Failed-Recipients`), so that it is never answered; here the same mail is read for the
moderator (`pbem.app.bounced`).  Read, each bounded, in the first `READ_BYTES` of the mail, at most `MOST_PARTS`
parts:

* each `message/delivery-status` part's per-recipient blocks (RFC 3464): `Final-Recipient` (else
  `Original-Recipient`) of every block whose `Action` is `failed` (or absent), with its `Diagnostic-Code` or
  `Status` as the reason;
* `X-Failed-Recipients` (Exim, Gmail);
* the Message-ID of the mail that came back (a `message/rfc822` or `text/rfc822-headers` part, or a line of the
  text quoting it, as qmail and Exim do, indented or `>`-quoted too): the outbox knows whom pbem sent it to, and
  only that ties a bounce to an address (`addresses`, months4), since a bounce's own words are anyone's to write
  and pbem's Message-IDs are keyed with the home's secret (nobody else can make one of a mail they did not get);
* the reason, when no DSN gives one: the first line of the text part that names the address, else that looks
  like an SMTP reply (`5xx`), else the subject.

A bounce's text is hostile input: every value is cut to `REASON_CHARS` with its runs of white space made one
space (templates show control characters escaped, `pbem.render.sanitize`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from email.message import Message

from pbem.mail.inbound.loops import is_daemon
from pbem.mail.inbound.message import parse_bytes, too_many_parts, too_nested
from pbem.mail.inbound.words import decoded

READ_BYTES = 64_000  # of the bounce: the DSN and the returned headers come first in every format seen
MOST_PARTS = 50
MOST_ADDRESSES = 20  # a DSN naming more is cut: pbem sends each mail to one address
REASON_CHARS = 200
_ADDRESS = re.compile(r"<?([^\s<>@;,\"']{1,64}@[^\s<>@;,\"']{1,255})>?")
_SMTP = re.compile(r"\b[45]\d\d[ -]|\b[45]\.\d{1,3}\.\d{1,3}\b")
_FAILED = {"failed", ""}


@dataclass
class Bounce:
    """What one bounce says: the addresses that failed (lower case) with each one's reason, and the Message-IDs of
    the mails that came back."""

    failed: dict[str, str] = field(default_factory=dict)
    returned: list[str] = field(default_factory=list)
    subject: str = ""
    status: dict[str, str] = field(default_factory=dict)  # a DSN's Status of each address, when it gives no more
    dsn: bool = False  # it holds a delivery status (RFC 3464), or names X-Failed-Recipients
    receipt: bool = False  # a read receipt (RFC 8098 MDN): never a bounce
    failing: bool = False  # a delivery status says some recipient failed (an address it names or not)

    def reason(self, address: str) -> str:
        return self.failed.get(address.lower()) or self.subject


def bounced(sender: str, b: Bounce) -> bool:
    """Whether a mail pbem will not answer (`loops.auto_reason`) from `sender` that says `b` is a bounce: from a mail
    system or carrying a delivery status, and no read receipt.  A vacation reply is neither."""
    return not b.receipt and (b.dsn or is_daemon(sender))


def addresses(b: Bounce, returned_to: list[str]) -> dict[str, str]:
    """The addresses that bounced, each with its reason: the recipients of the mails of pbem's that came back
    (`returned_to`, from the outbox by the returned Message-IDs), unless a DSN says none failed (a delay, a
    success).  An address the bounce only names (a DSN's `Final-Recipient`, `X-Failed-Recipients`) is anyone's to
    write: it is not told (months4: a forged DSN naming the address a seat asked to move to mailed that player once
    a day, and one naming a seat's address told the moderator it was dead).  The reason is the DSN's for that
    address, else its only failed address's (a mail forwarded on, whose next address failed), else the subject."""
    if b.dsn and not b.failing and not b.failed:
        return {}
    only = next(iter(b.failed.values())) if len(b.failed) == 1 else ""
    out: dict[str, str] = {}
    for address in returned_to[:MOST_ADDRESSES]:
        a = address.lower()
        out[a] = b.failed.get(a) or only or b.subject
    return out


def one_line(text: str, most: int = REASON_CHARS) -> str:
    """`text` as one line of at most `most` characters (a longer one ends in "...")."""
    line = " ".join(str(text)[: most * 4].split())
    return line if len(line) <= most else line[: most - 3] + "..."


def read(raw: bytes) -> Bounce:
    """What the bounce `raw` says; never raises (an unreadable part says nothing)."""
    head = raw[:READ_BYTES]
    out = Bounce()
    try:
        msg = parse_bytes(head, headersonly=too_nested(head) or too_many_parts(head))
        out.subject = one_line(decoded(str(msg.get("Subject", "")))[:1000])
        for value in msg.get_all("X-Failed-Recipients") or []:
            out.dsn = True
            for address in _ADDRESS.findall(str(value)[:2000])[:MOST_ADDRESSES]:
                out.failed.setdefault(address.lower(), "")
        texts: list[str] = []
        for n, part in enumerate(msg.walk()):
            if n >= MOST_PARTS:
                break
            _part(part, out, texts)
        for t in texts:  # a copy quoted in the text (qmail, Exim), indented or quoted (a bounce forwarded)
            _quoted_ids(t.splitlines()[:400], out)
        for address in list(out.failed):
            if not out.failed[address]:
                out.failed[address] = _from_text(texts, address) or out.status.get(address, "")
    except Exception:  # a broken bounce says what was read before it broke
        pass
    return out


def _part(part: Message, out: Bounce, texts: list[str]) -> None:
    ctype = part.get_content_type()
    if ctype in ("message/delivery-status", "text/delivery-status"):
        out.dsn = True
        for block in _blocks(part):
            _recipient(block, out)
    elif ctype == "message/rfc822":
        inner = part.get_payload()
        if isinstance(inner, list) and inner and isinstance(inner[0], Message):
            _returned(str(inner[0].get("Message-ID", "")), out)
    elif ctype == "text/rfc822-headers":
        text = _text(part)
        _returned(str(parse_bytes(text.encode("utf-8", "replace"), headersonly=True).get("Message-ID", "")), out)
    elif ctype == "message/disposition-notification":
        out.receipt = True
    elif ctype == "text/plain" and len(texts) < 3:
        texts.append(_text(part))


def _blocks(part: Message) -> list[Message]:
    """The DSN's header blocks (the parser makes each a message), or those read from its text."""
    payload = part.get_payload()
    if isinstance(payload, list):
        return [b for b in payload[: MOST_ADDRESSES + 1] if isinstance(b, Message)]
    text = _text(part).replace("\r\n", "\n")
    return [
        parse_bytes(b.encode("utf-8", "replace"), headersonly=True) for b in text.split("\n\n")[: MOST_ADDRESSES + 1]
    ]


def _recipient(block: Message, out: Bounce) -> None:
    action = str(block.get("Action", "")).strip().lower()
    who = str(block.get("Final-Recipient", "") or block.get("Original-Recipient", ""))
    if action not in _FAILED or not who or len(out.failed) >= MOST_ADDRESSES:
        return
    out.failing = True
    found = _ADDRESS.search(who.split(";", 1)[-1][:400])
    if found is None:
        return
    why = one_line(str(block.get("Diagnostic-Code", "")).split(";", 1)[-1])
    address = found.group(1).lower()
    if why or address not in out.failed:
        out.failed[address] = why
    if status := one_line(str(block.get("Status", "")), 20):
        out.status.setdefault(address, f"Status: {status}")


def _quoted_ids(lines: list[str], out: Bounce) -> None:
    """The Message-IDs of the copies quoted in a bounce's text: a line `Message-ID: <...>` after any indent or `>`
    quoting, its value on the next line when folded there."""
    for n, line in enumerate(lines):
        bare = line[:1000].lstrip(" \t>")
        if bare[:11].lower() != "message-id:":
            continue
        value = bare[11:].strip() or (lines[n + 1][:1000].lstrip(" \t>").strip() if n + 1 < len(lines) else "")
        _returned(value, out)


def _returned(message_id: str, out: Bounce) -> None:
    mid = " ".join(message_id.split())
    if mid and len(mid) <= 998 and mid not in out.returned and len(out.returned) < MOST_ADDRESSES:
        out.returned.append(mid)


def _text(part: Message) -> str:
    try:
        data = part.get_payload(decode=True)
    except Exception:
        return ""
    if not isinstance(data, bytes):
        return str(part.get_payload())[:20_000]
    return data[:20_000].decode(part.get_content_charset() or "utf-8", "replace")


def _from_text(texts: list[str], address: str) -> str:
    """The line of the bounce's text that names `address`, else one that reads as an SMTP reply."""
    lines = [ln for t in texts for ln in t.splitlines()[:400]]
    for ln in lines:
        if address in ln.lower():
            return one_line(ln)
    for ln in lines:
        if _SMTP.search(ln[:1000]):
            return one_line(ln)
    return ""
