"""A game paused for weeks: the moderator is reminded of it weekly, its players told nothing new (months4).

`pbem game pause` stops a game's deadlines and its reminders (`pbem.record.due.end`) and tells its players once
that nothing is needed from them until it resumes.  Nothing mentioned it again: a game paused and forgotten sat
paused for good, its players waiting for a resume that never came.  Pausing now also plans one `paused` row of the
`due` table a week after the pause (`due.first_paused`); when it falls due, the poll's deadlines (`pbem.app.deadlines`)
hand it here: if the game is still paused, one `paused_game` mail to the moderator (since when, how long, the
commands to resume or abandon it), its Message-ID made from the game, the pause and the week (a poll decided
again queues nothing), and the next look a week later.  Resuming or abandoning the game closes the row (`due.end`,
`due.plan`), so no reminder follows.  The players are not mailed: what they were told at the pause stands.
"""

from __future__ import annotations

from datetime import datetime

from pbem.app import views
from pbem.app.bounced import unqueued
from pbem.app.decision import Decision, DueHandled, Effect
from pbem.app.settle import settle
from pbem.home.policy import Policy
from pbem.mail.outbound.outgoing import Mail
from pbem.record import due, listing, store
from pbem.record.db import Unit
from pbem.trust.chain import iso

EVERY = due.PAUSED_EVERY


def decide(game: str, gid: int, players: list[str], paused_at: datetime, moderator: str, when: datetime) -> Mail:
    """The reminder of a game paused since `paused_at`, as it stands at `when`."""
    weeks = max(0, (when - paused_at) // EVERY)
    ctx = {
        "game_name": game,
        "since": f"{paused_at:%Y-%m-%d %H:%M} UTC",
        "days": max(0, (when - paused_at).days),
        "players": players,
        "every": EVERY.days,
    }
    return Mail(moderator, "paused_game", ctx, "alert", ("paused", game, iso(paused_at) or "", weeks), game_id=gid)


def remind(s: Unit, policy: Policy, rows: list[due.DueRow], when: datetime) -> None:
    """The paused game's rows fell due: its reminder if it is still paused, and the next look a week on."""
    ids = tuple(r.id for r in rows)
    look = rows[-1]
    game = store.game_by_id(s, look.game_id)
    paused_at = listing.paused_at(s, look.game_id)
    if game is None or paused_at is None or store.control_state(s, look.game_id) != "paused":
        settle(s, policy, Decision(effects=[DueHandled(ids)]), when)  # resumed or ended: nothing more
        return
    loaded = store.load(s, game)
    if loaded.over:
        settle(s, policy, Decision(effects=[DueHandled(ids)]), when)
        return
    weeks = max(0, (when - paused_at) // EVERY)  # a row of an earlier pause: not before this one's first week
    mail = decide(game.name, look.game_id, views.players(loaded), paused_at, policy.moderator_address, when)
    again = due.DueRow(0, look.game_id, "paused", paused_at + EVERY * (weeks + 1), when, when)
    effects: list[Effect] = [*(unqueued(s, policy, [mail]) if weeks else []), DueHandled(ids, again)]
    settle(s, policy, Decision(game=game.name, effects=effects), when, loaded)
