"""A refused order naming something it cannot take is offered that same order with names it can (walk6).

Found walking the README as a Dynasties player: in the Tribute step Alice sent "PLAYS Gold 5, Silver 3" (a play list
for later, which the step takes) with Gold 5 not in her hand, and the answer's "what would be accepted" was four
TRIBUTE lines: another order, as if PLAYS could not be sent now.  The engine's refusal listed the names she could
use (`LineResult.names`) and no whole order, and `pbem.engine.offers.legal_now` fell back to the step's requested
lines.  It now first offers the line's own order word with each of those names the engine takes alone now
("PLAYS Silver 2", ...), and falls back only when none is taken.

The generator: the states the bots reach in every kind (`tests.app.test_refusals_agree.states`), each player, each
order word of the game (aliases too) with a name no game has ("PLAYS Zzyzx"); a case is a refusal that lists names,
one of which (of the first four) the engine takes after that word now; it fails when no offered line starts with
that word.  Over every state (`PBEM_OFFERS_FULL=1`, a few seconds): 216 of 224 cases failed on e5c877a (Dynasties
PLAYS, PLAY, CONCLAVE and TRIBUTE; Italian Wars LEADER-PREF and its aliases; Sixteen Thirty CALL, PLACE, ACCEPT, the
specials), 3 on walk6 (18279215): Sixteen Thirty's DISCARD refusal lists the card Assassin, whose name is also an
order word, so "Assassin" was taken for an order and offered alone; 0 on players25, where an order word alone written
as a name (not in capitals) in another order's refusal is a name (`pbem.engine.offers.is_name`).  The suite's
sample (every 5th state, at most `CAP` cases a kind) checks 12 cases, 11 failing on e5c877a.
"""

from __future__ import annotations

import os

import pytest

from pbem import engine as registry
from pbem.engine.offers import is_order, legal_now
from tests.app.test_refusals_agree import states

FULL = os.environ.get("PBEM_OFFERS_FULL") == "1"
STRIDE, CAP = (1, 10**9) if FULL else (5, 4)
NONE = {"habsburg"}  # its refusals list whole orders, never names alone: no case arises


def cases(kind: str) -> list[tuple[str, str, tuple[str, ...], list[str]]]:
    """(player, order word, offered lines, lines of that word with a listed name the engine takes now)."""
    eng = registry.get(kind)
    found, _, players = states(kind)
    out = []
    for st in found[::STRIDE]:
        for p in players:
            for word in eng.order_words:
                if len(out) >= CAP:
                    return out
                refused = eng.apply(st, p, [f"{word} Zzyzx"])
                if refused.accepted:
                    continue
                names = [n for n in refused.lines[0].legal if not is_order(eng, n)]  # as `legal_now` parts them
                taken = [f"{word} {n}" for n in names[:4] if eng.apply(st, p, [f"{word} {n}"]).accepted]
                if taken:  # (only then `legal_now`, which may try every requested line)
                    out.append((p, word, legal_now(eng, st, p, refused).lines[0].legal, taken))
    return out


@pytest.mark.parametrize("kind", registry.available())
def test_a_refused_order_is_offered_the_same_order_with_the_names_it_takes(kind: str) -> None:
    found = cases(kind)
    assert bool(found) != (kind in NONE), f"{len(found)} refusals listed names the order takes"
    wrong = [
        (p, word, offered[:3], taken[:2])
        for p, word, offered, taken in found
        if not any(o.upper().startswith(word + " ") for o in offered)
    ]
    assert wrong == [], wrong[:5]
