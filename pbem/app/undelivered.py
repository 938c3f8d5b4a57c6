"""A deadline is held while a player it would default never got the step's report (issue 26).

When a step's deadline passes, each player it still asks is looked at: did the
report the step sent them reach their mail server (`pbem.record.deliveries`)?

* **Not yet** (still being retried through an outage, or given up on): the
  deadline is *held*: nothing is applied for anyone, and it is looked at again
  every `RECHECK`.  The moderator gets one mail per step naming the players and
  the outbox numbers, with `pbem outbox retry N` for those given up on.
* **Delivered after the deadline**: the deadline resumes, *moved by the time
  the report was held* (from the step's opening to its delivery), so that
  player has the whole step after the report reached them:
  new deadline = deadline + (delivered - opened).  A public moderator event
  of action `held` states it (the chain has it, `verify` replays it like an
  extension) and every player is told the new deadline.
* **Delivered before the deadline** (every normal step): the deadline applies.

Deciding is pure (`decide`); `pbem.app.deadlines` calls it before applying a deadline.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from pbem.app.control import announce
from pbem.app.decision import Decision, DueHandled, Effect, NewDeadline
from pbem.home.policy import Policy
from pbem.mail.outbound.outgoing import Mail, message_id
from pbem.record import store
from pbem.record.db import Unit
from pbem.record.deliveries import Delivery
from pbem.record.due import DueRow
from pbem.record.rows import Deadline
from pbem.record.store import Loaded
from pbem.trust.chain import iso

RECHECK = timedelta(minutes=15)  # how often a held deadline is looked at again


def _stamp(at: datetime) -> str:
    return f"{at:%Y-%m-%d %H:%M} UTC"


def decide(
    loaded: Loaded,
    step: str,
    deadline: datetime,
    opened: datetime,
    found: dict[str, Delivery],
    when: datetime,
    due_ids: tuple[int, ...],
    look: DueRow,
    moderator: str,
) -> Decision | None:
    """What a passing deadline does for players whose report was not delivered in time; None: apply it."""
    name = loaded.game.name
    held = sorted(p for p, d in found.items() if d.delivered_at is None)
    if held:
        again = replace(look, kind="deadline", due_at=when + RECHECK)
        effects: list[Effect] = [DueHandled(due_ids, again)]
        pending = [{"player": p, "id": oid, "status": status} for p in held for oid, status in found[p].pending]
        failed = [str(x["id"]) for x in pending if x["status"] == "failed"]
        ctx = {
            "game_name": name,
            "step": step,
            "due": _stamp(deadline),
            "players": held,
            "pending": pending,
            "retry": f"pbem outbox retry {' '.join(failed)}" if failed else "",
        }
        key = ("undelivered", name, step, iso(opened))  # one mail per step: its Message-ID is stable
        effects.append(Mail(moderator, "report_undelivered", ctx, "alert", key, game_id=loaded.game.id))
        return Decision(game=name, effects=effects)
    late = {p: d.delivered_at for p, d in found.items() if d.delivered_at is not None and d.delivered_at > deadline}
    if not late:
        return None
    last = max(at for at in late.values() if at is not None)
    new_due = deadline + (last - opened)
    if new_due <= when:
        return None  # the whole step has passed since the last report reached its player
    who = sorted(late)
    text = (
        f"The report of this step reached {', '.join(who)} only at {_stamp(last)}; "
        f"the deadline moves by the time it was held, to {_stamp(new_due)}."
    )
    facts: dict[str, object] = {"step": step, "deadline": iso(new_due), "players": who, "delivered": iso(last)}
    effects = [DueHandled(due_ids), NewDeadline(step, new_due, "report delivered late")]
    effects += announce(loaded, "held", text, str(last - opened), facts=facts, due=_stamp(new_due), players=who)
    return Decision(game=name, effects=effects)


def at_deadline(
    s: Unit, policy: Policy, loaded: Loaded, dl: Deadline, rows: list[DueRow], when: datetime
) -> Decision | None:
    """The shell: the deadline `dl` is due at `when` (`rows`: the game's due rows); None: apply it."""
    from pbem.app import views
    from pbem.record import deliveries, outbox
    from pbem.record.home_secrets import message_id_key

    assert loaded.game.id is not None
    deadline = store.aware(dl.due_at)
    assert deadline is not None
    opened = deliveries.step_opened(s, loaded.game.id, dl.step) or store.aware(dl.created_at)
    assert opened is not None
    asked = [p for p in views.waiting(views.engine(loaded), loaded.state) if p not in loaded.resigned]  # left: none
    found = deliveries.deliveries(s, loaded.game.id, asked, opened)
    look = next((r for r in rows if r.kind == "deadline"), rows[-1])
    d = decide(
        loaded, dl.step, deadline, opened, found, when, tuple(r.id for r in rows), look, policy.moderator_address
    )
    if d is None:
        return None
    secret = message_id_key(s)
    queued = outbox.queued_ids(s, [message_id(policy, m, secret) for m in d.mails])
    d.effects = [e for e in d.effects if not (isinstance(e, Mail) and message_id(policy, e, secret) in queued)]
    return d
