"""DKIM evidence of a player's mail: checked at arrival, kept, and checked again offline by `pbem verify`.

The big providers sign the mail their users send (DKIM, RFC 6376): a signature
(b=) over chosen header fields (h=: From, Subject, Date, Message-ID...) and over
the hash of the body (bh=), with a key published in DNS at
``SELECTOR._domainkey.DOMAIN``.  The moderator cannot make such a signature, so
a signed mail is evidence of what the player sent that does not rest on his word.

What is kept per mail (`Evidence`, `capture`), exactly what a later check needs
and nothing more: the DKIM-Signature header and the header fields it signs, as
received (the other headers, Received lines and the like, are not kept); the body
as received, when it may be kept; and the key record as fetched at arrival (a key
rotated away since would fail a fresh DNS lookup).

The body and the player's code: codes are never stored, and a body without its
code no longer matches bh=.  So the body is kept only when pbem's stored copy of
the mail is the mail itself (nothing was redacted or cut: a reply in the player's
thread needs no code).  For a mail that carried a code, only the signed header
fields are kept: `recheck` then proves that the provider signed a mail with that
From, Subject, Date and Message-ID and some body, not which order lines it held;
those rest on the acknowledgement the player received.  When a code appears in a
signed header field itself (a code in the subject) nothing but the domain is kept.

`recheck` verifies kept evidence with dkimpy against the key as fetched, with no
DNS.  With the body: the whole signature.  Without: the header signature alone
(`_HeadersOnly`, which skips the body-hash step and nothing else).
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from pbem.trust.addresses import (
    MAX_FIELD,
    MAX_NESTED,
    MAX_PARTS,
    addresses,
    content_text,
    field_too_long,
    nests_too_deep,
    read_mail,
    too_many_parts,
    too_nested,
)

DnsFunc = Callable[..., bytes | None]
log = logging.getLogger(__name__)
LOOKUP_TIMEOUT = 5.0  # seconds one DNS lookup of a key may wait
MAX_KEY = 4096  # a TXT record longer than this is no DKIM key anyone publishes
MAX_HEADER_BLOCK = 256 * 1024  # bytes of a header block a mail with DKIM evidence may have (real ones: a few KB)
MAX_HEADER_LINES = 4_000  # lines of it
MAX_SIGNED = 200  # header fields one signature may name (h=; providers name 10 to 30)
# dkimpy reads a signature's values with patterns that try a run of white space once per character of it (its b=
# check, `[\s0-9A-Za-z+/]+[\s=]*$`, took 0.7 s for 16 KB of spaces, before any DNS lookup; its b= stripper and
# h= splitter likewise): a signature longer than `MAX_SIGNATURE` bytes, or with more than `MAX_FOLD` bytes of
# white space in a row (a fold is three: CRLF and a tab), is no evidence.  Providers' signatures: under 2 KB.
MAX_SIGNATURE = 8_192
MAX_FOLD = 32
_LONG_SPACE = re.compile(rb"\s{%d}" % (MAX_FOLD + 1))
_TAG = re.compile(rb"(?<![a-zA-Z])([a-zA-Z]+)\s*=\s*([^;]*)")  # a tag tried once per run of letters: linear


def provider_dns(name: bytes, timeout: float = LOOKUP_TIMEOUT) -> bytes | None:
    """The TXT record `name` from DNS, within `timeout` seconds (dkimpy's resolver)."""
    record: bytes | None = dkimpy().dnsplug.get_txt(name, timeout=timeout)
    return record


#: What pbem asks DNS with at arrival (a test serves the record from a dict in its place).
resolver: DnsFunc = provider_dns
#: Keys found are asked again after an hour, keys missing (or DNS failing) after five minutes: a poll of many
#: players' mail costs one lookup per provider, and a resolver that is down costs one wait per provider every
#: five minutes, not one per mail.
TTL_FOUND, TTL_MISSING, MAX_CACHED = 3600.0, 300.0, 10_000
#: Lookups that found no key may wait at most this many seconds in all within `TTL_MISSING`: past it no lookup is
#: made (no key now: the mail's evidence is kept unverified, as with DNS down) until the window frees.  Each new
#: name is a new lookup, so a player whose own domain's servers never answer, signing each mail with a new
#: selector, cost one 5-second wait per mail, the whole poll's deadline for a flood of them.
DNS_BUDGET = 30.0
_cache: dict[bytes, tuple[float, bytes | None]] = {}
_waits: deque[tuple[float, float]] = deque()  # (when, seconds waited) of the lookups that found no key, in the window


def _cached(name: bytes, timeout: float = LOOKUP_TIMEOUT) -> bytes | None:
    now = time.monotonic()
    hit = _cache.get(name)
    if hit is not None and hit[0] > now:
        return hit[1]
    while _waits and _waits[0][0] <= now - TTL_MISSING:
        _waits.popleft()
    if sum(spent for _, spent in _waits) >= DNS_BUDGET:  # a few entries: each one spent a part of the budget
        if _waits[-1][1] > 0:  # told once per spent budget
            log.warning(
                "DKIM key lookups found nothing for %.0f s in 5 minutes; no more lookups until then", DNS_BUDGET
            )
            _waits.append((now, 0.0))
        return None
    try:
        record = resolver(name, timeout=min(timeout, LOOKUP_TIMEOUT))
    except Exception:  # a timeout or a resolver error: no key now, asked again later
        record = None
    waited = time.monotonic() - now
    if not record and waited > 0.05:  # a quick "no such key" spends nothing worth counting
        _waits.append((now, waited))
    if len(_cache) >= MAX_CACHED:
        _cache.clear()
    _cache[name] = (now + (TTL_FOUND if record else TTL_MISSING), record)
    return record


@dataclass(frozen=True)
class Evidence:
    domain: str
    selector: str
    verified: bool  # at arrival, with the key as fetched then
    headers: bytes  # the DKIM-Signature and the fields it signs, as received ("" when a code was among them)
    body: bytes | None  # the body as received, when it may be kept
    key: str  # the TXT record as fetched ("" when there was none)

    def to_json(self, message_id: str) -> dict[str, Any]:
        return {
            "message_id": message_id,
            "domain": self.domain,
            "selector": self.selector,
            "verified": self.verified,
            "headers": base64.b64encode(self.headers).decode("ascii"),
            "body": base64.b64encode(self.body).decode("ascii") if self.body is not None else None,
            "key": self.key,
        }


def _tags(value: bytes) -> dict[str, str]:
    unfolded = re.sub(rb"\r?\n[ \t]+", b" ", value)
    return {k.decode().lower(): b"".join(v.split()).decode("ascii", "replace") for k, v in _TAG.findall(unfolded)}


def _header_block(raw: bytes) -> bytes:
    """The header block of `raw` (up to its first empty line), found in one pass."""
    ends = [i for i in (raw.find(b"\n\n"), raw.find(b"\n\r\n")) if i >= 0]
    return raw[: min(ends) + 1] if ends else raw


def _rfc822_parse(message: bytes) -> tuple[list[list[bytes]], bytes]:
    """dkimpy's `rfc822_parse`, the same fields and body, in time linear in the header block: dkimpy's own adds
    each continuation line to the field's bytes so far (a header folded over 960,000 lines took 39 s)."""
    lines = re.split(b"\r?\n", message)
    fields: list[tuple[bytes, list[bytes]]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            break
        if line[0] in (0x09, 0x20):
            if not fields:
                raise dkimpy().MessageFormatError("a continuation line before any header field")
            fields[-1][1].append(line + b"\r\n")
            continue
        m = re.match(rb"\A([\x21-\x7e]+?):", line)
        if m is not None:
            fields.append((m.group(1), [line[m.end(0) :] + b"\r\n"]))
        elif not line.startswith(b"From "):
            raise dkimpy().MessageFormatError(f"Unexpected characters in RFC822 header: {line[:80]!r}")
    return [[name, b"".join(parts)] for name, parts in fields], b"\r\n".join(lines[i:])


#: White space at the end of a line, tried once per run (the look-behind) and never given back (possessive).
_TRAILING_SPACE = re.compile(rb"(?<![\t ])[\t ]++\r\n")


def _strip_trailing_whitespace(content: bytes) -> bytes:
    """dkimpy's relaxed body canonicalization step (white space before each CRLF removed), the same bytes in time
    linear in the body: dkimpy's pattern (`[\t ]+\r\n`) tries a run of spaces or tabs not ending a line once per
    character of it (4.9 s for 64 KB of spaces in a body signed c=relaxed/relaxed, about an hour for 2 MB, for
    anyone who publishes a key for a domain of their own)."""
    return _TRAILING_SPACE.sub(b"\r\n", content)


_dkimpy: list[ModuleType] = []  # dkimpy once imported, its readings replaced


def dkimpy() -> ModuleType:
    """dkimpy, imported on its first use: with the DNS package it imports it was 50 to 130 ms of every `pbem`
    process's start (`python -X importtime`), which a poll of mails carrying no DKIM-Signature never used (perf32).
    Before any use, its two readings that cost the square of their input are replaced: `rfc822_parse` (what
    `dkimpy.DKIM.set_message` calls, for every check pbem makes) by `_rfc822_parse`, and
    `canonicalization.strip_trailing_whitespace` (what `Relaxed.canonicalize_body` calls) by
    `_strip_trailing_whitespace`; dkimpy's own are kept as their `replaced` (`dkimpys_own`)."""
    if not _dkimpy:
        import dkim
        import dkim.canonicalization as canon

        _rfc822_parse.replaced = getattr(dkim.rfc822_parse, "replaced", dkim.rfc822_parse)  # type: ignore[attr-defined]
        dkim.rfc822_parse = _rfc822_parse
        own = getattr(canon.strip_trailing_whitespace, "replaced", canon.strip_trailing_whitespace)
        _strip_trailing_whitespace.replaced = own  # type: ignore[attr-defined]
        canon.strip_trailing_whitespace = _strip_trailing_whitespace
        _dkimpy.append(dkim)
    return _dkimpy[0]


def dkimpys_own(name: str) -> Callable[[bytes], Any]:
    """dkimpy's own reading `name` ("rfc822_parse", "strip_trailing_whitespace"), before pbem replaced it (the
    tests hold the two the same)."""
    dkimpy()
    mine = {"rfc822_parse": _rfc822_parse, "strip_trailing_whitespace": _strip_trailing_whitespace}[name]
    own: Callable[[bytes], Any] = mine.replaced  # type: ignore[attr-defined]
    return own


def _signed_part(raw: bytes) -> tuple[bytes, bytes, dict[str, str]] | None:
    """(the first DKIM-Signature and the header fields it signs, as received; the body; its tags), or None.

    A header block past `MAX_HEADER_BLOCK` bytes or `MAX_HEADER_LINES` lines, a signature over more than
    `MAX_SIGNED` fields, longer than `MAX_SIGNATURE` bytes or with a run of white space longer than `MAX_FOLD`, is
    no evidence: no provider signs such a mail, and each check's cost stays bounded."""
    block = _header_block(raw)
    if len(block) > MAX_HEADER_BLOCK or block.count(b"\n") > MAX_HEADER_LINES or b"dkim-signature" not in block.lower():
        return None
    try:
        fields, body = _rfc822_parse(raw)  # dkimpy's reading, as pbem replaced it (`dkimpy`)
    except Exception:  # dkimpy raises on a header block it cannot read: no evidence, never a crash
        return None
    sig = next((value for name, value in fields if name.lower() == b"dkim-signature"), None)
    if sig is None or len(sig) > MAX_SIGNATURE or _LONG_SPACE.search(sig):
        return None
    tags = _tags(sig)
    if not tags.get("d") or not tags.get("s"):
        return None
    signed = {n.strip().lower() for n in tags.get("h", "").split(":") if n.strip()}
    if tags.get("h", "").count(":") >= MAX_SIGNED:
        return None
    kept = b"DKIM-Signature:" + sig
    kept += b"".join(name + b":" + value for name, value in fields if name.lower().decode("ascii", "replace") in signed)
    return kept, body, tags


def capture(
    raw: bytes, dns: DnsFunc | None = None, keep_body: bool = True, secrets: tuple[str, ...] = ()
) -> Evidence | None:
    """Check `raw`'s first DKIM signature now and keep what a later check needs; None if it carries none.

    `dns(name, timeout)` returns the TXT record's bytes; `keep_body` is False when pbem stores the mail
    redacted (it carried a code); `secrets`: codes that must not be kept (a signed header holding one keeps
    nothing but the domain and the result)."""
    part = _signed_part(raw)
    if part is None:
        return None
    headers, body, tags = part
    fetched: dict[str, bytes] = {}

    def lookup(name: bytes, timeout: float = LOOKUP_TIMEOUT) -> bytes | None:
        record = dns(name, timeout=timeout) if dns is not None else _cached(name, timeout)
        if record and len(record) <= MAX_KEY:
            fetched["key"] = record
            return record
        return None

    try:
        ok = bool(dkimpy().verify(raw, dnsfunc=lookup))
    except Exception:  # dkimpy raises on malformed signatures and keys; bad input is never a crash
        ok = False
    if any(code and code.encode() in headers for code in secrets):
        headers, keep_body = b"", False
    return Evidence(
        domain=tags["d"].lower(),
        selector=tags["s"],
        verified=ok,
        headers=headers,
        body=body if keep_body else None,
        key=fetched.get("key", b"").decode("ascii", "replace"),
    )


def _headers_only(raw: bytes) -> Any:
    """dkimpy's verification of `raw` without its body-hash step: the signature over the header fields (bh= among
    them)."""

    class HeadersOnly(dkimpy().DKIM):  # type: ignore[misc]
        def verify_sig_process(self, sig: dict[bytes, bytes], include: Any, sig_header: Any, dnsfunc: Any) -> Any:
            return super().verify_sig_process(
                {k: v for k, v in sig.items() if k != b"bh"}, include, sig_header, dnsfunc
            )

    return HeadersOnly(raw)


@dataclass(frozen=True)
class Rechecked:
    ok: bool
    whole: bool  # the body was kept and checked too
    why: str = ""  # why it failed
    sender: str = ""  # the signed From address
    message_id: str = ""  # the signed Message-ID ("" when not signed)
    subject: str = ""
    text: str = ""  # the signed body's plain text (whole only)
    raw: bytes = field(default=b"", repr=False)  # the signed mail as kept (whole only)
    signed_at: int | None = None  # the signature's t= (the provider's clock when it signed; bound by b=)


_CONTENT_TYPE = re.compile(rb"(?:^|\n)content-type[ \t]*:", re.I)
_BOUNDARY = re.compile(rb"--([0-9A-Za-z'()+_,./:=?-]{1,70})[ \t]*\r?\n")
_PAGE = re.compile(rb"<(?:!doctype html|html|head|body|meta|div|p|br|span|table)\b", re.I)
_MULTIPART_FIRST = re.compile(rb"content-type[ \t]*:[ \t]*multipart/|content-disposition[ \t]*:[ \t]*attachment", re.I)


def _not_kept_so(entry: dict[str, Any], headers: bytes, tags: dict[str, str]) -> str:
    """Why kept evidence is not as pbem keeps it ("" when it is): signed by another domain than it states, or holding
    a header field its signature does not sign (`_unsigned`)."""
    if tags["d"].lower() != str(entry.get("domain", "")).lower() or tags["s"] != entry.get("selector"):
        return f"the signature is by d={tags['d']} s={tags['s']}, not the domain stated"
    if extra := _unsigned(headers, tags):
        return f"the kept header fields hold {extra}, which its signature does not sign"
    return ""


def _unsigned(headers: bytes, tags: dict[str, str]) -> str:
    """The first kept header field the signature does not sign ("" when none): pbem keeps the DKIM-Signature and the
    fields it signs alone (`_signed_part`), each as many times as h= names it at most, so another was added after,
    and a Content-Type added to a mail (above a signed one, which the parser reads first and the signature last)
    changes how its signed body reads (fairness28: a plain reading of an HTML reply took a line the player quoted
    from the moderator's mail, ``ADDRESS <new>``, for their own request)."""
    signed = Counter(n.strip().lower() for n in tags.get("h", "").split(":"))
    signed["dkim-signature"] += 1
    kept: Counter[str] = Counter()
    for line in headers.split(b"\n"):
        if line[:1] in (b" ", b"\t") or not line.strip():
            continue  # a folded line goes on the field before it
        name = line.split(b":", 1)[0].strip().lower().decode("ascii", "replace")
        kept[name] += 1
        if kept[name] > signed[name]:
            return repr(name[:40])
    return ""


def _as_read(headers: bytes, body: bytes | None, raw: bytes) -> bytes:
    """The kept mail `raw` to read its text from: with the Content-Type its body shows when none was kept (`_shape`)."""
    shape = _shape(headers, body) if body is not None else b""
    return headers + shape + b"\r\n" + (body or b"") if shape else raw


def _shape(headers: bytes, body: bytes) -> bytes:
    """The Content-Type field a kept mail's signed body shows, when its provider did not sign one ("" when it did,
    or the body shows none).  Gmail's h= names no Content-Type, and the evidence keeps the signed fields alone, so a
    multipart mail's body (its parts' own headers inside it, signed) or an HTML-only one was read as plain text: its
    MIME lines or its markup taken for the player's words, and an HTML-only request for a move, signed whole, read
    as asking nothing (fairness28: fairness27's guard on an empty text never ran).  A body that opens with a boundary
    line and closes it (``--B`` ... ``--B--``) is multipart with that boundary (mixed when a part is an attachment or
    itself multipart, else alternative); one that opens with HTML markup is HTML.  The body is the player's, signed:
    a structure read from it names only what they sent."""
    if _CONTENT_TYPE.search(headers):
        return b""
    opening = body[:4096].lstrip(b" \t\r\n")  # (its first line: what opens the body)
    if (m := _BOUNDARY.match(opening)) is not None and b"\n--" + m.group(1) + b"--" in body:
        kind = b"mixed" if _MULTIPART_FIRST.search(body) else b"alternative"
        return b"MIME-Version: 1.0\r\nContent-Type: multipart/" + kind + b'; boundary="' + m.group(1) + b'"\r\n'
    if _PAGE.match(opening):
        return b"MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n"
    return b""


def _decode(entry: dict[str, Any], name: str) -> bytes | None:
    value = entry.get(name)
    if value is None:
        return None
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{name} is not base64") from None


def recheck(entry: dict[str, Any]) -> Rechecked:
    """Verify kept evidence (`Evidence.to_json`) again, offline, with the key as fetched at arrival."""
    try:
        headers, body = _decode(entry, "headers"), _decode(entry, "body")
    except ValueError as exc:
        return Rechecked(False, False, str(exc))
    if not headers:
        return Rechecked(False, False, "its signed header fields were not kept (a code was among them)")
    part = _signed_part(headers + b"\r\n" + (body or b""))
    if part is None:
        return Rechecked(False, False, "the kept header fields hold no DKIM-Signature")
    tags = part[2]
    if why := _not_kept_so(entry, headers, tags):
        return Rechecked(False, False, why)
    key = str(entry.get("key") or "").encode("ascii", "replace")
    if not key:
        return Rechecked(False, False, "no key was fetched for it at arrival")
    raw = headers + b"\r\n" + (body if body is not None else b"")

    def dns(name: bytes, timeout: int = 5) -> bytes:
        return key

    try:
        checker = dkimpy().DKIM(raw) if body is not None else _headers_only(raw)
        ok = bool(checker.verify(dnsfunc=dns))
    except Exception as exc:  # a malformed signature or key is a failed check, never a crash
        return Rechecked(False, body is not None, f"dkimpy refuses it: {type(exc).__name__}")
    if not ok:
        what = "the mail" if body is not None else "its header fields"
        return Rechecked(False, body is not None, f"the provider's signature does not match {what} as exported")
    signed = {n.strip().lower() for n in tags.get("h", "").split(":")}
    if nests_too_deep(raw):  # the modern header parser recurses once a nested comment: a RecursionError
        return Rechecked(False, body is not None, "a header field nests comments deeper than pbem reads")
    if field_too_long(raw):  # and costs the square of a field (an export's evidence is the moderator's to write)
        return Rechecked(False, body is not None, f"a header field is longer than the {MAX_FIELD} characters read")
    if too_nested(raw):  # the parser recurses a level a part: RecursionError past about 1,000 (costs19)
        return Rechecked(False, body is not None, f"it has more than {MAX_NESTED} multipart or message parts")
    if too_many_parts(raw):  # each part costs the parser the same however small: 0.68 s for 80 KB of 8,000 (costs20)
        return Rechecked(False, body is not None, f"it has more than {MAX_PARTS:,} parts; a mail client's have a few")
    raw = _as_read(headers, body, raw)  # read as written: the structure its signed body shows (fairness28)
    msg = read_mail(raw)  # (its MIME headers read from their text: costs21)
    text = ""
    if body is not None:
        part_ = msg.get_body(("plain",))
        try:
            text = content_text(part_) if part_ is not None else ""  # (a slow codec's as UTF-8: costs19)
        except (LookupError, ValueError):
            text = ""
    frm = addresses(str(msg.get("From", "")), 998) if "from" in signed else []  # (a RecursionError unguarded)
    return Rechecked(
        True,
        body is not None,
        sender=(frm[0][1] if frm else "").lower(),
        message_id="".join(str(msg.get("Message-ID", "")).split()).strip("<>").lower()
        if "message-id" in signed
        else "",
        subject=" ".join(str(msg.get("Subject", "")).split()) if "subject" in signed else "",
        text=text,
        raw=raw if body is not None else b"",
        signed_at=int(tags["t"]) if tags.get("t", "").strip().isdigit() and len(tags["t"].strip()) <= 12 else None,
    )


def stated_at(entry: dict[str, Any]) -> int | None:
    """The `t=` the kept signature of `entry` states (the provider's clock when it signed), read without checking
    the signature: `recheck` checks it, and `pbem verify` fails an export whose evidence does not hold.  None when
    there is none or the kept header fields cannot be read."""
    try:
        headers = _decode(entry, "headers")
    except ValueError:
        return None
    if not headers:
        return None
    if headers[:15].lower() == b"dkim-signature:":  # as pbem keeps it (`_signed_part`): the signature first
        end = _NEXT_FIELD.search(headers)
        tags = _tags(headers[15 : end.start() if end else len(headers)])
    else:  # another order: read as `recheck` reads it
        part = _signed_part(headers + b"\r\n")
        tags = part[2] if part is not None else {}
    t = tags.get("t", "").strip()
    return int(t) if t.isdigit() and len(t) <= 12 else None


_NEXT_FIELD = re.compile(rb"\n(?![ \t])")  # the end of a header field: a line break not folding it


def contribution(entry: dict[str, Any] | None) -> str:
    """What a signed JOIN adds to the deal: SHA-256 of its signature bytes (b=), hex ("" without one)."""
    import hashlib

    if not entry or not entry.get("headers"):
        return ""
    part = _signed_part(base64.b64decode(str(entry["headers"])) + b"\r\n")
    if part is None or not part[2].get("b"):
        return ""
    return hashlib.sha256(part[2]["b"].encode("ascii")).hexdigest()
