"""A game whose players have all gone silent, or one seat that has: the moderator is told, once (months2).

A game whose players all vanished went on by its defaults, a deadline every 48 hours, mailing nobody who read it,
and nobody was told (`benchmarks/months.py`: 22 deadlines and 131 mails in 45 days).  When a deadline applies its
defaults, `[games] silent_deadlines` (default 3; 0: never) is counted against two clocks:

* **the game**: deadlines applied since the newest mail from any of its players (or since it began), and since
  the moderator last answered it (`pbem game keep`, resume, extend, replace, address: `record.silence.ANSWERED`).
  At N, one `silent_game` mail to the moderator: the game, since when it is silent, the commands to pause, abandon
  or keep it, and to send its players one digest a day instead (unless that is the game's mail mode already).
* **a seat**, while the others play: deadlines that applied that player's defaults since their newest mail to the
  game (or since they were given the seat or their address was moved, or the moderator kept, resumed or extended
  the game; another seat's replace or address is no answer to this one's, months3).  At N, one `silent_seat` mail
  naming the player and their address, with `pbem game replace` (the takeover) and `pbem game address`.

Each is sent once for a silence: its Message-ID is made from the game (and player) and the time the silence began,
so it is not queued again until a player writes or the moderator answers.  A resigned player is left out (the
game waits for their seat to be given, `pbem game waiting` says so).  Deciding is pure (`decide`); the deadline's
shell (`pbem.app.deadlines`) calls `told` with the deadline's decision before writing it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from pbem.app import bounced, views
from pbem.app.decision import Control, Decision, check_open
from pbem.home.app import Home
from pbem.home.policy import Policy
from pbem.mail.outbound.outgoing import Mail
from pbem.record import listing, modes, silence, store
from pbem.record.db import Unit
from pbem.trust.chain import iso

ALERT = "alert"


@dataclass(frozen=True)
class Quiet:
    """What a deadline of one game knows of its silence (plain values, read by `read`)."""

    game: str
    gid: int | None
    began: datetime  # the game's creation
    players: dict[str, str]  # player -> address, the seats that may be told of (not resigned)
    heard: dict[str, datetime]  # each player's newest mail to the game
    given: dict[str, datetime]  # when each player was given their seat
    answered: datetime | None  # the moderator's newest answer (keep, resume, extend, replace, address)
    every_seat: datetime | None  # ... of those that answer every seat (keep, resume, extend)
    moved: dict[str, datetime]  # when the moderator (or the player) last moved each player's address
    deadlines: int  # deadlines applied since the game's silence began, this one included
    defaulted: dict[
        str, int
    ]  # per player, deadlines that applied their defaults since their silence began, this one too
    mode: str  # the game's default mail mode


def _newest(*times: datetime | None) -> datetime | None:
    return max((t for t in times if t is not None), default=None)


def game_since(q: Quiet) -> datetime | None:
    """When the game's silence began: its players' newest mail or the moderator's answer (None: its start)."""
    return _newest(*q.heard.values(), q.answered)


def seat_since(q: Quiet, player: str) -> datetime | None:
    """When the seat's silence began: the player's newest mail, the seat given to them, their address moved, or the
    moderator's newest keep, resume or extend; not another seat's replace or address (months3: that started every
    seat's count again, and a seat told was told again, its text saying the game had been kept)."""
    return _newest(q.heard.get(player), q.given.get(player), q.moved.get(player), q.every_seat)


