"""ADDRESS by mail: a player moves their seat to a new mail address, proven from both ends (the judge's SET ADDRESS).

From the registered address, with the code or as a reply to a mail of the game (as for orders), a line ``ADDRESS
new@example.org`` changes nothing: the new address gets a word of six digits (``address_confirm``: the game's and the
seat's names, no code, nothing of the game's secrets) and the player is told it was sent (``address_asked``).  A mail
from the NEW address naming the game with the line ``ADDRESS CONFIRM <word>`` (a reply to that mail keeps the game in
its subject) moves the seat: a new seat row at the new address with the same player, code and thread, a public
moderator event in the chained record ("Alice's mail goes to a new address from now on": no address, the export
lists none) that `pbem verify` counts with the moderator's actions (the row keeps the time the code was given, so a
resignation and "a reply to mail older than the code" read as before), and ``address_moved`` to the old address, the new
one and the moderator.  The word is keyed with the home's secret, the game, the seat row and the new address, and the
day (UTC): good that day and the next; a move makes a new seat row, so a word works once.

One game at a time: the game the mail names (each game's seat is its own; a player moves each with its own line).
Refused, told to the registered address with what would be accepted: no mail address, the address the seat has,
the moderator's address, another seat's of the same game, or more than `CONFIRMS` words to one address in an hour
(a player cannot flood someone else's mailbox with them).  Someone else's address given as the new one: its owner
never confirms, nothing changes and the word expires.  A wrong word from an address that plays no seat is not
answered (a stranger is never answered for it).  The moderator moves a seat without the word:
``pbem game address hh1 Alice new@example.org`` or ``ADDRESS Alice new@example.org`` by mail (`move`).
"""

from __future__ import annotations

import hmac
import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbem.app import views
from pbem.app.answers import Outgoing, short, summary
from pbem.app.decision import MODERATOR_SEAT, Control, Decision, Effect, Events, GameError, NewSeat, check_open
from pbem.app.footers import about_the_seat
from pbem.app.game_names import seat_named
from pbem.app.settle import settle
from pbem.engine.base import Event
from pbem.mail.inbound.message import Inbound
from pbem.mail.outbound.outgoing import Mail
from pbem.orders.extract import Extracted
from pbem.orders.moderator import moved as moved_text
from pbem.record import outbox, store
from pbem.record.db import Unit
from pbem.record.home_secrets import message_id_key
from pbem.record.outbox import NEWS
from pbem.record.rows import Seat
from pbem.trust.asked import address_key, moved_to

if TYPE_CHECKING:
    from pbem.app.facts import Facts
    from pbem.home.app import Home
    from pbem.home.policy import Policy

DAYS = 2  # a word is good on the day it was given and the next (UTC)
CONFIRMS = 3  # answers to one new address within the hour past which no more words are mailed to it
_FORM = re.compile(r"^[^@\s<>]{1,64}@[^@\s<>.]++(?:\.[^@\s<>.]++)+$")  # local@domain.tld, no spaces or brackets
ACCEPTED = "ADDRESS followed by your new mail address alone, e.g. ADDRESS alice@example.org"


def word(key: bytes, game_id: int, seat_id: int, address: str, day: str) -> str:
    """The six digits that move seat row `seat_id` of game `game_id` to `address` on `day` (ISO date)."""
    digest = hmac.digest(key, f"pbem address|{game_id}|{seat_id}|{address.lower()}|{day}".encode(), "sha256")
    return str(100_000 + int.from_bytes(digest[:8], "big") % 900_000)


def words(key: bytes, game_id: int, seat_id: int, address: str, when: datetime) -> tuple[str, ...]:
    days = ((when - timedelta(days=k)).date().isoformat() for k in range(DAYS))
    return tuple(word(key, game_id, seat_id, address, day) for day in days)


