"""Building outgoing messages (pure): multipart text + HTML with stable ids.

Every message carries `Auto-Submitted` (auto-generated for reports,
auto-replied for answers to a player's mail), an `X-Loop` naming the
moderator so our own mail is never answered, and threading headers: an
answer has `In-Reply-To` and `References` of the message it answers; a
report or notice about a game `References` the player's first report.

The MIME is written directly rather than through `email.message.EmailMessage`:
the standard library's header registry parses back every header it is given,
which cost a fifth of a busy poll.  The output is what EmailMessage would
produce for the same content: RFC 2047 encoded words for any non-ASCII header,
headers folded under 78 characters, quoted-printable UTF-8 bodies (so no line
ever comes near SMTP's 998-character limit).  The boundary is derived from the
Message-ID, so the same message is built to the same bytes, and it holds
"=_", which quoted-printable can never produce inside a body.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import re
import threading
from dataclasses import dataclass
from datetime import datetime
from email.header import Header
from email.utils import format_datetime, formataddr

from pbem import __version__

FOLD = 78


def stable_message_id(domain: str, *key: object, secret: bytes) -> str:
    """The Message-ID of the outgoing mail named by `key`: an HMAC under the home's secret (issue 12).

    The same key gives the same ID (a mail re-sent after a crash keeps it), but without the secret nobody
    can recompute one from counters (game, player, report number) to learn how far others have got.  A secret
    that carries a restore epoch (`pbem.record.home_secrets.IdKey`, months8) appends it: a restored home's mail
    never takes the Message-ID of one the old home sent after the backup under the same key.
    """
    if len(secret) < 16:
        raise ValueError("the Message-ID secret must be at least 16 bytes")
    message = "\x1f".join(str(k) for k in key).encode("utf-8", "surrogateescape")
    digest = hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]
    epoch = getattr(secret, "epoch", "")
    return f"<pbem.{digest}.{epoch}@{domain}>" if epoch else f"<pbem.{digest}@{domain}>"


def earlier_forms(message_id: str, secret: bytes) -> tuple[str, ...]:
    """The forms a mail made after a restore had in the homes before it (months9): `message_id` without its epoch
    and with the epoch before it, the ids the old home gave that mail if it made it (`secret`'s `epochs`,
    `pbem.record.home_secrets.IdKey`); none for a home never restored.  A mail made again after a restore (a report
    of a mail read again, a deadline applied again) `References` them, so a mail client shows it in one conversation
    with the old home's, under the same subject (docs/architecture.md, "After the restore")."""
    epoch: str = getattr(secret, "epoch", "")
    epochs: tuple[str, ...] = getattr(secret, "epochs", ())
    if not epoch or not message_id.endswith(">") or f".{epoch}@" not in message_id:
        return ()
    stem, _, domain = message_id[1:-1].rpartition(f".{epoch}@")
    before = [e for e in epochs if e != epoch][-1:]
    return (f"<{stem}@{domain}>", *(f"<{stem}.{e}@{domain}>" for e in before))


#: Reply and forward prefixes of many languages, any number of them, with counters ("Re[2]:") and the space
#: French clients put before the colon ("RE :").
REPLY_PREFIX = re.compile(
    r"^(?:\s*+(?:re|fwd?|aw|wg|sv|vs|vb|tr|rv|r|antw|ref|odp|res|enc)\s*+(?:\[\d+\]|\(\d+\))?\s*+:)+\s*+",
    re.IGNORECASE,
)  # possessive runs of spaces: split between the two around an optional counter, they cost the square of a run


def reply_subject(subject: str, limit: int = 200) -> str:
    """The subject of an answer: one "Re: " before the subject without its reply and forward prefixes."""
    return ("Re: " + REPLY_PREFIX.sub("", " ".join(subject.split())))[:limit]


MAX_REFERENCES = 10
MAX_ID = 250  # a Message-ID longer than this is not one any client made; it is left out


def thread_references(references: tuple[str, ...], in_reply_to: str | None) -> list[str]:
    """The References of a mail: those of the message it answers, then that message's own id (RFC 5322 3.6.4),
    without repeats; at most MAX_REFERENCES, keeping the first (the thread's root) and the newest."""
    refs = [r for r in dict.fromkeys([*references, *([in_reply_to] if in_reply_to else [])]) if 2 < len(r) <= MAX_ID]
    if len(refs) > MAX_REFERENCES:
        refs = [refs[0], *refs[-(MAX_REFERENCES - 1) :]]
    return refs


