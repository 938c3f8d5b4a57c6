"""The poll: read the inbox, decide and apply each message in its own transaction, then time, then send.

Each message is handled in ONE transaction (record it, apply its orders, append events, queue answers and
reports: `apply.apply`; a bounce of a player's mail: the moderator's notice, `bounced`), committed, and only
then settled in the inbox.  Then due deadlines and reminders are applied, and the outbox is sent by the sender
thread.  A crash anywhere loses nothing and applies nothing twice: a message seen again is recognised by
Message-ID and body hash.  Whatever handling one message raises, that message is recorded as rejected ("could
not be read"), filed with the rejected mail, logged and counted in the summary, and the poll goes on; only the
database, the mail transports and a missing key file (`game-keys.secret`: no mail of its games can be signed)
stop a run, leaving the message in the inbox for the next one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from pbem.app import (
    alerts,
    arrivals,
    bounced,
    budgets,
    derivations,
    filing,
    footprints,
    join,
    loops,
    lost_code,
    moderating,
    on_file,
    reading,
    vouch,
)
from pbem.app.addresses import confirm as confirm_address
from pbem.app.ahead import warmed
from pbem.app.apply import record_inbound
from pbem.app.decision import Decision
from pbem.app.load import load_facts
from pbem.app.revisions import FirstCopy
from pbem.app.senders import is_registered
from pbem.app.settle import settle
from pbem.engine.words import count
from pbem.home import stages
from pbem.home.app import Home
from pbem.home.policy import Policy
from pbem.mail.inbound.message import Inbound, parse
from pbem.mail.inbound.storage import scrub
from pbem.mail.outbound.sender import Dispatcher
from pbem.mail.transports.seam import TransportError
from pbem.record.db import DatabaseError, Unit, database_errors
from pbem.record.sealing import Unsealable
from pbem.trust import codes

log = logging.getLogger("pbem.poll")
Clock = Callable[[], datetime]
UNREADABLE = "could not be read"


@dataclass
class PollSummary:
    read: int = 0
    accepted: int = 0
    rejected: int = 0
    ignored: int = 0
    duplicates: int = 0
    failures: int = 0  # of the rejected: handling raised (see the log)
    deadlines: int = 0
    reminders: int = 0
    sent: int = 0
    retry: int = 0
    failed: int = 0
    notes: list[str] = field(default_factory=list)
    told: list[str] = field(default_factory=list)  # notes of the whole run `pbem poll` prints (not each message's)
    timings: dict[str, float] = field(default_factory=dict)  # seconds, see timing_line

    def timing_line(self) -> str:
        """Where the run's time went (`pbem poll --timings`): the poll's own steps, then the sender thread's."""
        t = self.timings
        return ("timings: " + ", ".join(f"{k.replace('_', ' ')} {v:.2f} s" for k, v in t.items())) if t else ""

    def line(self) -> str:
        broken = f" ({self.failures} could not be read: see the log)" if self.failures else ""
        return (
            f"read {count(self.read, 'message')}: {self.accepted} accepted, {self.rejected} rejected{broken}, "
            f"{self.ignored} ignored, {self.duplicates} already seen; {count(self.deadlines, 'deadline')} applied, "
            f"{count(self.reminders, 'reminder')}; "
            f"sent {count(self.sent, 'mail')} ({self.retry} to retry, {self.failed} failed)"
        )


@dataclass
class Handled:
    kind: str  # accepted, rejected, ignored, duplicates
    note: str = ""
    stored: str = ""  # for duplicates: the outcome recorded when the message was first handled
    failure: bool = False
    quiet: bool = False  # its decision had no effects, so it queued no mail: the sender need not look

    @property
    def processed(self) -> bool:
        """Filed with the processed mail (else with the rejected): a message seen again keeps its first filing."""
        if self.kind == "duplicates":
            return self.stored in ("accepted", "held")
        return self.kind == "accepted"


def poll(home: Home, dry_run: bool = False) -> PollSummary:
    """One poll of `home`'s inbox (`pbem.home.app.Home`: its record, inbox, sender, clock and policy).
    Raises TransportError or DatabaseError (one sentence each) where the run cannot go on."""
    try:
        with database_errors(), derivations.per_poll():  # per_poll: the per-sender key derivations (issue 26)
            return _poll(home, dry_run)
    except Unsealable as exc:  # the home's key file is missing: no mail of its games can be signed
        raise DatabaseError(f"the record's keys cannot be used: {exc}") from None
    except OSError as exc:  # a full disk, a read-only or vanished mail folder
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        raise TransportError(f"a mail folder or file could not be used: {exc.strerror or exc}{where}") from None


