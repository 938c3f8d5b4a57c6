"""A reply whose step closed before it arrived (pure): the player is told first when it closed, what was applied
for them, and what is asked of them now.

A player who answers a report after its deadline passed (the default applied for them) or after the other players'
orders resolved it was answered only "you are not asked anything now; waiting for Bob" or "that is not an answer to
what you are asked now": nothing said that the step had closed, when, nor that their default (NO EVENT, DISCARD
NONE) had been applied.  The intake asks for the step's closing (`late`) only for a reply, to a mail of pbem's that
it names, whose refused lines answer nothing the player is asked now; the shell then reads when the step open at
that mail's sending closed (`pbem.record.lookups.closed_after`) and decides again, and the acknowledgement opens
with `note`.  Every other message costs nothing more.
"""

from __future__ import annotations

from typing import Any

from pbem.app.facts import Facts
from pbem.app.refusals import first_sentence
from pbem.engine.base import Engine, Outcome
from pbem.record.lookups import Closed


def late(result: Outcome, facts: Facts) -> bool:
    """Whether to read when the step a reply answers closed: a reply to a mail of pbem's it names, refused, a line of
    it answering nothing the player is asked now, and not read yet."""
    replying = facts.reply is not None and facts.reply.created_at is not None and not facts.closed_read
    return replying and not result.accepted and any(r.not_asked and not r.ok for r in result.lines)


def told(closed: Closed | None, eng: Engine, state: dict[str, Any], player: str) -> dict[str, str]:
    """The acknowledgement's `closed` (its first note), when the step the reply answers closed."""
    return {"closed": note(closed, eng, state, player)} if closed is not None else {}


def note(closed: Closed, eng: Engine, state: dict[str, Any], player: str) -> str:
    """What the acknowledgement says first: the step the mail answered closed at when, how, and what is asked now."""
    if closed.by == "deadline":
        lines = "; ".join(closed.applied)
        how = "its deadline passed" + (f" and your default orders were applied: {lines}" if lines else "")
    else:
        how = "it was resolved by the orders sent for it"
    asked = [first_sentence(r.prompt) for r in eng.requests(state) if r.player == player and not r.answered]
    now = f"You are asked now: {'; '.join(asked)}." if asked else "Nothing is asked of you now."
    return (
        f"The step your mail answered closed at {closed.at:%Y-%m-%d %H:%M} UTC, before your mail arrived: {how}. {now}"
    )
