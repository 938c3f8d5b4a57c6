"""`pbem game process NAME` and `PROCESS` by mail: the step's deadline now, when it waits only for seats that resigned.

The Judge's PROCESS, bounded (judges7).  A player who resigns by mail leaves the seat to its published defaults
until the moderator gives it (`pbem.app.resigning`); each step that asks that seat alone then waited out its
whole deadline, two days a turn in a game of turns, for orders nobody will send.  PROCESS moves the deadline of
the open step to now, so that the next poll applies the defaults as at any deadline.  Only then: a step that
still asks a player who did not resign keeps its deadline, which was published to that player (RULINGS.md: the
defaults apply at the deadline), and a moderator who could cut it could default anyone he liked; a held orders
game's players who answered are still asked until the deadline, so their step is refused as well.  Nor in a
paused game (its deadline is stopped), in the join step (`pbem game start` deals now), or past the deadline
(the next poll applies it).

Like every moderator action it is a public moderator event in the chained record (`action` process, the `step`,
the new `deadline` and the `players` it waited for; `pbem.orders.moderator.processed` its text, which
`pbem verify` checks with the names of the seats then) and a notice to every player who did not resign.
"""

from __future__ import annotations

from datetime import datetime

from pbem.app import views
from pbem.app.control import Command, announce
from pbem.app.decision import Decision, GameError, NewDeadline, check_open
from pbem.app.join import is_open
from pbem.home.app import Home
from pbem.orders.moderator import processed
from pbem.record import store
from pbem.trust.chain import iso

_stamp = "{:%Y-%m-%d %H:%M} UTC".format


def asked(loaded: store.Loaded) -> list[str]:
    """The players the open step still asks, in seat order."""
    open_ = {r.player for r in views.engine(loaded).requests(loaded.state) if not r.answered}
    return [p for p in views.players(loaded) if p in open_]


def decide_process(
    loaded: store.Loaded, control: str, step: str | None, due: datetime | None, when: datetime
) -> Decision:
    """The deadline of `step` moved to `when` (pure), or a GameError saying why it keeps its time."""
    name = loaded.game.name
    check_open(loaded, control)
    if step is None or due is None:
        raise GameError(f"game {name} has no open step with a deadline")
    if is_open(loaded):
        raise GameError(f"{name} waits for its players to join: pbem game start deals now")
    if due <= when:
        raise GameError(f"the deadline of {name} passed at {_stamp(due)}: the next pbem poll applies it")
    players = asked(loaded)
    playing = [p for p in players if p not in loaded.resigned]
    if playing or not players:
        who = ", ".join(playing) or "nobody"
        raise GameError(
            f"{name} waits for {who}, who did not resign: the deadline ({_stamp(due)}) is theirs; only a step "
            "that asks nobody but players who resigned is processed now"
        )
    facts: dict[str, object] = {"step": step, "deadline": iso(when), "players": players}
    effects = announce(loaded, "process", processed(players), ",".join(players), facts=facts, players=players)
    moved = NewDeadline(step, when, "processed: only seats that resigned were asked")
    return Decision(game=name, effects=[moved, *effects])


def process(home: Home, name: str, when: datetime) -> list[str]:
    """Move the open step's deadline of game `name` to now; returns the players whose defaults the next poll applies."""
    with home.units() as s:
        c = Command(s, name)
        d = decide_process(c.loaded, c.control, c.step, c.due, when)
        players = asked(c.loaded)
        c.apply(home.policy, d, when)
        return players
