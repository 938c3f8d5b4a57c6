"""The copy of an inbound mail that pbem keeps (pure; issue 12): bounded in size, free of codes.

`[mail] max_stored_stranger` (256 KiB) and `[mail] max_stored_player`
(4 MiB) bound what one message may add to the record.  A larger message is
kept as its headers, the first part of its text and the SHA-256 of the
whole (enough to recognise it and to say what it was), and it is refused
with that reason.  Whatever is kept then goes through `redact_message`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from pbem.mail.inbound import budgets
from pbem.mail.inbound.message import Inbound, too_nested
from pbem.mail.inbound.redact import (
    MAX_CODES,
    code_pattern,
    codes_in_text,
    find_and_redact,
    normals,
    over_budget,
    redact_message,
    redact_text,
)
from pbem.orders.extract import Extracted, Press

KIB = 1024
MAX_STORED_STRANGER = 256 * KIB
MAX_STORED_PLAYER = 4 * KIB * KIB
MAX_KEPT_HEADERS = 32 * KIB
KEPT_TEXT_CHARS = 4000
_STRUCTURE = re.compile(r"^(content-[a-z-]+|mime-version):", re.IGNORECASE)


@dataclass(frozen=True)
class Kept:
    raw: bytes  # what to store
    problem: str | None  # why the message is refused for its size, or None


def size_text(n: int) -> str:
    return f"{n / KIB / KIB:.1f} MiB" if n >= KIB * KIB else f"{n / KIB:.0f} KiB"


def bounded(raw: bytes, limit: int) -> Kept:
    """`raw` as it may be stored under `limit` bytes, and the refusal if it had to be cut.

    A message nested deeper than any client writes (refused by `parse` already) is kept the same way, without
    its text: reading its body again would cost what the nesting limit exists to avoid.
    """
    nested = too_nested(raw)
    if len(raw) <= limit and not nested:
        return Kept(raw, None)
    digest = hashlib.sha256(raw).hexdigest()
    head, text = _head_and_text(raw[: min(limit, MAX_KEPT_HEADERS + 64 * KIB)], with_text=not nested)
    what = f"the first {KEPT_TEXT_CHARS} characters of its text" if not nested else "not its nested body"
    note = (
        f"\n\n[pbem: this message was {len(raw)} bytes; only its headers and {what} are kept. "
        f"SHA-256 of the whole message: {digest}]\n"
    )
    kept = head + "\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n" + text + note
    problem = None
    if len(raw) > limit:
        problem = (
            f"the message is {size_text(len(raw))} ({len(raw)} bytes); pbem accepts at most {size_text(limit)} "
            "from this sender. Send plain text orders without attachments"
        )
    return Kept(kept.encode("utf-8", "replace")[: limit + len(note) + MAX_KEPT_HEADERS], problem)


def _head_and_text(start: bytes, with_text: bool = True) -> tuple[str, str]:
    """The header block (without the MIME structure headers) and the first text of a message's start."""
    sep = re.search(rb"\r?\n\r?\n", start)
    head = start[: sep.start()] if sep else start
    lines = head.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    kept: list[str] = []
    skip = False
    for line in lines:
        if line[:1] in (" ", "\t"):
            if not skip:
                kept.append(line)
            continue
        skip = bool(_STRUCTURE.match(line))
        if not skip:
            kept.append(line)
    header = "\n".join(kept)[:MAX_KEPT_HEADERS]
    return header, (_first_text(start)[:KEPT_TEXT_CHARS] if with_text else "")


def _first_text(start: bytes) -> str:
    from pbem.mail.inbound.message import _text_parts, html_to_text, parse_bytes

    try:
        plain, html = _text_parts(parse_bytes(start))
        return plain if plain is not None else html_to_text(html or "")
    except Exception:  # an unreadable start keeps no text, only headers and the digest
        return ""


def storable(raw: bytes, limit: int, codes: tuple[str, ...] = ()) -> Kept:
    """The copy to store: bounded, then with every code removed."""
    kept = bounded(raw, limit)
    return Kept(redact_message(kept.raw, codes), kept.problem)


def scrub(msg: Inbound, raw: bytes, ex: Extracted | None, limit: int) -> tuple[Inbound, bytes, Extracted | None]:
    """What the pipeline may store and echo of one message: the bounded, redacted raw copy; the subject and
    the extracted lines without any code (`ex.code` itself is kept, for the check).  A message over `limit`
    is refused: its `problem` says why and nothing of it is extracted."""
    try:
        return _scrub(msg, raw, ex, limit)
    except Exception:  # nothing about one message may stop the poll: keep only its digest
        note = f"[pbem: this message could not be redacted; SHA-256 of the whole: {hashlib.sha256(raw).hexdigest()}]"
        empty = dataclasses.replace(
            msg, subject="", sender_name="", text="", problem=msg.problem or "could not be read"
        )
        return empty, note.encode(), None


def _scrub(msg: Inbound, raw: bytes, ex: Extracted | None, limit: int) -> tuple[Inbound, bytes, Extracted | None]:
    kept = bounded(raw, limit)
    given = codes_in_text(msg.subject) | ({ex.code} if ex and ex.code else set())
    tree = msg.tree.take() if msg.tree is not None and kept.raw is raw and _parsed_from(msg, raw) else None
    codes, stored = find_and_redact(kept.raw, given, parsed=tree)  # every code stated anywhere, the given ones
    too_many = over_budget(codes)
    # what every redaction below looks for (`code_pattern`: the first MAX_CODES normalised), made once: a mail of
    # 30,000 CODE lines would otherwise normalise them all again for each text redacted
    codes = set(sorted(normals(codes))[:MAX_CODES])
    msg = dataclasses.replace(
        msg, subject=redact_text(msg.subject, codes), sender_name=redact_text(msg.sender_name, codes), tree=None
    )
    if kept.problem:
        return dataclasses.replace(msg, problem=kept.problem, text=""), stored, None
    if too_many:  # nothing of its body was kept, so nothing of it is read (issue 26)
        problem = f"it states more than {MAX_CODES} different codes; send your orders with one CODE line"
        subject, name = (redact_text(redact_text(t, given), codes) for t in (msg.subject, msg.sender_name))
        return dataclasses.replace(msg, subject=subject, sender_name=name, problem=problem, text=""), stored, None
    over = budgets.refusal(ex) if ex is not None else None
    if over:  # more than one mail may ask: refused whole, nothing of it read (`budgets`)
        return dataclasses.replace(msg, problem=redact_text(over, codes), text=""), stored, None
    return msg, stored, (redact_extracted(ex, codes) if ex is not None else None)


def _parsed_from(msg: Inbound, raw: bytes) -> bool:
    """Whether `msg` was read from exactly `raw`: its parse (`msg.tree`) is then the parse of these bytes, and
    the redaction takes it instead of parsing them again."""
    return hashlib.sha256(raw).hexdigest() == msg.body_hash


def redact_extracted(ex: Extracted, codes: set[str]) -> Extracted:
    """`ex` with every code out of every line it may echo (orders, problems, chatter, ..., press bodies);
    `ex.code` is kept for the check.  Generic over the fields, so a new list of lines is covered too."""
    if code_pattern(codes) is None:
        return ex
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(ex):
        value = getattr(ex, f.name)
        if isinstance(value, list) and all(isinstance(x, str) for x in value):
            changes[f.name] = [redact_text(x, codes) for x in value]
        elif isinstance(value, list) and all(isinstance(x, Press) for x in value):
            changes[f.name] = [dataclasses.replace(p, body=[redact_text(x, codes) for x in p.body]) for p in value]
    return dataclasses.replace(ex, **changes)
