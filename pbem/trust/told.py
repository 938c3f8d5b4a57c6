"""`pbem verify --mail`: what a report told its reader happened, against the export's events.

A receipt binds a report to a head of the chain, but the signature covers the receipt, not the report's text:
a moderator could keep every head right and still tell Alice in her report that Bob played another card than
the record says, and tell Bob the truth (second fairness red team: two players shown different histories with
the same heads).  Every report lists, under "== What happened since your last report ==", one line per event
its reader may see, each the event's `text` as recorded (`pbem.app.reporting`; a replaced seat's newcomer reads
the seat's earlier names as their own).  So each such line must be the text of an event of the export that the
reader may see, recorded no later than the report's head.  The text is not signed, so a line that is not is
evidence for the player who holds the mail, not proof for anyone else.  Pure; linear in the mail and the chain.
"""

from __future__ import annotations

import binascii
import hashlib
import re
from collections.abc import Iterable
from email import message_from_bytes
from html import unescape
from typing import Any

from pbem.orders import params
from pbem.orders.charsets import decodable
from pbem.render.sanitize import visible
from pbem.trust.addresses import too_nested
from pbem.trust.quote import between

HEADING = "== What happened since your last report =="
BULLET = "  * "
MAX_LINES = 2_000  # lines read after the heading of one report
#: lines the template prints after the list and its sections (the third to a player asked nothing now: players28)
AFTER = ("Reply to this mail", "Record #", "Nothing is needed from you now")
_REST = re.compile(rb"\n--[^\r\n]*\r?\nContent-Type:\s*(?:multipart/related|text/html|image/)", re.I)
BOARD = "\n== The board ("  # the note the template prints right after the list, in every report


def bullets(raw: bytes) -> tuple[str, ...]:
    """The lines a report's plain text lists under `HEADING` (none when it has no such part)."""
    return listed(plain(raw))[0] if may_report(raw) else ()


def may_report(raw: bytes) -> bool:
    """Whether a mail may hold a report: a text part that is not base64 holds its words as they are
    (quoted-printable encodes only the heading's "="), so a mail without them, or base64, need not be parsed."""
    return b"Private report for" in raw or b"What happened since your last report" in raw or b"base64" in raw


def plain(raw: bytes) -> str:
    """The first plain-text part of a mail that is no attachment, decoded ("" when it has none).  Parsed up to
    the part that follows it when that is the HTML or a picture (`_REST`: a report's text part comes first, and
    its pictures are most of its bytes), else whole."""
    cut = _REST.search(raw)
    return (_plain(raw[: cut.start() + 1]) if cut else "") or _plain(raw)


_PICTURES = re.compile(rb"\n--[^\r\n]*\r?\nContent-Type:\s*image/", re.I)


def html(raw: bytes) -> str:
    """The first HTML part of a mail that is no attachment, decoded ("" when it has none); parsed up to the
    pictures that follow it (most of a report's bytes) when it has them, else whole."""
    cut = _PICTURES.search(raw)
    return (_plain(raw[: cut.start() + 1], "text/html") if cut else "") or _plain(raw, "text/html")


#: The transfer encodings and charsets whose bytes, once quoted-printable is undone, are the words (`readable`).
_AS_WRITTEN = frozenset({b"quoted-printable", b"7bit", b"8bit", b"binary"})
_UTF8 = frozenset({b"utf-8", b"us-ascii"})
_ENCODING = re.compile(rb"content-transfer-encoding:[ \t]{0,40}([a-z0-9-]{0,40})")
_CHARSET = re.compile(rb'charset\*?[ \t]{0,40}=[ \t]{0,40}"?([a-z0-9_.:-]{0,40})')


def readable(raw: bytes) -> bytes | None:
    """The bytes of the mail's parts `html` reads (those before its pictures when its HTML part is among them), lower
    case, with quoted-printable undone (soft line breaks, "=XX"), so that words its HTML part says are found in them
    without parsing it; None when they may not be: a part in another transfer encoding (base64, uuencode) or another
    charset than UTF-8 (tenth round: a note forged in the HTML part alone, its words split by a soft line break or an
    escape, was never read)."""
    cut = _PICTURES.search(raw)
    head = raw[: cut.start()] if cut and b"text/html" in raw[: cut.start()].lower() else raw
    low = binascii.a2b_qp(head).lower()
    encodings = [m[1] for m in _ENCODING.finditer(low)]
    charsets = [m[1] for m in _CHARSET.finditer(low)]
    if not set(encodings) <= _AS_WRITTEN or not set(charsets) <= _UTF8 or len(charsets) != low.count(b"charset"):
        return None
    return low if len(encodings) == low.count(b"content-transfer-encoding") else None


