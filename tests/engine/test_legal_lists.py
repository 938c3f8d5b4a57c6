"""Legal-order lists are never cut silently (issue 16): a large choice set is described by its
grammar and a count, with a few examples including the published default (`pbem.engine.choices`)."""

from __future__ import annotations

import re

import pytest

from pbem.engine import choices, get
from pbem.engine.bots import play
from pbem.engine.sixteen_thirty import ENGINE as ST
from pbem.engine.sixteen_thirty.asks import start_options


def test_a_small_set_is_listed_whole_and_the_prompt_is_unchanged():
    legal = [f"DISCARD Card {i}" for i in range(choices.SHOW_ALL)]
    assert choices.offer("Discard.", legal, ["DISCARD Card 7"], ["DISCARD <cards>"]) == ("Discard.", tuple(legal))


def test_a_large_set_shows_the_count_the_grammar_and_examples_with_the_default_first():
    legal = [f"PLACE-START Card {i}" for i in range(286)]
    prompt, shown = choices.offer("Place.", legal, ["PLACE-START Card 250"], ["PLACE-START <card>, <card>, <card>"])
    assert shown[0] == "PLACE-START Card 250" and len(shown) == choices.EXAMPLES
    assert set(shown) <= set(legal) and len(set(shown)) == len(shown)
    assert "There are 286 legal orders, of the form PLACE-START <card>, <card>, <card>" in prompt
    assert "8 examples are listed, your default first" in prompt
    assert shown[1] == "PLACE-START Card 0" and shown[-1] > "PLACE-START Card 2"  # spread over the whole set


def test_a_default_written_differently_from_every_listed_line_is_shown_and_counted():
    legal = [f"CALL Spain ALIGN PLACE Spain {i}" for i in range(50)]
    prompt, shown = choices.offer("Call.", legal, ["CALL Poland ALIGN PLACE Poland 1"], ["CALL <country> ..."])
    assert shown[0] == "CALL Poland ALIGN PLACE Poland 1" and "There are 51 legal orders" in prompt


def test_ST_first_report_place_start_is_counted_and_shows_the_published_default():
    """Issue 16: the first report cut PLACE-START at 40 without saying so, and the default was not shown."""
    players = ["A", "B", "C", "D", "E", "F"]
    for seed in ("first-1", "first-2", "first-3"):
        st, _ = ST.setup(players, seed, {})
        for r in ST.requests(st):
            assert r.default[0] in r.legal  # the published default is among the examples
            everything = set(start_options(st["hands"][r.player])) | set(r.default)
            if len(everything) > choices.SHOW_ALL:
                assert f"There are {len(everything)} legal orders" in r.prompt
                assert "PLACE-START <card>, <card>, <card>" in r.prompt and len(r.legal) == choices.EXAMPLES
            else:
                assert set(r.legal) == everything and "legal orders" not in r.prompt
            for line in r.legal:  # every example is a real order
                assert ST.apply(st, r.player, [line]).accepted, line


@pytest.mark.parametrize("kind,n", [("habsburg", 4), ("italian-wars", 2), ("dynasties", 4), ("sixteen-thirty", 6)])
def test_no_request_of_any_game_lists_more_than_it_can_show_or_hides_its_size(kind, n):
    """In whole bot games of every kind: a request lists at most SHOW_ALL lines, and a list of
    only examples says in its prompt how many orders there are."""
    eng = get(kind)
    seen = {"sampled": 0}

    def check(pt, out):
        for r in eng.requests(pt.state):
            assert len(r.legal) <= choices.SHOW_ALL, (r.step, len(r.legal))
            m = re.search(r"There are (\d+) legal orders", r.prompt)
            if m:
                seen["sampled"] += 1
                assert int(m.group(1)) > choices.SHOW_ALL and len(r.legal) == choices.EXAMPLES
                assert not r.default or r.default[0] == r.legal[0]

    play(eng, [f"P{i}" for i in range(n)], f"lists-{kind}", on_input=check, max_inputs=3000 if n == 6 else 50_000)
    if kind == "sixteen-thirty":
        assert seen["sampled"] > 0


def test_ST_a_rejection_lists_every_legal_line_not_the_examples():
    """A refused PLACE-START shows what is legal in full (the acknowledgement says how many it cuts),
    while the request itself shows examples with the count."""
    st, _ = ST.setup(["A", "B", "C", "D", "E", "F"], "first-1", {})
    r = next(r for r in ST.requests(st) if "legal orders" in r.prompt)
    total = len(set(start_options(st["hands"][r.player])))
    for line in ("PLACE-START NONE", "NO TRADE"):
        out = ST.apply(st, r.player, [line])
        assert not out.accepted and len(out.lines[0].legal) >= total > choices.SHOW_ALL, line
