"""Reading an inbound message (pure): headers, sender, game tag and order text.

Handles what ordinary mail clients send: multipart/alternative (text/plain is
preferred; HTML-only mail is turned into text; format=flowed is unwrapped), any charset and transfer
encoding (unknown charsets fall back to UTF-8 with replacement), attachments
ignored, missing Message-IDs (a stable one is made from the body hash).
Nothing here raises on bad input: problems become `problem` text.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

MAX_BODY_CHARS = 64_000
MAX_RAW_BYTES = 2_000_000
GAME_TAG = re.compile(r"\[pbem\s+([A-Za-z0-9][A-Za-z0-9_.-]{0,63})\]", re.IGNORECASE)


@dataclass(frozen=True)
class Inbound:
    message_id: str
    body_hash: str
    sender: str  # bare address, lower case ("" if none)
    sender_name: str
    subject: str
    game: str | None  # from the [pbem NAME] tag
    text: str  # the chosen text body
    auto: str | None  # why this must never be answered (auto-reply, bulk, bounce, loop) or None
    problem: str | None  # why the body cannot be read (too long, binary) or None
    references: tuple[str, ...] = ()
    date: str = ""
    key: str = ""  # set when this Message-ID was already seen with other bytes

    @property
    def ident(self) -> str:
        """What outgoing Message-IDs caused by this message are derived from (unique per message)."""
        return self.key or self.message_id


class _HtmlText(HTMLParser):
    BLOCK = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "pre", "blockquote", "table"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.quote = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "head"):
            self.skip += 1
        if tag == "blockquote":
            self.quote += 1
        if tag == "br":
            self.out.append("\n")
        elif tag in self.BLOCK:
            self._newline()

    def _newline(self) -> None:
        """End the current line once: consecutive blocks (<div>s) are consecutive lines, not blank lines."""
        if self.out and not self.out[-1].endswith("\n"):
            self.out.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style", "head") and self.skip:
            self.skip -= 1
        if tag == "blockquote" and self.quote:
            self.quote -= 1
        if tag in self.BLOCK and tag != "br":
            self._newline()

    def handle_data(self, data):
        if self.skip:
            return
        if self.quote:
            data = "\n".join("> " + ln for ln in data.split("\n"))
        self.out.append(data)


def html_to_text(html: str) -> str:
    parser = _HtmlText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # a broken page still yields what was read so far
        pass
    return re.sub(r"\n{3,}", "\n\n", "".join(parser.out)).strip()


def _decode(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if payload is None:
        payload = str(part.get_payload()).encode("utf-8", "replace")
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, "replace")
    except LookupError:
        return payload.decode("utf-8", "replace")


def _text_parts(msg: Message, depth: int = 0) -> tuple[str | None, str | None]:
    """The first text/plain and the first text/html part outside attachments."""
    plain = html = None
    if depth > 20:
        return None, None
    if msg.is_multipart():
        for sub in msg.get_payload() or []:
            if not isinstance(sub, Message):
                continue
            if (sub.get_content_disposition() or "") == "attachment":
                continue
            p, h = _text_parts(sub, depth + 1)
            plain = plain or p
            html = html or h
            if plain:
                break
        return plain, html
    ctype = msg.get_content_type()
    if ctype == "text/plain":
        text = _decode(msg)
        if str(msg.get_param("format", "") or "").lower() == "flowed":
            text = unflow(text, str(msg.get_param("delsp", "") or "").lower() == "yes")
        return text, None
    if ctype == "text/html":
        return None, _decode(msg)
    return None, None


def unflow(text: str, delsp: bool = False) -> str:
    """Undo RFC 3676 format=flowed: join soft-broken lines (ending in a space) of the same quote depth.

    Space-stuffing is removed; with DelSp=yes the space before a soft break is deleted too.
    The signature separator "-- " is never a soft break.
    """
    out: list[str] = []
    joining: tuple[int, str] | None = None  # (quote depth, text so far) of a paragraph still open
    for raw in text.replace("\r\n", "\n").split("\n"):
        depth = len(raw) - len(raw.lstrip(">"))
        body = raw[depth:]
        if body.startswith(" "):
            body = body[1:]  # space-stuffing (or the space after the quote marks)
        if joining is not None and joining[0] != depth:
            out.append(_quoted_line(*joining))
            joining = None
        flowed = body.endswith(" ") and body != "-- "
        if flowed and delsp:
            body = body[:-1]
        text_so_far = (joining[1] if joining else "") + body
        if flowed:
            joining = (depth, text_so_far)
        else:
            out.append(_quoted_line(depth, text_so_far))
            joining = None
    if joining is not None:
        out.append(_quoted_line(*joining))
    return "\n".join(out)


def _quoted_line(depth: int, body: str) -> str:
    return (">" * depth + " " + body) if depth else body


def _auto_reason(msg: Message, sender: str, moderator: str) -> str | None:
    auto = str(msg.get("Auto-Submitted", "") or "").strip().lower()
    if auto and not auto.startswith("no"):
        return f"Auto-Submitted: {auto}"
    prec = str(msg.get("Precedence", "") or "").strip().lower()
    if prec in ("bulk", "list", "junk"):
        return f"Precedence: {prec}"
    if not sender or sender.split("@")[0] in ("mailer-daemon", "postmaster") or sender == "<>":
        return "bounce or null sender"
    for loop in msg.get_all("X-Loop", []) or []:
        if moderator and moderator.lower() in str(loop).lower():
            return "X-Loop names the moderator"
    if msg.get("List-Id") or msg.get("List-Unsubscribe"):
        return "mailing-list message"
    return None


def parse(raw: bytes, moderator: str = "") -> Inbound:
    body_hash = hashlib.sha256(raw).hexdigest()
    problem = None
    if len(raw) > MAX_RAW_BYTES:
        problem = f"the message is {len(raw)} bytes long; orders must fit in {MAX_RAW_BYTES} bytes"
        raw = raw[:64_000]
    try:
        msg: Message = BytesParser(policy=policy.compat32).parsebytes(raw)
    except Exception:  # pragma: no cover - the parser is lenient
        msg = EmailMessage()
    mid = _header(msg, "Message-ID").strip()
    if not mid or len(mid) > 900:
        mid = f"<missing.{body_hash[:32]}@pbem.invalid>"
    name, addr = parseaddr(re.sub(r"[\r\n]+", " ", str(msg.get("From", "") or "")))
    name = _decoded(name)
    sender = addr.strip().lower() if "@" in addr else ""
    subject = _header(msg, "Subject")
    tag = GAME_TAG.search(subject)
    text = ""
    if problem is None:
        plain, html = _text_parts(msg)
        if plain is not None:
            text = plain
        elif html is not None:
            text = html_to_text(html)
        else:
            problem = "the message has no text part (only attachments or binary content)"
        if "\x00" in text:
            problem = "the message body holds binary data (NUL bytes)"
        elif len(text) > MAX_BODY_CHARS:
            problem = f"the message body is {len(text)} characters long; orders must fit in {MAX_BODY_CHARS}"
    refs = tuple(x for x in re.findall(r"<[^<>\s]+>", _header(msg, "References") + " " + _header(msg, "In-Reply-To")))
    return Inbound(
        message_id=mid,
        body_hash=body_hash,
        sender=sender,
        sender_name=_clean(name),
        subject=subject,
        game=tag.group(1).lower() if tag else None,
        text=text if problem is None else "",
        auto=_auto_reason(msg, sender, moderator),
        problem=problem,
        references=refs,
        date=_header(msg, "Date")[:100],
    )


def _header(msg: Message, name: str) -> str:
    value = msg.get(name)
    if value is None:
        return ""
    return _decoded(str(value))


def _decoded(value: str) -> str:
    """RFC 2047 words decoded, control characters removed."""
    try:
        from email.header import decode_header, make_header

        text = str(make_header(decode_header(str(value))))
    except Exception:
        text = str(value)
    return _clean(text)


def _clean(text: str) -> str:
    """No control characters or line breaks (header injection) in a header value."""
    return re.sub(r"[\x00-\x1f\x7f]+", " ", text).strip()[:2000]


def all_recipients(msg: Message) -> list[str]:
    return [a for _, a in getaddresses(msg.get_all("To", []) + msg.get_all("Cc", []))]
