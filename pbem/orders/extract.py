"""Turning an email body into order lines (pure).

One order per line, case-insensitive.  Ignored: blank lines, `#` comments
(whole-line or trailing), quoted lines (`>`), the quoted block of a reply
("On ... wrote:", "-----Original Message-----", Outlook's "From: ... Sent:"
header block) and everything after a signature separator (`-- `).  A
top-posted reply therefore yields just the new text above the quote.

Moderator-level commands are split off here; everything else goes to the
game's engine:

* ``HELP``: the handbook and the sender's legal orders now;
* ``STATUS`` / ``REPORT``: re-send the sender's current report;
* ``CODE <code>``: the player's secret code (it may also be in the subject);
* ``PRESS TO <player|ALL> ... END PRESS``: a message relayed to other players.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_REPLY_HEADER = re.compile(
    r"^\s*(on\s.+wrote:|le\s.+a\s+écrit\s*:|am\s.+schrieb.*:|-{2,}\s*original message\s*-{2,}|_{5,})\s*$", re.IGNORECASE
)
_OUTLOOK_FROM = re.compile(r"^\s*from:\s.+", re.IGNORECASE)
_CODE = re.compile(r"^code\s*[:=]?\s*(\S+)\s*$", re.IGNORECASE)
_PRESS = re.compile(r"^press\s+to\s+(.+?)\s*:?\s*$", re.IGNORECASE)
_SUBJECT_CODE = re.compile(r"\bcode\s*[:=]?\s*([A-Za-z0-9-]{4,64})\b", re.IGNORECASE)


@dataclass
class Press:
    to: list[str]
    body: list[str]


@dataclass
class Extracted:
    orders: list[str] = field(default_factory=list)
    help: bool = False
    status: bool = False
    code: str | None = None
    press: list[Press] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def body_lines(text: str) -> list[str]:
    """The sender's own lines: quotes, reply blocks and signature removed."""
    out: list[str] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if raw.rstrip() in ("--", "-- ") or raw == "-- ":
            break
        if _REPLY_HEADER.match(raw):
            break
        if _OUTLOOK_FROM.match(raw) and out and not out[-1].strip():
            break
        if raw.lstrip().startswith(">"):
            continue
        out.append(raw)
    return out


def _strip_comment(line: str) -> str:
    return line.split("#", 1)[0].strip()


def extract(text: str, subject: str = "") -> Extracted:
    ex = Extracted()
    m = _SUBJECT_CODE.search(subject or "")
    if m:
        ex.code = m.group(1)
    lines = body_lines(text)
    i = 0
    while i < len(lines):
        line = _strip_comment(lines[i])
        i += 1
        if not line:
            continue
        word = line.split()[0].upper()
        if word == "HELP" and len(line.split()) == 1:
            ex.help = True
        elif word in ("STATUS", "REPORT") and len(line.split()) == 1:
            ex.status = True
        elif _CODE.match(line):
            ex.code = _CODE.match(line).group(1)
        elif _PRESS.match(line):
            to = [t.strip() for t in re.split(r"[,\s]+", _PRESS.match(line).group(1)) if t.strip()]
            body: list[str] = []
            closed = False
            while i < len(lines):
                raw = lines[i]
                i += 1
                if raw.strip().upper() in ("END PRESS", "ENDPRESS"):
                    closed = True
                    break
                body.append(raw.rstrip())
            if not closed:
                ex.problems.append(f'"{line}": press must end with a line "END PRESS"; nothing was sent')
            else:
                ex.press.append(Press(to, body))
        else:
            ex.orders.append(line)
    return ex