def decide(q: Quiet, most: int, moderator: str, when: datetime) -> list[Mail]:
    """The mails to the moderator this deadline causes (before those already queued are left out)."""
    if most <= 0 or not q.players:
        return []
    if q.deadlines >= most:
        since = game_since(q)
        ctx = {
            "game_name": q.game,
            "deadlines": q.deadlines,
            "since": _stamp(since or q.began),
            "days": max(0, (when - (since or q.began)).days),
            "began": "start" if since is None else "moderator" if since == q.answered else "mail",
            "players": sorted(q.players),
            "mode": q.mode,
            "most": most,
        }
        key: tuple[object, ...] = ("silent-game", q.game, iso(since) or "start")
        return [Mail(moderator, "silent_game", ctx, ALERT, key, game_id=q.gid)]
    mails = []
    for player in sorted(q.players):
        if q.defaulted.get(player, 0) < most:
            continue
        since = seat_since(q, player)
        ctx = {
            "game_name": q.game,
            "player": player,
            "address": q.players[player],
            "deadlines": q.defaulted[player],
            "since": _stamp(since or q.began),
            "began": _began(since, q.heard.get(player), q.moved.get(player), q.every_seat),
            "most": most,
        }
        key = ("silent-seat", q.game, player, iso(since) or "start")
        mails.append(Mail(moderator, "silent_seat", ctx, ALERT, key, game_id=q.gid))
    return mails


def _began(since: datetime | None, heard: datetime | None, moved: datetime | None, every: datetime | None) -> str:
    """What a seat's silence began with: their mail, their address moved, the moderator's keep (resume, extend),
    or the seat given to them."""
    if since is None:
        return "seat"
    return "mail" if since == heard else "address" if since == moved else "moderator" if since == every else "seat"


def _stamp(at: datetime) -> str:
    return f"{at:%Y-%m-%d %H:%M} UTC"


def read(s: Unit, loaded: store.Loaded, d: Decision) -> Quiet:
    """The silence of `loaded`'s game, the deadline decided in `d` included (not yet written)."""
    gid = loaded.game.id
    assert gid is not None
    now_defaulted: dict[str, int] = {}
    for ev in d.events:
        if ev.kind == "default-orders" and isinstance(player := ev.data.get("player"), str):
            now_defaulted[player] = now_defaulted.get(player, 0) + 1
    applied = sum(1 for i in d.inputs if i.kind == "deadline")
    heard, given = listing.last_heard(s, gid), listing.given(s, gid)
    answered, every_seat, moved = silence.answered(s, gid)
    seats = {
        p: st.address for p in views.players(loaded) if (st := loaded.seat_for_player(p)) and p not in loaded.resigned
    }
    q = Quiet(loaded.game.name, gid, store.aware(loaded.game.created_at) or loaded.game.created_at, seats, heard, given,
              answered, every_seat, moved, 0, {}, modes.mailing(s, gid).default)  # fmt: skip
    deadlines = silence.deadlines_since(s, gid, game_since(q)) + applied
    since = {p: seat_since(q, p) for p in seats}
    before = silence.defaulted_since(s, gid, since)
    defaulted = {p: before.get(p, 0) + now_defaulted.get(p, 0) for p in seats}
    return dataclasses.replace(q, deadlines=deadlines, defaulted=defaulted)


def told(s: Unit, policy: Policy, loaded: store.Loaded, d: Decision, when: datetime) -> list[Mail]:
    """The silence mails `d` (a deadline applied) causes, those queued before left out."""

    if policy.silent_deadlines <= 0:
        return []
    mails = decide(read(s, loaded, d), policy.silent_deadlines, policy.moderator_address, when)
    if not mails:
        return []
    return bounced.unqueued(s, policy, mails)


def decide_keep(loaded: store.Loaded, control: str) -> Decision:
    """`pbem game keep NAME`: the moderator keeps a silent game running; told again only after as many deadlines
    more without a player's mail.  Nothing changes for the players, and they are not told."""
    check_open(loaded, control, allow_paused=True)  # "game hh1 is abandoned", as every command says it
    return Decision(game=loaded.game.name, effects=[Control("keep", control)])


def keep(home: Home, name: str, when: datetime) -> None:
    from pbem.app.control import Command

    with home.units() as s:
        c = Command(s, name)
        c.apply(home.policy, decide_keep(c.loaded, c.control), when)
