"""A player's lost code, asked for by mail: `LOST CODE` alone on a line, or as the subject after the game's tag.

Sent from the registered address of a seat, with nothing else to do in it (no order, press, HELP or STATUS),
it gets that seat a new code, mailed to the registered address only, exactly as `pbem game code` does
(`control.decide_new_code`); the old code stops working. Whoever forges the From of a player's address can
at most have the code changed, which the player reads in their own mailbox; so that it is not a way to fill
that mailbox, a seat gets one new code this way per `WAIT`: a second request within it is answered (within
the answers budget) with when the last one was sent and when the next may be asked for.

Deciding is pure (`decide`); `decide_and_apply` loads when the seat's code last changed, makes the code, and
writes the decision in the message's transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pbem.app.answers import Outgoing
from pbem.app.control import decide_new_code
from pbem.app.decision import Decision
from pbem.app.facts import Facts
from pbem.app.settle import settle
from pbem.home.policy import Policy
from pbem.mail.inbound.message import Inbound
from pbem.orders.extract import Extracted
from pbem.record import store
from pbem.record.db import Unit
from pbem.record.rows import Seat
from pbem.trust import codes

WAIT = timedelta(hours=24)


def asked(ex: Extracted | None, msg: Inbound) -> bool:
    """Whether the message asks for a new code and nothing else."""
    return (
        ex is not None
        and ex.lost_code
        and not msg.problem
        and not (ex.orders or ex.press or ex.help or ex.status or ex.problems or ex.away or ex.mode)
        and ex.history is None
        and ex.resign is None
    )


def decide(
    msg: Inbound,
    facts: Facts,
    seat: Seat,
    fresh: tuple[str, str],
    last: datetime | None,
    when: datetime,
    cap: int,
) -> Decision:
    """A new code for `seat` (`fresh`: the code and its hash), unless one went out within `WAIT` (`last`)."""
    loaded = facts.loaded
    assert loaded is not None and loaded.game.id is not None
    name = loaded.game.name
    if last is None or when - last >= WAIT:
        d = decide_new_code(loaded, facts.control, seat.player, fresh[0], fresh[1], when)
        d.outcome, d.reason = "accepted", "asked for a new player code: sent to the registered address"
        return d
    d = Decision("ignored", f"a new code was sent within {WAIT.days * 24} hours", game=name, player=seat.player)
    out = Outgoing(msg, facts.replies, cap, loaded.game.id, facts.windows, facts.now)
    if out.admit(d, seat.address, player=seat.player, to_name=seat.display_name):
        context = {
            "game_name": name,
            "subject_in": msg.subject,
            "sent_at": f"{last:%a %d %b %H:%M} UTC",
            "again_at": f"{last + WAIT:%a %d %b %H:%M} UTC",
        }
        mail = out.mail(seat.address, "lost_code_recent", "ack", context, player=seat.player, to_name=seat.display_name)
        d.effects.append(mail)
    return d


def decide_and_apply(
    s: Unit, policy: Policy, msg: Inbound, raw: bytes, facts: Facts, seat: Seat, when: datetime
) -> Decision:
    loaded = facts.loaded
    assert loaded is not None and loaded.game.id is not None
    last = store.last_control(s, loaded.game.id, "code", seat.player)  # the seat's code changed last
    code = codes.new_code()
    fresh = (code, codes.hash_code(code, home=policy.home)) if last is None or when - last >= WAIT else ("", "")
    d = decide(msg, facts, seat, fresh, last, when, policy.replies_per_hour)
    settle(s, policy, d, when, loaded, inbound=(msg, raw))
    return d
