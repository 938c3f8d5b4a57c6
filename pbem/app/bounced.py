"""A player's address that bounces: the moderator is told, at most once a day per address (months2).

pbem never answers a bounce (`pbem.mail.inbound.loops`), and nobody was told of one: 313 bounces went to the
rejected folder in half a year of `benchmarks/months.py`, and only `pbem game waiting` showed the seats they played
by default.  When the poll records a mail it will not answer that is a bounce (`bounces.bounced`: from a mail
system or carrying a delivery status, never a read receipt), the recipients of the mails of pbem's that came back
(by their Message-IDs, in the outbox; an address the bounce only names is anyone's to write and is not told,
months4: a forged DSN named the address a seat asked to move to, and that player was mailed) are looked up:
for each that holds a seat in a game still running, one `address_bounced` mail to the moderator naming the seats,
the address, the bounce's reason (one line, cut: a bounce's words are anyone's), and the commands that change the
address or give the seat.  The other players are never told.

A dead address bounces every mail pbem sends it, for as long as the game runs: told once a day, a months-long game
filled the moderator's mail (months4: 30 notices a month per dead address).  Each address's run of bounces is kept
(`record.bounced.Run`, `BounceRun`): the moderator is told at its first bounce, then at the first bounce on or
after 1, 3 and 7 days into the run and weekly after (`spaced`), each notice saying how many bounces since when and
when the next comes; a week without a bounce ends the run, and the next bounce is told at once.  `pbem game
waiting` and `pbem game show` list the seats whose address bounces meanwhile.  pbem keeps mailing the address: a
bounce may pass (a full mailbox, a provider's outage), the reports are the player's record of the game and the
only way they learn of it once the address works, and a dead address costs one send and one filed bounce a mail;
moving the seat (`pbem game address`) or giving it (`pbem game replace`) is the moderator's to decide.  The
moderator's own address bouncing (an alert of pbem's came back) was told to nobody: no mail can reach them, so the
log (`[log] file`, cron.log) says it, spaced out as a seat's are (`MODERATOR_BOUNCED`).  An address that is no
player's is not told of either, but for one a seat asked to move to (ADDRESS) within the word's two days: its word bounced, and that player is told at the
seat's address, once a day per address (`word_bounced`, months3).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from pbem.app.addresses import ACCEPTED, DAYS
from pbem.app.decision import BounceRun, Effect
from pbem.home.policy import Policy
from pbem.mail.inbound import bounces
from pbem.mail.inbound.message import Inbound
from pbem.mail.outbound.outgoing import Mail, message_id
from pbem.record import bounced, outbox
from pbem.record.bounced import Run
from pbem.record.db import Unit
from pbem.record.outbox import NEWS
from pbem.render.sanitize import visible
from pbem.trust.chain import iso

log = logging.getLogger("pbem.bounced")
MOST = 5  # addresses one bounce may tell of (pbem sends each mail to one address)
MODERATOR_BOUNCED = (
    "mail pbem sent to the moderator's own address %s came back undelivered (%d bounce(s) since %s UTC; the newest "
    "says: %s): every alert pbem sends you is lost until it works; fix it, or set [moderator] address in pbem.toml "
    "to one that works (`pbem check` tries the mail settings)"
)
AFTER = (0, 1, 3, 7)  # days into a run of bounces at which the moderator is told; then every `WEEK` days
WEEK = 7
QUIET = timedelta(days=WEEK)  # a run ends after this long without a bounce


def due_day(n: int) -> int:
    """The day into a run at which the moderator is told of it the `n`-th time (0: its first bounce)."""
    return AFTER[n] if n < len(AFTER) else AFTER[-1] + WEEK * (n - len(AFTER) + 1)


def told_by(days: float) -> int:
    """How many notices a run `days` old has been due (the first at day 0)."""
    if days >= AFTER[-1]:
        return len(AFTER) + int((days - AFTER[-1]) // WEEK)
    return sum(1 for d in AFTER if d <= days)


def spaced(before: Run | None, address: str, reason: str, when: datetime) -> tuple[Run, bool]:
    """The address's run of bounces after one more at `when`, and whether the moderator is told of it now: at a
    run's first bounce, then at the first on or after each `due_day` (those a quiet stretch stepped over are not
    told late one by one).  A bounce `QUIET` or more after the run's newest starts another run."""
    if before is None or when - before.last_at >= QUIET or when < before.first_at:
        return Run(address, when, when, 1, 1, reason), True
    due = told_by((when - before.first_at) / timedelta(days=1))
    run = Run(address, before.first_at, when, before.bounces + 1, max(before.told, due), reason)
    return run, due > before.told


