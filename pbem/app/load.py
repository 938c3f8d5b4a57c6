"""The load step for one inbound message: everything `intake.decide` and `finish` need, read in its transaction.

Plain facts out (`intake.Facts`): the game the subject names with its seats, state and chain head; its
control state; the answers budget of every address the decision may write to; the sender's games when
the message names none; the revision on file for the sender's step; and, when the message may cause
reports (orders or STATUS from a seat), what they read (`pbem.record.recent`).  A stranger costs the
one look-up of what they were answered.  Every query is in `pbem.record`.
"""

from __future__ import annotations

from datetime import datetime

from pbem import engine as registry
from pbem.app import addresses, derivations, histories, intake, join, on_file, reading, resigning, revisions, views
from pbem.app.absence import absences
from pbem.app.answers import Outgoing
from pbem.app.revisions import FirstCopy
from pbem.home.policy import Policy
from pbem.mail.inbound.message import Inbound
from pbem.mail.inbound.replies import SentMail
from pbem.orders.extract import Extracted
from pbem.record import lookups, outbox, press_budget, recent, store
from pbem.record.absence import rows as away_rows
from pbem.record.db import Unit
from pbem.record.press_budget import PressWindow
from pbem.record.rows import Game
from pbem.trust.codes import check_seat_code


def load_facts(
    s: Unit,
    msg: Inbound,
    when: datetime,
    game: Game | None,
    ex: Extracted | None,
    first: FirstCopy | None = None,
    *,
    registered: bool = True,
    policy: Policy | None = None,
    sent: dict[str, SentMail] | None = None,
) -> intake.Facts:
    """Everything `intake.decide` needs for `msg`, read in its transaction."""
    if msg.auto:
        return intake.Facts(None, extracted=ex, when=when, first=first)
    if not registered:  # a stranger: what they were answered, if they may be answered at all
        asked = policy is not None and policy.stranger_answers_per_day > 0 and bool(msg.sender) and not msg.problem
        answered = outbox.stranger_answers(s, msg.sender, when) if asked else (0, 0)
        caps = intake.Strangers(policy.stranger_answers_per_day, policy.stranger_answers_per_hour) if policy else None
        return intake.Facts(
            None,
            extracted=ex,
            now=when,
            when=when,
            first=first,
            stranger_answers=answered,
            strangers=caps or intake.Strangers(),
        )
    if game is None or game.id is None:
        seats = lookups.seats_of(s, msg.sender)
        games = [intake.SenderGame(st.game, registry.get(st.kind).title, st.player) for st in seats]
        return intake.Facts(
            None,
            windows=outbox.answers_in_last_hour(s, [msg.sender], when),
            sender_games=[g.name for g in games],
            sender_seats=games,
            extracted=ex,
            when=when,
            first=first,
            now=when,
            registered=registered,
        )
    loaded = store.load(s, game)
    moderator = [policy.moderator_address] if policy is not None else []
    seat = loaded.seat_for_address(msg.sender)
    acting = seat is not None and (first is not None or (ex is not None and bool(ex.orders)))
    if seat is not None and ex is not None and (ex.address or "").lower() == seat.address.lower():
        ex.address = None  # "Address: alice@example.org" under a signature, the seat's own: nothing to move
    new = [ex.address.lower()] if seat is not None and ex is not None and ex.address else []  # ADDRESS: its budget
    listed = [st.address for st in loaded.seats] + [msg.sender, *moderator, *new]  # the addresses it may answer
    if seat is not None and ex is not None and (ex.orders or ex.status):  # what the reports it may cause read
        recent.read(s, loaded, [(p, 0 if join.is_open(loaded) else None) for p in views.players(loaded)])
    elif seat is not None and ex is not None and ex.press:  # press is not relayed to a player who resigned
        recent.left(s, loaded)
    if seat is not None and ex is not None and ex.press:  # a press to a name a seat had: who holds it now
        loaded.former = store.former_players(s, game.id)
    facts = intake.Facts(
        loaded,
        extracted=ex,
        control=loaded.control,
        windows=outbox.answers_in_last_hour(s, listed, when),
        sender_games=[] if seat or not msg.sender else on_file.games_of(s, msg.sender),
        when=when,
        now=when,
        first=first,
        registered=registered,
        on_file=on_file.revision_on_file(s, loaded, seat.player) if acting and seat else None,
        max_away=policy.max_away if policy is not None else intake.Facts.max_away,
        reply=reading.reply_of(msg, sent or {}, loaded, seat),  # a reply to a mail pbem sent this seat: no code
        answered_other=reading.answered_other(sent or {}, loaded, seat),  # a reply to another seat's mail
        answered_before=reading.answered_before(sent or {}, loaded, seat),  # to mail older than the code
        press=press_budget.window(s, msg.sender, when)
        if seat is not None and ex is not None and ex.press
        else PressWindow(),
        press_per_day=policy.press_per_day if policy is not None else intake.Facts.press_per_day,
        **reading.mailing_facts(s, loaded),
    )
    if acting and seat and first is None and facts.on_file is None and revisions.delayed(msg, when):
        facts.earlier = on_file.earlier_orders(s, loaded, seat.player)  # a delayed mail of an earlier step?
    elif acting and seat and first is None and facts.on_file is None and views.unasked(loaded, seat.player):
        facts.earlier = on_file.earlier_orders(s, loaded, seat.player)  # a correction after the turn ended (players31)
    if policy is not None and not msg.problem and first is None:
        facts.codes = code_checks(msg, facts, policy.replies_per_hour)
    if seat is not None and ex is not None and first is None:  # HISTORY, RESIGN (judges4)
        facts.history = histories.load(s, loaded, seat, ex.history) if ex.history is not None else None
        facts.resign = resigning.load(s, loaded, seat, when) if ex.resign is not None else None
        facts.address = addresses.load(s, loaded, seat, new[0], when) if new else None  # ADDRESS (judges5)
        facts.away_now = absences(away_rows(s, game.id), when) if ex.away is not None else None  # AWAY, BACK
    return facts


def code_checks(msg: Inbound, facts: intake.Facts, cap: int) -> dict[int, bool]:
    """The message's code checked against the seats `intake.decide` asks about (seat id -> it is that
    seat's code), so that deciding derives no key: the sender's seat (also when a new mail only asks for
    HELP or STATUS: another player's code there is a leak its owner is told of); when that fails and the
    sender may still be answered, the other seats until the owner is found (`misuse`); for a registered
    player of another game, the seats until the one whose code it is.  Each check is
    the cached one the worker threads warmed ahead (`pbem.app.ahead`)."""
    loaded, ex = facts.loaded, facts.extracted
    if loaded is None or ex is None or not ex.code or not facts.registered:
        return {}
    seat = loaded.seat_for_address(msg.sender)
    checks: dict[int, bool] = {}
    if seat is not None:
        if seat.id is None:
            return {}
        checks[seat.id] = check_seat_code(seat.id, ex.code, seat.code_hash)
        out = Outgoing(msg, facts.replies, cap, loaded.game.id, facts.windows, facts.now)
        if checks[seat.id] or not out.allowed(seat.address):
            return checks
    if seat is None and not derivations.may_derive(msg.sender, len(loaded.seats)):
        return checks  # a player of another game naming this one: its budget of key derivations is spent
    for other in loaded.seats:
        if other is not seat and other.id is not None:
            checks[other.id] = check_seat_code(other.id, ex.code, other.code_hash)
            if checks[other.id]:
                break
    return checks
