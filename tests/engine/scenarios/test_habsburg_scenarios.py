"""House of Habsburg scenarios, DATC-style: each case is a set-up state, one or more orders,
and the exact outcome. Names cite the rulebook section or the ruling (docs/rulings.md, House of Habsburg);
each docstring quotes the rule text it checks. These add the corners the rule tests in
tests/engine/test_habsburg_rules.py do not reach: equal values in events, empty piles,
hand-limit boundaries, the last turn, and the defaults when nobody answers."""

from __future__ import annotations

from pbem.engine.habsburg import ENGINE
from tests.engine.test_habsburg_rules import P3, ok, rejected, scenario


def test_HH_event_phase_succession_of_equal_value_steals_the_meld() -> None:
    """EVENT PHASE: "If you play a Succession, steal a target Meld with a Claim Value equal to or
    less than the value of the Succession card." Third (S4) against a Duke (C4) claim: equal is enough."""
    st = scenario({"Alice": ["Third"]}, melds=[("Bob", "Otto", "Spain", "Duke")], tokens={"Bob": 5})
    st, _ = ok(st, "Alice", "EVENT SUCCESSION Third TARGET Bob M1")
    assert st["melds"][0]["owner"] == "Alice" and st["tokens"] == {"Alice": 0, "Bob": 5, "Carol": 0}
    assert st["discard"] == ["Third"]


def test_HH_event_phase_disaster_of_equal_value_discards_the_meld_in_HH_R7_order() -> None:
    """EVENT PHASE: "If you play a Disaster, discard a target Meld with a Person card equal to or
    less than the value of the Disaster card." HH-R7: the Event first, then Claim, Person, Holding on top."""
    st = scenario({"Alice": ["Extinction"]}, melds=[("Carol", "Rudolph", "Bohemia", "Duke")], tokens={"Carol": 4})
    st, _ = ok(st, "Alice", "EVENT DISASTER Extinction TARGET Carol M1")
    assert st["melds"] == [] and st["discard"] == ["Extinction", "Duke", "Rudolph", "Bohemia"]
    assert st["tokens"]["Carol"] == 4  # HH-R8: tokens already earned stay


def test_HH_R8_a_stolen_meld_can_be_stolen_back_and_tokens_never_move() -> None:
    """HH-R8: "A stolen Meld moves intact (all three cards) to the thief, who gains no tokens. The
    former owner keeps the tokens already earned." It is then a target like any other Meld."""
    st = scenario({"Alice": ["Third"], "Bob": ["Second"]}, melds=[("Bob", "Otto", "Spain", "Duke")], tokens={"Bob": 5})
    st, _ = ok(st, "Alice", "EVENT SUCCESSION Third TARGET Bob M1")
    st, _ = ok(st, "Bob", "EVENT SUCCESSION Second TARGET Alice M1")
    m = st["melds"][0]
    assert (m["owner"], m["person"], m["holding"], m["claim"]) == ("Bob", "Otto", "Spain", "Duke")
    assert st["tokens"] == {"Alice": 0, "Bob": 5, "Carol": 0} and st["discard"] == ["Third", "Second"]


def test_HH_R8_claim_on_a_hand_of_one_card_takes_that_card() -> None:
    """EVENT PHASE: "If you play a Claim card, steal 1 random card from target players hand."
    HH-R8: the target must hold at least 1 card; with one card the draw has a single outcome."""
    st = scenario({"Alice": ["Duke"], "Bob": ["Otto"], "Carol": ["Peter", "Spain"]}, deck=[])
    st, ev = ok(st, "Alice", "EVENT CLAIM Duke TARGET Bob")
    assert st["hands"]["Alice"] == ["Otto"] and st["hands"]["Bob"] == [] and st["discard"] == ["Duke"]
    assert [e.kind for e in ev].count("stolen") == 1


def test_HH_R6_top_with_an_empty_discard_pile_is_refused() -> None:
    """HH-R6: "If the top card of the discard pile is a Holding card, you may use that instead of a
    Holding card from your hand." With no discard pile there is no top card to use."""
    st = scenario({"Alice": ["Otto", "King"]}, discard=[])
    assert "discard" in rejected(st, "Alice", "MELD Otto TOP King").lower()


def test_HH_R1_several_melds_in_one_turn_each_gain_their_persons_value() -> None:
    """MELD PHASE: "You may make 1 or more Melds." HH-R1: each Meld gains Victory Tokens equal to
    its Person card's value (Otto P5 + Balthasar P1 = 6)."""
    st = scenario({"Alice": ["Otto", "Spain", "King", "Balthasar", "Croatia", "Elected"]})
    st, _ = ok(st, "Alice", "MELD Otto Spain King", "MELD Balthasar Croatia Elected", "NO EVENT")
    assert st["tokens"]["Alice"] == 6 and [m["owner"] for m in st["melds"]] == ["Alice", "Alice"]
    assert st["hands"]["Alice"] == []