def _clean(value: str) -> str:
    """No header value may break a line: CR, LF and NUL become spaces."""
    return value.replace("\r", " ").replace("\n", " ").replace("\0", " ")


def header(name: str, value: str) -> str:
    """One header line, RFC 2047-encoded if not ASCII and folded if long."""
    value = _clean(value)
    if value.isascii() and len(name) + 2 + len(value) <= FOLD:
        return f"{name}: {value}\n"
    if _PLAIN_WORDS.fullmatch(value):
        return _folded(name, value)
    charset = "us-ascii" if value.isascii() else "utf-8"
    return f"{name}: {Header(value, charset, maxlinelen=FOLD, header_name=name).encode(linesep=chr(10))}\n"


#: Printable ASCII words without ";" or "," (where `email.header` prefers to fold), one space apart: the long
#: headers of every mail (References, the receipt's record and signature) are such words.
_PLAIN_WORDS = re.compile(r"\A[!-+\--:<-~]+(?: [!-+\--:<-~]+)*")


def _folded(name: str, value: str) -> str:
    """`value`'s words filled into lines of at most FOLD characters, as `email.header.Header` folds them (a word
    that does not fit the first line starts the second, after "Name: "): Header's own folding cost 20-60 us a
    header, a tenth of composing a mail (tests/test_compose.py holds the two equal on generated headers)."""
    words = value.split(" ")
    first = f"{name}: {words[0]}"
    lines = [first] if len(first) <= FOLD else [f"{name}: ", f" {words[0]}"]
    for word in words[1:]:
        if len(lines[-1]) + 1 + len(word) <= FOLD:
            lines[-1] += " " + word
        else:
            lines.append(" " + word)
    return "\n".join(lines) + "\n"


def address(name: str, addr: str) -> str:
    """`Name <addr>` with the name quoted or RFC 2047-encoded as needed (formataddr does both)."""
    return formataddr((_clean(name), _clean(addr)), charset="utf-8")


def _part(subtype: str, body: str) -> bytes:
    """A text part, quoted-printable UTF-8: kept as bytes to the end (the message is ASCII), since decoding each
    encoded body to text and encoding the whole message again copied every body twice more (issue 27)."""
    data = body.encode("utf-8")
    if not data.endswith(b"\n"):
        data += b"\n"
    encoded = quoted_printable(data)  # lines of at most 76
    if not encoded.endswith(b"\n"):
        encoded += b"\n"
    return _PART_HEAD[subtype] + encoded


QP_LINES_BYTES = 1 << 20  # the lines `quoted_printable` remembers, with their encodings, at most (then it starts anew)
_qp_lines: dict[bytes, bytes] = {}
_qp_held = [0]
_qp_lock = threading.Lock()


def quoted_printable(data: bytes) -> bytes:
    """`binascii.b2a_qp(data, istext=True)`, each line encoded once a poll (perf30).

    Its encoding is a function of each line alone: every rule of `b2a_qp` looks at the line it is in (its soft line
    breaks count from the line's start, a space or tab before the line break and a lone "." are encoded by what
    ends the line), but for two that look at the whole data, left to `b2a_qp` itself: a CR (the line breaks'
    kind is the first line's) and data not ending with a line break (a space or tab at its end).  Reports repeat
    most of their lines (the HTML part's markup, the orders' syntax, the legal orders): 92% of the lines of a poll's
    reports, 78% of their bytes, were encoded before, and `b2a_qp` read each byte at some 80 instructions, 4% of a
    reply's (tests/test_perf30.py holds the two equal on generated texts and counts the bytes encoded again)."""
    if b"\r" in data or not data.endswith(b"\n"):
        return binascii.b2a_qp(data, istext=True)
    lines = data.split(b"\n")
    out = list(map(_qp_lines.get, lines))
    if None in out:
        for i, line in enumerate(lines):
            if out[i] is None:  # a line twice in this text is encoded once too
                known = _qp_lines.get(line)
                out[i] = known if known is not None else _qp_line(line)
    return b"\n".join(out)  # type: ignore[arg-type]


