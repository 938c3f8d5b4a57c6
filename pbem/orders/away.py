"""`AWAY UNTIL 2026-12-24`, `AWAY 5` (days) and `BACK`: a player's absence, as written (pure).

Read as control lines by `pbem.orders.extract`: what the absence does to deadlines
is `pbem.app.absence`'s.  Accepted forms (case-insensitive, trailing punctuation
ignored): ``AWAY UNTIL YYYY-MM-DD``, ``AWAY TILL YYYY-MM-DD``, ``AWAY YYYY-MM-DD``,
``AWAY N``, ``AWAY N DAYS``, ``AWAY FOR N DAYS``, and ``BACK``.  A date means the
player is back at 00:00 UTC that day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

MAX_DAYS = 366
SYNTAX = "AWAY UNTIL 2026-12-24, AWAY 5 (days) or BACK"
_AWAY = re.compile(
    r"^away\s*+:?\s*+(?:(?:until|till|to)\s++)?(?:(\d{4}-\d{2}-\d{2})|(?:for\s++)?(\d{1,3})(?:\s+days?)?)\s*+$",
    re.IGNORECASE,
)
_BACK = re.compile(r"^back(?:\s+now)?$", re.IGNORECASE)
# an absence meant, if misspelt; possessive runs of spaces (each split of a run was tried: the cube of it)
_MEANT = re.compile(r"^away\s*+:?\s*+(?:until|till|to|for)?\s*+\d", re.IGNORECASE)


def meant(line: str) -> bool:
    """Does `line` try to be an AWAY or BACK order?  ("Back from holiday" and "Away from my desk" do not.)"""
    text = line.strip().rstrip(".!;,").strip()
    return bool(_BACK.match(text) or _MEANT.match(text) or re.match(r"^away\s+(until|till)\b", text, re.I))


@dataclass(frozen=True)
class Away:
    """One AWAY or BACK line: `until` (a date) or `days`; `back` for BACK; `problem` when it cannot be read."""

    line: str
    until: date | None = None
    days: int | None = None
    back: bool = False
    problem: str = ""


def read_away(line: str) -> Away:
    """The AWAY or BACK order of `line` (it starts with one of those words)."""
    text = line.strip().rstrip(".!;,").strip()
    if _BACK.match(text):
        return Away(line, back=True)
    m = _AWAY.match(text)
    if not m:
        return Away(line, problem=f'"{line}": write {SYNTAX}')
    if m.group(1):
        try:
            return Away(line, until=date.fromisoformat(m.group(1)))
        except ValueError:
            return Away(line, problem=f'"{line}": {m.group(1)} is not a date; write it as YYYY-MM-DD')
    days = int(m.group(2))
    if not 1 <= days <= MAX_DAYS:
        return Away(line, problem=f'"{line}": say from 1 to {MAX_DAYS} days')
    return Away(line, days=days)
