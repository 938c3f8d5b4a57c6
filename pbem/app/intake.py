"""Deciding what one inbound message does (pure: no database, no mail, no clock).

`decide` gets the parsed message and the `Facts` the shell loaded for it (the game named in the subject with its seats
and state, its control state, the answers already sent to each address this hour) and returns a `Decision`. Who may act:
the registered address AND either a reply to a mail pbem sent that seat (`Facts.reply`, `pbem.mail.inbound.replies`: no
code, no key derivation) or the player's code (docs/architecture.md, the email contract).  A refusal changes nothing and
is told to the registered address, never to the sender (a reply whose step closed, or written for a step closed since:
`closing`); auto-replies, bounces and bulk mail are never answered; every answer counts against one budget per address
per hour (`answers.Outgoing.admit`).  A sender who is no registered seat of any game (a stranger) costs no key
derivation: no code is checked for them, whatever their message carries; they get at most `per_day` short answers a day,
and none once `per_hour` strangers were answered in the last hour (`Strangers`, `pbem.app.outsiders`).  Long input is quoted back summarised
(`answers.summary`).  A copy of a message already read, and order mail written before the player's revision on file,
change nothing (`revisions`); a player's code from another registered player's address is told to its owner and the
moderator (`misuse`).  A reply is taken on the mail it answers whatever CODE line it holds (orders, JOIN, HELP or
STATUS); one not the player's code is ignored and the answer says so, as for a new mail asking HELP or STATUS.
"""

from __future__ import annotations

from pbem.app import absence, addresses, answering, earlier, join, misuse, notify, refusals, revisions, views
from pbem.app import closing as step_closing
from pbem.app import lines as reading_lines
from pbem.app.answers import Outgoing, ack, ack_context, asks, short, summary
from pbem.app.decision import Decision, Input, MailModeSet, Report
from pbem.app.facts import Facts as Facts
from pbem.app.facts import SenderGame as SenderGame
from pbem.app.facts import Strangers as Strangers
from pbem.app.facts import is_code
from pbem.app.footers import commands_only
from pbem.app.histories import answer as answer_history
from pbem.app.outsiders import no_game, outgoing, stranger, unknown
from pbem.app.press import relay_all
from pbem.app.resigning import decide as decide_resign
from pbem.app.revisions import FirstCopy
from pbem.engine import slots
from pbem.engine.base import LineResult, Outcome
from pbem.engine.rulings import RULINGS
from pbem.mail.inbound.message import Inbound
from pbem.orders.extract import Extracted
from pbem.record.modes import Mailing
from pbem.record.rows import Seat
from pbem.record.store import Loaded


def decide(msg: Inbound, facts: Facts, cap: int) -> Decision:
    """What `msg` does.  `cap`: answers allowed per address per hour."""
    if facts.first is not None:
        return _duplicate(msg, facts, cap, facts.first)
    if msg.auto:
        return Decision("ignored", f"not answered: {msg.auto}")
    loaded = facts.loaded
    if loaded is None:
        return no_game(msg, facts, cap)
    ex = facts.extracted if not msg.problem else None
    seat = loaded.seat_for_address(msg.sender)
    if seat is None:
        if not facts.registered:
            return unknown(msg, facts, f"not a player of {loaded.game.name}", loaded.game.name)
        return stranger(msg, facts, cap, loaded, ex)
    d = Decision(game=loaded.game.name, player=seat.player)
    out = _outgoing(msg, facts, cap, loaded.game.id)
    if msg.problem or ex is None:
        problem = msg.problem or "it holds no text"
        asked = _asked(loaded, seat.player)  # what would be accepted, as any refusal shows (explore35)
        unasked = views.unasked(loaded, seat.player)
        return _refuse(d, out, seat, problem, "unreadable", problem=problem, unasked=unasked, asked=asked)
    acts = bool(ex.orders or ex.press or ex.away or ex.mode or ex.resign is not None or ex.address is not None)
    if acts and facts.reply is None and not is_code(facts, seat, ex.code):
        why = "it carried no player code" if not ex.code else "the player code it carried is wrong"
        looking = out.allowed(seat.address)  # a flood of forged codes past the cap costs no more key derivations
        ctx = dict(code_missing=not ex.code, sent=msg.date, other=facts.answered_other, before=facts.answered_before)
        why += " (a reply to mail older than the code)" if facts.answered_before else ""
        _refuse(d, out, seat, f"refused: {why}", "refused_code", **ctx, unasked=views.unasked(loaded, seat.player))
        if looking and ex.code:  # whose code it was: its owner and the moderator are told
            code = ex.code
            misuse.leaked(d, out, loaded, seat, code, lambda st: is_code(facts, st, code), facts.moderator)
        return d
    if ex.code and (facts.reply is not None or not acts) and not is_code(facts, seat, ex.code):  # said ignored
        looking = out.allowed(seat.address)  # as `load.code_checks` judged it, before this mail's answer
        told = misuse.ignored(ex, reply=facts.reply is not None)  # a reply, or a new mail that only asks
        answered = _decide_seat(d, out, msg, loaded, seat, told, facts, acts)
        code = ex.code
        if looking:
            misuse.leaked(answered, out, loaded, seat, code, lambda st: is_code(facts, st, code), facts.moderator)
        return answered
    return _decide_seat(d, out, msg, loaded, seat, ex, facts, acts)


