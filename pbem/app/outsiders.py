"""Mail from no seat of the game it names (pure): a stranger, a registered player of another game, a sender who plays no
game here, or a mail naming no known game (`pbem.app.intake` hands them over; split from it in players31).

A registered player of another game writing to this one is told they do not play it (`misuse.not_theirs`), and the
player whose code they used warned; a sender who is no registered seat of any game costs no key derivation and gets
at most `Strangers.per_day` short answers a day; a registered player whose mail names no known game is answered with
their games (HELP) or told the game is unknown.
"""

from __future__ import annotations

from pbem.app import derivations, misuse
from pbem.app.answers import Outgoing, short
from pbem.app.decision import Decision
from pbem.app.facts import Facts, is_code
from pbem.mail.inbound.message import Inbound
from pbem.orders.extract import Extracted, subject_line
from pbem.record.store import Loaded


def outgoing(msg: Inbound, facts: Facts, cap: int, game_id: int | None) -> Outgoing:
    return Outgoing(msg, facts.replies, cap, game_id, facts.windows, facts.now)


def stranger(msg: Inbound, facts: Facts, cap: int, loaded: Loaded, ex: Extracted | None) -> Decision:
    """A registered player of another game writing to this one: told they do not play it (`misuse.not_theirs`),
    and the player whose code they used warned (only a registered sender's code is ever checked: `Facts.registered`)."""
    game = loaded.game
    victim = None
    if ex is not None and ex.code and facts.registered:  # checked by the load step, within the sender's budget
        checked = facts.codes or (
            {st.id: is_code(facts, st, ex.code) for st in loaded.seats if st.id is not None}
            if derivations.may_derive(msg.sender, len(loaded.seats))  # facts built by hand: the same budget
            else {}
        )
        victim = next((st for st in loaded.seats if st.id is not None and checked.get(st.id)), None)
    if victim is None:
        # a player's other address, which plays another game, is told; a former player of this game is not
        others = [g for g in facts.sender_games if g != game.name]
        tell = bool(others) and not msg.problem
        d = Decision("rejected" if tell else "ignored", f"{msg.sender or 'no sender'} is not a player of {game.name}")
        d.game = game.name
        return misuse.not_theirs(d, outgoing(msg, facts, cap, game.id), msg, others) if tell else d
    d = Decision("rejected", f"code of {victim.player} used from {msg.sender}", game=game.name, player=victim.player)
    out = outgoing(msg, facts, cap, game.id)
    if facts.sender_games:  # a registered player of another game: refused, and the moderator is told too
        sender_as = "a player of " + ", ".join(sorted(set(facts.sender_games)))
        misuse.warn(d, out, loaded, victim, msg.sender, sender_as, facts.moderator)
        return misuse.not_theirs(d, out, msg, facts.sender_games)
    if out.admit(d, victim.address, player=victim.player):
        # a warning to the owner of the code, not an answer to the stranger's message
        context = {"game_name": game.name, "sender": msg.sender}
        mail = out.mail(victim.address, "stranger_code", "notice", context, player=victim.player, reply=False)
        d.effects.append(mail)
    return d


def unknown(msg: Inbound, facts: Facts, why: str, game: str = "") -> Decision:
    """A sender who is no registered seat of any game: no code is checked; at most one short answer a day."""
    d = Decision("ignored", f"{msg.sender or 'no sender'} is {why}", game=game)
    to_them, to_all = facts.stranger_answers
    strangers = facts.strangers
    if not msg.sender or msg.problem or to_them >= strangers.per_day or to_all >= strangers.per_hour:
        return d
    d.reason += "; told that this address plays no game here"
    out = Outgoing(msg, {}, strangers.per_day, None)
    d.effects.append(out.mail(msg.sender, "stranger", "stranger", {"per_day": strangers.per_day}))
    return d


def no_game(msg: Inbound, facts: Facts, cap: int) -> Decision:
    """No [pbem NAME] tag, an unknown one, or a sender who plays no game here (the shell then loads no game):
    a registered player is answered with their games; a stranger only as `_unknown` allows."""
    if not facts.sender_games:
        named = f" (the subject names {msg.game!r})" if msg.game else ""
        return unknown(msg, facts, f"not a registered player of any game{named}")
    out = outgoing(msg, facts, cap, None)
    if not msg.problem and not msg.game and _asks_help(msg, facts.extracted):
        d = Decision("accepted", "HELP without a game: the player's games listed")
        if out.admit(d, msg.sender):
            seats = sorted(facts.sender_seats, key=lambda g: g.name)
            d.effects.append(out.mail(msg.sender, "games_list", "notice", {"games": seats}))
        return d
    d = Decision("rejected", "no known game named in the subject")
    if out.admit(d, msg.sender):
        games = sorted(set(facts.sender_games))
        context = {"tag": msg.game, "games": games, "subject_in": short(msg.subject)}
        d.effects.append(out.mail(msg.sender, "no_game", "notice", context))
    return d


def _asks_help(msg: Inbound, ex: Extracted | None) -> bool:
    """HELP in the body, or a subject that is HELP (after Re:/Fwd: prefixes)."""
    return bool(ex and ex.help) or subject_line(f"[pbem -] {msg.subject}").upper().rstrip("!?.") == "HELP"