#: Mails up to this size have their parts' texts remembered, the last `MEMO_MAILS` of them and at most
#: `MEMO_CHARS` characters of text in all (`_plain`): pbem's reports are 10 to 70 KB.  By count alone, a mailbox of
#: mails of 250 KB each held 1,024 texts of 250 KB, 256 MB (costs12).
MEMO_BYTES = 256 * 1024
MEMO_MAILS = 1_024
MEMO_CHARS = 32 * 1024 * 1024
_MEMO: dict[tuple[bytes, str], str] = {}
_held = [0]  # the characters of the texts `_MEMO` holds


def _plain(raw: bytes, kind: str = "text/plain") -> str:
    """The first part of `kind` of the mail (see `plain`).  `pbem verify --mail` asks for the same mail's text in
    several checks (a Sixteen Thirty game's mail to one player: 1,187 parses of 392 mails, a third of the check's
    time), so the answer for a mail of at most `MEMO_BYTES` is remembered by the mail's digest (the mail itself
    is not kept); the oldest answer goes past `MEMO_MAILS` or `MEMO_CHARS`."""
    if len(raw) > MEMO_BYTES:
        return _parse(raw, kind)
    key = (hashlib.blake2b(raw, digest_size=20).digest(), kind)
    text = _MEMO.get(key)
    if text is None:
        text = _MEMO[key] = _parse(raw, kind)
        _held[0] += len(text)
        while len(_MEMO) > MEMO_MAILS or (_held[0] > MEMO_CHARS and len(_MEMO) > 1):
            _held[0] -= len(_MEMO.pop(next(iter(_MEMO))))
    return text


def _parse(raw: bytes, kind: str) -> str:
    if too_nested(raw):  # the parser recurses a level a part (a folder's are set aside first: `read_folder`, costs19)
        return ""
    try:
        for part in message_from_bytes(raw, params.Message).walk():  # (parameters read in one pass: costs20)
            if part.get_content_type() == kind and not part.get_filename():
                payload = part.get_payload(decode=True)
                if isinstance(payload, bytes):
                    return payload.decode(decodable(part.get_content_charset() or "utf-8"), "replace")
                return ""
    except (LookupError, ValueError, AttributeError, TypeError):
        return ""
    return ""


_HTML_LIST = ("<section><h2>What happened since your last report</h2><ul>", "</ul></section>")  # (`between`)
_HTML_ITEM = ("<li>", "</li>")


def html_listed(page: str) -> tuple[str, ...]:
    """The lines a report's HTML part lists under its "What happened" heading, unescaped, each as `bullets` reads
    the plain text's (blank lines and trailing blanks left out).  Most mail programs show this part."""
    found = between(page, *_HTML_LIST, most=1)
    if not found:
        return ()
    items = (unescape(item) for item in between(found[0], *_HTML_ITEM))
    return tuple("\n".join(x.rstrip() for x in item.split("\n") if x.strip()) for item in items)


def _after_list(line: str) -> bool:
    """A line that starts what the report prints after its list (a heading, the reply hint, the record line)."""
    return (line.startswith("== ") and line.endswith(" ==")) or line.startswith(AFTER)


def listed(text: str) -> tuple[tuple[str, ...], int]:
    """(the lines `text` lists under `HEADING`, the offset where that list ends; -1 when it has no list).  A line
    that is no bullet goes on the bullet before it: an event's text may hold line breaks, and blank lines (an
    undo's reason with a paragraph break: it was read cut at the blank line, and whatever a report listed after
    one was never read).  Blank lines are dropped, as `_printed` drops them.  The list ends where the template
    prints the board's note after it (`BOARD`: every report has one; its last occurrence, so that no event's
    text can end the list early), else, in a report without a board, at the first heading, reply hint or record
    line after a blank line."""
    at = text.find(HEADING)
    if at < 0:
        return (), -1
    start = at + len(HEADING)
    board = text.rfind(BOARD, start)
    rows = text[start : board + 1 if board >= 0 else len(text)].split("\n")
    out: list[str] = []
    offset = start + len(rows[0]) + 1
    blank = False
    for row in rows[1:] if board >= 0 else rows[1 : MAX_LINES + 1]:  # up to the board: all, or a lie hides
        line = row.rstrip()
        if not line:
            blank = True
        elif line.startswith(BULLET):
            out.append(line[len(BULLET) :])
            blank = False
        elif out and not (board < 0 and blank and _after_list(line)):
            out[-1] += "\n" + line
            blank = False
        else:
            break
        offset += len(row) + 1
    return tuple(out), (board + 1 if board >= 0 else offset)


