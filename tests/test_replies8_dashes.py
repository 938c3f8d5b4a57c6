"""An order, a short dash, and words that cannot be an item of that order (replies8).

"EVENT CLAIM Emperor TARGET Carol - go team" was refused for a player named "Carol - go team", "TRIBUTE Silver 7 - go
team" for a card named "team", "DISCARD Culverins - hope that works" for a card named "-": the words after a short
dash held no remark word ("but", "ok", ...), and a short dash may part the items of a list, so the line went to the
engine whole.  Now the order grammar decides (`pbem.app.refusals._Items`): words after " - " that start no item of the
orders the player is offered are a remark, and the line is refused with the order alone offered, as after a long dash;
words that do start an item ("TARGET Bob - Carol") are left to the engine.  For every game, at its first report and a
later step, from every legal line; and the same words with no order before them apply nothing.
"""

from __future__ import annotations

import pytest

from pbem import engine as registry
from tests.test_replies3_players import KINDS, Moment, shared_moments
from tests.test_replies6_players import _pipeline
from tests.test_replies7_orders import _refused_with_the_order_alone


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


#: After a short dash: no remark word, no courtesy `pbem.orders.typed.cleaned` takes off, no item of any game.
TAILS = ("see you", "go team", "hope that works", "your move Bob", "fingers crossed", "see you Friday")


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_then_a_short_dash_then_words_of_no_item_is_refused_with_the_order_alone(
    moments: dict[str, Moment], kind: str
) -> None:
    moment = moments[kind]
    eng = registry.get(moment.kind)
    for n, line in enumerate(moment.legal[:8]):
        for dash in (" - ", " -  "):
            tail = TAILS[n % len(TAILS)]
            _refused_with_the_order_alone(moment, eng, line, f"{line}{dash}{tail}")
            _refused_with_the_order_alone(moment, eng, line, f"{line.lower()}{dash}{tail.capitalize()}")


@pytest.mark.parametrize("kind", KINDS)
def test_the_same_words_with_no_order_apply_nothing(moments: dict[str, Moment], kind: str) -> None:
    """No order in the message: the remark with or without its dash applies nothing, whatever the game."""
    moment = moments[kind]
    for tail in TAILS:
        for text in (f"Hi,\n- {tail}\nThanks", f"{tail} - {tail}", f"Hi - {tail}"):
            out = _pipeline(moment, text)
            assert out.state == moment.state or not out.accepted, (kind, text)
            assert not [r for r in out.lines if r.ok], (kind, text, out.lines)


@pytest.mark.parametrize("kind", KINDS)
def test_an_item_after_a_short_dash_is_left_to_the_engine(moments: dict[str, Moment], kind: str) -> None:
    """ "TRIBUTE Gold 4 - Silver 7", "EVENT CLAIM Emperor TARGET Bob - Carol": what follows the dash starts an item
    of the order, so the line is never told that only its start is an order (a dash may part a list's items)."""
    moment = moments[kind]
    eng = registry.get(moment.kind)
    tried = 0
    for line in moment.legal[:6]:
        other = next((x for x in moment.legal if x.split()[-1] != line.split()[-1]), "")
        if len(other.split()) < 2:
            continue
        typed = f"{line} - {other.split()[-1]}"
        engine = eng.apply(moment.state, moment.player, [typed])
        if engine.accepted:
            continue  # the engine reads no list here ("DECLINE ALL - 1"): not this test's case
        out = _pipeline(moment, f"Hi,\n{typed}")
        refused = [r for r in out.lines if not r.ok]
        assert [r.reason for r in refused] == [r.reason for r in engine.lines if not r.ok], (kind, typed, refused)
        tried += 1
    assert tried or kind.endswith("+later"), kind  # a later step may offer no list to extend