def good_until(when: datetime) -> str:
    end = when.replace(hour=23, minute=59, second=0, microsecond=0) + timedelta(days=DAYS - 1)
    return f"{end:%a %d %b %Y %H:%M} UTC"


def load(s: Unit, loaded: store.Loaded, seat: Seat, new: str, when: datetime) -> tuple[str, str]:
    """Today's word for moving `seat` to `new`, and when it stops working."""
    assert loaded.game.id is not None and seat.id is not None
    return words(message_id_key(s), loaded.game.id, seat.id, new, when)[0], good_until(when)


def problem(loaded: store.Loaded, seat: Seat, new: str, moderator: str) -> str:
    """Why `seat` cannot move to `new` ("" when it can)."""
    if len(new) > 254 or not _FORM.match(new):
        return f"{short(new, 80)!r} is not a mail address"
    if new.lower() == seat.address.lower():
        return f"{new} is the address the seat of {seat.player} has already"
    if moderator and new.lower() == moderator.lower():
        return MODERATOR_SEAT
    if any(st.address.lower() == new.lower() for st in loaded.seats):
        return f"{new} is the address of another player of {loaded.game.name}"
    return ""


def decide(d: Decision, out: Outgoing, loaded: store.Loaded, seat: Seat, ex: Extracted, facts: Facts) -> Decision:
    """An ADDRESS line of `seat`'s (pure): the word mailed to the new address, or the refusal told to the old one."""
    new, name = ex.address or "", loaded.game.name
    others, left = about_the_seat(views.engine(loaded), loaded.state, seat.player, ex)
    shown, more = summary([short(line) for line in left])
    ctx: dict[str, object] = dict(game_name=name, subject_in=short(out.msg.subject), others=others, new=new)
    ctx.update(left=shown, more_left=more)
    ctx.update(good_until="", problem="", accepted="")
    why = "no ADDRESS CONFIRM is needed from the seat's own address" if ex.address is None else ""
    why = why or problem(loaded, seat, new, facts.moderator)
    if not why and out.counts.get(new.lower(), 0) >= CONFIRMS:
        why = f"{CONFIRMS} mails went to {new} within the hour already: use the word of one of them, or try later"
    if not why and facts.address is not None and out.admit(d, new.lower(), quiet=True):
        sent, until = facts.address
        told = {"game_name": name, "player": seat.player, "word": sent, "good_until": until}
        d.effects.append(out.mail(new.lower(), "address_confirm", "ack", told, reply=False))  # no reader: no receipt
        d.outcome, d.reason = "accepted", f"ADDRESS asked: the word that confirms it mailed to {new}"
        ctx["good_until"] = until
    else:
        d.outcome, d.reason = "rejected", f"ADDRESS refused: {why or 'no more mail to that address this hour'}"
        ctx.update(problem=why or f"no more mail may go to {new} this hour", accepted=ACCEPTED)
    if out.admit(d, seat.address, player=seat.player, to_name=seat.display_name):
        d.effects.append(out.mail(seat.address, "address_asked", "ack", ctx, player=seat.player))
    return d


def moved(loaded: store.Loaded, seat: Seat, new: str, moderator: str, by: str, word: str = "") -> list[Effect]:
    """The seat at `new` from now on (pure): its row, the chained event, and the three mails.  `by`: "player" (the
    `word` from the new address: the event binds the new address with it, `pbem.trust.asked.moved_to`, so that the
    player's --sent tells a move elsewhere, fairness24) or "moderator"."""
    name, player, new = loaded.game.name, seat.player, new.lower()
    text = moved_text(player)
    data = {"action": "address", "player": player, "seat": seat.position, "by": by}
    if word:  # keyed with the seed in a game that declares its bindings (fairness25)
        data["to"] = moved_to(name, word, new, address_key(loaded.game.seed) if loaded.game.bindings else "")
    key = ("address", name, seat.position, loaded.event_seq + 1)
    told = {"game_name": name, "player": player, "old": seat.address, "new": new, "by": by}
    effects: list[Effect] = [
        NewSeat(seat.position, player, new, seat.display_name, seat.code_hash, seat.thread, seat.created_at),
        Control("address", player),
        Events((Event("moderator", text, "public", data),)),
        Mail(seat.address, "address_moved", {**told, "to": "old"}, NEWS, (*key, "old"), player=player),
        Mail(new, "address_moved", {**told, "to": "new"}, NEWS, (*key, "new"), to_name=seat.display_name),
    ]
    if moderator:
        effects.append(Mail(moderator, "address_moved", {**told, "to": "moderator"}, NEWS, (*key, "moderator")))
    return effects


