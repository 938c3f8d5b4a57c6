"""Mail to the moderator about the run itself (issue 26): a poll that passed its deadline, a clock jump, a
message that could not be handled (a bug: whoever sent it got no answer), mail pbem filed that the server
keeps in the inbox (`pbem.app.filing`).

Each alert is queued in its own transaction with a stable Message-ID, so the
same alert is queued once: an overrun once per day (a home that overruns every
run does not fill the moderator's mailbox), a clock jump once per jump.  An
alert that cannot be queued (the database is the problem) is logged; the run's
own exit status still says what happened.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from pbem.home.app import Home
from pbem.mail.outbound.outgoing import Mail, message_id, outbox_row

log = logging.getLogger("pbem.alerts")


def queue_alert(home: Home, kind: str, context: dict[str, Any], key: tuple[object, ...], when: datetime) -> bool:
    """Queue the alert `kind` (a template) to the moderator unless the same one is queued; True if queued now."""
    from pbem.record import outbox
    from pbem.record.home_secrets import message_id_key

    policy = home.policy
    mail = Mail(policy.moderator_address, kind, context, "alert", (kind, *key))
    try:
        with home.units() as s:
            secret = message_id_key(s)
            if outbox.queued_ids(s, [message_id(policy, mail, secret)]):
                return False
            outbox.queue(s, outbox_row(policy, mail, when, secret))
            s.commit()
    except Exception as exc:  # the database may be why the run failed: the exit status tells it
        log.error(
            "the moderator's %s alert could not be queued: %s", kind, str(exc).splitlines()[0] if str(exc) else exc
        )
        return False
    return True


def overrun(home: Home, reason: str, when: datetime) -> bool:
    """The poll passed `[mail] poll_deadline` (it exits 3): once a day."""
    ctx = {"reason": reason, "seconds": home.cfg.poll_deadline}
    return queue_alert(home, "poll_overrun", ctx, (f"{when:%Y-%m-%d}",), when)


def clock_jump(home: Home, note: str, seen: datetime, when: datetime, deadlines: int, reminders: int) -> bool:
    """The clock was far ahead of the last poll: what this run applied."""
    ctx = {
        "note": note,
        "seen": f"{seen:%Y-%m-%d %H:%M} UTC",
        "this_run": f"{when:%Y-%m-%d %H:%M} UTC",  # not `now`: every render sets that to the ISO time
        "deadlines": deadlines,
        "reminders": reminders,
    }
    return queue_alert(home, "clock_jump", ctx, (seen.isoformat(), when.isoformat()), when)


def message_failed(home: Home, sender: str, subject: str, message_id: str, error: str, when: datetime) -> bool:
    """A message could not be handled (a bug; it is kept as rejected and its sender got no answer): once a day,
    naming the first such message (its sender, subject, Message-ID and the error's kind, never its text, which
    may quote what the mail held)."""
    ctx = {"sender": sender, "about": " ".join(subject.split())[:120], "message_id": message_id, "error": error}
    return queue_alert(home, "message_failed", ctx, (f"{when:%Y-%m-%d}",), when)


def inbox_misnumbered(home: Home, ctx: dict[str, Any], when: datetime) -> bool:
    """The IMAP server answered a FETCH with another message than asked (costs25): once a day."""
    return queue_alert(home, "inbox_misnumbered", ctx, (f"{when:%Y-%m-%d}",), when)


def inbox_left(home: Home, ctx: dict[str, Any], when: datetime) -> bool:
    """Mail pbem filed is left in the inbox (a server without MOVE refused STORE or EXPUNGE): once a day."""
    return queue_alert(home, "inbox_left", ctx, (f"{when:%Y-%m-%d}",), when)
