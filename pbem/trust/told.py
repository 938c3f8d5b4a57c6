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

import re
from collections.abc import Iterable
from email import message_from_bytes
from typing import Any

from pbem.render.sanitize import visible

HEADING = "== What happened since your last report =="
BULLET = "  * "
MAX_LINES = 2_000  # lines read after the heading of one report


def bullets(raw: bytes) -> tuple[str, ...]:
    """The lines a report's plain text lists under `HEADING` (none when it has no such part).  A text part that
    is not base64 holds the heading's words as they are (quoted-printable encodes only its "="), so a mail
    without them, or base64, is not parsed; the parse is the fast compat32 one."""
    if b"What happened since your last report" not in raw and b"base64" not in raw:
        return ()
    try:
        text = ""
        for part in message_from_bytes(raw).walk():
            if part.get_content_type() == "text/plain" and not part.get_filename():
                payload = part.get_payload(decode=True)
                if isinstance(payload, bytes):
                    text = payload.decode(part.get_content_charset() or "utf-8", "replace")
                break
    except (LookupError, ValueError, AttributeError, TypeError):
        return ()
    at = text.find(HEADING)
    if at < 0:
        return ()
    out = []
    for line in text[at + len(HEADING) :].split("\n")[1 : MAX_LINES + 1]:
        line = line.rstrip()
        if line.startswith(BULLET):
            out.append(line[len(BULLET) :])
        elif line and out:  # an event's text that holds a line break goes on under its bullet
            out[-1] += "\n" + line
        else:
            break
    return tuple(out)


def _forms(text: str, former: list[str], reader: str) -> Iterable[str]:
    """The line a report prints for an event's `text`: as the templates show every value (control characters
    and line separators escaped, `pbem.render.sanitize.visible`), without the trailing blanks and blank lines
    `bullets` does not keep."""
    yield _printed(text)
    for name in former:  # as `pbem.app.reporting._addressed` words it for a seat's newcomer
        yield _printed(re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", reader, text))


def _printed(text: str) -> str:
    return "\n".join(line.rstrip() for line in visible(text, keep_lines=True).split("\n") if line.strip())


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
            vis = row.get("visibility")
            if vis == "public" or (isinstance(vis, list) and any(n in vis for n in seat)):
                known.update(_forms(str(row.get("text", "")), former, reader))
        out += [(position, name, line) for line in lines if line not in known]
    return out
