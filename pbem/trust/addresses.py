"""An address header read by the standard library's parser, within bounds (pure; costs5).

`email.utils.getaddresses` and `parseaddr` read a comment inside a comment by calling themselves, and so does the
header parser of `email.policy.default` for every structured header (From, To, Message-ID, Content-Type): a value
of a thousand "(" (a To of a mail in a player's folder, a From of their Sent mail or of the DKIM evidence of an
export, a `--player` or `game replace` given so) ended `pbem verify --mail`, `--sent`, `verify` itself, `game new`
and `game replace` in a RecursionError traceback.  Here a value nesting comments deeper than `MAX_NESTING` reads as
no address, as one the parser cannot read does, and a header block that holds one is not given to the modern
parser (`nests_too_deep`); the parsers are otherwise linear in these values.  The body's parts are parsed the same
way, a level a call: a mail nesting 1,000 `message/rfc822` parts raised RecursionError too (`too_nested`, costs19).
"""

from __future__ import annotations

import contextlib
import re
from email import message_from_bytes, policy, utils
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage, MIMEPart
from email.utils import getaddresses, parseaddr
from typing import Any, cast

from pbem.orders import containers, params
from pbem.orders.charsets import text_of

MAX_NESTING = 32  # comments inside comments read (a real address has none, or one level)


def _deepest(text: str) -> int:
    """How deep "(" nest in `text` (quoting and escapes ignored: an upper bound of the parser's depth)."""
    depth = deepest = 0
    for ch in text:
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")" and depth:
            depth -= 1
    return deepest


def nests_too_deep(raw: bytes) -> bool:
    """Whether a header of the header block of `raw` (up to its first empty line) nests comments deeper than
    `MAX_NESTING` (each header counted from its first line; quoting ignored: an upper bound)."""
    head = raw.split(b"\n\n", 1)[0].split(b"\r\n\r\n", 1)[0]
    if head.count(b"(") <= MAX_NESTING:
        return False
    depth = 0
    for line in head.split(b"\n"):
        if line[:1] not in (b" ", b"\t"):
            depth = 0  # a new header
        for ch in line.translate(None, _NOT_PARENS):
            depth = depth + 1 if ch == 40 else max(depth - 1, 0)
            if depth > MAX_NESTING:
                return True
    return False


_NOT_PARENS = bytes(c for c in range(256) if c not in (40, 41))  # every byte but "(" and ")"


MAX_FIELD = 8_000  # characters of a header field read by the modern parser (pbem's own: a few hundred)
#: The fields read by the modern header parser (`verify --sent`'s Sent mail, the DKIM evidence re-checked), with
#: their continuation lines: its reading of encoded words, comments and parameters costs the square of a field (a
#: 96 KB Content-Type of RFC 2231 parameters took more than 9 s, a From of encoded words 0.5 s and 9 s at 4x).
_PARSED = re.compile(
    rb"(?im)^(?:from|to|subject|message-id|content-type|content-disposition)[ \t]*+:[^\n]*+(?:\n[ \t][^\n]*+)*+"
)


def field_too_long(raw: bytes) -> bool:
    """Whether a field of `raw` the modern parser reads (of the mail or of a part) is longer than `MAX_FIELD`."""
    return any(len(m[0]) > MAX_FIELD for m in _PARSED.finditer(raw))


#: Containers one mail may declare (a folder's, `receipts.read_folder`; the DKIM evidence re-checked) (a multipart boundary, a `message/` part): the standard library's
#: parser recurses once a level, so a mail nesting 1,000 `message/rfc822` parts (40 KB, no boundary: under
#: `MAX_PARTS`) raised RecursionError out of `pbem verify --mail` (a traceback, the check lost: costs19), and one
#: below that cost depth times lines.  pbem's own mail declares 3; a mail client's a few.
MAX_NESTED = 64


def too_nested(raw: bytes) -> bool:
    """Whether a mail declares more than `MAX_NESTED` containers (counted up to the first one over)."""
    return containers.more_than(raw, MAX_NESTED)  # counted in C first (`pbem.orders.containers`)


#: Parts one mail of a folder (`receipts.read_folder`) or of DKIM evidence (`dkim.recheck`, costs20) may have, as
#: `pbem.mail.inbound.message.MAX_PARTS` (pbem's own have a few): each part costs the parser the same however small,
#: so one mail of 32 MiB of parts of a few bytes cost a minute for each reading of it (about 1.7 s a MB; a mail in
#: the player's mailbox, signed by the moderator, could hold the check past its deadline: costs5; evidence of 8,000
#: empty parts, 80 KB, 0.68 s; 64 MiB some 9 minutes, estimated).  Counted as the lines starting with "--" of a mail that
#: declares a boundary.
MAX_PARTS = 1_000
_BOUNDARY = re.compile(rb"boundary\s*+\*?\s*+=", re.IGNORECASE)


def too_many_parts(raw: bytes) -> bool:
    """Whether a mail has more than `MAX_PARTS` parts (more lines starting with "--", and a boundary declared)."""
    return raw.count(b"\n--") > MAX_PARTS and _BOUNDARY.search(raw) is not None