def _decide_seat(
    d: Decision, out: Outgoing, msg: Inbound, loaded: Loaded, seat: Seat, ex: Extracted, facts: Facts, acts: bool
) -> Decision:
    ended = loaded.over or facts.control == "abandoned"  # nothing more is asked: no "no orders were found"
    asks = ex.help or ex.status or facts.history is not None  # answered whatever the game's state
    paused = facts.control == "paused" and ex.resign is None and ex.address is None  # RESIGN, ADDRESS: paused too
    if (acts or (ended and not asks)) and (ended or paused):
        state = "over" if loaded.over else facts.control
        return _refuse(d, out, seat, f"game is {state}", "game_closed", state=state)
    if ex.orders and (stale := revisions.stale(msg, facts.when, facts.on_file, facts.earlier)):
        return revisions.refuse_stale(d, out, seat, msg, *stale, unasked=views.unasked(loaded, seat.player))
    if ex.resign is not None:  # RESIGN: the mail is about leaving the game, confirmed by a word (judges4)
        return decide_resign(d, out, loaded, seat, ex, facts)
    if ex.address is not None or ex.address_confirm is not None:  # the seat's mail to a new address (judges5)
        return addresses.decide(d, out, loaded, seat, ex, facts)
    if ex.away is not None:
        absence.by_mail(d, out, loaded, seat, ex, facts.when or facts.now, facts.max_away, facts.away_now)
    return _act(d, out, msg, loaded, seat, ex, facts)


def _duplicate(msg: Inbound, facts: Facts, cap: int, first: FirstCopy) -> Decision:
    loaded = facts.loaded
    seat = loaded.seat_for_player(first.player) if loaded is not None and first.player else None
    if seat is not None and seat.address.lower() != msg.sender.lower():
        seat = None  # the copy names another game or player than its first copy: nobody to tell
    out = _outgoing(msg, facts, cap, loaded.game.id if loaded else None)
    return revisions.duplicate(msg, first, seat, facts.on_file, out, loaded.game.name if loaded else "", facts.when)


def _outgoing(msg: Inbound, facts: Facts, cap: int, game_id: int | None) -> Outgoing:
    return outgoing(msg, facts, cap, game_id)


def _refuse(d: Decision, out: Outgoing, seat: Seat, reason: str, kind: str, **ctx: object) -> Decision:
    d.outcome, d.reason = "rejected", reason
    if out.admit(d, seat.address, player=seat.player, to_name=seat.display_name):
        context = {"game_name": d.game, "subject_in": short(out.msg.subject), **ctx}
        mail = out.mail(seat.address, kind, "ack", context, player=seat.player, to_name=seat.display_name)
        d.effects.append(mail)
    return d


