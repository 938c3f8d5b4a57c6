"""A refusal reads the same wherever the card it names lies hidden (each kind, at bot-played states).

A player who names a card they do not hold (Habsburg EVENT/MELD, Italian Wars DISCARD, Dynasties
PLAY/TRIBUTE, Sixteen Thirty PLACE ...) is refused; the reason, the "what would be accepted" list and the
"names you can use there", as the intake words them (`pbem.app.refusals.worded`), may not tell whether that
card is in another player's hand, in the deck or in a face-down pile.  Each state is compared with the same
state after `engine.scramble(state, q)` (q's hand swapped with deck cards: a card q held is now in the deck
and the other way round) and, where the game has a face-down pile, after a card of that pile changed places
with one of the deck.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from pbem import engine as registry
from pbem.app import refusals
from pbem.engine.base import Engine, clone
from pbem.engine.bots import play
from tests.engine.test_contract import engine_of, players

#: The order lines that name one card, per kind ({c} the card).
LINES = {
    "habsburg": ("EVENT {c}", "MELD {c}", "PLAY {c}", "DISCARD {c}", "EVENT {c} TARGET P1", "CLAIM {c}"),
    "italian-wars": ("DISCARD {c}", "NEGATE {c}", "LEADER {c}", "KEEP {c}", "PREF {c}"),
    "dynasties": ("PLAY {c}", "TRIBUTE {c}", "DISCARD {c}", "CONCLAVE {c}"),
    "sixteen-thirty": ("PLACE {c}", "PLAY {c}", "DISCARD {c}", "PLACE {c} ON England", "OFFER GIVE {c} FOR ANY"),
}
#: Face-down piles no player sees the cards of (besides the deck), per kind.
FACE_DOWN = {"italian-wars": ("discard",), "dynasties": ("grave",)}


class Remembered:
    """`eng` whose `apply` and `requests` give, for the same state object, player and lines, the outcome they gave
    before instead of computing it again: an engine is pure (`tests/engine/test_engine_purity.py`), and a refusal
    applies each line it might offer alone, the same few lines for every card a player names at one state (two
    thirds of Sixteen Thirty's applications were repeats).  Every state it is given must stay alive and unchanged
    until `forget` (ids are the keys)."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.applied: dict[tuple[int, str, tuple[str, ...]], Any] = {}
        self.asked: dict[int, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.eng, name)

    def apply(self, state: dict[str, Any], player: str, lines: list[str]) -> Any:
        key = (id(state), player, tuple(lines))
        if key not in self.applied:
            self.applied[key] = self.eng.apply(state, player, lines)
        return self.applied[key]

    def requests(self, state: dict[str, Any]) -> Any:
        if id(state) not in self.asked:
            self.asked[id(state)] = self.eng.requests(state)
        return self.asked[id(state)]

    def forget(self) -> None:
        self.applied.clear()
        self.asked.clear()


def told(eng: Engine, state: dict[str, Any], player: str, line: str) -> list[tuple[Any, ...]]:
    """What the refusal (or acceptance) of `line` tells `player`, as the intake words it."""
    out = refusals.worded(eng, state, player, eng.apply(state, player, [line]))
    return [(r.ok, r.reason, r.legal, r.names, r.understood, r.unchecked, r.not_asked, r.hint) for r in out.lines]


def moved(state: dict[str, Any], pile: str, rng: random.Random) -> tuple[dict[str, Any], set[str]] | None:
    """`state` with one card of the face-down `pile` swapped with one of the deck, and the two cards."""
    if not state.get(pile) or not state.get("deck"):
        return None
    t = clone(state)
    i, j = rng.randrange(len(t[pile])), rng.randrange(len(t["deck"]))
    t[pile][i], t["deck"][j] = t["deck"][j], t[pile][i]
    return t, {t[pile][i], t["deck"][j]}


def played(eng: Engine, seats: list[str], seed: str, bot_seed: str) -> list[dict[str, Any]]:
    """Every state of a bot game, in order."""
    states: list[dict[str, Any]] = []
    play(eng, seats, seed, bot_seed=bot_seed, on_input=lambda pt, out: states.append(out.state))
    return states


@pytest.mark.parametrize("kind", list(registry.KINDS))
@pytest.mark.parametrize("seed", ["h1", "h2"])
def test_a_refusal_naming_a_card_not_held_reads_the_same_wherever_that_card_lies_hidden(kind: str, seed: str) -> None:
    eng = engine_of(kind)
    remembered = Remembered(eng)
    rng = random.Random(f"{kind}-{seed}")
    for n in sorted({eng.min_players, eng.max_players}):
        seats = players(n)
        states = played(eng, seats, f"{seed}-{n}", f"b{seed}")
        compared = 0
        for s in states[:: max(1, len(states) // 8)]:
            remembered.forget()  # the scrambled states of the state before are gone: their ids may be reused
            at_s: dict[tuple[str, str], list[tuple[Any, ...]]] = {}  # what s tells p of a line, asked once
            pairs: list[tuple[dict[str, Any], set[str], str | None]] = []
            for q in seats:
                t = eng.scramble(s, q)
                pairs.append((t, set(s["hands"][q]) ^ set(t["hands"][q]), q))
            for pile in FACE_DOWN.get(kind, ()):
                m = moved(s, pile, rng)
                if m is not None:
                    pairs.append((m[0], m[1], None))
            for t, cards, q in pairs:
                for p in seats:
                    if p == q:
                        continue
                    mine = set(s["hands"][p])
                    assert mine == set(t["hands"][p])
                    for c in sorted(cards - mine)[:6]:
                        for form in LINES[kind]:
                            line = form.format(c=c)
                            if (p, line) not in at_s:
                                at_s[p, line] = told(remembered, s, p, line)  # type: ignore[arg-type]
                            mine_told = at_s[p, line]
                            assert mine_told == told(remembered, t, p, line), (n, p, q, line)  # type: ignore[arg-type]
                            compared += 1
        assert compared > 50, compared