def test_HH_R10_a_hand_of_exactly_five_is_not_over_the_limit() -> None:
    """END PHASE: "Max hand size is 5 cards. Discard excess cards." Five is within the limit: no
    discard is asked and the turn passes."""
    st = scenario({"Alice": ["Otto", "Spain", "King", "Croatia", "Elected"], "Bob": ["Peter"]})
    st, _ = ok(st, "Alice", "NO EVENT")
    assert st["discard"] == [] and len(st["hands"]["Alice"]) == 5
    assert ENGINE.requests(st)[0].player == "Bob"


def test_HH_R10_nmr_over_the_limit_keeps_the_highest_valued_cards() -> None:
    """RULINGS 2.4 NMR: "an absent player makes no Meld and no Event, and discards down to 5
    keeping the highest-valued cards." Seven cards: the two lowest (Croatia H1, Elected C1) go."""
    hand = ["Otto", "Spain", "King", "Croatia", "Elected", "Maximilian", "Austria"]
    st = scenario({"Alice": hand, "Bob": ["Peter"]})
    out = ENGINE.timeout(st)
    s = out.state
    assert s["melds"] == [] and sorted(s["discard"]) == ["Croatia", "Elected"]
    assert sorted(s["hands"]["Alice"]) == ["Austria", "King", "Maximilian", "Otto", "Spain"]
    assert ENGINE.requests(s)[0].player == "Bob" and any(e.kind == "default" for e in out.events)


def test_HH_R5b_person_event_on_an_empty_deck_draws_nothing_but_is_a_play() -> None:
    """Event "If you play a Person card, draw 2 cards from the deck." HH-R5(b): "A Person event
    draws as many cards as remain (possibly none)." HH-R5(c): it is still a play, so the count of
    turns without a play starts again."""
    st = scenario({"Alice": ["Otto", "Spain"], "Bob": ["Austria"], "Carol": ["Hungary"]}, deck=[], idle=2)
    st, _ = ok(st, "Alice", "EVENT PERSON Otto")
    assert st["hands"]["Alice"] == ["Spain"] and st["idle"] == 0 and ENGINE.result(st) is None


def test_HH_R5c_the_last_turn_scores_what_each_player_controls_then() -> None:
    """GAME END: "The game ends when there are no cards left in the deck and no player has any cards
    left in their hand that they can or will play." HH-R5(c): with the deck empty, the game ends
    after N = 3 consecutive turns without a play; HH-R2 scores tokens + Holdings controlled then."""
    st = scenario(
        {"Alice": ["Duke"], "Bob": ["Peter"], "Carol": ["Galicia"]},
        deck=[],
        melds=[("Bob", "Otto", "Spain", "King"), ("Carol", "Balthasar", "Croatia", "Elected")],
        tokens={"Bob": 5, "Carol": 1},
        idle=1,
        empty_start=True,
        active="Carol",
    )
    st, _ = ok(st, "Carol", "NO EVENT")
    assert ENGINE.result(st) is None and st["idle"] == 2
    st, _ev = ok(st, "Alice", "NO EVENT")
    r = ENGINE.result(st)
    assert r is not None and r.scores == {"Alice": 0, "Bob": 10, "Carol": 2} and r.winners == ("Bob",)
    assert ENGINE.requests(st) == []


def test_HH_R3_three_way_tie_on_score_holdings_and_melds_is_shared() -> None:
    """VICTORY has no tie-breaker. HH-R3: "the tied player with the higher Holding total wins. If
    still tied, the one controlling more Melds wins. If still tied, the win is shared." """
    st = scenario(
        {},
        deck=[],
        melds=[("Alice", "Peter", "Croatia", "Elected"), ("Bob", "Lorenz", "Slavonia", "Possessions")],
        tokens={"Alice": 1, "Bob": 1, "Carol": 2},
        active="Alice",
    )
    st, _ = ok(st, "Alice", "NO EVENT")  # every hand and the deck are empty: the game ends at once
    r = ENGINE.result(st)
    assert r.scores == {"Alice": 2, "Bob": 2, "Carol": 2}
    assert set(r.winners) == {"Alice", "Bob"}  # Carol is tied on score but has no Holding


def test_HH_draw_phase_the_last_card_of_the_deck_starts_the_end_count_next_turn() -> None:
    """DRAW PHASE: "Draw 1 card from the deck and put it in your hand." HH-R5(a): the discard pile is
    never reshuffled; HH-R5(c): counting starts no earlier than the first turn that begins with the
    deck already empty."""
    st = scenario({"Alice": ["Spain"], "Bob": ["Austria"], "Carol": ["Hungary"]}, deck=["Peter"], discard=["Otto"])
    st, _ = ok(st, "Alice", "NO EVENT")
    assert st["deck"] == [] and "Peter" in st["hands"]["Bob"] and st["discard"] == ["Otto"]
    assert st["idle"] == 0 and P3[st["active"]] == "Bob"
