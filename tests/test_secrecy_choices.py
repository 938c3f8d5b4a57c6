"""Another player's hidden choice changes nothing in a player's mail: not its bytes, size or number.

A secret vote, a tribute, a discard, a standing order: when Bob sends one of his legal orders instead of
another, Alice may learn which only as far as the rules show it (her view, the events she may see, her
requests, who is still awaited).  Where those are the same after either order, every mail pbem sends her
for Bob's message (a report, or none: `pbem.app.notify.told`) must be byte-identical, in the same number,
so that neither a longer mail nor one more mail tells her what Bob chose, nor how often he revised it.
Over states spread through bot games of every kind, for each player asked something, pairs of their legal
orders are decided, finished and composed through the pure pipeline the poll runs
(`tests.test_secrecy_pairs.mails`), with the game resolving at once and holding orders until the deadline.
"""

from __future__ import annotations

import pytest

from pbem.app import views
from pbem.engine.base import Engine
from tests.test_secrecy_pairs import accepted_input, address, engine, mails, message, players, states

KINDS = ("habsburg", "italian-wars", "dynasties", "sixteen-thirty")


def _seen(eng: Engine, state: dict, events: list, reader: str) -> tuple[object, ...]:
    """What `reader` may know after an input: their view, the events they may see, their requests, who is awaited."""
    return (
        eng.view(state, reader),
        [e.text for e in events if e.visible_to(reader)],
        [r for r in eng.requests(state) if r.player == reader],
        views.waiting(eng, state),
    )


def choices(eng: Engine, state: dict, mover: str) -> list[tuple[str, str]]:
    """Pairs of different legal orders `mover` may send now (first with last, and with a middle one)."""
    out = []
    for r in eng.requests(state):
        if r.player == mover and len(set(r.legal)) >= 2:
            legal = list(dict.fromkeys(r.legal))
            out += [(legal[0], legal[-1]), (legal[-1], legal[len(legal) // 2])]
    return [(a, b) for a, b in dict.fromkeys(out) if a != b]


@pytest.mark.parametrize("kind", KINDS)
def test_another_players_choice_leaves_a_players_mail_byte_identical_where_the_rules_hide_it(kind: str) -> None:
    eng = engine(kind)
    compared = hidden = 0
    for state in states(kind, "choices", 10):
        for mover in players(kind):
            for one, other in choices(eng, state, mover):
                ia, ib = (
                    accepted_input(kind, state, message(mover, one)),
                    accepted_input(kind, state, message(mover, other)),
                )
                if ia is None or ib is None:
                    continue
                for resolve in ("asap", "deadline"):
                    a = mails(kind, state, message(mover, one), resolve)
                    b = mails(kind, state, message(mover, other), resolve)
                    for p in players(kind):
                        if p == mover:
                            continue
                        if resolve == "asap":
                            sa = _seen(eng, ia.outcome.state, ia.outcome.events, p)
                            if sa != _seen(eng, ib.outcome.state, ib.outcome.events, p):
                                continue  # the rules show p which was chosen
                            hidden += 1
                        mine_a, mine_b = a.get(address(p), []), b.get(address(p), [])
                        where = (kind, mover, one, other, resolve, p)
                        assert [len(m) for m in mine_a] == [len(m) for m in mine_b], where
                        assert mine_a == mine_b, where
                        compared += 1
    print(kind, hidden, compared)
    assert hidden >= 2 and compared >= 20, (hidden, compared)
