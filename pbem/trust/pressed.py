"""`pbem verify --mail`: why an answer says a press was not sent, worked out again.

A press block ("PRESS TO Bob: ...") whose names pbem cannot read is not relayed, and the answer notes "Press not sent:
WHY." (`pbem.app.press.relay`).  WHY is the reason pbem's reading of the names gives (`pbem.engine.names.match_many`
over the other players), and it quotes the names as typed, so it can be read again: the moderator could tell Alice
her press to Bob was not sent ('"Bob" is not a player you can name here') and never relay it, and only its form was
checked (eighth round).  Each reason must be one that reading gives, and the names it quotes must not be a press
pbem sends: named as "would have been sent" when they name players.  A press is not relayed to a player who
resigned ("Bob resigned: ...", fairness11): each player that reason names must have resigned in the record by the
mail's head.  Pure; one reading a note.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from pbem.engine.base import RuleError
from pbem.engine.names import match_many, match_one
from pbem.orders.moderator import PRESS_RESIGNED
from pbem.trust.quote import clip

_NONE = "no player is named: name one"
_NOT = re.compile(r'^"([^\n]{1,400})" is not a player you can name here')
_ANY = re.compile(r'^"([^\n]{1,400})" could be any of: ([^\n]{1,2000}); type more of the player')
_TELL = re.compile(r'^cannot tell which player "([^\n]{1,400})" names')
_GONE = re.compile(rf"^([^\n]{{1,2000}}?) {re.escape(PRESS_RESIGNED)} \(")


def _kind(reason: str) -> tuple[str, frozenset[str]]:
    """(the form of a reason, the names a "could be any of" lists)."""
    if reason == _NONE:
        return "none", frozenset()
    if m := _ANY.fullmatch(reason):
        return "any", frozenset(x.strip() for x in m[2].split(","))
    if _NOT.fullmatch(reason):
        return "not", frozenset()
    if _TELL.fullmatch(reason):
        return "tell", frozenset()
    return "", frozenset()


def untrue(why: str, pools: Sequence[Sequence[str]], gone: Collection[str] = ()) -> str:
    """How the reason `why` a press was not sent differs from pbem's reading of the names it quotes over the other
    players (each of `pools`: their names as the set-up and as the record's readers give them), in one phrase;
    "" when it is that reading's for one of them.  A press not sent to players because they resigned must name
    only players of `gone`, those the record shows resigned by the mail's head (`pbem.trust.resigns.Gone`)."""
    if m := _GONE.match(why):
        if stray := [n for n in m[1].split(", ") if n not in gone]:
            return (
                f"says your press was not sent to {clip(', '.join(stray))} because they resigned, but the record "
                "holds no resignation of theirs by then: it would have been sent"
            )
        return ""
    kind, listed = _kind(why)
    if not kind:
        return f'says your press was not sent because "{clip(why)}", a reason pbem never gives for a press'
    if kind == "none":
        return ""
    typed = next(m[1] for p in (_ANY, _NOT, _TELL) if (m := p.fullmatch(why)))
    named: list[str] = []
    for pool in pools:
        for read in (match_many, match_one):
            try:
                got = read(typed, list(pool), "player")
            except RuleError as exc:
                if _kind(exc.reason) == (kind, listed):
                    return ""
                continue
            named = got if isinstance(got, list) else [got]
    if named:
        return (
            f'says your press was not sent because "{clip(why)}", but pbem reads "{clip(typed)}" as '
            f"{', '.join(named)}: it would have been sent"
        )
    return (
        f'says your press was not sent because "{clip(why)}", which is not what pbem\'s reading of "{clip(typed)}" says'
    )
