"""A player's code arriving from another registered player's address (pure; issue 12, "Identity"), in a mail
that acts (refused), one that only asks for HELP or STATUS, or a reply (both answered: `leaked`); a CODE line
that is not the player's code in a reply, or in a new mail that only asks, is ignored and the player told
(`ignored`).

The sender gets the usual refusal (which never says whose code it was: that
would confirm to them that the code is good).  The code's owner is told at
their registered address, and the moderator at the `[moderator] address`:
one registered player holding another's code is a matter for the moderator
(a new code: `pbem game code GAME PLAYER`).  Both notices count against the
hourly cap of the address they go to, so a flood of such mail cannot flood
either inbox.  The owner is looked for (one key derivation per other seat)
only while the sender's own answers are under the cap, so a flood of forged
codes from a player's address costs no more than that per hour.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from pbem.app.answers import Outgoing, short
from pbem.app.decision import Decision
from pbem.mail.inbound.message import Inbound
from pbem.orders.extract import Extracted
from pbem.record.rows import Seat
from pbem.record.store import Loaded
from pbem.trust.codes import check_seat_code

#: Told a player whose reply (taken on the mail it answers) held a CODE line that is not their code.
IGNORED_CODE = (
    "The CODE line in your mail is not your current player code and was ignored: a reply to pbem's mail needs "
    "no code. A new mail needs your current code (LOST CODE sends you a new one)."
)
#: Told a player whose new mail (no reply) only asked for HELP or STATUS, with a CODE line that is not their code.
IGNORED_CODE_ASKING = (
    "The CODE line in your mail is not your current player code and was ignored: HELP and STATUS need no code, "
    "but orders in a new mail need your current code (LOST CODE sends you a new one)."
)


def ignored(ex: Extracted, reply: bool = True) -> Extracted:
    """`ex` with `IGNORED_CODE` among its notes: a reply (orders, JOIN, HELP or STATUS alike), or a new mail that
    only asks (`IGNORED_CODE_ASKING`), whose CODE line is not the sender's code.  Never the code pbem holds, nor
    whose the typed one is (`leaked` tells its owner, if it is another's)."""
    return replace(ex, problems=[*ex.problems, IGNORED_CODE if reply else IGNORED_CODE_ASKING])


def owner_of(
    code: str | None, loaded: Loaded, besides: Seat | None = None, is_theirs: Callable[[Seat], bool] | None = None
) -> Seat | None:
    """The seat of the game whose code `code` is (other than `besides`), if any.  `is_theirs`: the check
    (the load step's, `intake.is_code`); by default the cached derivation."""
    if not code:
        return None
    check = is_theirs or (lambda st: check_seat_code(st.id, code, st.code_hash))
    return next((st for st in loaded.seats if st is not besides and check(st)), None)


def warn(d: Decision, out: Outgoing, loaded: Loaded, owner: Seat, sender: str, sender_as: str, moderator: str) -> None:
    """Tell the code's owner and the moderator that `sender` (registered as `sender_as`) used the owner's code."""
    game = loaded.game.name
    if out.admit(d, owner.address, player=owner.player, to_name=owner.display_name):
        context = {"game_name": game, "sender": sender}
        d.effects.append(out.mail(owner.address, "code_misused", "notice", context, player=owner.player, reply=False))
    if moderator and out.admit(d, moderator, quiet=True):
        context = {"game_name": game, "sender": sender, "sender_as": sender_as, "owner": owner.player}
        d.effects.append(out.mail(moderator, "code_misuse_alert", "notice", context, reply=False))


def leaked(
    d: Decision, out: Outgoing, loaded: Loaded, seat: Seat, code: str, is_theirs: Callable[[Seat], bool], moderator: str
) -> None:
    """If the code `seat`'s mail carried is another player's, that code has leaked: its owner and the moderator
    are told.  For a mail that acts (refused: the code is not the sender's) and for one that only asks (HELP,
    STATUS: answered without a code) alike."""
    owner = owner_of(code, loaded, seat, is_theirs)
    if owner is not None:
        d.reason += f"; it carried the code of {owner.player}"
        warn(d, out, loaded, owner, out.msg.sender, f"{seat.player} in this game", moderator)


def not_theirs(d: Decision, out: Outgoing, msg: Inbound, games: list[str]) -> Decision:
    """`d` with the answer to a registered player of `games` who wrote to game `d.game`, which they do not play:
    nothing applied, their own games, and to write from the address that plays it if they do (`not_your_game`).
    A reply to a report from the player's other address, registered in another game, was dropped untold."""
    if out.admit(d, msg.sender):
        context = {"game_name": d.game, "subject_in": short(msg.subject), "games": sorted(set(games))}
        d.effects.append(out.mail(msg.sender, "not_your_game", "ack", context))
    return d
