"""Mail pbem could not send for longer than `LATE`, then sent: a chained public claim in every running game.

While the mail server cannot be reached (or refuses every mail for a while), the outbox keeps what pbem writes and
sends it when the server comes back (`pbem.mail.outbound.sender`): a report written during the outage reaches its
player hours after its Date, leaving less time than it says.  `pbem verify --mail` warns of such a mail (`late`,
from the player's provider's `Received` stamp), and could not tell it from a report the moderator held back
(twenty-first fairness round).  So the first failure is kept (`marks.send_failed`, by the poll's sender), and the
first poll that sends again, when the failure lasted longer than `LATE`, appends to every game not over a public
moderator event of action `unsent` stating when sending failed from (the first failure) and to (the start of the
poll that sent again): chained, dated, told to every player in their next report, with no mail of its own.  `verify
--mail` then notes each late mail the claim covers with it, and warns of a mail the claim does not cover, or one
the reader received inside it (`pbem.trust.arrived.Claims`): docs/security.md argues what the claim proves.

Every game not over gets it, not only those with mail held: which games had mail queued in the time would tell
players that someone was mailed (an acknowledgement of a secret order, a press), and how many mails each game's
players got is not said for the same reason.  Deciding is pure (`decide`); `after_sending` loads and applies, one
transaction a game, once per outage.
"""

from __future__ import annotations

import logging
from datetime import datetime

from pbem.app.control import Command
from pbem.app.decision import Decision, Events
from pbem.engine.base import Event
from pbem.home.app import Home
from pbem.record import marks, outbox, site, store
from pbem.trust.arrived import LATE, UNSENT, unsent_text
from pbem.trust.chain import iso

log = logging.getLogger("pbem.unsent")


def decide(name: str, start: datetime, end: datetime) -> Decision:
    """The claim, in game `name`, that pbem's mail server could not take mail from `start` to `end`."""
    data = {"action": UNSENT, "from": iso(start), "to": iso(end)}
    return Decision(game=name, effects=[Events((Event("moderator", unsent_text(start, end), "public", data),))])


def after_sending(home: Home, started: datetime, when: datetime) -> list[str]:
    """After a poll that started at `started`: if the outbox had failed and has sent since, the failure is over:
    claimed in every game not over when it lasted longer than `LATE`, and forgotten.  It ended when the first mail
    after it was sent, or when this poll started if that was in this poll: a mail is marked sent when the poll
    folds what its sender sent (`sentlog`), which can be minutes after, and no mail this poll sent left before it
    started, so no mail written inside the claim reached anyone before its end (`arrived.Claims.belied`).  Returns
    the games claimed in."""
    url = home.cfg.database_url
    start = marks.failing_since(url)
    if start is None:
        return []
    with home.units() as s:
        first = outbox.first_sent_since(s, start)
        end = min(first, max(started, start)) if first is not None else None
        ids = store.open_game_ids(s) if end is not None and end - start > LATE else []
    if end is None:
        return []  # still failing (or nothing was due): the next poll looks again
    done = []
    for gid in ids:
        with home.units() as s:
            name = site.game_name(s, gid)
            if name is None:
                continue
            c = Command(s, name)
            if c.control == "abandoned" or c.loaded.over:
                continue
            c.apply(home.policy, decide(name, start, end), when)
        done.append(name)
    marks.remember(url, marks.SEND_FAILING, "")
    if done:
        log.warning("mail could not be sent from %s to %s: claimed in %d game(s)", iso(start), iso(end), len(done))
    return done
