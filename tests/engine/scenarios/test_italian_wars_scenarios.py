"""Italian Wars scenarios, DATC-style: each case deals two exact hands, plays the hand and
asserts the exact outcome. Names cite the rulebook section or the ruling (docs/rulings.md, Italian Wars);
each docstring quotes the rule text it checks. They add the corners the rule tests in
tests/engine/test_italian_wars_rules.py do not reach: side-restricted cards on the wrong side,
WON/LOST after a tie, an empty field, bonuses by class, streaks broken by the other side, and
the defaults when nobody answers."""

from __future__ import annotations

from pbem.engine.italian_wars import ENGINE as E
from tests.engine.test_italian_wars_rules import A, B, all_cards, deal, force_of, fresh, go, scored, texts


def unusable(events, player: str) -> list[str]:
    return [e.data["card"] for e in events if e.kind == "unusable" and e.data["player"] == player]


def result(events) -> dict:
    return next(e.data for e in events if e.kind == "hand-result")


def test_IW_deployment_french_only_card_held_by_the_spanish_player_is_discarded() -> None:
    """DEPLOYMENT PHASE: "Some cards can only be used be either the French or Italian player. Cards
    that cannot be used are immediatetly discarded." IW-R1: "Italian" means the Spanish player."""
    state = deal(fresh(), ["Hatreds"], ["French Horsemen", "Excellent Artillery", "Drummers"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert unusable(events, B) == ["Excellent Artillery", "French Horsemen"]  # in card-list order
    assert result(events)["totals"] == {A: 8, B: 5} and state["won"] == {A: 1, B: 0}


def test_IW_R2_after_a_tie_no_WON_or_LOST_card_is_usable() -> None:
    """IW-R2: "after a tied hand (IW-R3), there is no previous winner or loser: ... no WON or LOST
    card is usable" (and both may play Defense cards)."""
    state = deal(fresh(), ["Pursuit", "Rearguard", "Ditch"], ["Vanguard", "Take Refuge", "Trench"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert unusable(events, A) == ["Pursuit", "Rearguard"] and unusable(events, B) == ["Take Refuge", "Vanguard"]
    assert result(events)["totals"] == {A: 5, B: 5} and result(events)["winner"] is None


def test_IW_R3_two_empty_fields_tie_at_zero() -> None:
    """BATTLE PHASE: "The player with the highest Force value wins the Hand." IW-R3: "with equal
    Force totals, nobody wins the hand ... both winning streaks reset to 0." Every card unusable: 0 to 0."""
    state = deal(fresh(), ["Spanish Swordsmen"], ["French Horsemen"])
    state["streak"] = {A: 0, B: 2}
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert result(events) == {"hand": 1, "winner": None, "totals": {A: 0, B: 0}}
    assert state["streak"] == {A: 0, B: 0} and E.result(state) is None


def test_IW_R4_a_win_by_the_other_side_breaks_the_streak() -> None:
    """VICTORY: "The first player to win 8 total hands or 3 hands in a row, wins the battle."
    IW-R4: "any loss or tie breaks the run". Alice on a run of 2 loses: her run is 0, Bob's is 1."""
    state = deal(fresh(), ["Drummers"], ["Hatreds"])
    state["streak"], state["won"] = {A: 2, B: 0}, {A: 6, B: 2}
    state, _ = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert state["streak"] == {A: 0, B: 1} and state["won"] == {A: 6, B: 3} and E.result(state) is None
    assert state["prev_winner"] == B and len(state["hands"][B]) == 9 and len(state["hands"][A]) == 8


def test_IW_R4_the_eighth_hand_and_the_third_in_a_row_together_end_the_battle_once() -> None:
    """IW-R4: checked after each hand; a hand that is both the 8th won and the 3rd in a row ends
    the battle once, for its winner."""
    state = deal(fresh(), ["Hatreds"], ["Drummers"])
    state["streak"], state["won"] = {A: 2, B: 0}, {A: 7, B: 5}
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    r = E.result(state)
    assert r.winners == (A,) and r.scores == {A: 8, B: 5}
    assert [e.kind for e in events].count("game-over") == 1 and E.requests(state) == []


def test_IW_R7_morale_bonus_reaches_X_cards_only() -> None:
    """Card list: "Drummers 5 T Morale gets +3". IW-R7: "Morale" matches X. IW-R9: the owner's other
    cards of that class gain +3; Light Cavalry (C) does not."""
    state = deal(fresh(), ["Drummers", "Hatreds", "Light Cavalry"], ["Great Ferocity"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert force_of(events, A, "Hatreds") == 11 and force_of(events, A, "Light Cavalry") == 4
    assert force_of(events, A, "Drummers") == 5 and scored(events, A)["total"] == 20


def test_IW_R9_hedges_and_trees_gives_each_IM_card_four() -> None:
    """Card list: "Hedges & Trees 2 D IM get +4". IW-R9: "X get +3" (here +4) "affects each of the
    owner's other remaining cards of class X"; it never buffs itself."""
    state = deal(fresh(), ["Hedges & Trees", "Crossbowmen", "Arquebus Fire"], ["Hatreds"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert force_of(events, A, "Crossbowmen") == 10 and force_of(events, A, "Arquebus Fire") == 9
    assert force_of(events, A, "Hedges & Trees") == 2 and scored(events, A)["total"] == 21


def test_IW_R6_defense_cards_of_the_previous_loser_are_usable() -> None:
    """DEPLOYMENT PHASE: "The player who won the previous hand cannot play Defense cards." Only the
    winner is barred: the previous loser's Defense cards count."""
    state = deal(fresh(), ["Hatreds"], ["Earthworks", "Trench"], winner=A)
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert unusable(events, B) == [] and scored(events, B)["total"] == 12 and result(events)["winner"] == B


def test_IW_R11_capture_leader_negates_the_enemy_leader_and_its_bonus() -> None:
    """BATTLE PHASE: "Players take turns using card Negate Effects ... Negated cards are discarded."
    IW-R11: a negated card is discarded at once with its bonuses. Capture Leader negates Careful
    Soldier, so Bob's Defenses lose their +3."""
    state = deal(fresh(), ["Capture Leader"], ["Careful Soldier", "Trench"])
    state, events = go(state, ["DISCARD NONE", "NEGATE-PLAN Capture Leader > Careful Soldier"], ["DISCARD NONE"])
    assert E.requests(state)[0].step.endswith("discard")  # Bob has no negation and is never asked: next hand
    assert "Careful Soldier" in texts(events) and force_of(events, B, "Trench") == 5
    assert scored(events, B)["total"] == 5 and scored(events, A)["total"] == 4


def test_IW_tactics_phase_nmr_discards_nothing() -> None:
    """RULINGS 4.3 NMR: "discard nothing; keep the highest-Force Leader; pass in negation." A deadline
    with no orders from either side plays the hand with the cards as drawn."""
    state = fresh("nmr")
    hands = {p: sorted(state["hands"][p]) for p in (A, B)}
    out = E.timeout(state)
    shown = {e.data["player"]: sorted(e.data["cards"]) for e in out.events if e.kind == "reveal"}
    assert shown == hands and [e.data["count"] for e in out.events if e.kind == "discard"] == [0, 0]
    assert len(all_cards(out.state)) == 96


def test_IW_deployment_the_reveal_records_the_whole_hand_before_unusable_cards_go() -> None:
    """DEPLOYMENT PHASE: "Players reveal their hands face up on the table. ... Cards that cannot be
    used are immediatetly discarded." The reveal event's data keeps the whole revealed hand (engine
    bug found by this suite: the data shared its list with the field and lost the discarded cards)."""
    state = deal(fresh(), ["Hatreds", "Spanish Swordsmen"], ["Drummers"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    reveal = next(e for e in events if e.kind == "reveal" and e.data["player"] == A)
    assert sorted(reveal.data["cards"]) == ["Hatreds", "Spanish Swordsmen"]
    assert unusable(events, A) == ["Spanish Swordsmen"]
