"""The text bodies of a mail pbem composed, read by its MIME boundaries instead of the feed parser (issue 27).

pbem reads its own sent mail again: the mail a reply answers, to take its quoted copy out of the reply
(`pbem.app.reading`), and the demo's bots read their reports.  The standard parser reads a mail line by line,
the base64 lines of its board pictures included, which were most of that cost.  `text_bodies` splits the
mail at its boundaries, reads only the headers of each part, and decodes only the first text/plain and the
first text/html part that are not attachments: what `email`'s compat32 parser and `get_payload(decode=True)`
find (tests/test_sent_texts.py checks it on every mail of a game of every kind, the redacted copies
included).  Anything it does not expect (no boundary, a part without a blank line after its headers, an
unknown transfer encoding) is read by the standard parser instead: the result is the same, only slower.
"""

from __future__ import annotations

import binascii
import re
from email import message_from_bytes
from email.message import Message
from email.parser import BytesHeaderParser
from email.policy import compat32

_KINDS = {"text/plain": "plain", "text/html": "html"}
_BLANK = re.compile(rb"\r?\n\r?\n")
MAX_DEPTH = 8  # pbem's own mail nests three deep (alternative, related, leaf)


class _Unexpected(Exception):
    """A layout this reader leaves to the standard parser."""


def text_bodies(raw: bytes) -> dict[str, str]:
    """{"plain": ..., "html": ...}: the first text/plain and text/html parts of `raw` outside attachments, decoded
    with their charsets (errors replaced), as the compat32 parser finds them."""
    found: dict[str, str] = {}
    try:
        _walk(raw, found, 0)
    except _Unexpected:
        return parsed_bodies(message_from_bytes(raw, policy=compat32))
    return found


def parsed_bodies(mail: Message) -> dict[str, str]:
    """The same from a parsed message (the standard parser's reading, and the fallback of `text_bodies`)."""
    found: dict[str, str] = {}
    for part in mail.walk():
        kind = part.get_content_type()
        if part.is_multipart() or kind not in _KINDS or part.get_content_disposition() == "attachment":
            continue
        if _KINDS[kind] not in found:
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            found[_KINDS[kind]] = _decoded(payload, part.get_param("charset", "ASCII"))
    return found


def _walk(raw: bytes, found: dict[str, str], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise _Unexpected
    split = _BLANK.search(raw)
    if split is None:
        raise _Unexpected
    head = _headers(raw[: split.end()])
    body = raw[split.end() :]
    kind = head.get_content_type()
    if head.get_content_maintype() == "message":  # a mail inside the mail: the standard parser walks into it
        raise _Unexpected
    if head.get_content_maintype() == "multipart":
        boundary = head.get_boundary()
        if not boundary:
            raise _Unexpected
        for part in _parts(body, boundary.encode("ascii", "surrogateescape")):
            _walk(part, found, depth + 1)
            if len(found) == len(_KINDS):
                return
        return
    if kind not in _KINDS or _KINDS[kind] in found or head.get_content_disposition() == "attachment":
        return
    cte = str(head.get("content-transfer-encoding", "")).strip().lower()
    if cte == "quoted-printable":
        payload = binascii.a2b_qp(body)
    elif cte == "base64":
        payload = binascii.a2b_base64(body)
    elif cte in ("", "7bit", "8bit", "binary"):
        payload = body
    else:
        raise _Unexpected
    found[_KINDS[kind]] = _decoded(payload, head.get_param("charset", "ASCII"))


# A header block as pbem writes it: printable ASCII "Name: value" lines and their folded continuations, each line
# ended by CRLF or LF, then the blank line.  Anything else is read by `email`'s header parser.
_PLAIN_BLOCK = re.compile(rb"\A(?:[!-9;-~]++:[\t -~]*+\r?\n(?:[\t ][\t -~]*+\r?\n)*+)*+\r?\n")  # possessive: linear
# one header of such a block: its name, and its value as compat32 keeps it (the first line's value without the
# blanks after the colon, its continuation lines with their line breaks, without the last line break)
_FIELD = re.compile(rb"^([!-9;-~]++):[\t ]*+([\t -~]*+(?:\r?\n[\t ][\t -~]*+)*+)", re.MULTILINE)
_READ = ("content-type", "content-transfer-encoding", "content-disposition")  # what `_walk` asks of a part


def _headers(block: bytes) -> Message:
    """The part's headers `_walk` reads (the first of each name, as the compat32 parser keeps them), in a `Message`
    whose own methods read them, so that a type, boundary, charset or disposition is read exactly as the parser's
    message reads it; pbem writes some fifteen headers and parses none of the others (issue 27)."""
    if _PLAIN_BLOCK.fullmatch(block) is None:
        return BytesHeaderParser(policy=compat32).parsebytes(block)
    head = Message()
    seen: set[str] = set()
    for found in _FIELD.finditer(block):
        name = found.group(1).decode("ascii")
        key = name.lower()
        if key in _READ and key not in seen:
            seen.add(key)
            head.set_raw(name, found.group(2).decode("ascii"))  # as the parser stores it
    return head


def _parts(body: bytes, boundary: bytes) -> list[bytes]:
    """The parts of a multipart body between its `--boundary` lines (the preamble and epilogue dropped): found by
    `bytes.find`, a delimiter being a line that starts with ``--boundary`` and holds nothing else but ``--``
    (the last one) and blanks.  The line break before a delimiter belongs to it, not to the part."""
    dash = b"--" + boundary
    out: list[bytes] = []
    start: int | None = None
    at = 0 if body.startswith(dash) else body.find(b"\n" + dash)
    while at != -1:
        begin = at if body.startswith(dash, at) else at + 1  # where "--boundary" starts
        cut = begin - 1 if begin > 0 and body[begin - 1 : begin] == b"\n" else begin  # the line break before it
        if cut > 0 and body[cut - 1 : cut] == b"\r":
            cut -= 1
        end = body.find(b"\n", begin)
        rest = body[begin + len(dash) : len(body) if end == -1 else end].rstrip(b"\r")
        closing = rest.startswith(b"--")
        if rest.strip(b" \t") and not (closing and not rest[2:].strip(b" \t")):
            at = body.find(b"\n" + dash, begin)  # "--boundary" followed by more: not a delimiter line
            continue
        if start is not None:
            out.append(body[start:cut])
        if closing:
            return out
        if end == -1:
            break
        start = end + 1
        at = body.find(b"\n" + dash, end)
    raise _Unexpected  # no closing delimiter: a mail pbem did not write whole


def _decoded(payload: bytes, charset: object) -> str:
    name = charset if isinstance(charset, str) else "ASCII"
    try:
        return payload.decode(name, "replace")
    except LookupError:
        return payload.decode("utf-8", "replace")
