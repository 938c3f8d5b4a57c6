"""Orders a player wrote where pbem does not read them (pure): told, never applied (players30).

* An order in the Subject of a mail whose body holds orders ("Re: [pbem g1] Turn 1, Alice to play - PASS" above a
  body saying "NO EVENT"): the body's orders stand, as they always did, and the subject's was dropped untold.  Now
  the player is told, the subject's order quoted, unless the body says it too (`subject_note`).
* An order inside a forwarded message ("---------- Forwarded message ---------", "Begin forwarded message:" and
  their translations, then the forwarded mail's header block): pbem reads what the sender wrote above the marker,
  never what a forwarded mail says (it may be anyone's).  A mail with no order of its own that forwards one (the
  player's own mail, sent from another address by mistake, forwarded to the game) was answered as if it said
  nothing.  Now each order line of the forwarded part (at most `TOLD`, among its first `LINES` lines, up to a quote
  or another marker) is quoted and the player told to send it as a line of their own (`forwarded_notes`).  The copy
  of a mail pbem sent is taken out before (`pbem.app.reading.own_text`), so a forwarded report's listed orders are
  never told.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pbem.orders.furniture import MARKER, attribution_at, header_block_at

TOLD = 3  # order lines of a forwarded part told, at most
LINES = 40  # lines of a forwarded part read for them, at most
HEADER = 10  # lines of the forwarded mail's header block skipped, at most
_FORWARD = re.compile(
    r"forward|weitergeleitet|réexpédié|reexpedie|transf|inoltrat|reenviad|encaminhad|doorgestuurd|videresendt|"
    r"vidarebefordrat|转发|轉寄|転送|전달된",
    re.IGNORECASE,
)
# "Date: ...", "Subject: ...": possessive, so a run of spaces is read once (`tests/reliability/test_pattern_costs.py`)
_HEADER_LINE = re.compile(r"^\s*+\**+\s*+[^\s:：]{1,20}+(?:\s[^\s:：]{1,20}+)?+\s*+[:：]")


def _key(line: str) -> str:
    return " ".join(line.casefold().split())


def subject_note(said: str, send: str = "") -> str:
    """The note on an order typed in the subject of a mail whose body holds orders (`send`: the legal line it is)."""
    return (
        f'"{said}" in the subject was not read: only the orders in the body are. If you meant it too, send it in '
        f"the body, one order a line: {send or said}"
    )


def subject_told(said: str, orders: list[str]) -> list[str]:
    """The note on the subject's order `said` ([] when the body's orders say it too)."""
    if not said or _key(said) in {_key(o) for o in orders}:
        return []
    return [subject_note(" ".join(said.split()))]


def forwarded_note(typed: str, order: str, marker: str) -> str:
    return (
        f'"{typed}" was not read: it is inside a forwarded message (under "{marker.strip()}"), and pbem reads only '
        f"what you write above it. If it is your order, send it as a line of your own: {order}"
    )


def forwarded_notes(text: str, read: Callable[[str], str]) -> list[str]:
    """The notes on the order lines of the first forwarded part of `text` (`read(line)`: the order it is, or "")."""
    if "orward" not in text and not _FORWARD.search(text[:20_000]):
        return []
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    at = next((i for i, ln in enumerate(lines) if MARKER.match(ln) and _FORWARD.search(ln)), None)
    if at is None:
        return []
    i = at + 1
    while i < len(lines) and i - at <= HEADER and (not lines[i].strip() or _HEADER_LINE.match(lines[i])):
        i += 1
    out: list[str] = []
    for k in range(i, min(len(lines), i + LINES)):
        line = lines[k].strip()
        if line.startswith(">") or MARKER.match(line) or header_block_at(lines, k) or attribution_at(lines, k):
            break
        if line and (order := read(line)):
            out.append(forwarded_note(line, order, lines[at]))
            if len(out) >= TOLD:
                break
    return out