class _AsWritten:
    """A MIME header (Content-Type, Content-Disposition, Content-Transfer-Encoding) as written, unfolded, not parsed:
    what the readers below ask of one (its type, its parameters, by `_Read`) is read from the text, as the poll
    reads it (`policy.compat32`, `pbem.mail.inbound.message.Bounded`).  The modern parser's reading of such a
    field is linear but some 160 lines of Python a character (a Content-Type of many parameters, folded or
    commented: 27 us a character; a header is read again at each question asked of it, so 4,000 characters in
    each of 10 parts took 1.1 s, and `MAX_PARTS` parts of `MAX_FIELD` some 200 s), and it raised IndexError on
    `Content-Type: text/plain; charset*`, out of `verify --sent` and `pbem verify` (costs21)."""

    max_count = 1

    @classmethod
    def parse(cls, value: str, kwds: dict[str, Any]) -> None:
        kwds["decoded"], kwds["parse_tree"] = value, None

    @property
    def content_disposition(self) -> str | None:
        """The disposition ("inline", "attachment"), lower case, a comment after it left out, as the modern
        header's (`MIMEPart.is_attachment` asks the header)."""
        return str(self).split(";", 1)[0].split("(", 1)[0].strip().lower() or None


class _Read(EmailMessage):
    """`policy.default`'s message, its parameters read in one pass as the poll reads them (`pbem.orders.params`), a
    parameter of RFC 2231 given as its value (`charset*=utf-8''%41`: "A"; `get_content` takes no other)."""

    def _get_params_preserve(self, failobj: object, header: str) -> object:
        value = self.get(header)
        if value is None:
            return failobj
        return [(name, _as_value(val)) for name, val in params.preserved(value)]


def _as_value(value: Any) -> Any:
    """A parameter's value; one of RFC 2231 (charset, language, value) as `Message.get_content_charset` takes it."""
    if not isinstance(value, tuple):
        return value
    charset, _, text = value
    text = utils.unquote(text)
    with contextlib.suppress(LookupError, UnicodeError):
        text = str(text.encode("raw-unicode-escape"), charset or "us-ascii")
    return f'"{utils.quote(text)}"'


class _Registry(HeaderRegistry):
    """`HeaderRegistry`, each header's class made once: the standard library's (3.11) makes a new class at every
    header it reads, a reference cycle of some 1 to 2 KB that only the cyclic collector frees (costs27: `pbem verify
    --sent` held some 24 KB a mail of them at its peak with the collector off, 2.4 GB at its 100,000 mails).  One
    class for each of the registry's few kinds (`default_class` and those mapped), so the cache is bounded."""

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[type, type[BaseHeader]] = {}

    def map_to_type(self, name: str, cls: type[BaseHeader]) -> None:
        super().map_to_type(name, cls)
        self._made.clear()

    def __getitem__(self, name: str) -> type[BaseHeader]:
        kind = self.registry.get(name.lower(), self.default_class)
        made = self._made.get(kind)
        if made is None:
            made = self._made[kind] = super().__getitem__(name)
        return made


_HEADERS = _Registry()
for _name in ("content-type", "content-disposition", "content-transfer-encoding"):
    _HEADERS.map_to_type(_name, cast("type[BaseHeader]", _AsWritten))  # the registry makes it one
_POLICY = policy.default.clone(header_factory=_HEADERS, message_factory=_Read)


def read_mail(raw: bytes) -> EmailMessage:
    """`raw` read as `message_from_bytes(raw, policy=policy.default)` reads it (its From, Subject, Message-ID and
    Date decoded, `get_body`, `get_content`), its MIME headers read from their text (`_AsWritten`, `_Read`).  Check
    `nests_too_deep`, `field_too_long`, `too_nested` and `too_many_parts` first."""
    msg = message_from_bytes(raw, policy=_POLICY)
    assert isinstance(msg, EmailMessage)
    return msg


def content_text(part: MIMEPart) -> str:
    """A text part's content as the poll reads it (`text_of`: its charset, a mislabelled one as its writer meant it,
    errors replaced; a slow codec's as an unknown one)."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    try:
        return text_of(payload, part.get_content_charset())
    except Exception:  # a codec that fails in its own way (idna, undefined): read as `get_content` did
        return payload.decode("utf-8", "replace")


def addresses(value: str, limit: int | None = None) -> list[tuple[str, str]]:
    """`getaddresses([value])` (its first `limit` characters), or [] for a value it cannot read."""
    text = value if limit is None else value[:limit]
    if "(" in text and _deepest(text) > MAX_NESTING:
        return []
    try:
        return getaddresses([text])
    except Exception:  # any header a mail holds is read or skipped, never a crash
        return []


def address(value: str) -> tuple[str, str]:
    """`parseaddr(value)`, or ("", "") for a value it cannot read."""
    if "(" in value and _deepest(value) > MAX_NESTING:
        return "", ""
    try:
        return parseaddr(value)
    except Exception:  # as above
        return "", ""
