"""RESIGN by mail: a player leaves a running or paused game, confirmed by a second mail (the Judge's RESIGN).

A player writes ``RESIGN`` (with their code, or in a reply to a mail of the game, as for orders).  Nothing changes
then: the answer (``resign_confirm``) gives a word of six digits and asks for a second mail with the line ``RESIGN
<word>``, so that one stray line never resigns anyone.  The word is keyed with the home's secret, the game, the seat
(a new code or a replacement makes a new seat row, and another word) and the day (UTC): it is good that day and the
next (`words`).  With the word, the resignation is done: a control row ``resign`` (the seat's player) and a public moderator event in
the chained record (``action`` resign, the ``player`` and their ``seat``: `pbem verify` requires one before every
`process` event naming the player, `pbem.trust.resigns`), the moderator is
asked to give the seat to someone else (``resign_moderator``, with the `pbem game replace` line), and every player of
the game, the resigning one included, is told (``resigned``).

RULINGS.md says nothing of a player who leaves: its NMR policy (the published defaults at each deadline) is what
applies to the seat until the moderator replaces it, as for any player who sends nothing, and the mails say so.  The
player keeps the seat and its code until then (orders sent meanwhile still count, STATUS still answers), but gets
nothing more of the game's flow (judges5, judges6: no turn reports, reminders, defaults notices, moderator notices
but the end, no press: `pbem.app.press` answers a press naming them "Bob resigned"; `Loaded.resigned`); the
replaced notice tells them when the seat is given, and a new code or an address move does not undo the resignation
(`pbem.record.listing.given`).  A mail with a RESIGN
line is about resigning: its other lines are not read, and the answer says so.  A seat that already resigned is told
when, and nothing more is done.

A resignation changes the game, so it is always answered once (judges7): a player whose answers budget is spent
(`pbem.app.answers`) still gets the word, the first time they ask that day (UTC), under its own outbox purpose
(`outbox.RESIGN`, not counted); a second RESIGN that day past the budget gets nothing, as any answer would.  The
resignation itself and its notices are news of the game (`NEWS`), never counted.

A paused game takes RESIGN too (judges5: it was refused as "game is paused"): no rule keeps a player in a game
while the moderator has stopped its deadlines, and the moderator is told as usual.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbem.app import views
from pbem.app.answers import Outgoing, short, summary
from pbem.app.decision import Control, Decision, Events
from pbem.app.footers import about_the_seat
from pbem.engine.base import Event
from pbem.mail.outbound.outgoing import Mail
from pbem.orders.extract import Extracted
from pbem.orders.moderator import resigned as resigned_text
from pbem.record import listing, outbox, store
from pbem.record.db import Unit
from pbem.record.home_secrets import message_id_key
from pbem.record.outbox import NEWS
from pbem.record.rows import Seat

if TYPE_CHECKING:
    from pbem.app.facts import Facts

DAYS = 2  # a word is good on the day it was given and the next (UTC)


@dataclass(frozen=True)
class Resign:
    """What the shell loaded for a RESIGN line: the words that confirm it now (today's first), and when this seat
    resigned already (None: it did not)."""

    words: tuple[str, ...]
    good_until: str  # when today's word stops working ("Mon 07 Dec 2026 23:59 UTC")
    resigned_at: datetime | None = None
    spare: bool = False  # no word went past the answers budget to this seat today: one may (`decide`)


def word(key: bytes, game_id: int, seat_id: int, day: str) -> str:
    """The six digits that confirm the resignation of seat row `seat_id` of game `game_id` on `day` (ISO date)."""
    digest = hmac.digest(key, f"pbem resign|{game_id}|{seat_id}|{day}".encode(), "sha256")
    return str(100_000 + int.from_bytes(digest[:8], "big") % 900_000)


def words(key: bytes, game_id: int, seat_id: int, when: datetime) -> tuple[str, ...]:
    return tuple(word(key, game_id, seat_id, (when - timedelta(days=k)).date().isoformat()) for k in range(DAYS))


def load(s: Unit, loaded: store.Loaded, seat: Seat, when: datetime) -> Resign:
    """The words for `seat` now, and its resignation if it resigned since the seat was given (a new code or an
    address move does not give it again: `pbem.record.listing.given`)."""
    assert loaded.game.id is not None and seat.id is not None
    gone = listing.resigned(s, loaded.game.id)
    loaded.resigned = frozenset(gone)  # who left before: not told of this one (`decide`)
    resigned = gone.get(seat.player)
    end = when.replace(hour=23, minute=59, second=0, microsecond=0) + timedelta(days=DAYS - 1)
    good_until = f"{end:%a %d %b %Y %H:%M} UTC"
    day = when.replace(hour=0, minute=0, second=0, microsecond=0)
    spare = not outbox.mailed_since(s, loaded.game.id, outbox.RESIGN, seat.player, day)
    return Resign(words(message_id_key(s), loaded.game.id, seat.id, when), good_until, resigned, spare)


def decide(d: Decision, out: Outgoing, loaded: store.Loaded, seat: Seat, ex: Extracted, facts: Facts) -> Decision:
    """A RESIGN line of `seat`'s (pure): the word asked for, or the resignation done with it."""
    r = facts.resign
    name = loaded.game.name
    others, left = about_the_seat(views.engine(loaded), loaded.state, seat.player, ex)
    others = others or facts.history is not None
    shown, more = summary([short(line) for line in left])
    context: dict[str, object] = {"game_name": name, "subject_in": short(out.msg.subject), "others": others}
    context.update(left=shown, more_left=more)
    if r is None or r.resigned_at is not None or ex.resign not in r.words:
        if r is not None and r.resigned_at is not None:
            d.outcome, d.reason = "ignored", f"{seat.player} resigned already"
            context["resigned_at"] = f"{r.resigned_at:%a %d %b %Y %H:%M} UTC"
        else:
            d.outcome, d.reason = "accepted", "RESIGN asked: the word that confirms it sent"
            context.update(resigned_at="", word=r.words[0] if r else "", good_until=r.good_until if r else "")
            context["wrong"] = bool(ex.resign)
        spare = r is not None and r.resigned_at is None and r.spare and not out.allowed(seat.address)  # the word
        if spare or out.admit(d, seat.address, player=seat.player, to_name=seat.display_name):  # past the budget
            purpose = outbox.RESIGN if spare else "ack"  # goes once a day, not counted
            d.effects.append(out.mail(seat.address, "resign_confirm", purpose, context, player=seat.player))
        return d
    d.outcome, d.reason = "accepted", f"{seat.player} resigned: the moderator is asked to replace the seat"
    # the word that confirmed it (spent: the seat resigned), for the player's --sent to compare (fairness24)
    data = {"action": "resign", "player": seat.player, "seat": seat.position, "word": ex.resign}
    d.effects += [
        Control("resign", seat.player),
        Events((Event("moderator", resigned_text(seat.player), "public", data),)),
    ]
    key = ("resign", name, seat.player, seat.id)
    for st in [st for st in loaded.seats if st.player == seat.player or st.player not in loaded.resigned]:
        told = {"game_name": name, "resigner": seat.player, "you": st.player == seat.player}
        d.effects.append(Mail(st.address, "resigned", told, NEWS, (*key, st.player), player=st.player))
    if facts.moderator:
        told = {"game_name": name, "resigner": seat.player, "address": seat.address}
        d.effects.append(Mail(facts.moderator, "resign_moderator", told, NEWS, (*key, "moderator")))
    return d
