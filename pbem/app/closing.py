"""A reply whose step closed before it arrived (pure): the player is told first when it closed, what was applied
for them, and what is asked of them now.

A player who answers a report after its deadline passed (the default applied for them) or after the other players'
orders resolved it was answered only "you are not asked anything now; waiting for Bob" or "that is not an answer to
what you are asked now": nothing said that the step had closed, when, nor that their default (NO EVENT, DISCARD
NONE) had been applied.  The intake asks for the step's closing (`late`) only for a reply, to a mail of pbem's that
it names, whose refused lines answer nothing the player is asked now; the shell then reads when the step open at
that mail's sending closed (`pbem.record.lookups.closed_after`) and decides again, and the acknowledgement opens
with `note`.  Every other message costs nothing more.

A reply to a mail of a step closed since whose lines are legal in the step open now was applied to it: Sixteen
Thirty's vote on P1 closed by its deadline, P2's opened, and Alice's late "VOTE YES" to P1's report voted on P2
(players18: 16 of 16 such late replies probed in the four games were applied).  The intake asks for the closing
(`stale`) too for a reply it would apply whose mail was sent before the current deadline was set (the current
step's opening, or a later extension; the common reply costs no read); when that step closed and the player was
asked something else then (`changed`: their requests' steps differ), the reply is refused whole: the answer opens
with `note`, then `resent`'s ("send them again", the lines quoted).  A reply whose question did not change (others'
orders moved the step) is applied as before.
"""

from __future__ import annotations

from typing import Any

from pbem.app.facts import Facts
from pbem.app.refusals import first_sentence
from pbem.engine.base import Engine, Outcome
from pbem.record.lookups import Closed
from pbem.record.store import aware

#: The record's reason for a reply refused because its step closed before it arrived: no quoted line first, so
#: `pbem verify` reads it as no list of refused lines (`pbem.trust.acked.reason_lines`).
REASON = "a reply to a step that closed before it arrived, written for another question than the one asked now"


def late(result: Outcome, facts: Facts) -> bool:
    """Whether to read when the step a reply answers closed: a reply to a mail of pbem's it names, refused, a line of
    it answering nothing the player is asked now, and not read yet."""
    replying = facts.reply is not None and facts.reply.created_at is not None and not facts.closed_read
    return replying and not result.accepted and any(r.not_asked and not r.ok for r in result.lines)


def told(facts: Facts, eng: Engine, state: dict[str, Any], player: str) -> dict[str, object]:
    """The acknowledgement's `closed` (its first note), when the step the reply answers closed, or when the step's
    deadline passed before the mail was read (`overdue`)."""
    if facts.closed is not None:
        return {"closed": note(facts.closed, eng, state, player)}
    return overdue(facts, eng, state, player)


def note(closed: Closed, eng: Engine, state: dict[str, Any], player: str) -> str:
    """What the acknowledgement says first: the step the mail answered closed at when, how, and what is asked now."""
    if closed.by == "deadline":
        lines = "; ".join(closed.applied)
        how = "its deadline passed" + (f" and your default orders were applied: {lines}" if lines else "")
    else:
        how = "it was resolved by the orders sent for it"
    asked = [first_sentence(r.prompt) for r in eng.requests(state) if r.player == player and not r.answered]
    now = f"You are asked now: {'; '.join(asked)}." if asked else "Nothing is asked of you now."
    return f"The step your mail answered closed {_when(closed)}, before your mail arrived: {how}. {now}"


def _when(closed: Closed) -> str:
    """When the step closed, as the player knows it: by its deadline, the due time they were told, and when the poll
    applied it only if that was another minute (walk6: "closed at 20:43" to a player told 20:31); by orders, when."""
    at = f"{closed.at:%Y-%m-%d %H:%M} UTC"
    if closed.by != "deadline" or closed.due is None:
        return f"at {at}"
    due = f"{closed.due:%Y-%m-%d %H:%M} UTC"
    return f"at its deadline, {due}" + ("" if due == at else f" (applied at {at})")


# When an overdue step's deadline is applied: the run that read the mail applies it after its mail, unless it stops
# reading at its [mail] poll_deadline first; a deadline due less than `budgets.UNREAD_HOLD` ago then waits for the
# run that reads the mail left in the inbox (walk9: the note said "applied for you in this run" in both cases).
WHEN_APPLIED = "in this run, or in a later one if this run stops at its time limit first"


def overdue(facts: Facts, eng: Engine, state: dict[str, Any], player: str) -> dict[str, object]:
    """The acknowledgement's note of a refused mail read after its step's deadline passed, in the run that applies
    that deadline next (walk8: it was told "correct the line and send the whole message again", then the default
    was applied): told once, first, that its lines are not used, the default applied for the player when that
    deadline is (`WHEN_APPLIED`) unless a corrected mail is read before, and that the report that follows says what is
    asked now; no "correct", no reply asked for, nobody "still awaited"."""
    loaded = facts.loaded
    deadline = loaded.recent.deadline if loaded is not None and loaded.recent is not None else None
    due = aware(deadline.due_at) if deadline is not None else None
    if due is None or facts.now is None or facts.now < due or facts.closed is not None:
        return {}
    asked = [r for r in eng.requests(state) if r.player == player and not r.answered]
    if not asked:
        return {}
    lines = "; ".join(line for r in asked for line in r.default)
    how = f"your default orders are applied for you: {lines}" if lines else "nothing is applied for you"
    note = (  # true whether this run applies the deadline or stops first, at [mail] poll_deadline (walk9)
        f"This step's deadline, {due:%Y-%m-%d %H:%M} UTC, passed before this mail was read, so its lines are not "
        f"used. When pbem applies that deadline ({WHEN_APPLIED}), {how}, unless a corrected mail of yours is read "
        "before then. The report that follows says what you are asked now."
    )
    return {"closed": note, "overdue": True, "waiting": []}


def stale(facts: Facts) -> bool:
    """Whether to read the closing for a reply the intake would apply: its mail was sent before the current
    deadline was set (none known: read), and not read yet."""
    reply, loaded = facts.reply, facts.loaded
    if reply is None or reply.created_at is None or facts.closed_read or loaded is None:
        return False
    deadline = loaded.recent.deadline if loaded.recent is not None else None
    since = aware(deadline.created_at) if deadline is not None else None
    sent = aware(reply.created_at)
    return since is None or sent is None or sent < since


def changed(facts: Facts, eng: Engine, state: dict[str, Any], player: str) -> bool:
    """Whether a reply's lines were written for another question: the step open at its mail's sending closed since,
    the player was asked something then, and their requests now are for other steps."""
    if facts.closed is None or not facts.asked_then:
        return False
    return facts.asked_then != tuple(sorted(r.step for r in eng.requests(state) if r.player == player))


def resent(notes: dict[str, object], orders: list[str]) -> dict[str, object]:
    """The acknowledgement's notes of a reply refused by `changed`: after `note`, that nothing was applied and the
    lines to send again, then its other notes."""
    quoted = "; ".join(f'"{line}"' for line in orders)
    told = f"Nothing was applied: if you meant these orders for what you are asked now, send them again: {quoted}."
    others = notes.get("problems")
    return {**notes, "problems": [told, *(others if isinstance(others, list) else [])]}
