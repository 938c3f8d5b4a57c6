"""When a player's mail left, from their own Sent copy, for `pbem verify --sent` (HELD BACK and REORDERED).

The time a mail arrived is the moderator's word (`messages[].received`), and an input's `at` is when he applied it.
What the player holds is their Sent copy, and its best evidence of when it left is, in this order:

1. ``provider``: the ``t=`` of a DKIM-Signature on the copy (the time the player's provider signed it, by the
   provider's clock), else the earliest date of its ``Received`` lines (the provider's servers stamped them);
2. ``client``: its ``Date``, set by the player's own mail program, whose clock may be wrong by hours.

A client clock behind makes a mail look sent earlier than it was, so a mail sent just after a deadline could be
called held back (second fairness red team).  For a ``client`` time, `clock_slack` is how far behind the player's
clock could be: the least delay the export records between the Date of any *other* of the player's mails and its
arrival (a clock three hours slow makes every mail look three hours in transit).  That least delay is the
moderator's word too, but it only ever excuses him: it can hide a held-back mail, never make one.
Pure: the raw mails and the export's values in, times out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import Message
from email.parser import BytesHeaderParser
from email.utils import parsedate_to_datetime
from typing import Any

#: A clock this close to the others' counts as right: mail takes seconds to minutes.
TRANSIT = timedelta(minutes=5)
_T = re.compile(r"(?:^|;)\s*t\s*=\s*(\d{1,12})\s*(?:;|$)")
MAX_HEADERS = 50  # Received / DKIM-Signature lines read per mail


#: The inputs a mail held back past changes a game: a deadline applies the defaults, the moderator's start deals
#: without the JOINs not in (a JOIN held past it lets him choose the deal with or without it).
CUTOFFS = {
    "deadline": "the defaults were applied",
    "start": "the game was dealt without the JOINs not yet in",
}


def cutoff(o: dict[str, Any]) -> str:
    """How an input of `CUTOFFS` is named to the player."""
    if o["kind"] == "start":
        return f"the moderator's start (input {o['seq']}), which dealt the game"
    return f"the deadline that input {o['seq']} applied"


@dataclass(frozen=True)
class Stamp:
    at: datetime
    source: str  # "provider" or "client"
    said: str  # how it is named to the player
    signed: str = ""  # the d= of the DKIM-Signature it was read from ("" for another stamp)


def date_of(value: str) -> datetime | None:
    try:
        at = parsedate_to_datetime(value) if value else None
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return at if at is not None and at.tzinfo is not None else None


def _first(head: Message, name: str) -> list[str]:
    """The first `MAX_HEADERS` fields `name` of `head`, unparsed: `get_all` parses every one of them before the
    first are taken (a Sent mail of 1,920 Received lines cost 12 times one of 480)."""
    name = name.lower()
    found: list[str] = []
    for key, value in head.raw_items():
        if key.lower() == name:
            found.append(str(value))
            if len(found) == MAX_HEADERS:
                break
    return found


def _provider(raw: bytes, head: Message | None = None) -> Stamp | None:
    if head is None:
        try:
            head = BytesHeaderParser().parsebytes(raw)
        except (ValueError, LookupError):
            return None
    for sig in _first(head, "DKIM-Signature"):
        m = _T.search("".join(str(sig).split()))
        if m:
            try:
                at = datetime.fromtimestamp(int(m.group(1)), UTC)
            except (OverflowError, OSError, ValueError):
                continue
            domain = next((t[2:] for t in "".join(str(sig).split()).split(";") if t.startswith("d=")), "?")
            return Stamp(at, "provider", f"{at:%Y-%m-%d %H:%M} UTC by your provider's DKIM signature (t=)", domain)
    stamps = [d for r in _first(head, "Received") if (d := date_of(" ".join(r.rpartition(";")[2].split())))]
    if stamps:
        at = min(stamps)
        return Stamp(at, "provider", f"{at:%Y-%m-%d %H:%M} UTC by your provider's Received stamp")
    return None


def sent_at(raw: bytes, date: str, head: Message | None = None) -> Stamp | None:
    """The best evidence of when the Sent copy `raw` (with its Date header `date`; `head`: its parsed headers,
    when the caller has them) left."""
    found = _provider(raw, head)
    if found is not None:
        return found
    at = date_of(date)
    return None if at is None else Stamp(at, "client", f"{date} by your mail program's clock (its Date)")


def clock_slack(delays: list[tuple[str, timedelta]], mine: str) -> timedelta:
    """How far behind the player's clock may be, judged by their mails other than `mine`: the least (arrival -
    Date) among them, less normal transit; zero when it is small or there is no other mail."""
    others = [d for mid, d in delays if mid != mine]
    if not others:
        return timedelta(0)
    least = min(others)
    return least if least > TRANSIT else timedelta(0)


def iso(value: object) -> datetime | None:
    try:
        at = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return at if at.tzinfo is not None else None
