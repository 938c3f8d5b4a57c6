"""`pbem verify --mail`: why an answer says a press was not sent, worked out again.

A press block ("PRESS TO Bob: ...") whose names pbem cannot read is not relayed, and the answer notes "Press not sent:
WHY." (`pbem.app.press.relay`).  WHY is the reason pbem's reading of the names gives (`pbem.engine.names.match_many`
over the other players), and it quotes the names as typed, so it can be read again: the moderator could tell Alice
her press to Bob was not sent ('"Bob" is not a player you can name here') and never relay it, and only its form was
checked (eighth round).  Each reason must be one that reading gives, and the names it quotes must not be a press
pbem sends: named as "would have been sent" when they name players.  Pure; one reading a note.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pbem.engine.base import RuleError
from pbem.engine.names import match_many, match_one
from pbem.trust.quote import clip

_NONE = "no player is named: name one"
_NOT = re.compile(r'^"([^\n]{1,400})" is not a player you can name here')
_ANY = re.compile(r'^"([^\n]{1,400})" could be any of: ([^\n]{1,2000}); type more of the player')
_TELL = re.compile(r'^cannot tell which player "([^\n]{1,400})" names')


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


def untrue(why: str, pools: Sequence[Sequence[str]]) -> str:
    """How the reason `why` a press was not sent differs from pbem's reading of the names it quotes over the other
    players (each of `pools`: their names as the set-up and as the record's readers give them), in one phrase;
    "" when it is that reading's for one of them."""
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
