"""A player's address that bounces: the moderator is told, at most once a day per address (months2).

pbem never answers a bounce (`pbem.mail.inbound.loops`), and nobody was told of one: 313 bounces went to the
rejected folder in half a year of `benchmarks/months.py`, and only `pbem game waiting` showed the seats they played
by default.  When the poll records a mail it will not answer that is a bounce (`bounces.bounced`: from a mail
system or carrying a delivery status, never a read receipt), the recipients of the mails of pbem's that came back
(by their Message-IDs, in the outbox; an address the bounce only names is anyone's to write and is not told,
months4: a forged DSN named the address a seat asked to move to, and that player was mailed) are looked up:
for each that holds a seat in a game still running, one `address_bounced` mail to the moderator naming the seats,
the address, the bounce's reason (one line, cut: a bounce's words are anyone's), and the commands that change the
address or give the seat.  Its Message-ID is made from the address and the day, so a second bounce that day queues
nothing.  The other players are never told; an address that is no player's is not told of either, but for one a
seat asked to move to (ADDRESS) within the word's two days: its word bounced, and that player is told at the
seat's address, once a day per address (`word_bounced`, months3).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pbem.app.addresses import ACCEPTED, DAYS
from pbem.home.policy import Policy
from pbem.mail.inbound import bounces
from pbem.mail.inbound.message import Inbound
from pbem.mail.outbound.outgoing import Mail, message_id
from pbem.record import bounced, outbox
from pbem.record.db import Unit
from pbem.record.outbox import NEWS

MOST = 5  # addresses one bounce may tell of (pbem sends each mail to one address)


def decide(
    found: dict[str, str], seats: dict[str, list[tuple[str, str]]], moderator: str, when: datetime
) -> list[Mail]:
    """The mails to the moderator for the addresses `found` (address -> reason) that hold `seats` now."""
    mails = []
    for address in sorted(found)[:MOST]:
        held = seats.get(address) or []
        if not held:
            continue
        ctx = {
            "address": address,
            "reason": bounces.one_line(found[address]),
            "seats": [{"game": g, "player": p} for g, p in held],
            "day": f"{when:%Y-%m-%d}",
        }
        mails.append(Mail(moderator, "address_bounced", ctx, "alert", ("bounced", address, f"{when:%Y-%m-%d}")))
    return mails


def told(s: Unit, policy: Policy, msg: Inbound, raw: bytes, when: datetime) -> list[Mail]:
    """In the bounce's transaction: the mails it causes (none for mail that is no bounce, or told already today)."""

    if not msg.auto:
        return []
    b = bounces.read(raw)
    if not bounces.bounced(msg.sender, b):
        return []
    found = bounces.addresses(b, bounced.recipients(s, b.returned))
    seats = {a: bounced.seats_at(s, a) for a in sorted(found)[:MOST]}
    since = when - timedelta(days=DAYS)  # an ADDRESS word is good that day and the next
    asked = {a: bounced.asked_at(s, a, since) for a in sorted(found)[:MOST] if not seats[a]}
    mails = decide(found, seats, policy.moderator_address, when) + word_bounced(found, asked, when)
    if not mails:
        return []
    return unqueued(s, policy, mails)


def word_bounced(
    found: dict[str, str], asked: dict[str, list[tuple[str, str, str, int]]], when: datetime
) -> list[Mail]:
    """The player who asked (ADDRESS) to move their seat to an address whose word came back undelivered, told at
    the seat's address, which still gets its mail (months3: nobody was told; the player waited for a word that
    would never come).  Once a day per seat and address; the moderator and the other players are not told."""
    mails = []
    for address in sorted(asked):
        for game, player, seat_address, gid in asked[address]:
            ctx = {
                "game_name": game,
                "player": player,
                "new": address,
                "reason": bounces.one_line(found[address]),
                "accepted": ACCEPTED,
            }
            key = ("word-bounced", game, player, address, f"{when:%Y-%m-%d}")
            mails.append(Mail(seat_address, "address_word_bounced", ctx, NEWS, key, player=player, game_id=gid))
    return mails


def unqueued(s: Unit, policy: Policy, mails: list[Mail]) -> list[Mail]:
    """The moderator's notices among `mails` not queued already (their Message-IDs are made from what they tell
    and when it began: a notice decided again at a later poll is the one sent).  Shared with `pbem.app.silence`."""
    from pbem.record.home_secrets import message_id_key

    secret = message_id_key(s)
    ids = {message_id(policy, m, secret): m for m in mails}
    queued = outbox.queued_ids(s, list(ids))
    return [m for mid, m in ids.items() if mid not in queued]
