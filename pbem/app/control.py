"""Moderator commands on a running game: extend, pause, resume, replace, abandon, new code, start.

Each is decided by a pure `decide_*` function (a one-sentence `GameError` when it cannot be done) and applied in one
transaction: a `ControlAction` row and, where players should know, a public "moderator" event and a notice (a template
per command, purpose `NEWS`) or a report.  Nothing is edited in place.  The event's `data` holds every fact its text
states (issue 13; docs/export.schema.json, `moderator_data`): `action`, `deadline` and `step` for extend and resume,
`player` and `newcomer` for replace, `text` for say (`pbem.app.say`); extend's `row` is `listing.in_a_row` (months6)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from pbem.app import upkeep, views
from pbem.app.clock import TOLERANCE
from pbem.app.decision import (
    MODERATOR_SEAT,
    Control,
    Decision,
    DueHandled,
    Effect,
    Events,
    GameError,
    Input,
    NewDeadline,
    NewSeat,
    Report,
    check_open,
)
from pbem.app.game_names import seat_named, unknown_game
from pbem.app.settle import settle
from pbem.engine.base import Event
from pbem.engine.names import norm, player_name
from pbem.engine.seats import RENAME, rename
from pbem.home.app import Home
from pbem.home.policy import Policy
from pbem.mail.outbound.outgoing import Mail
from pbem.record import due, listing, recent, store
from pbem.record.db import Unit
from pbem.record.outbox import NEWS
from pbem.record.rows import Seat
from pbem.trust.chain import iso
from pbem.trust.codes import hash_code, new_code

_stamp = "{:%Y-%m-%d %H:%M} UTC".format
NOTHING = "nothing was changed"  # a command that finds nothing to do says so (players25)


def announce(
    loaded: store.Loaded,
    action: str,
    text: str,
    detail: str = "",
    seats: list[Seat] | None = None,
    facts: dict[str, object] | None = None,
    **ctx: object,
) -> list[Effect]:
    """The action row, a public moderator event saying `text` (its data: the action and `facts`), and the
    control_ACTION notice to every seat, but only the end to a player who resigned (`Loaded.resigned`)."""
    name = loaded.game.name
    data = {"action": action, **(facts or {})}
    effects: list[Effect] = [Control(action, detail), Events((Event("moderator", text, "public", data),))]
    for seat in [st for st in seats or loaded.seats if action == "abandon" or st.player not in loaded.resigned]:
        key = ("control", name, action, loaded.event_seq + 1, seat.player)
        context = {"game_name": name, **ctx}
        effects.append(Mail(seat.address, f"control_{action}", context, NEWS, key, player=seat.player))
    return effects


def decide_extend(
    loaded: store.Loaded, control: str, dl_step: str | None, due: datetime | None, by: timedelta, row: listing.Row = ()
) -> Decision:
    check_open(loaded, control, allow_paused=True)
    if dl_step is None or due is None:
        raise GameError(f"game {loaded.game.name} has no open step to extend")
    if by <= timedelta(0):
        raise GameError(f"extending by {by} changes nothing: extend by at least 1m")
    new_due = due + by
    text = f"The moderator extended the deadline to {_stamp(new_due)}."
    ctx = {"due": _stamp(new_due), "again": upkeep.in_a_row(row, dl_step, due)}
    told = announce(loaded, "extend", text, str(by), None, _deadline(dl_step, new_due), **ctx)
    return Decision(game=loaded.game.name, effects=[NewDeadline(dl_step, new_due, f"extended by {by}"), *told])


def _deadline(step: str | None, due: datetime | None) -> dict[str, object]:
    """The facts of a deadline a moderator event states: the step it closes and when (ISO 8601; None: no deadline)."""
    return {"step": step, "deadline": iso(due)}


def decide_pause(loaded: store.Loaded, control: str, when: datetime) -> Decision:
    if control == "paused" and not loaded.over:  # a second pause: said so, not "game hh1 is paused" (players25)
        raise GameError(f"game {(n := loaded.game.name)} is paused already: {NOTHING}; pbem game resume {n} resumes it")
    check_open(loaded, control)
    text = "The moderator paused the game; deadlines are stopped."
    week = DueHandled((), due.first_paused(loaded.game.id or 0, when))  # the moderator's reminder (app/paused.py)
    return Decision(game=loaded.game.name, effects=[*announce(loaded, "pause", text, when.isoformat()), week])


def decide_resume(
    loaded: store.Loaded,
    control: str,
    paused_at: datetime | None,
    dl_step: str | None,
    due: datetime | None,
    when: datetime,
) -> Decision:
    """Resume; the current deadline moves on by the time the game was paused (never back: a clock behind)."""
    check_open(loaded, control, allow_paused=True)  # "game hh1 is abandoned", not "... is not paused"
    if control != "paused" or paused_at is None:
        raise GameError(f"game {loaded.game.name} is not paused: it runs already; {NOTHING}")
    if when < paused_at - TOLERANCE:  # the deadline would move back by the difference: a turn lost
        why = f"the clock reads {_stamp(when)}, before the game was paused ({_stamp(paused_at)})"
        raise GameError(f"{why}; {NOTHING}: fix the machine's clock")
    effects: list[Effect] = []
    new_due = None
    if dl_step is not None and due is not None:
        new_due = due + max(when - paused_at, timedelta(0))
        effects.append(NewDeadline(dl_step, new_due, "resumed"))
    text = "The moderator resumed the game" + (f"; deadline {_stamp(new_due)}." if new_due else ".")
    stamp = _stamp(new_due) if new_due else None
    facts = _deadline(dl_step if new_due else None, new_due)
    return Decision(game=loaded.game.name, effects=effects + announce(loaded, "resume", text, facts=facts, due=stamp))


def decide_abandon(loaded: store.Loaded, control: str) -> Decision:
    if control == "abandoned" and not loaded.over:  # (players25)
        raise GameError(f"game {loaded.game.name} is abandoned already: {NOTHING}")
    check_open(loaded, control, allow_paused=True)
    text = "The moderator abandoned the game; no further orders will be accepted."
    return Decision(game=loaded.game.name, effects=announce(loaded, "abandon", text))


def decide_replace(
    loaded: store.Loaded,
    control: str,
    old: str,
    newcomer: tuple[str, str],
    code: str,
    code_hash: str,
    dl_step: str | None = None,
    due: datetime | None = None,
    moderator: str = "",
) -> Decision:
    """The newcomer takes OLD's seat under their own name, with a fresh code and a full report (issue 16).

    The record renames the seat (an input of kind rename, replayed like any other), so the history
    before it keeps the old name and everything after it, orders included, uses the new one.  The
    replaced player is told at their old address; everyone else by the control_replace notice.  The newcomer gets
    only their full report (its subject "You now play NAME: full report"): the notice, written for the others ("if
    yours are not in yet, reply to your latest report"), came to them first, before they had any report (walk6).
    """
    check_open(loaded, control, allow_paused=True)
    try:
        display = player_name(newcomer[0])
    except ValueError as exc:
        raise GameError(str(exc)) from None
    address = newcomer[1].lower()
    if moderator and address == moderator.lower():
        raise GameError(MODERATOR_SEAT)
    old = seat_named(loaded, old)
    seat = next(st for st in loaded.seats if st.player == old)
    if display == seat.player and address == seat.address.lower():
        same = f"{display} <{newcomer[1]}> already plays the seat of {seat.player} in {loaded.game.name}"
        raise GameError(f"{same}: nothing to change; give another person, or the same name at a new address")
    if any(st.address == address for st in loaded.seats if st is not seat):
        raise GameError(f"{newcomer[1]} already plays in {loaded.game.name}")
    if any(norm(st.player) == norm(display) for st in loaded.seats if st is not seat):
        raise GameError(f"{display} is already the name of another player of {loaded.game.name}; choose another")
    name, before = loaded.game.name, seat.player
    effects: list[Effect] = []
    if display != before:
        out = rename(loaded.state, before, display)
        if not out.accepted:
            raise GameError(f"{display} cannot be a player of {name}: {out.lines[0].reason}")
        effects.append(Input(RENAME, before, (display,), out))
        step = views.current_step(views.engine(loaded), out.state)
        if dl_step is not None and due is not None and step and step != dl_step:
            effects.append(NewDeadline(step, due, "seat replaced"))  # the step's id named the seat: same due time
    thread = f"{name}:{seat.position}:{loaded.event_seq + 1}"  # the newcomer's first report starts their thread
    new = dataclasses.replace(seat, player=display, address=address, display_name=display, code_hash=code_hash)
    seats = [new if st is seat else st for st in loaded.seats]
    told = {"game_name": name, "player": before, "newcomer": display}  # first: it threads into their game
    key = ("replaced", name, seat.position, loaded.event_seq + 1, seat.address)
    effects.append(Mail(seat.address, "replaced", told, NEWS, key, to_name=seat.display_name, player=before))
    effects.append(NewSeat(seat.position, display, address, display, code_hash, thread=thread))
    text = f"{display} replaces {before}." if display != before else f"A new player takes over the seat of {before}."
    facts: dict[str, object] = {"player": before, "newcomer": display, "seat": seat.position}
    others = [st for st in seats if st is not new]
    effects += announce(loaded, "replace", text, f"{before} -> {display}", others, facts, newcomer=display, seat=before)
    # a full report: everything this seat may know, from the start, with the new code
    effects.append(Report(display, since=0, code=code, takeover=True, key=("thread", thread)))
    return Decision(game=name, player=display, effects=effects)


def decide_new_code(loaded: store.Loaded, control: str, player: str, code: str, hashed: str, t: datetime) -> Decision:
    """A fresh code: a new seat row with the new hash, mailed only to the registered address (not once over)."""
    check_open(loaded, control, allow_paused=True)
    player = seat_named(loaded, player)
    seat = next(st for st in loaded.seats if st.player == player)
    name = loaded.game.name
    key = ("code", name, seat.player, loaded.seq, t.isoformat())
    ctx = {"game_name": name, "code": code}
    effects: list[Effect] = [
        NewSeat(seat.position, seat.player, seat.address, seat.display_name, hashed, thread=seat.thread),
        Control("code", seat.player),
        Mail(seat.address, "new_code", ctx, NEWS, key, player=seat.player, secret="code"),
    ]
    return Decision(game=name, player=seat.player, effects=effects)


# --------------------------------------------------------------------------- the shells


class Command:
    """One command's transaction: the game loaded with its control state and deadline."""

    def __init__(self, s: Unit, name: str) -> None:
        game = store.game_by_name(s, name)
        if game is None or game.id is None:
            raise GameError(unknown_game(name, store.game_names(s)))
        self.s, self.gid = s, game.id
        self.loaded = store.load(s, game)
        self.loaded.former = store.former_players(s, game.id)  # who took the seat of a name typed, if one did
        recent.left(s, self.loaded)  # who resigned: the moderator's notices skip them (`announce`)
        self.control = store.control_state(s, game.id)
        dl = store.current_deadline(s, game.id)
        self.step = dl.step if dl else None
        self.due = store.aware(dl.due_at) if dl else None

    def reads(self, since: int | None = None) -> None:
        """What the reports of the command read: every player's, from `since` (None: their last report)."""
        recent.read(self.s, self.loaded, [(p, since) for p in views.players(self.loaded)])

    def apply(self, policy: Policy, d: Decision, when: datetime) -> None:
        settle(self.s, policy, d, when, self.loaded)
        self.s.commit()


def extend(home: Home, name: str, by: timedelta, when: datetime) -> datetime:
    with home.units() as s:
        c = Command(s, name)
        d = decide_extend(c.loaded, c.control, c.step, c.due, by, listing.in_a_row(s, c.gid))
        c.apply(home.policy, d, when)
        assert c.due is not None
        return c.due + by


def pause(home: Home, name: str, when: datetime) -> None:
    with home.units() as s:
        c = Command(s, name)
        c.apply(home.policy, decide_pause(c.loaded, c.control, when), when)


def resume(home: Home, name: str, when: datetime) -> datetime | None:
    with home.units() as s:
        c = Command(s, name)
        paused_at = listing.paused_at(s, c.gid)
        d = decide_resume(c.loaded, c.control, paused_at, c.step, c.due, when)
        c.apply(home.policy, d, when)
        return next((e.due_at for e in d.effects if isinstance(e, NewDeadline)), None)


def abandon(home: Home, name: str, when: datetime) -> None:
    with home.units() as s:
        c = Command(s, name)
        c.apply(home.policy, decide_abandon(c.loaded, c.control), when)


def replace(home: Home, name: str, old: str, newcomer: tuple[str, str], when: datetime, code: str | None = None) -> str:
    """`pbem game replace`; returns whose seat it was (the name typed, read as `player_named` does)."""
    code = code or new_code()
    with home.units() as s:
        c = Command(s, name)
        c.reads(since=0)  # the newcomer's report tells the seat's whole story
        hashed, moderator = hash_code(code, home=home.policy.home), home.policy.moderator_address
        d = decide_replace(c.loaded, c.control, old, newcomer, code, hashed, c.step, c.due, moderator)
        c.apply(home.policy, d, when)
        return next(str(m.context["player"]) for m in d.mails if m.kind == "replaced")


def new_player_code(home: Home, name: str, player: str, when: datetime, code: str | None = None) -> str:
    """`pbem game code`; returns the player (the name typed, read as `player_named` does)."""
    code = code or new_code()
    with home.units() as s:
        c = Command(s, name)
        d = decide_new_code(c.loaded, c.control, player, code, hash_code(code, home=home.policy.home), when)
        c.apply(home.policy, d, when)
        return d.player


def start(home: Home, name: str, when: datetime) -> list[str]:
    """`pbem game start NAME`: deal without the missing salts (`join.decide_start`).  Returns who had not joined."""
    from pbem.app import join

    with home.units() as s:
        c = Command(s, name)
        absent = join.missing(c.loaded) if join.is_open(c.loaded) else []
        c.reads(since=0)  # everyone's first report follows the deal
        c.apply(home.policy, join.decide_start(c.loaded, c.control), when)
        return absent
