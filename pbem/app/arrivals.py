"""A clock ahead by less than `[games] outage_after`, told by the IMAP server's arrival dates (INTERNALDATE).

The argument.  A run reads the inbox's UIDNEXT after it starts, at `L` by this machine's clock (`keep`: the
`imap-since` poll mark, "UIDVALIDITY:UIDNEXT@L"; an idle run that finds the same UIDNEXT moves `L` to its own
start).  A message whose UID is at least that UIDNEXT, in the same UIDVALIDITY, was not in the folder then: it
arrived, by the server's clock, at or after the real time of `L`.  If the server stamped it `A`, earlier than `L`
by more than `[games] server_clock_margin` (10 minutes by default), this machine's clock was ahead of the server's
by at least `L - A`.  The newest such arrival is taken (a message copied back into the inbox keeps its old date,
and must not count alone when others arrived with it).  One new mail is enough; no new mail is no evidence.

What it does (`held`, called by the poll before deadlines): no deadline or reminder is applied in that run
(nothing applied early: a player's order that arrives in time is read into the open step, as ever, and that is
sound, since an order's lateness is only whether the deadline was applied when it is read); the moderator is told
once (a log line and one mail, `clock_ahead`), and the `clock-ahead` mark keeps the finding, so that later runs
without new mail hold too.  A new mail that shows no such gap clears it.  `pbem poll --trust-clock` clears it and
reads no evidence in that run (`prepare`), and a mail server whose own clock is behind is answered by raising the
margin, or "0m" to turn the check off.

The other way round, a message stamped later than this run's clock by more than the margin says this clock is
behind the server's (or the server's is ahead): logged, and nothing else changes (a clock behind applies
deadlines late, which the players do not lose by; the record's own check refuses one behind its newest time).

Maildir has no clock but this machine's (its files are written by the local delivery): no evidence there.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.app.clock import _span
from pbem.home.app import Home
from pbem.home.config import Config
from pbem.record import marks

log = logging.getLogger("pbem.clock")


def forget(cfg: Config) -> None:
    """`pbem poll --trust-clock`: a clock found ahead is forgotten (before the idle check: its run may be idle)."""
    if marks.recall(cfg.database_url, marks.CLOCK_AHEAD):
        marks.remember(cfg.database_url, marks.CLOCK_AHEAD, "")


def prepare(cfg: Config, inbox: object, trusted: bool | str) -> None:
    """Before the poll: tell the inbox which UIDNEXT the last run saw and when (none: Maildir, another
    UIDVALIDITY, no earlier run, the check turned off, or `--trust-clock`: that run reads no evidence)."""
    seen = getattr(inbox, "arrivals", None)
    if seen is None or trusted or cfg.server_clock_margin <= timedelta(0):
        return
    mark, _, when = (marks.recall(cfg.database_url, marks.IMAP_SINCE) or "").partition("@")
    validity, _, uidnext = mark.partition(":")
    if validity != str(getattr(inbox, "uidvalidity", None)) or not uidnext.isdigit():
        return  # another UIDVALIDITY: its UIDs say nothing of what arrived when
    try:
        seen.reference = datetime.fromisoformat(when).astimezone(UTC)
    except ValueError:
        return
    seen.since = int(uidnext)


def keep(cfg: Config, mark: str | None, started: datetime) -> None:
    """After a poll that read the whole inbox (or an idle run that found it unchanged): the next run's reference."""
    if mark and cfg.server_clock_margin > timedelta(0):
        marks.remember(cfg.database_url, marks.IMAP_SINCE, f"{mark}@{started.astimezone(UTC).isoformat()}")


def held(home: Home, inbox: object, now: datetime, summary: Any) -> bool:
    """True when this run must apply no deadline or reminder: the server's arrival dates say this clock is ahead
    (see the module docstring); said in the summary, logged and mailed to the moderator once."""
    seen, cfg = getattr(inbox, "arrivals", None), home.cfg
    margin = cfg.server_clock_margin
    if seen is None or margin <= timedelta(0):
        return False
    if seen.newest is not None and seen.newest - now > margin:
        log.warning(
            "the mail server stamped a message %s later than this clock (%s UTC): this clock is behind the "
            "server's, or the server's is ahead",
            _span(seen.newest - now),
            f"{now:%Y-%m-%d %H:%M}",
        )
    found = marks.recall(cfg.database_url, marks.CLOCK_AHEAD) or ""
    if seen.newest_new is not None and seen.reference is not None:
        ahead = seen.reference - seen.newest_new
        if ahead <= margin:
            if found:
                log.warning("the mail server's arrival dates no longer put this clock ahead: deadlines apply again")
                marks.remember(cfg.database_url, marks.CLOCK_AHEAD, "")
            return False
        if not found:
            _tell(home, ahead, seen.reference, seen.newest_new, now)
        marks.remember(cfg.database_url, marks.CLOCK_AHEAD, str(int(ahead.total_seconds())))
    elif not found.isdigit():
        return False  # no new mail, no evidence, and none found before
    else:
        ahead = timedelta(seconds=int(found))
    note = (
        f"this clock is at least {_span(ahead)} ahead of the mail server's: no deadline or reminder was applied "
        "(fix the clock, then run once: pbem poll --trust-clock)"
    )
    summary.notes.append(note)
    summary.told.append(note)
    return True


def _tell(home: Home, ahead: timedelta, reference: datetime, arrived: datetime, now: datetime) -> None:
    from pbem.app import alerts

    log.warning(
        "this clock is at least %s ahead of the mail server's: a message the server stamped %s UTC arrived after "
        "the run of %s UTC (by this clock) began; no deadline or reminder is applied until the clock is right "
        "(then run once: pbem poll --trust-clock)",
        _span(ahead),
        f"{arrived:%Y-%m-%d %H:%M}",
        f"{reference:%Y-%m-%d %H:%M}",
    )
    ctx = {
        "ahead": _span(ahead),
        "arrived": f"{arrived:%Y-%m-%d %H:%M} UTC",
        "reference": f"{reference:%Y-%m-%d %H:%M} UTC",
        "margin": f"{int(home.cfg.server_clock_margin.total_seconds() // 60)} min",
    }
    alerts.queue_alert(home, "clock_ahead", ctx, (reference.isoformat(),), now)
