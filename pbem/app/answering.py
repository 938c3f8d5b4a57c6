"""Answering accepted orders (pure): who is mailed a report, and the mover's answer in one mail (issue 23).

`answer` asks `pbem.app.notify.told` who is mailed: each is sent a report; the mover's report carries
the acknowledgement of their message at its top (one mail: what they sent and what comes next), and a
mover who is mailed no report gets the acknowledgement alone.
"""

from __future__ import annotations

from typing import Any

from pbem.app import notify, views
from pbem.app.answers import Outgoing, ack, ack_context
from pbem.app.decision import Decision, Report
from pbem.engine.base import Outcome
from pbem.mail.inbound.message import Inbound
from pbem.record.modes import Mailing
from pbem.record.rows import Seat
from pbem.record.store import Loaded


def answer(
    d: Decision,
    out: Outgoing,
    msg: Inbound,
    loaded: Loaded,
    seat: Seat,
    result: Outcome,
    notes: dict[str, Any],
    chatter: list[str],
    mailing: Mailing,
    facts: Any,
) -> None:
    """Append the reports and the mover's acknowledgement to `d` (see the module docstring).  `facts`: the
    message's `pbem.app.intake.Facts` (when it is handled, the DIGEST players' last reports)."""
    eng, player = views.engine(loaded), seat.player
    before, everyone = loaded.state, views.players(loaded)
    told = notify.told(
        eng, before, result.state, everyone, result.events, mailing.players, default=mailing.default,
        last_report=facts.last_reports, now=facts.now, mover=player,
    )  # fmt: skip
    now = dict(on_file=views.filed(eng, result.state, player), waiting=views.waiting(eng, result.state))
    for p in told:
        st = loaded.seat_for_player(p)
        if p != player:
            d.effects.append(Report(p, key=out.key(st.address if st else p, "report")))
        elif out.admit(d, seat.address, player=player, to_name=seat.display_name):  # one mail: ack and report
            acked = ack_context(msg, loaded, chatter, applied=True, **notes, **now)
            key = out.key(seat.address, "report")
            d.effects.append(Report(p, key=key, ack=acked, in_reply_to=msg.message_id, references=msg.references))
        else:
            d.effects.append(Report(p, key=out.key(seat.address, "report")))
    if player not in told:
        ack(d, out, seat, msg, loaded, chatter, applied=True, **notes, **now)
