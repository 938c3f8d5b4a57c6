"""`pbem game resend NAME PLAYER` and `RESEND <player>` by mail: a player's current report mailed again.

A player whose report went astray (a spam folder, a full mailbox, a mail deleted by mistake) can write STATUS;
one who does not know a report is missing, or cannot write, cannot.  The moderator sends it for them: the same
report a STATUS gets (the state, what is asked now and the deadline, what happened since their last report), to
the registered address only, threaded as their game.  It changes nothing in the game, so it is allowed in a game
that is paused, over or abandoned too (a lost final report).  Not counted against the player's answers budget:
it answers no mail of theirs.
"""

from __future__ import annotations

from datetime import datetime

from pbem.app.control import Command
from pbem.app.decision import Decision, Report
from pbem.app.game_names import seat_named
from pbem.home.app import Home
from pbem.record import store


def decide_resend(loaded: store.Loaded, player: str, when: datetime) -> Decision:
    """The player `player` names (as `player_named` reads it) gets their report again."""
    who = seat_named(loaded, player)
    key = ("resend", loaded.game.name, who, when.isoformat())
    return Decision(game=loaded.game.name, player=who, effects=[Report(who, key=key, asked=True)])


def resend(home: Home, name: str, player: str, when: datetime) -> str:
    """Queue `player`'s current report in game `name`; returns the player as registered."""
    with home.units() as s:
        c = Command(s, name)
        d = decide_resend(c.loaded, player, when)
        c.reads()  # what the report reads: the events since their last one
        c.apply(home.policy, d, when)
        return d.player