def _poll(home: Home, dry_run: bool) -> PollSummary:
    from pbem.app.deadlines import run_deadlines
    from pbem.app.digests import run_digests

    assert home.inbox is not None, "a poll reads an inbox"
    inbox, sender, clock = home.inbox, home.sender, home.clock
    summary = PollSummary()
    opened_before = clock()  # steps opened from now on get no reminder in this poll
    spent = dict.fromkeys(("fetching", "handling", "filing", "deadlines", "waiting_for_sender"), 0.0)
    started = mark = time.perf_counter()
    deriving_before = codes.deriving
    codes.new_poll()  # a code key file still missing is named in this poll's log again
    stages.taken()  # the poll's thread's CPU by stage, from here (`cpu_*` in the timings)
    thread_cpu, queued = time.thread_time(), stages.runqueue_wait()

    def lap(step: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        spent[step] += now - mark
        mark = now

    dispatcher = Dispatcher(home.cfg, sender, clock) if (sender is not None and not dry_run) else None
    with dispatcher or contextlib.nullcontext():
        if dispatcher is not None:
            dispatcher.nudge()  # mail left queued by an earlier run goes out first
        filing.attach(home, inbox, dry_run)  # what earlier runs filed and the server kept is not read again
        stopped = False
        for ahead in warmed(home, inbox.fetch()):
            if stopped := budgets.stop_reading(summary):  # past the poll's deadline: the rest stays (issue 26)
                break
            item = ahead.item
            lap("fetching")
            summary.read += 1
            outcome = contained(home, item.raw, clock(), dry_run, ahead.parsed.result())
            log.debug(
                "message %d of this run: %s%s", summary.read, outcome.kind, f" ({outcome.note})" * bool(outcome.note)
            )
            setattr(summary, outcome.kind, getattr(summary, outcome.kind) + 1)
            summary.failures += outcome.failure
            if outcome.note:
                summary.notes.append(outcome.note)
            lap("handling")
            if not dry_run:
                inbox.settle(item.key, outcome.processed)
            if dispatcher is not None:
                if not outcome.quiet:
                    dispatcher.nudge()
                dispatcher.fold()  # what the sender journaled meanwhile, one UPDATE per batch
                dispatcher.stop_if_damaged()
            lap("filing")
        stopped = stopped or budgets.unread_left(inbox, summary)  # the inbox's own budget of messages a run
        lap("fetching")
        if not dry_run and (left := filing.tell(home, inbox, clock(), tidy=not stopped)):  # once a day
            summary.notes.append(left)
            summary.told.append(left)
            if dispatcher is not None:
                dispatcher.nudge()
        lap("filing")
        if not dry_run:
            now = clock()
            held = now - budgets.UNREAD_HOLD if stopped else None  # mail left unread may answer what falls due
            if not arrivals.held(home, inbox, now, summary):  # the server's arrival dates: this clock is not ahead
                summary.deadlines, summary.reminders = run_deadlines(home, now, opened_before, due_by=held)
            if stopped:
                summary.notes.append(budgets.UNREAD_NOTE)
            run_digests(home, clock())  # DIGEST players' daily mail (issue 23)
            lap("deadlines")
        if dispatcher is not None:
            sent = dispatcher.finish()
            lap("waiting_for_sender")
            summary.sent, summary.retry, summary.failed = sent.sent, sent.retry, sent.failed
            spent.update({f"sender_{k}": v for k, v in dispatcher.spent.items()})
    spent["deriving_codes"] = codes.deriving - deriving_before  # on the code-check thread, alongside handling
    cpu = {f"cpu_{k}": v for k, v in stages.taken().items()}  # on the poll's thread, inside handling
    cpu["poll_thread_cpu"] = time.thread_time() - thread_cpu  # all of it: the stages, SQL outside them, filing
    cpu["poll_thread_waiting_for_a_core"] = stages.runqueue_wait() - queued  # runnable, other processes on the cores
    summary.timings = {"total": time.perf_counter() - started, **spent, **cpu}
    return summary


def contained(home: Home, raw: bytes, when: datetime, dry_run: bool = False, parsed: Inbound | None = None) -> Handled:
    """`handle`, with whatever it raises (but the database) kept to this one message."""
    try:
        return handle(home, raw, when, dry_run=dry_run, parsed=parsed)
    except (DatabaseError, TransportError, Unsealable):  # the run stops; the message stays in the inbox
        raise
    except Exception as exc:  # a bug must not stop the run or loop on this message forever
        log.exception("a message could not be handled; it is kept as rejected for the moderator")
        return _record_failure(home, raw, when, dry_run, type(exc).__name__)


def _record_failure(home: Home, raw: bytes, when: datetime, dry_run: bool, error: str = "") -> Handled:
    try:
        msg = parse(raw, home.policy.moderator_address)
    except Exception:  # not even parseable: keep it under a name made from its bytes
        digest = hashlib.sha256(raw).hexdigest()
        msg = Inbound(f"<unreadable.{digest[:32]}@pbem>", digest, "", "", "", None, "", None, UNREADABLE)
    if not dry_run:
        with home.units() as s:
            msg, raw, _ = scrub(msg, raw, None, home.policy.max_stored_stranger)
            seen = on_file.seen(s, msg)
            if seen.same is None:  # a copy of a message already read is kept as its duplicate
                first = seen.first
                d = Decision("duplicate" if first else "rejected", UNREADABLE, duplicate_of=first.id if first else None)
                record_inbound(s, msg, raw, when, d)
                s.commit()
        if seen.same is None and error:  # its sender got no answer: the moderator is told (its subject redacted)
            alerts.message_failed(home, msg.sender, msg.subject, msg.message_id, error, when)
    return Handled("rejected", f"{msg.message_id}: {UNREADABLE}", failure=True)


def handle(home: Home, raw: bytes, when: datetime, dry_run: bool = False, parsed: Inbound | None = None) -> Handled:
    """Process one raw message in one transaction: load, decide, apply, commit.
    `parsed`: `raw` already parsed (ahead of handling, `pbem.app.ahead`) with this home's settings."""
    policy = home.policy
    msg = parsed or parse(raw, policy.moderator_address, policy.trust_authentication_results)
    with database_errors(), home.units() as s:
        seen = on_file.seen(s, msg)
        if seen.same is not None:  # the same bytes: e.g. a run killed between its commit and filing the message
            return Handled("duplicates", f"{msg.message_id} was already handled", stored=seen.same)
        if seen.taken:  # the same Message-ID with other bytes (a copy, a replay): keep outgoing ids unique
            msg = dataclasses.replace(msg, key=f"{msg.message_id}#{msg.body_hash[:16]}")
        d = decide_and_apply(s, policy, msg, raw, when, first=seen.first)
        with stages.stage("committing"):
            s.rollback() if dry_run else s.commit()
        if seen.first is not None:  # a copy (other trace headers): recorded as a duplicate, filed as the first
            return Handled("duplicates", f"{msg.message_id}: a copy of a message already read", seen.first.outcome)
        return Handled(d.handled, quiet=not d.effects)


def decide_and_apply(
    s: Unit, policy: Policy, msg: Inbound, raw: bytes, when: datetime, first: FirstCopy | None = None
) -> Decision:
    """Inside the message's transaction: read and scrub the message, load the facts, decide (pure), apply.

    From the scrub on, no code is stored or echoed: the raw copy is bounded and redacted, the
    subject and every extracted line are redacted (the code itself is kept for the check).
    A sender who is no registered seat of any game costs one indexed look-up: the game it names is
    not even loaded, and no code is checked.
    """
    if moderating.is_moderator(policy, msg):  # the moderator's commands by mail (issue 28)
        return moderating.decide_and_apply(s, policy, msg, raw, when, first)
    with stages.stage("reading"):
        registered = is_registered(s, msg)
        msg, game = reading.named_game(s, msg, registered)  # a reply's subject without the tag: the mail's game
        words = join.order_words(s, game) if game is not None else None
        # the mails it answers, and its text without copies of them
        sent, text, changed = reading.answered_mails(s, msg, game, words)  # changed: quoted lines edited, unread
        ex = reading.read_text(text, msg, sent, game.id if game else None, words) if not msg.problem else None
        if ex is not None and changed:
            ex.problems += changed
    with stages.stage("storing_copy"):
        arrived = raw
        msg, raw, ex = scrub(msg, raw, ex, policy.max_stored_player if registered else policy.max_stored_stranger)
        ev = None  # what the player's provider vouches for, taken before the redacted copy replaces the mail
        if game is not None and not msg.problem:
            ev, ex = vouch.take(arrived, raw, ex, words)
    with stages.stage("loading"):
        msg = loops.quieted(s, msg, ex, when) if registered else msg  # an unmarked autoresponder: no answer
        facts = load_facts(s, msg, when, game, ex, first, registered=registered, policy=policy, sent=sent)
        if facts.loaded is not None:  # a player's code from another player's address is told to the moderator
            facts.moderator = policy.moderator_address  # (whose answers window `load_facts` read with the players')
    playing = facts.loaded is not None and facts.control != "abandoned" and not facts.loaded.over
    seat = facts.loaded.seat_for_address(msg.sender) if playing and facts.loaded is not None else None
    if seat is not None and lost_code.asked(ex, msg):  # LOST CODE from a seat's address: a new code, mailed there
        return lost_code.decide_and_apply(s, policy, msg, raw, facts, seat, when)
    if seat is None and (moved := confirm_address(s, policy, msg, raw, ex, when)) is not None:
        return moved  # ADDRESS CONFIRM from the address a seat asked to move to (judges5)
    with stages.stage("deciding"):
        d = footprints.decided(s, msg, facts, seat, policy.replies_per_hour)  # again: a step closed, a footer
        d.effects += bounced.told(s, policy, msg, arrived, when) if d.outcome == "ignored" else []  # moderator told
    with stages.stage("appending"):  # the reports' contexts, then the writes (rendering and composing: their own)
        settle(s, policy, d, when, facts.loaded, inbound=(msg, raw))  # its reports finished (pure), then written
        vouch.keep(s, msg, ev)
    return d