def confirmed(s: Unit, msg: Inbound, ex: Extracted | None, when: datetime) -> tuple[store.Loaded, Seat] | None:
    """The game and seat whose word for the sender's address this message's ADDRESS CONFIRM line gives, if any: one
    look-up of the game its subject names, of a word mailed to that address within `DAYS` days (none: a word typed
    by an address nobody asked to move to is a guess, six digits that enough mails would find) and of its seats,
    and an HMAC per seat and day; a wrong word loads nothing."""
    if ex is None or ex.address_confirm is None or msg.auto or msg.problem or not msg.game or not msg.sender:
        return None
    game = store.game_by_name(s, msg.game)
    if game is None or game.id is None or not outbox.asked_of(s, game.id, msg.sender, when - timedelta(days=DAYS)):
        return None  # no word was mailed to this address: a guessed one moves nothing
    key = message_id_key(s)
    for seat in store.current_seats(s, game.id):
        if seat.id is not None and ex.address_confirm in words(key, game.id, seat.id, msg.sender, when):
            loaded = store.load(s, game)
            return loaded, next(st for st in loaded.seats if st.position == seat.position)
    return None


def confirm(s: Unit, policy: Policy, msg: Inbound, raw: bytes, ex: Extracted | None, when: datetime) -> Decision | None:
    """ADDRESS CONFIRM from an address that is no seat of the game its subject names: the move, when the word is
    this address's for one of the game's seats and the address may still be that seat's; None: read as usual."""
    found = confirmed(s, msg, ex, when)
    if found is None:
        return None
    loaded, seat = found
    control = store.control_state(s, loaded.game.id) if loaded.game.id is not None else "running"
    moderator = policy.moderator_address
    why = problem(loaded, seat, msg.sender, moderator) or ("game is over" if loaded.over else "")
    why = why or (f"game is {control}" if control == "abandoned" else "")
    d = Decision("ignored", f"ADDRESS CONFIRM for {seat.player}: {why}", game=loaded.game.name, player=seat.player)
    if not why:
        d.outcome, d.reason = "accepted", f"{seat.player}'s seat moved to the address that confirmed it"
        d.effects = moved(loaded, seat, msg.sender, moderator, "player", (ex.address_confirm if ex else "") or "")
    settle(s, policy, d, when, loaded, inbound=(msg, raw))
    return d


def move(home: Home, name: str, player: str, new: str, when: datetime) -> str:
    """`pbem game address NAME PLAYER NEW`: the moderator moves a seat without the word; returns whose seat."""
    from pbem.app.control import Command

    with home.units() as s:
        c = Command(s, name)
        d = decide_move(c.loaded, c.control, player, new, home.policy.moderator_address)
        c.apply(home.policy, d, when)
        return d.player


def decide_move(loaded: store.Loaded, control: str, player: str, new: str, moderator: str) -> Decision:
    """The moderator's move (pure): refused as the player's would be, with a `GameError`."""
    check_open(loaded, control, allow_paused=True)
    seat = next(st for st in loaded.seats if st.player == seat_named(loaded, player))
    if why := problem(loaded, seat, new, moderator):
        raise GameError(why)
    return Decision(game=loaded.game.name, player=seat.player, effects=moved(loaded, seat, new, moderator, "moderator"))
