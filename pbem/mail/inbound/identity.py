"""Who a message is from, as mail infrastructure sees it (pure).

A player is identified by the one address of the one `From:` header, read by
the RFC 5322 address parser (the one mail servers and DMARC use), never by
`Sender:` or `Reply-To:`.  Anything a server, a filter or a mail client could
read as another sender is refused as ambiguous (issue 12): two `From:`
headers, two addresses in one, group syntax, or a display name that itself
holds an address other than the real one (`"alice@players.test" <mallory@evil.test>`),
after RFC 2047 decoding and Unicode normalisation (a full-width `＠` counts).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from email import errors, policy
from email.message import Message
from email.utils import parseaddr
from functools import lru_cache

# Tried once per run of address characters (the lookbehind), not once per character: linear in the name.
_ADDRESS_IN_TEXT = re.compile(r"(?<![^\s<>()\[\]\"',;:@])[^\s<>()\[\]\"',;:@]+@[^\s<>()\[\]\"',;:@]+")


@dataclass(frozen=True)
class Identity:
    sender: str  # the bare address, lower case ("" if none); for an ambiguous From, the first one it names
    name: str  # display name, decoded
    problem: str | None = None  # why the sender is ambiguous


def _one_line(value: object) -> str:
    """The header on one line, its raw 8-bit bytes (which the parser keeps as surrogates) read as UTF-8."""
    text = str(value or "").encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return re.sub(r"[\r\n]+", " ", text)


def _fallback(value: str) -> tuple[str, str]:
    """The address parseaddr reads (what pbem read before issue 12): where the notice about an ambiguous From goes."""
    try:
        name, addr = parseaddr(value)
    except Exception:  # any header text must give an answer
        return "", ""
    return name, (addr.strip().lower() if "@" in addr else "")


def identify(msg: Message) -> Identity:
    """The sender of `msg`, or why it is ambiguous.  Never raises."""
    try:
        froms = [_one_line(v) for k, v in msg.raw_items() if k.lower() == "from"]
    except Exception:
        return Identity("", "", "the From: header cannot be read")
    if not froms:
        return Identity("", "")
    if len(froms) > 1:
        name, first = _fallback(froms[0])
        return Identity(first, name, f"the sender is ambiguous: the message has {len(froms)} From: headers")
    return _one_from(froms[0]) if len(froms[0]) <= CACHED_FROM else _read_from(froms[0])


CACHED_FROM = 998  # a From line up to a mail line's length is read once per process: players write many mails
# The address parser takes encoded words and comments off the front of the rest of the header one by one, so
# its cost grows with the square of the header (5 s for a 190 KB From of encoded words).  A real From holds a
# name and an address: a few hundred characters at most.
MAX_FROM = 2_000


@lru_cache(maxsize=4096)
def _one_from(value: str) -> Identity:
    """`_read_from`, once per From line (a pure function of the text: the same line, the same sender)."""
    return _read_from(value)


def _read_from(value: str) -> Identity:
    """The sender of a message whose one From header is `value` (on one line), or why it is ambiguous."""
    if len(value) > MAX_FROM:
        name, first = _fallback(value[:MAX_FROM])
        why = f"the sender is ambiguous: the From: header is {len(value)} characters long (at most {MAX_FROM} are read)"
        return Identity(first, name[:200], why)
    name, first = _fallback(value)
    try:
        header = policy.default.header_factory("From", value)
        groups = list(header.groups)
    except Exception:  # the modern parser failed where parseaddr may not
        return Identity(first, name, "the sender is ambiguous: the From: header cannot be parsed")
    if any(isinstance(d, errors.InvalidHeaderDefect) for d in header.defects):
        return Identity(first, name, "the sender is ambiguous: mail programs can read the From: header differently")
    if any(g.display_name is not None for g in groups):
        return Identity(first, name, "the sender is ambiguous: the From: header uses group syntax")
    addresses = [a for g in groups for a in g.addresses]
    if len(addresses) != 1:
        what = "no address" if not addresses else f"{len(addresses)} addresses"
        return Identity(first, name, f"the sender is ambiguous: the From: header holds {what}")
    addr = addresses[0]
    sender = (addr.addr_spec or "").strip().lower()
    if "@" not in sender or not addr.username or not addr.domain:
        return Identity(first, name, "the sender is ambiguous: the From: address is incomplete")
    display = str(addr.display_name or "")
    for other in _ADDRESS_IN_TEXT.findall(unicodedata.normalize("NFKC", display)):
        if other.strip(".").lower() != sender:
            return Identity(sender, display, "the sender is ambiguous: the display name holds another address")
    if first and first != sender:
        return Identity(sender, display, "the sender is ambiguous: mail programs read two different addresses")
    return Identity(sender, display)
