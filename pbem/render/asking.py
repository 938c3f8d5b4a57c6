"""What a report says first: what is asked of the reader now, in plain words, and by when (issue 24).

Pure: fed by the report context's requests, the players still awaited, the deadline and the time the mail is
rendered (`now`, passed in by the outbox: never the clock), so the same inputs give the same words.  The
templates put these lines right under the title, before what happened and before the board.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def _when(value: str | datetime | None) -> datetime | None:
    if value is None or value == "":
        return None
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def clock_text(when: datetime) -> str:
    """ "Tue 2 Dec 18:00 UTC" (English day and month names whatever the locale)."""
    when = when.astimezone(UTC)
    day = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[when.weekday()]
    month = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")[when.month - 1]
    return f"{day} {when.day} {month} {when.hour:02d}:{when.minute:02d} UTC"  # (strftime cost a tenth of the HTML)


def due_phrase(due: str | datetime | None, now: str | datetime | None = None) -> str:
    """A deadline in the reader's terms: "in 23 hours, Tue 2 Dec 18:00 UTC"; without `now` only the date."""
    at, ref = _when(due), _when(now)
    if at is None:
        return ""
    if ref is None:
        return clock_text(at)
    minutes = round((at - ref).total_seconds() / 60)
    if minutes <= 0:
        return f"now (it was due {clock_text(at)})"
    if minutes < 90:
        left = f"{minutes} minute{'s' if minutes != 1 else ''}"
    elif minutes < 48 * 60:
        hours = round(minutes / 60)
        left = f"{hours} hours"
    else:
        days = round(minutes / (24 * 60))
        left = f"{days} days"
    return f"in {left}, {clock_text(at)}"


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def first_lines(
    asked: list[dict[str, Any]],
    waiting: list[str],
    due_at: str | None,
    now: str | None,
    result: dict[str, Any] | None,
    player: str,
) -> list[str]:
    """The report's opening lines: the question and its deadline, or who is awaited and until when."""
    due = due_phrase(due_at, now)
    if result is not None:
        return [f"The game is over: {str(result['summary']).rstrip('.')}. Nothing more is asked of you."]
    open_ = [r for r in asked if not r["answered"]]
    if open_:
        out = [f"Asked of you now: {r['prompt']}" for r in open_]
        out.append(f"Deadline: {due}." if due else "No deadline is set for this step.")
        return out
    others = [p for p in waiting if p != player]
    if asked:
        head = "Your orders for this step are on file; you may change them until it resolves."
    else:
        head = "Nothing is asked of you now."
    if others:
        return [head, f"Waiting for {_names(others)}" + (f"; deadline {due}." if due else "; no deadline is set.")]
    return [head]