def _forms(text: str, former: list[str], reader: str) -> Iterable[str]:
    """The line a report prints for an event's `text`: as the templates show every value (control characters
    and line separators escaped, `pbem.render.sanitize.visible`), without the trailing blanks and blank lines
    `bullets` does not keep."""
    yield _printed(text)
    for name in former:  # as `pbem.app.reporting._addressed` words it for a seat's newcomer
        yield _printed(re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", reader, text))


def _printed(text: str) -> str:
    return "\n".join(line.rstrip() for line in visible(text, keep_lines=True).split("\n") if line.strip())


def _sees(row: dict[str, Any], seat: list[str]) -> bool:
    """Whether an entry of the chain is public or shown to one of the seat's names."""
    vis = row.get("visibility")
    return vis == "public" or (isinstance(vis, list) and any(n in vis for n in seat))


def untrue(
    rows: list[dict[str, Any]], reports: list[tuple[int, str, tuple[str, ...]]], seat: list[str]
) -> list[tuple[int, str, str]]:
    """Each (position, mail name, line) of `reports` (its head's chain position, how the mail is named, its lines)
    whose line is no event of `rows` (the chain, in order) visible to `seat` (the reader's names, theirs first)
    up to that position."""
    known: set[str] = set()
    done = 0
    out: list[tuple[int, str, str]] = []
    reader, former = (seat[0], seat[1:]) if seat else ("", [])
    for position, name, lines in sorted(reports, key=lambda r: r[0]):
        while done < min(position, len(rows)):
            row = rows[done]
            done += 1
            if "lines" in row:
                continue
            if _sees(row, seat):
                known.update(_forms(str(row.get("text", "")), former, reader))
        out += [(position, name, line) for line in lines if line not in known]
    return out


def untold(
    rows: list[dict[str, Any]], reports: list[tuple[int, str, tuple[str, ...]]], seat: list[str]
) -> list[tuple[int, str, list[tuple[int, str]]]]:
    """Of each report of `reports` (as `untrue` reads them: its head's position, how the mail is named, its lines),
    the (position, text) of the events of `rows` visible to `seat` before its head, and after the previous report's,
    that no report of `reports` lists: [(position, mail name, [(event position, event text), ...])].

    A report lists every event its reader may see since their last report (`pbem.app.reporting`: from the outbox's
    newest report to them), so the lists of a player's reports tell, between them, every event up to the newest
    head.  A report withheld from its reader (written, so the next one starts after it, but never sent to them) leaves
    the events it listed told nowhere (eighteenth round).  Matched by count, each line with the newest untold event
    of its text (or of the seat's earlier names' form) up to its head, as a report lists those since the last one; a
    line told again (a `resend`) matches nothing more.  Pure; linear in the chain and the lines."""
    owed: dict[str, list[int]] = {}  # a printed form -> positions of untold events of that form, oldest first
    windows: list[tuple[int, str, list[tuple[int, str]]]] = []
    said: set[int] = set()
    done = 0
    reader, former = (seat[0], seat[1:]) if seat else ("", [])
    for position, name, told_lines in sorted(reports, key=lambda r: r[0]):
        window: list[tuple[int, str]] = []
        while done < min(position, len(rows)):
            row = rows[done]
            done += 1
            if "lines" not in row and _sees(row, seat):
                text = str(row.get("text", ""))
                window.append((done, text))
                for form in dict.fromkeys(_forms(text, former, reader)):
                    owed.setdefault(form, []).append(done)
        windows.append((position, name, window))
        for line in told_lines:
            waiting = owed.get(line)
            while waiting and waiting[-1] in said:
                waiting.pop()
            if waiting:
                said.add(waiting.pop())
    out = [(at, name, [e for e in window if e[0] not in said]) for at, name, window in windows]
    return [w for w in out if w[2]]