def decide(
    found: dict[str, str],
    seats: dict[str, list[tuple[str, str]]],
    runs: dict[str, Run],
    moderator: str,
    when: datetime,
) -> list[Effect]:
    """The mails to the moderator for the addresses `found` (address -> reason) that hold `seats` now, spaced out
    by their `runs` of bounces before this one, and each address's run after it."""
    out: list[Effect] = []
    for address in sorted(found)[:MOST]:
        held = seats.get(address) or []
        if not held:
            continue
        reason = bounces.one_line(found[address])
        run, tell = spaced(runs.get(address), address, reason, when)
        out.append(BounceRun(run))
        if not tell:
            continue
        ctx = {
            "address": address,
            "reason": reason,
            "seats": [{"game": g, "player": p} for g, p in held],
            "day": f"{when:%Y-%m-%d}",
            "since": f"{run.first_at:%Y-%m-%d %H:%M} UTC",
            "bounces": run.bounces,
            "next": f"{run.first_at + timedelta(days=due_day(run.told)):%Y-%m-%d %H:%M} UTC",
            "quiet_days": WEEK,
        }
        key = ("bounced", address, iso(run.first_at) or "", run.told)
        out.append(Mail(moderator, "address_bounced", ctx, "alert", key))
    return out


def bouncing(s: Unit, seats: dict[str, str], now: datetime) -> dict[str, Run]:
    """The players among `seats` (player -> address) whose address's run of bounces goes on at `now` (its newest
    bounce less than `QUIET` ago): for `pbem game waiting` and `pbem game show`.  One look-up by the table's key."""
    runs = bounced.runs(s, [a.lower() for a in seats.values()])
    return {p: r for p, a in seats.items() if (r := runs.get(a.lower())) and now - r.last_at < QUIET}


def bouncing_line(game: str, player: str, run: Run) -> str:
    """What `pbem game waiting` and `pbem game show` say of a seat whose address bounces (the bounce's words, anyone's,
    with their control characters shown escaped: a terminal would obey them)."""
    quoted = f'"{player}"' if " " in player else player
    return (
        f"MAIL BOUNCES: {run.bounces} bounce(s) of {run.address} since {run.first_at:%Y-%m-%d %H:%M} UTC, the newest "
        f"{run.last_at:%Y-%m-%d %H:%M} UTC ({visible(bounces.one_line(run.reason, 80))}): pbem game address {game} {quoted} "
        "new@example.org"
    )


def told(s: Unit, policy: Policy, msg: Inbound, raw: bytes, when: datetime) -> list[Effect]:
    """In the bounce's transaction: the mails it causes and the runs of bounces it extends (nothing for mail that is
    no bounce or no mail of pbem's came back in)."""

    if not msg.auto:
        return []
    b = bounces.read(raw)
    if not bounces.bounced(msg.sender, b):
        return []
    found = bounces.addresses(b, bounced.recipients(s, b.returned))
    seats = {a: bounced.seats_at(s, a) for a in sorted(found)[:MOST]}
    since = when - timedelta(days=DAYS)  # an ADDRESS word is good that day and the next
    asked = {a: bounced.asked_at(s, a, since) for a in sorted(found)[:MOST] if not seats[a]}
    moderator = policy.moderator_address.lower()
    runs = bounced.runs(s, [a for a in seats if seats[a] or a == moderator])
    effects = decide(found, seats, runs, policy.moderator_address, when)
    if moderator in found:  # the moderator's own address: no mail would reach them, the log says it (spaced out)
        run, tell = spaced(runs.get(moderator), moderator, bounces.one_line(found[moderator]), when)
        effects.append(BounceRun(run))
        if tell:
            log.warning(
                MODERATOR_BOUNCED, moderator, run.bounces, f"{run.first_at:%Y-%m-%d %H:%M}", visible(run.reason)
            )
    mails = [e for e in effects if isinstance(e, Mail)] + word_bounced(found, asked, when)
    rest = [e for e in effects if not isinstance(e, Mail)]
    return rest + (unqueued(s, policy, mails) if mails else [])


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
