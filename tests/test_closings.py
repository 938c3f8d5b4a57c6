"""A mail's closing line that starts with an order word ("Take care," where TAKE is one) never refuses the orders
above it, and a mistyped order is still refused (`pbem.app.lines.closing`).

Found by trying the product: in Dynasties, "TRIBUTE Copper 4", then "Take care," and a name, was refused whole
("care" is not a card name), though the README says sign-offs are fine.  The generator: moments of seeded bot
games of every kind, each player asked there answering with a legal order as people type it, followed by a
closing from a list of real ones in several languages (most start with no order word; those that do are the
class), which must be set aside unless it names something of the game's at that moment ("Drop me a line" where
a card is "Line of Contravallation": then it is refused with its reason, the rule's one limit); and the same
order followed by a mistyped order, which must be refused.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import engine as registry
from pbem.app.lines import near_any, read_again
from pbem.engine.base import Engine, Request
from pbem.engine.bots import play
from pbem.orders.extract import extract, is_order
from tests.engine.test_contract import moments, players

#: Closings and remarks people end a mail with, as typed (several start with an order word of some game).
CLOSINGS = [
    "Take care,", "Take care!", "take it easy", "Play nice!", "Play well,", "play fair", "Keep well,",
    "Keep safe!", "keep in touch", "Drop me a line", "pass it on", "Done and dusted!", "call me",
    "Offer stands,", "vote wisely!", "Place your bets!", "Trade you later", "Start the fun!",
    "Standing by,", "None taken", "Claim your prize!", "Leader of the pack,", "Discard my last mail",
    "Cheers,", "Best,", "Un saludo,", "Bien à vous,", "Viele Grüße", "Abraços",
]  # fmt: skip
KINDS = list(registry.KINDS)
WORD = re.compile(r"[^\W_]+")


def _read(eng, state, player: str, lines: list[str]):
    words = eng.order_words
    ex = extract("\n".join(["Hi all,", *lines, "Alice"]), "Re: [pbem g1] orders", words)
    orders = list(ex.orders)
    result = eng.apply(state, player, orders)
    notes: dict[str, object] = {"problems": []}
    orders, result, _, chatter = read_again(eng, state, player, orders, result, notes, ex)
    return orders, result, chatter


def _asked(kind: str, seed: int) -> Iterator[tuple[Engine, dict[str, Any], Request]]:
    """(engine, state, request) at six moments of a seeded bot game of `kind`, for each request with legal lines."""
    eng = registry.get(kind)
    pt = play(eng, players(eng.min_players), f"close{seed}", bot_seed=f"cb{seed}")
    for state in moments(eng, pt, 6):
        for req in eng.requests(state):
            if req.legal:
                yield eng, state, req


GAMES = dict(seed=st.integers(0, 10**6), pick=st.integers(0, 10**6))


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=12, deadline=None)
@given(**GAMES)
def test_a_closing_never_refuses_the_orders_above_it(kind: str, seed: int, pick: int) -> None:
    rng = random.Random(pick)
    for eng, state, req in _asked(kind, seed):
        order = rng.choice(list(req.legal))
        alone = eng.apply(state, req.player, [order])
        if not alone.accepted:
            continue  # a legal line that needs another with it (a hand's whole discard)
        closing = rng.choice(CLOSINGS)
        _, result, chatter = _read(eng, state, req.player, [order, "", closing])
        if not result.accepted:  # allowed only for a closing that names something of the game's now
            game_words = {w.upper() for r in eng.requests(state) for x in r.legal for w in WORD.findall(x)}
            game_words |= {w.upper() for r in result.lines for x in (*r.legal, *r.names) for w in WORD.findall(x)}
            named = [w for w in WORD.findall(closing)[1:] if len(w) >= 4 and w.upper() in game_words]
            named += [w for w in WORD.findall(closing)[1:] if near_any([w.upper()], game_words)]
            assert named, (kind, order, closing, [(r.line, r.reason) for r in result.lines if not r.ok])
            continue  # "Drop me a line" where a card is named "Line of Contravallation": refused, with why
        assert result.state == alone.state, (kind, order, closing)
        said = closing.rstrip(",!.")
        if is_order(said, eng.order_words) and not eng.apply(state, req.player, [order, said]).accepted:
            # set aside, and listed as not read where the mail has it, as typed (found by trying the product:
            # "Take care," was listed after the name below it, without its comma)
            assert chatter == ["Hi all,", closing, "Alice"], (kind, closing, chatter)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=12, deadline=None)
@given(**GAMES)
def test_a_mistyped_order_at_the_end_is_still_refused_with_its_reason(kind: str, seed: int, pick: int) -> None:
    rng = random.Random(pick)
    for eng, state, req in _asked(kind, seed):
        if len(req.legal) > 1:
            first, other = rng.sample(list(req.legal), 2)
            names = [w for w in re.findall(r"[^\W_]+", other)[1:] if w[:1].isupper() and not w.isupper()]
            if not names or not eng.apply(state, req.player, [first]).accepted:
                continue
            typo = other.replace(names[-1], "Xyzzy")  # a name mistyped: a word the game does not know
            if eng.apply(state, req.player, [first, typo]).accepted:
                continue  # the engine takes the line as a no-op there (the turn already over)
            _, result, _ = _read(eng, state, req.player, [first, typo])
            assert not result.accepted and typo in [r.line for r in result.lines if not r.ok], (kind, first, typo)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=12, deadline=None)
@given(**GAMES)
def test_a_mistyped_order_in_lower_case_at_the_end_is_still_refused(kind: str, seed: int, pick: int) -> None:
    """ "negate frnce" after a good order: a name of five letters or more with one typo, all typed in lower case
    (so the capital does not tell it from a closing) is refused as an order, not set aside as a sign-off."""
    rng = random.Random(pick)
    for eng, state, req in _asked(kind, seed):
        if len(req.legal) > 1:
            first, other = rng.sample(list(req.legal), 2)
            names = [w for w in WORD.findall(other)[1:] if len(w) >= 6 and w.isalpha() and not w.isupper()]
            if not names or not eng.apply(state, req.player, [first]).accepted:
                continue
            name = names[-1]
            at = rng.randrange(1, len(name) - 1)
            typo = rng.choice([name[:at] + name[at + 1 :], name[:at] + name[at + 1] + name[at] + name[at + 2 :]])
            line = other.replace(name, typo).lower()
            if len(line.split()) > 4 or eng.apply(state, req.player, [first, line]).accepted:
                continue  # longer than a closing, or the engine takes the typo (its names match by prefix)
            _, result, chatter = _read(eng, state, req.player, [first, line])
            assert line not in chatter, (kind, first, line)
            assert not result.accepted and line in [r.line for r in result.lines if not r.ok], (kind, first, line)
