"""Issue 23: "what would be accepted" lists only orders that are legal now.

Over random bot games of every kind, every line a refusal offers as acceptable (after
`pbem.engine.offers.legal_now`, which the intake applies to every refusal) and every line a
request lists (reports, reminders, HELP), sent back alone as the order, is accepted."""

from __future__ import annotations

import pytest

from pbem.engine import get, offers
from pbem.engine.base import LineResult, Outcome
from pbem.engine.bots import play
from pbem.engine.rng import Rng, init_state

GAMES = [
    ("habsburg", 4, 4),
    ("italian-wars", 2, 2),
    ("dynasties", 4, 4),
    ("sixteen-thirty", 4, 16),
]  # kind, seats, 1 state in k


def _bad_lines(eng, seen: list[str], rng: Rng) -> list[str]:
    """Lines a player might send that are likely refused: old legal lines (another step, another
    player, a card since played), every order word with junk or a near-miss name, and bare words."""
    out = [seen[rng.below(len(seen))] for _ in range(4)] if seen else []
    for w in eng.order_words[:: max(1, len(eng.order_words) // 6)]:
        out += [f"{w} Nonsense", w]
    if seen:
        line = seen[rng.below(len(seen))]
        out.append(line.rsplit(" ", 1)[0] + " 99")
    return out


@pytest.mark.parametrize("kind,n,every", GAMES)
@pytest.mark.parametrize("seed", ["a", "b"])
def test_every_offered_line_sent_back_alone_is_accepted(kind, n, every, seed):
    eng = get(kind)
    rng = Rng(init_state(f"offers-{kind}-{seed}"))
    seen: list[str] = []
    counted = {"offered": 0, "asked": 0, "refusals": 0}

    def check(pt, out):
        st = pt.state
        reqs = eng.requests(st)
        for r in reqs:
            seen.extend(r.legal[:4])
        if rng.below(every):  # a sample of the states keeps the test short
            return
        for r in reqs:
            for line in r.legal:
                counted["asked"] += 1
                assert eng.apply(st, r.player, [line]).accepted, (kind, r.step, line)
        for p in pt.players:
            for bad in _bad_lines(eng, seen, rng):
                raw = eng.apply(st, p, [bad])
                if raw.accepted:
                    continue
                counted["refusals"] += 1
                told = offers.legal_now(eng, st, p, raw)
                assert told.state is raw.state and [r.line for r in told.lines] == [r.line for r in raw.lines]
                for r in told.lines:
                    assert r.ok or r.reason  # the reason is kept
                    for line in r.legal:
                        counted["offered"] += 1
                        assert eng.apply(st, p, [line]).accepted, (kind, bad, r.reason, line)
                    assert all(offers.is_name(eng, x, offers.order_word(eng, r.line)) for x in r.names), r.names

    play(eng, [f"P{i}" for i in range(n)], f"offers-{seed}", on_input=check, max_inputs=600)
    assert counted["refusals"] > 10 and counted["offered"] > 10 and counted["asked"] > 0, counted


def test_the_raw_lists_did_offer_lines_that_are_not_legal_now():
    """Why the filter exists (and what would make the test above fail without it): the name matcher
    offers bare card names, and a rule's list may hold a line that is not accepted now."""
    eng = get("dynasties")
    st, _ = eng.setup(["Ann", "Bob", "Cid"], "golden-1", {})
    p = next(r.player for r in eng.requests(st))
    raw = eng.apply(st, p, ["TRIBUTE Nonsense"])
    assert not raw.accepted and raw.lines[0].legal
    assert not any(eng.apply(st, p, [x]).accepted for x in raw.lines[0].legal)  # names, not orders
    told = offers.legal_now(eng, st, p, raw).lines[0]
    assert set(told.names) == set(raw.lines[0].legal)
    assert told.legal and all(eng.apply(st, p, [x]).accepted for x in told.legal)


class _Counting:
    """A wrapper engine counting how many lines `legal_now` tries (the budget)."""

    def __init__(self, eng):
        self.eng, self.calls = eng, 0
        self.order_words = eng.order_words

    def apply(self, st, p, lines):
        self.calls += 1
        return self.eng.apply(st, p, lines)

    def requests(self, st):
        return self.eng.requests(st)


def test_the_cost_is_one_apply_per_distinct_candidate_and_capped():
    eng = get("sixteen-thirty")
    st, _ = eng.setup(list("ABCDEF"), "first-1", {})
    p = eng.requests(st)[0].player
    raw = eng.apply(st, p, ["PLACE-START NONE"] * 3)
    wrapped = _Counting(eng)
    told = offers.legal_now(wrapped, st, p, raw)  # type: ignore[arg-type]
    distinct = len(set(raw.lines[0].legal))
    assert wrapped.calls == distinct and all(len(r.legal) == distinct for r in told.lines)
    small = _Counting(eng)
    capped = offers.legal_now(small, st, p, raw, budget=10)  # type: ignore[arg-type]
    assert small.calls == 10 and len(capped.lines[0].legal) <= 10 and capped.lines[0].unchecked == distinct - 10


def test_an_accepted_outcome_is_returned_as_it_is():
    out = Outcome({}, [], [LineResult("X", True)])
    assert offers.legal_now(get("habsburg"), {}, "A", out) is out