def _act(d: Decision, out: Outgoing, msg: Inbound, loaded: Loaded, seat: Seat, ex: Extracted, facts: Facts) -> Decision:
    eng, state, player = views.engine(loaded), loaded.state, seat.player
    ex = reading_lines.seeming_told(eng, state, player, ex)  # "I vote red": told how to write it, if legal now
    ex = commands_only(eng, state, player, ex)  # "HELP" above "Pass it on!": that footer is chatter
    told = False  # the message's notes told in the HELP or STATUS answer: no mail of their own for them
    if ex.help and out.admit(d, seat.address, player=player, to_name=seat.display_name):
        told, rulings = True, RULINGS.get(eng.kind, "")  # the numbers refusals cite (docs/rulings.md)
        asked, waiting, told_here = _asked(loaded, player), views.waiting(eng, state), list(ex.problems)
        context = dict(game_name=loaded.game.name, handbook=eng.handbook().rstrip(), rulings=rulings, notes=told_here)
        d.effects.append(
            out.mail(seat.address, "help", "notice", {**context, "asked": asked, "waiting": waiting}, player=player)
        )
    if ex.status and out.admit(d, seat.address, player=player, to_name=seat.display_name):
        acked = None if told or not ex.problems else ack_context(msg, loaded, [], problems=list(ex.problems))
        d.effects.append(Report(player, key=out.key(seat.address, "status"), purpose="status", ack=acked))
        told = told or acked is not None
    answer_history(d, out, seat, loaded.game.name, facts.history)  # HISTORY: the game's, as this seat knows it
    sent, failed, effects, held = relay_all(
        loaded, seat, ex.press, ex.code, out, facts.press, facts.press_per_day, facts.now
    )  # within the sender's [mail] press_per_day (issue 26)
    d.effects += effects
    problems = list(ex.problems)
    if ex.mode:  # WATCH, NORMAL, DIGEST: how much mail this player gets from now on
        d.effects.append(MailModeSet(player, ex.mode))
        problems.append(notify.promise(ex.mode, facts.mailing.players.get(player, facts.mailing.default)))
    notes = dict(problems=problems, press_failed=failed, press_sent=sent, mode=ex.mode or "")
    if not ex.orders:
        accepted = bool(ex.help or ex.status or sent or held or ex.away or ex.mode or facts.history is not None)
        d.outcome, d.reason = ("accepted", "commands only") if accepted else ("rejected", "no orders found")
        if held:
            d.reason += f"; {held} press block(s) past the sender's press_per_day, not relayed"
        if not accepted or (problems and not (told and problems == ex.problems)) or failed or sent:
            now_asked: dict[str, object] = {} if accepted else {"asked": _asked(loaded, player)}  # accepted now
            ack(
                d,
                out,
                seat,
                msg,
                loaded,
                ex.chatter,
                **notes,
                no_orders=not accepted,
                **now_asked,
                **_now(loaded, player),
            )
        return d
    if join.is_open(loaded):  # not dealt yet: the lines are JOIN / SALT
        return join.decide_join(d, out, msg, loaded, seat, list(ex.orders), problems)
    return _orders(d, out, msg, loaded, seat, list(ex.orders), notes, ex, facts)


def _asked(loaded: Loaded, player: str) -> list[dict[str, object]]:
    """What `player` is asked now and the orders that would be accepted (their own requests only, as HELP)."""
    eng = views.engine(loaded)
    return [{"prompt": r.prompt, "legal": list(r.legal)} for r in eng.requests(loaded.state) if r.player == player]


def _now(loaded: Loaded, player: str, refused: list[LineResult] | None = None) -> dict[str, object]:
    e, s = views.engine(loaded), loaded.state
    return dict(on_file=views.filed(e, s, player), waiting=views.waiting(e, s), **asks(e, s, player, refused))


def _orders(
    d: Decision,
    out: Outgoing,
    msg: Inbound,
    loaded: Loaded,
    seat: Seat,
    orders: list[str],
    notes: dict[str, object],
    ex: Extracted,
    facts: Facts,
) -> Decision:
    eng, player = views.engine(loaded), seat.player
    result: Outcome = eng.apply(loaded.state, player, orders)
    orders, result, notes, chatter = reading_lines.read_again(eng, loaded.state, player, orders, result, notes, ex)
    result = slots.one_per_slot(eng, loaded.state, player, orders, result)  # two orders for one slot: refused
    result = refusals.worded(eng, loaded.state, player, result)  # agreeing with the status; legal now
    lines = [r.__dict__ for r in result.lines]
    moved = result.accepted and step_closing.changed(facts, eng, loaded.state, player)  # for a step closed since
    if not result.accepted or moved:
        d.outcome = "rejected"
        refused = [f"{short(r.line)!r}: {r.reason}" for r in result.lines if not r.ok]
        shown, more = summary(refused)
        d.reason = "; ".join(shown) + (f"; and {more} more refused lines" if more else "") or step_closing.REASON
        d.late = step_closing.late(result, facts)  # a reply whose step closed? the shell reads when, decides again
        now = {**_now(loaded, player, result.lines), **step_closing.told(facts, eng, loaded.state, player)}
        notes, lines = (step_closing.resent(notes, orders), []) if moved else (notes, lines)
        notes = earlier.noted(notes, facts, eng, loaded.state, player, result)  # a correction after the turn ended
        ack(d, out, seat, msg, loaded, chatter, lines=lines, rejected_count=len(refused), **notes, **now)
        return d
    d.late = step_closing.stale(facts)  # a reply to mail older than this step? the shell reads its step, decides again
    if loaded.game.resolve == "deadline":
        d.outcome, d.reason = "held", "held until the deadline"
        ack(d, out, seat, msg, loaded, chatter, applied=True, lines=lines, **notes, held=True, on_file=orders)
        return d
    d.outcome = "accepted"
    d.effects.append(Input("orders", player, tuple(orders), result))
    chosen = {e.player: e.mode for e in d.effects if isinstance(e, MailModeSet)}  # a mode this message chose
    mailing = Mailing(facts.mailing.default, {**facts.mailing.players, **chosen})
    answering.answer(d, out, msg, loaded, seat, result, dict(lines=lines, **notes), chatter, mailing, facts)
    return d
