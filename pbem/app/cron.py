"""`pbem poll` as cron runs it: one run per home at a time, a cheap exit when there is nothing to do.

Heavy modules are imported only once there is work, so that an idle run
costs little more than starting Python.
"""

from __future__ import annotations

import fcntl
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING

from pbem.home.config import Config

if TYPE_CHECKING:
    from pbem.app.poll import PollSummary


@dataclass
class Run:
    """What one run did: a summary, or why it did nothing."""

    summary: PollSummary | None = None
    skipped: str = ""


def run_poll(cfg: Config, dry_run: bool = False) -> Run:
    """Poll the configured transport once.  Raises TransportError or DatabaseError where the run cannot go on:
    also when the poll passed its deadline (`pbem.app.budgets`) or another poll holding the lock is stuck."""
    path = cfg.home / ".pbem-poll.lock"
    with open(path, "a+") as lock:  # not "w": that would empty the holder's pid and start time
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            from pbem.app.budgets import read_holder, stuck
            from pbem.mail.transports.seam import TransportError

            why = stuck(read_holder(path), cfg.poll_deadline)
            if why:
                raise TransportError(why) from None
            return Run(skipped="another pbem poll is running on this home; nothing done")
        try:
            return _locked(cfg, lock, dry_run)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _locked(cfg: Config, lock: IO[str], dry_run: bool) -> Run:
    from pbem.app.budgets import write_holder
    from pbem.app.idle import nothing_to_do, remember
    from pbem.mail.transports import deadline
    from pbem.mail.transports.seam import TransportError

    write_holder(lock)
    deadline.start(cfg.poll_deadline)  # the idle check below may talk to the server too
    try:
        if not dry_run and nothing_to_do(cfg, datetime.now(UTC)):
            return Run(skipped="nothing to do: no new mail, nothing queued or due")
        from pbem.app import clock
        from pbem.app.budgets import overrun
        from pbem.app.poll import poll
        from pbem.mail.transports.seam import open_transport

        started, seen = datetime.now(UTC), clock.latest(cfg.database_url)
        refusal = clock.behind(seen, started)
        if refusal:  # steps opened now would be due in the past (issue 26)
            raise TransportError(refusal)
        inbox, sender = open_transport(cfg)
        try:
            summary = poll(cfg, inbox, sender, dry_run=dry_run)
            if not dry_run:
                clock.remember(cfg.database_url, started)
            jump = clock.jumped(seen, started)
            if jump:
                clock.log.warning(
                    "%s; this run applied %d deadline(s) and %d reminder(s)", jump, summary.deadlines, summary.reminders
                )
                summary.notes.append(jump)
            late = overrun(summary.read)
            if late is not None:
                raise late
            unfiled = getattr(inbox, "unfiled", [])  # the server refused to file these: they stay in the inbox
            if unfiled:
                summary.notes.append(f"{len(unfiled)} message(s) could not be filed by the server; see the log")
            elif not dry_run:
                remember(cfg, inbox)  # what this complete poll saw of the inbox, for the next idle check
            return Run(summary)
        finally:
            inbox.close()
            sender.close()
    except TransportError as exc:
        from pbem.app.budgets import overrun

        late = overrun(None)
        if late is not None and late is not exc:  # a server cut off at the deadline: say it was the deadline
            raise TransportError(f"{late}; it was waiting on: {exc}") from None
        raise
    finally:
        deadline.stop()