def _qp_line(line: bytes) -> bytes:
    """One line's encoding (without its line break), remembered while `QP_LINES_BYTES` hold them."""
    encoded = binascii.b2a_qp(line + b"\n", istext=True)[:-1]
    size = len(line) + len(encoded) + 100  # and the entry's own objects
    with _qp_lock:
        if _qp_held[0] + size > QP_LINES_BYTES:
            _qp_lines.clear()
            _qp_held[0] = 0
        if size <= QP_LINES_BYTES:
            _qp_lines[line] = encoded
            _qp_held[0] += size
    return encoded


_PART_HEAD = {
    kind: f'Content-Type: text/{kind}; charset="utf-8"\nContent-Transfer-Encoding: quoted-printable\n\n'.encode()
    for kind in ("plain", "html")
}


def _image(cid: str, png: bytes) -> bytes:
    data = binascii.b2a_base64(png, newline=False)
    lines = b"\n".join([data[i : i + 76] for i in range(0, len(data), 76)])
    name = cid.split("@")[0] + ".png"
    head = (
        f'Content-Type: image/png; name="{name}"\nContent-Transfer-Encoding: base64\n'
        f'Content-ID: <{cid}>\nContent-Disposition: inline; filename="{name}"\n\n'
    )
    return head.encode("ascii") + lines + b"\n"


def _related(boundary: str, html_part: bytes, images: tuple[tuple[str, bytes], ...]) -> list[bytes]:
    sep = f"--{boundary}\n".encode("ascii")
    out = [
        f'Content-Type: multipart/related; type="text/html";\n boundary="{boundary}"\n\n--{boundary}\n'.encode("ascii"),
        html_part,
        b"\n",
    ]
    for cid, png in images:
        out += [sep, _image(cid, png), b"\n"]
    out.append(f"--{boundary}--\n".encode("ascii"))
    return out


@dataclass(frozen=True)
class Envelope:
    """Who a message is from and to, its id and date, and the thread it belongs to.
    `extra`: more (name, value) headers, e.g. the record receipts (X-Pbem-Record)."""

    sender: str
    sender_name: str
    to: str
    to_name: str
    message_id: str
    when: datetime
    auto: str = "auto-generated"
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Body:
    """What a message says: its subject, its text, and optionally HTML with the pictures it shows.
    `images`: (Content-ID, PNG bytes) pictures the HTML shows as `cid:`."""

    subject: str
    text: str
    html: str | None = None
    images: tuple[tuple[str, bytes], ...] = ()


def compose(envelope: Envelope, body: Body) -> bytes:
    """The message's bytes.  With images, the HTML part becomes a `multipart/related` of the HTML and the
    images (RFC 2387), mail clients' way to show inline pictures."""
    e, b = envelope, body
    heads = [
        f"From: {address(e.sender_name, e.sender)}\n",
        f"To: {address(e.to_name, e.to)}\n",
        header("Subject", b.subject),
        f"Date: {format_datetime(e.when)}\n",
        header("Message-ID", e.message_id),
        header("Auto-Submitted", e.auto),
        header("X-Loop", e.sender),
        f"X-Mailer: pbem {__version__}\n",  # `pbem verify --mail` names the version that wrote a report
    ]
    if e.in_reply_to:
        heads.append(header("In-Reply-To", e.in_reply_to))
    refs = thread_references(e.references, e.in_reply_to)
    if refs:
        heads.append(header("References", " ".join(refs)))
    heads += [header(name, value) for name, value in e.extra]
    heads.append("MIME-Version: 1.0\n")
    head = "".join(heads).encode("ascii")
    if b.html is None:
        return head + _part("plain", b.text)
    boundary = "=_pbem_" + hashlib.sha256(e.message_id.encode()).hexdigest()[:16]
    html = _part("html", b.html)
    rich = [html] if not b.images else _related(boundary + "_r", html, b.images)
    sep = f"--{boundary}\n".encode("ascii")
    return b"".join(
        [
            head,
            f'Content-Type: multipart/alternative; boundary="{boundary}"\n\n'.encode("ascii"),
            sep,
            _part("plain", b.text),
            b"\n",
            sep,
            *rich,
            b"\n",
            f"--{boundary}--\n".encode("ascii"),
        ]
    )
