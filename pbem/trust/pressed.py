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
from bisect import bisect_right
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pbem.engine.base import RuleError
from pbem.engine.names import match_many, match_one
from pbem.orders.moderator import PRESS_RESIGNED
from pbem.trust.quote import clip

_NONE = "no player is named: name one"
_NOT = re.compile(r'^"([^\n]{1,400})" is not a player you can name here')
_ANY = re.compile(r'^"([^\n]{1,400})" could be any of: ([^\n]{1,2000}); type more of the player')
_TELL = re.compile(r'^cannot tell which player "([^\n]{1,400})" names')
_GONE = re.compile(rf"^([^\n]{{1,2000}}?) {re.escape(PRESS_RESIGNED)} \(")
_SEAT = re.compile(r"^([^\n]{1,400}?)'s seat is ([^\n]{1,400}?)'s now: write PRESS TO ([^\n]{1,400})")


class Held:
    """Who holds the seat of each name a seat had before a replacement, at each point of a chain's `rows` (1-based
    places): the public `replace` events ({"player": old, "newcomer": new}) at or before it.  A press to "Dave" after
    Erin took Dave's seat is answered "Dave's seat is Erin's now: ..." (`pbem.app.press`); that reason holds only
    where the record gave the seat so by the mail's head.  One pass; a question bisects."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.places: list[int] = []
        self.held: list[dict[str, str]] = []
        now: dict[str, str] = {}
        for n, row in enumerate(rows, 1):
            data = row.get("data")
            if row.get("kind") != "moderator" or not isinstance(data, dict) or data.get("action") != "replace":
                continue
            old, new = str(data.get("player", "")), str(data.get("newcomer", ""))
            if not old or not new or old == new:
                continue
            now = {k: (new if v == old else v) for k, v in now.items() if k != new}  # a name given again is a player's
            now[old] = new
            self.places.append(n)
            self.held.append(now)

    def at(self, place: int) -> dict[str, str]:
        k = bisect_right(self.places, place)
        return dict(self.held[k - 1]) if k else {}


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


def untrue(
    why: str, pools: Sequence[Sequence[str]], gone: Collection[str] = (), held: Mapping[str, str] | None = None
) -> str:
    """How the reason `why` a press was not sent differs from pbem's reading of the names it quotes over the other
    players (each of `pools`: their names as the set-up and as the record's readers give them), in one phrase;
    "" when it is that reading's for one of them.  A press not sent to players because they resigned must name
    only players of `gone`, those the record shows resigned by the mail's head (`pbem.trust.resigns.Gone`); one not
    sent because the name's seat is another player's now must name a seat the record gave so by then (`held`:
    `Held.at`)."""
    if m := _SEAT.fullmatch(why):
        if m[2] != m[3] or (held or {}).get(m[1]) != m[2]:
            return (
                f'says your press was not sent because "{clip(why)}", but the record gives {clip(m[1])}\'s seat to '
                f"{clip((held or {}).get(m[1], 'nobody'))} by then: that is not pbem's reason"
            )
        return ""
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
