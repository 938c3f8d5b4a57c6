"""DKIM evidence of a player's mail: checked at arrival, kept so that anyone can check it again later.

The big providers sign the mail their users send (DKIM, RFC 6376): a
signature over chosen headers (From, Subject, Date, Message-ID...) and the
hash of the body, with a key published in DNS at ``SELECTOR._domainkey.DOMAIN``.
The moderator cannot make such a signature, so a signed mail is evidence of
what the player sent that does not rest on his word.

`evidence` checks one raw mail at arrival (dkimpy; the DNS lookup is a
function, so tests serve the TXT record from a dict) and returns what a later
check needs: the domain and selector, the signature (b=) and body hash (bh=),
the key record exactly as fetched, whether it verified, and the mail's bytes
when they can be kept.  `recheck` verifies again, offline, against the key as
fetched (a key rotated away since would fail a fresh DNS lookup).

Mail that carries a player's code: codes are redacted from stored mail, and a
redacted body no longer matches bh.  Such mail keeps the signature, the body
hash and the key, but not the bytes (`keep=False`): what is then proven is
only that the provider signed *a* mail with that Message-ID, From and Date at
the time; the order lines rest on the acknowledgement the player received.
Replies that need no code (a reply in the player's thread) keep everything.
This module is the check; recording it with the inbound message, carrying it in
the export and re-checking it in `pbem verify` is the next step (issue 25).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import dkim as dkimpy

DnsFunc = Callable[..., bytes | None]
_TAG = re.compile(rb"\s*([a-z]+)\s*=\s*([^;]*)")


@dataclass(frozen=True)
class Evidence:
    domain: str
    selector: str
    signature: str  # b=, whitespace removed
    body_hash: str  # bh=
    key: str  # the TXT record as fetched ("" when there was none)
    verified: bool
    message: str | None = None  # the raw mail, base64, when it may be kept

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _tags(raw: bytes) -> dict[str, str] | None:
    """The tags of the first DKIM-Signature header of `raw` (None without one)."""
    head = raw.split(b"\r\n\r\n", 1)[0] if b"\r\n\r\n" in raw else raw.split(b"\n\n", 1)[0]
    unfolded = re.sub(rb"\r?\n[ \t]+", b" ", head)
    for line in unfolded.splitlines():
        if line.lower().startswith(b"dkim-signature:"):
            value = line.split(b":", 1)[1]
            return {k.decode(): b"".join(v.split()).decode("ascii", "replace") for k, v in _TAG.findall(value)}
    return None


def evidence(raw: bytes, dns: DnsFunc | None = None, keep: bool = True) -> Evidence | None:
    """Check `raw`'s DKIM signature now; None if it carries none.  `dns(name)` returns the TXT record's bytes."""
    tags = _tags(raw)
    if tags is None or "d" not in tags or "s" not in tags:
        return None
    fetched: dict[str, bytes] = {}

    def lookup(name: bytes, timeout: int = 5) -> bytes | None:
        record = (dns or dkimpy.dnsplug.get_txt)(name, timeout=timeout)
        if record:
            fetched["key"] = record
        return record

    try:
        ok = bool(dkimpy.verify(raw, dnsfunc=lookup))
    except Exception:  # dkimpy raises on malformed signatures and keys; bad input is never a crash
        ok = False
    return Evidence(
        domain=tags["d"],
        selector=tags["s"],
        signature=tags.get("b", ""),
        body_hash=tags.get("bh", ""),
        key=fetched.get("key", b"").decode("ascii", "replace"),
        verified=ok,
        message=base64.b64encode(raw).decode("ascii") if keep else None,
    )


def recheck(ev: dict[str, Any]) -> bool:
    """Verify kept evidence again, offline, with the key as it was fetched at arrival (False without the bytes)."""
    if not ev.get("message") or not ev.get("key"):
        return False
    raw = base64.b64decode(ev["message"])
    tags = _tags(raw) or {}
    if tags.get("b") != ev.get("signature") or tags.get("d") != ev.get("domain"):
        return False
    key = str(ev["key"]).encode("ascii")
    try:
        return bool(dkimpy.verify(raw, dnsfunc=lambda name, timeout=5: key))
    except Exception:
        return False
