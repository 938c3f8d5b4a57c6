"""`pbem poll` as cron runs it: one run per home at a time, a cheap exit when there is nothing to do.

Heavy modules are imported only once there is work, so that an idle run
costs little more than starting Python.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from pbem.home.app import Home
from pbem.home.config import Config

if TYPE_CHECKING:
    from pbem.app.poll import PollSummary
    from pbem.app.witness import Found


@dataclass
class Run:
    """What one run did: a summary, or why it did nothing."""

    summary: PollSummary | None = None
    skipped: str = ""


def run_poll(
    cfg: Config,
    dry_run: bool = False,
    clock: Callable[[], datetime] | None = None,
    trust_clock: bool | str = False,
    new_key: bool = False,
) -> Run:
    """Poll the configured transport once.  Raises TransportError or DatabaseError where the run cannot go on:
    also when the poll passed its deadline (`pbem.app.budgets`), another poll holding the lock is stuck, or
    the clock is behind the latest time the record has seen (`pbem.app.clock`).

    `clock` (tests): the time the run starts at and the poll reads; by default the system's.  `trust_clock`:
    the moderator says the clock is right now, so a newer time an earlier run recorded (its clock was ahead)
    is forgotten (`SAID_RESTORED`: and the database is a restored one, `pbem poll --restored`).  `new_key`: the home's
    `outbox.key` is lost for good, and the record forgets its check value (`pbem.app.outbox_key`).
    """
    from pbem.app.polllock import Lock
    from pbem.mail.transports import deadline
    from pbem.mail.transports.seam import TransportError

    lock = Lock(cfg.home, cfg.poll_deadline)
    # Taking the lock opens a file in the home, which waits as long as its file system does (a hung NFS mount,
    # a lease another process holds): the watchdog is armed first, so its backstop ends such a run
    # (tests/reliability/test_costs4_files.py; it waited without limit, one more run at every cron tick).
    deadline.start(cfg.poll_deadline)
    try:
        try:
            refused = lock.take()  # a dead or stuck holder's lock is taken over (`pbem.app.polllock`)
        except OSError as exc:  # a folder, a FIFO, a read-only home: a traceback before
            raise TransportError(f"the poll lock {lock.path} cannot be used: {exc.strerror or exc}") from None
        if refused is not None:
            if refused.state == "elsewhere":
                raise TransportError(refused.why)
            # (a move-record's: named, with what to do; walk12: a poll during a move said "another pbem poll")
            held = refused.why or "another pbem poll is running on this home"
            return Run(skipped=f"{held}; nothing done, the next cron run polls when it has ended")
        try:  # (`_locked` arms its own watchdog)
            return _locked(Home.of(cfg, clock=clock or _system_clock), dry_run, trust_clock, new_key)
        finally:
            lock.close()
    finally:
        deadline.stop()


def _system_clock() -> datetime:
    return datetime.now(UTC)


def _locked(home: Home, dry_run: bool, trust_clock: bool | str = False, new_key: bool = False) -> Run:
    from pbem.app import clock as clocks
    from pbem.app.idle import nothing_to_do, remember
    from pbem.mail.transports import deadline
    from pbem.mail.transports.seam import TransportError

    cfg = home.cfg
    deadline.start(cfg.poll_deadline)  # the idle check below may talk to the server too
    try:
        started = home.clock()
        seen, previous, filed = _times(cfg, started, dry_run, trust_clock, new_key)
        if previous is not None and timedelta(0) < cfg.outage_after < started - previous:
            from pbem.app.outages import shift_for_outage

            shift_for_outage(home, previous, started)  # before the gap's deadlines apply; queues its notices
        # (a `--trust-clock` run is never idle: it keeps the IMAP folders' marks anew, `pbem.app.witness`; nor is a
        # `--new-outbox-key` one: its note says what it did)
        if not dry_run and not trust_clock and not new_key and nothing_to_do(home, started, filed.inbox_mark):
            if cfg.publish_dir is not None and not (cfg.publish_dir / "index.html").exists():
                _refresh_site(home)  # [publish] dir was just set: the site appears without waiting for mail
            _upkeep(home, started, None, None)  # its mail, if any, goes out with the next run
            return Run(skipped="nothing to do: no new mail, nothing queued or due")
        from pbem.app import arrivals, sent_witness, witness
        from pbem.app.budgets import overrun
        from pbem.app.poll import poll
        from pbem.mail.transports.seam import open_transport

        inbox, sender = open_transport(cfg)
        try:
            arrivals.prepare(cfg, inbox, trust_clock)  # what the last run saw of the inbox, for the server's clock
            filed.notes += [] if dry_run else sent_witness.before_sending(cfg, inbox, seen, started, filed.sent_moved)
            summary = poll(home.connected(inbox, sender), dry_run=dry_run)
            if not dry_run:  # mail that could not be sent for long, sent now: claimed in the games (fairness22)
                from pbem.app.unsent import after_sending

                after_sending(home, started, home.clock())
            if not dry_run and summary.sent:  # an outbox.key this poll made: its check value kept now, not next run
                from pbem.app.outbox_key import refusal as foreign_key

                foreign_key(cfg.database_url, cfg.home)
            summary.notes += filed.notes
            summary.told += filed.notes
            if not dry_run:
                _jump(home, clocks, seen, started, summary, sender)
                _upkeep(home, started, summary, sender)
                witness.keep(cfg, inbox)  # what the folders it filed into hold now, for the next run's check
                sent_witness.flush(cfg, inbox, home.clock())  # what it sent, on the server (a machine lost: months7)
            _deferred(summary)
            late = overrun(summary.read)
            if late is not None:
                if not dry_run:
                    _alert_overrun(home, str(late))
                raise late
            unfiled = getattr(inbox, "unfiled", [])  # the server refused to file these: they stay in the inbox
            if unfiled:
                note = (
                    f"{len(unfiled)} message(s) could not be filed by the server (they stay in the inbox); see the log"
                )
                summary.notes.append(note)
                summary.told.append(note)
            elif not dry_run:
                remember(home, inbox, started)  # what this complete poll saw of the inbox, for the next idle check
            if not dry_run and cfg.publish_dir is not None:
                _refresh_site(home)
            return Run(summary)
        finally:
            inbox.close()
            sender.close()
    except TransportError as exc:
        from pbem.app.budgets import overrun

        late = overrun(None)
        if late is not None and late is not exc:  # a server cut off at the deadline: say it was the deadline
            if not dry_run:
                _alert_overrun(home, f"{late}; it was waiting on: {exc}")
            raise TransportError(f"{late}; it was waiting on: {exc}") from None
        raise
    finally:
        deadline.stop()


def _deferred(summary: PollSummary) -> None:
    """A run whose mail the server deferred, every one: said (it exits 0, for hours while a server defers)."""
    if summary.retry and not summary.sent:
        summary.told.append(
            f"the SMTP server took none of the {summary.retry} mail(s) tried (each deferred: retried later, "
            "given up on after [smtp] max_attempts; see the log)"
        )


def _jump(home: Home, clocks: Any, seen: datetime | None, started: datetime, summary: PollSummary, sender: Any) -> None:
    """A clock far ahead of the last poll is run, logged with what the run applied, and the moderator told
    (`pbem.app.alerts`: the mail goes out now, or with the next run)."""
    jump = clocks.jumped(seen, started)
    if jump:
        clocks.log.warning(
            "%s; this run applied %d deadline(s) and %d reminder(s)", jump, summary.deadlines, summary.reminders
        )
        summary.notes.append(jump)
        summary.told.append(jump)
        from pbem.app import alerts

        assert seen is not None
        if alerts.clock_jump(home, jump, seen, started, summary.deadlines, summary.reminders):
            _send_now(home, sender, started)


def _upkeep(home: Home, started: datetime, summary: PollSummary | None, sender: Any) -> None:
    """The home's upkeep looked at, every 6 hours, idle runs included: what is due told to the moderator, now in a
    run that has a sender, else by the next run (months5)."""
    from pbem.app import upkeep_look

    if upkeep_look.look(home, started, summary) and sender is not None:
        _send_now(home, sender, started)


def _alert_overrun(home: Home, reason: str) -> None:
    """The moderator is told of an overrun (sent by the next run: this one is past its deadline)."""
    from pbem.app import alerts

    alerts.overrun(home, reason, home.clock())


def _send_now(home: Home, sender: Any, when: datetime) -> None:
    from pbem.mail.outbound.sender import send_pending
    from pbem.mail.transports.seam import TransportError

    try:
        send_pending(home.cfg, sender, when)
    except TransportError as exc:  # queued: the next run sends it
        import logging

        logging.getLogger("pbem").warning("the moderator's alert stays queued: %s", exc)


def _refresh_site(home: Home) -> None:
    """Rewrite the public site's pages of the games that changed (inside the poll's lock: one writer at a time)."""
    import logging

    from pbem.app.publish import publish

    cfg = home.cfg
    assert cfg.publish_dir is not None
    try:
        done = publish(home, cfg.publish_dir, datetime.now(UTC))
    except OSError as exc:  # a full disk or a missing permission must not stop the game
        logging.getLogger("pbem").error("the public site in %s could not be written: %s", cfg.publish_dir, exc)
        return
    logging.getLogger("pbem").info("%s", done.line(cfg.publish_dir))


def _times(
    cfg: Config, started: datetime, dry_run: bool, trust_clock: bool | str, new_key: bool = False
) -> tuple[datetime | None, datetime | None, Found]:
    """The newest run start the record has seen and the previous run's, once this run's start is recorded, and what
    the IMAP server's filed mail says (`pbem.app.witness`); raises TransportError, before anything is written, for a
    clock behind the record or a database older than the home (`pbem.app.clock`) or than the server's folders."""
    from pbem.app import clock as clocks
    from pbem.app import witness
    from pbem.mail.transports.seam import TransportError

    if dry_run:
        return None, None, witness.Found()
    before = clocks.latest(cfg.database_url) if trust_clock else None  # its newest run, before it is set to now
    if trust_clock:
        from pbem.record.marks import reset_last_run

        clocks.log.warning("the clock is trusted as right: the record's newest time is set back to %s", started)
        reset_last_run(cfg.database_url, started)
        from pbem.record.sentlog import replay

        if again := replay(cfg.home, cfg.database_url, started):  # a restored database's mails sent since its backup
            clocks.log.warning(
                "%d mail(s) the database held as waiting were sent before: marked sent, not sent again", again
            )
        from pbem.app.arrivals import forget

        forget(cfg)  # and a clock the mail server's arrival dates found ahead
    seen = clocks.latest(cfg.database_url)
    try:
        held = [] if trust_clock else clocks.marks(cfg.home)
    except clocks.MarkHeld as exc:  # read as none, a restored database would pass the check
        raise TransportError(str(exc)) from None
    from pbem.app.whose import whose

    owner = whose(cfg.database_url, cfg.home)  # a database restored into another folder or onto another machine
    refusal = (
        clocks.behind(seen, started) or clocks.restored(seen, held) or (not trust_clock and owner.refusal(cfg.home))
    )
    filed = witness.Found() if refusal else witness.check(cfg, before if trust_clock else seen, started)
    filed = witness.trusted(filed, before) if trust_clock and before is not None else filed
    from pbem.app.outbox_key import refusal as foreign_key

    # steps opened or timed now would be due in the past (issue 26), a backup restored, another home's outbox.key:
    told: list[str] = []  # what --new-outbox-key did: a note of the run, never "nothing to do" alone (walk8)
    if refusal := refusal or filed.refusal or foreign_key(cfg.database_url, cfg.home, forget=new_key, told=told):
        raise TransportError(refusal)  # nothing is written
    filed.notes += told
    if trust_clock or filed.sent_moved:  # a restored database's waiting mail: sent, proved unsent, or held
        from pbem.app.sent_witness import SAID_RESTORED, after_restore

        said = filed.sent_moved or SAID_RESTORED * (trust_clock == SAID_RESTORED)  # `pbem poll --restored`
        filed.notes += after_restore(cfg, before or seen, filed.notes, started, said)
    previous, recorded = _last_run(cfg, started)
    if recorded:  # only a start the database holds: a mark ahead of it would refuse the next poll as "restored"
        clocks.mark_home(cfg.home, started, held, again=bool(trust_clock))
        owner.adopt(cfg.database_url, cfg.home)
    return seen, previous, filed


def _last_run(cfg: Config, when: datetime) -> tuple[datetime | None, bool]:
    """Record this run's start; the previous run's (None: first run, or the database cannot tell yet), and whether
    this run's start was recorded."""
    from pbem.record.marks import swap_last_run

    try:
        return swap_last_run(cfg.database_url, when), True
    except Exception as exc:  # a missing or locked database: the poll itself reports it
        import logging

        logging.getLogger("pbem").debug("the time of the last run is unknown: %s", type(exc).__name__)
        return None, False
