"""Italian Wars rule tests, named after the rulebook sections and rulings IW-R1..IW-R12."""

from __future__ import annotations

from pbem.engine.base import PUBLIC
from pbem.engine.italian_wars import ENGINE as E
from pbem.engine.italian_wars.cards import BY_NAME, CARDS, NEGATORS
from pbem.engine.italian_wars.negation import legal_negations

A, B = "Alice", "Bob"


def fresh(seed: str = "t") -> dict:
    state, _ = E.setup([A, B], seed, {"sides": "fixed"})  # Alice French, Bob Spanish
    return state


def deal(state: dict, a: list[str], b: list[str], winner: str | None = None) -> dict:
    """Put the given hands in place (cards taken from wherever they are) at the discard step."""
    for p in (A, B):
        state["deck"].extend(state["hands"][p])
        state["hands"][p] = []
    for p, cards in ((A, a), (B, b)):
        for c in cards:
            for pile in (state["deck"], state["discard"]):
                if c in pile:
                    pile.remove(c)
            state["hands"][p].append(c)
    state["prev_winner"] = winner
    state["prev_loser"] = None if winner is None else (B if winner == A else A)
    return state


def go(state: dict, a_lines: list[str], b_lines: list[str]):
    """Both players send their discard messages; returns (state, events)."""
    out1 = E.apply(state, A, a_lines)
    assert out1.accepted, out1.lines
    out2 = E.apply(out1.state, B, b_lines)
    assert out2.accepted, out2.lines
    return out2.state, out1.events + out2.events


def texts(events) -> str:
    return "\n".join(e.text for e in events)


def scored(events, player: str) -> dict:
    return next(e.data for e in events if e.kind == "force" and e.data["player"] == player)


def force_of(events, player: str, card: str) -> int:
    return next(r["force"] for r in scored(events, player)["cards"] if r["card"] == card)


def all_cards(state: dict) -> list[str]:
    out = state["deck"] + state["discard"]
    for p in state["players"]:
        out += state["hands"][p] + state["field"][p]
    return out


# --- deck census (RULINGS 4.1) -------------------------------------------------


def test_IW_4_1_deck_census_from_the_rulebook_card_list() -> None:
    assert len(CARDS) == 96 and len({c["name"] for c in CARDS}) == 96
    counts: dict[str, int] = {}
    for c in CARDS:
        counts[c["type"]] = counts.get(c["type"], 0) + 1
    assert counts == {"IK": 19, "D": 15, "C": 15, "A": 11, "IM": 10, "T": 9, "L": 8, "X": 8, "IT": 1}
    assert sorted(c["name"] for c in CARDS if c["side"] == "F") == ["Excellent Artillery", "French Horsemen"]
    assert len([c for c in CARDS if c["side"] == "S"]) == 3
    assert len(NEGATORS) == 17
    assert sorted(c["name"] for c in CARDS if c["cond"] == "LOST") == ["Rallying Point", "Rearguard", "Take Refuge"]
    assert len([c for c in CARDS if c["cond"] == "WON"]) == 6
    assert BY_NAME["Hedges & Trees"]["effect"] == {"cls": "IM", "delta": 4, "enemy": False}
    assert BY_NAME["Ditch"]["effect"] == {"cls": "C", "delta": -3, "enemy": True}
    assert BY_NAME["Culverins"]["force"] == 6 and BY_NAME["Excellent Artillery"]["force"] == 7


# --- IW-R1 sides ------------------------------------------------------------------


def test_IW_R1_sides_are_assigned_at_random_unless_fixed() -> None:
    seen = {E.setup([A, B], f"s{i}", {})[0]["sides"][A] for i in range(20)}
    assert seen == {"French", "Spanish"}
    assert fresh()["sides"] == {A: "French", B: "Spanish"}


# --- IW-R2 / IW-R5 tactics --------------------------------------------------------


def test_IW_R2_first_hand_both_draw_8_and_the_French_draw_first() -> None:
    state, events = E.setup([A, B], "x", {"sides": "fixed"})
    assert len(state["hands"][A]) == 8 and len(state["hands"][B]) == 8
    draws = [e.data["player"] for e in events if e.kind == "draw"]
    assert draws == [A, B]
    assert len(all_cards(state)) == 96


def test_IW_R5_previous_winner_draws_9_first_and_loser_may_discard_5() -> None:
    state = deal(fresh(), ["Hatreds"], ["Light Cavalry"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert state["prev_winner"] == A
    assert len(state["hands"][A]) == 9 and len(state["hands"][B]) == 8
    assert [e.data["player"] for e in events if e.kind == "draw"] == [A, B]
    five = ["DISCARD " + ", ".join(state["hands"][B][:5])]
    assert E.apply(state, B, five).accepted
    out = E.apply(state, A, ["DISCARD " + ", ".join(state["hands"][A][:5])])
    assert not out.accepted and "at most 4" in out.lines[0].reason


def test_IW_R5_discards_are_secret_only_counts_are_public() -> None:
    state = fresh()
    a_cards = state["hands"][A][:2]
    state, events = go(state, [f"DISCARD {a_cards[0]}, {a_cards[1]}"], ["DISCARD NONE"])
    public = [e for e in events if e.visibility == PUBLIC and e.kind == "discard"]
    assert [e.data["count"] for e in public] == [2, 0]
    for e in events:
        if e.kind in ("discard", "replace") and e.visibility == PUBLIC:
            assert not any(c in e.text for c in a_cards)
        if e.kind == "replace-private":
            assert e.visibility == (e.data["player"],)


def test_IW_R5_discard_answers_are_revisable_until_both_are_in() -> None:
    state = fresh()
    c0, c1 = state["hands"][A][:2]
    out = E.apply(state, A, [f"DISCARD {c0}"])
    assert out.accepted and not out.events
    out = E.apply(out.state, A, [f"DISCARD {c1}"])
    assert out.state["pending"][A] == [c1]
    req = next(r for r in E.requests(out.state) if r.player == A)
    assert req.answered and req.on_file == (f"DISCARD {c1}",)


def test_IW_R5_reshuffle_includes_the_cards_just_discarded() -> None:
    state = fresh()
    keep = state["deck"][:1]
    state["discard"].extend(state["deck"][1:])
    state["deck"] = keep
    gone = state["hands"][A][:3]
    state, events = go(state, ["DISCARD " + ", ".join(gone)], ["DISCARD NONE"])
    assert any(e.kind == "reshuffle" for e in events)
    order = next(e for e in events if e.kind == "deck-order").data["deck"]
    assert set(gone) <= set(order)
    assert next(e for e in events if e.kind == "deck-order").visibility == "moderator"
    assert len(all_cards(state)) == 96


# --- IW-R6 deployment -------------------------------------------------------------


def test_IW_R6_unusable_cards_are_discarded_in_the_stated_order() -> None:
    # Alice (French) won last hand: Spanish card, LOST card, Defense and second Leader go.
    hand = ["Spanish Swordsmen", "Rearguard", "Ditch", "Great Captain", "Impetuous Commander", "Lancers", "Pursuit"]
    state = deal(fresh(), hand, ["Hatreds"], winner=A)
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    gone = [e.data["card"] for e in events if e.kind == "unusable" and e.data["player"] == A]
    assert gone == ["Spanish Swordsmen", "Rearguard", "Ditch"]
    assert state["step"] == "leader" and [r.player for r in E.requests(state)] == [A]
    assert sorted(E.requests(state)[0].legal) == ["LEADER Great Captain", "LEADER Impetuous Commander"]


def test_IW_R6_previous_winner_cannot_play_Defense_cards() -> None:
    state = deal(fresh(), ["Earthworks", "Hatreds"], ["Trench", "Light Cavalry"], winner=A)
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert "Alice's Earthworks cannot be used" in texts(events)
    assert "Bob's Trench cannot be used" not in texts(events)


def test_IW_R6_leader_choice_asks_both_at_once_and_nmr_keeps_highest_force() -> None:
    state = deal(fresh(), ["Impetuous Commander", "Great Captain"], ["Famous Captain", "Careful Soldier"])
    state, _ = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert state["step"] == "leader"
    reqs = E.requests(state)
    assert sorted(r.player for r in reqs) == [A, B]
    assert [r.default for r in reqs if r.player == A] == [("LEADER Great Captain",)]
    out = E.apply(state, A, ["LEADER imp"])
    assert out.accepted and out.state["step"] == "leader" and not out.events
    out = E.timeout(out.state)
    assert "Alice keeps Impetuous Commander (chosen); extra Leader(s) discarded: Great Captain." in texts(out.events)
    assert "Bob keeps Careful Soldier (chosen)" in texts(out.events)
    assert force_of(out.events, A, "Impetuous Commander") == 6


def test_IW_R6_leader_pref_sent_with_the_discard_is_used() -> None:
    state = deal(fresh(), ["Impetuous Commander", "Great Captain"], ["Hatreds"])
    state, events = go(state, ["DISCARD NONE", "LEADER-PREF Acute, Impetuous"], ["DISCARD NONE"])
    assert "Alice keeps Impetuous Commander (standing preference)" in texts(events)
    assert state["step"] != "leader"


# --- IW-R7 / IW-R8 classes ----------------------------------------------------------


def test_IW_R7_composite_types_Tactics_matches_T_and_IT() -> None:
    state = deal(fresh(), ["Brilliant General", "Lie Prone", "Call Forward Troops", "Block of Infantry"], ["Hatreds"])
    state, events = go(state, ["DISCARD NONE", "NEGATE-PLAN NONE"], ["DISCARD NONE"])
    assert force_of(events, A, "Lie Prone") == 6
    assert force_of(events, A, "Call Forward Troops") == 8
    assert force_of(events, A, "Block of Infantry") == 7


def test_IW_R7_IK_bonus_does_not_reach_IM_and_Tactics_negation_hits_IT() -> None:
    state = deal(fresh(), ["Tight Formation", "Crossbowmen", "Swiss Pikemen"], ["Vigorous Captain"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    rows = {r["card"]: r["force"] for r in scored(events, A)["cards"]}
    assert rows == {"Tight Formation": 4, "Crossbowmen": 6, "Swiss Pikemen": 11}
    state2 = deal(fresh(), ["Lie Prone"], ["Vigorous Captain"])
    state2, _ = go(state2, ["DISCARD NONE"], ["DISCARD NONE"])
    assert state2["step"] == "negate" and state2["neg"]["turn"] == B
    assert legal_negations(state2, B) == [["Vigorous Captain", "Lie Prone"]]


def test_IW_R8_Spanish_Swordsmen_negates_an_IK_card() -> None:
    state = deal(fresh(), ["Swiss Pikemen", "Crossbowmen", "Lie Prone"], ["Spanish Swordsmen"])
    state, _ = go(state, ["DISCARD NONE", "NEGATE-PLAN NONE"], ["DISCARD NONE"])
    assert legal_negations(state, B) == [["Spanish Swordsmen", "Swiss Pikemen"]]


# --- IW-R9 arithmetic ---------------------------------------------------------------


def test_IW_R9_enemy_cavalry_gets_minus_3_stacks_with_floor_0() -> None:
    state = deal(fresh(), ["Ditch", "Uneven Terrain", "Swiss Square"], ["Light Cavalry", "Lancers"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert force_of(events, B, "Light Cavalry") == 0
    assert force_of(events, B, "Lancers") == 0
    assert "Light Cavalry 4 -3 (Ditch) -3 (Uneven Terrain) -3 (Swiss Square) = 0 (floor 0)" in texts(events)


def test_IW_R9_a_card_never_buffs_itself_and_bonuses_stack() -> None:
    state = deal(fresh(), ["Countercharge"], ["Tight Formation", "Discipline & Drill", "Deep Formation"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert force_of(events, A, "Countercharge") == 5
    assert force_of(events, B, "Tight Formation") == 10
    assert force_of(events, B, "Deep Formation") == 11
    assert scored(events, B)["total"] == 10 + 10 + 11


def test_IW_R9_leader_bonus_and_enemy_leader_penalty() -> None:
    state = deal(fresh(), ["Great Captain", "Prestige"], ["Acute Adversary", "Hatreds"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert force_of(events, A, "Great Captain") == 8 + 3 - 3
    assert force_of(events, B, "Acute Adversary") == 8


# --- IW-R10 WON / LOST ---------------------------------------------------------------


def test_IW_R10_WON_and_LOST_cards_need_the_condition_and_then_give_their_bonus() -> None:
    state = deal(fresh(), ["Pursuit", "Lancers"], ["Rallying Point", "Light Cavalry", "Take Refuge"], winner=A)
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert force_of(events, A, "Lancers") == 10
    assert force_of(events, B, "Light Cavalry") == 7
    state = deal(fresh(), ["Pursuit", "Lancers"], ["Rallying Point", "Light Cavalry"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert "Alice's Pursuit cannot be used" in texts(events) and "Bob's Rallying Point cannot be used" in texts(events)
    assert force_of(events, A, "Lancers") == 7


# --- IW-R11 negation ---------------------------------------------------------------


def test_IW_R11_negated_card_loses_its_bonus_and_negate_effect() -> None:
    state = deal(fresh(), ["Resist Cavalry", "Hatreds"], ["Charge Thru Gap", "Light Cavalry", "Drive Them Off"])
    state, _ = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    state["neg"]["turn"] = A
    out = E.apply(state, A, ["NEGATE resist charge"])
    assert out.accepted, out.lines
    assert out.lines[0].understood == "NEGATE Resist Cavalry > Charge Thru Gap"
    st = out.state
    assert "Charge Thru Gap" in st["discard"]
    assert force_of(out.events, B, "Light Cavalry") == 4
    assert "Charge Thru Gap" not in [r["card"] for r in scored(out.events, B)["cards"]]
    # Resist Cavalry is used; Bob's Drive Them Off has no Cavalry target: negation ends at once.
    assert st["step"] == "discard" and st["hand"] == 2


def test_IW_R11_alternating_actions_two_passes_end_and_each_negate_acts_once() -> None:
    state = deal(
        fresh(), ["Resist Cavalry", "Drive Them Off", "Light Cavalry"], ["Lancers", "Sortie", "Rout Enemy Cavalry"]
    )
    state, _ = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    state["neg"]["turn"] = A
    out = E.apply(state, A, ["NEGATE Resist > Lancers"])
    assert out.state["neg"]["turn"] == B
    assert not E.apply(out.state, A, ["PASS"]).accepted
    out = E.apply(out.state, B, ["PASS"])
    legal = next(iter(E.requests(out.state))).legal
    assert "NEGATE Resist Cavalry > Sortie" not in legal and "NEGATE Drive Them Off > Sortie" in legal
    out = E.apply(out.state, A, ["PASS"])
    assert "Negation ends: two passes in a row." in texts(out.events)


def test_IW_R11_player_without_legal_negation_is_not_asked() -> None:
    state = deal(fresh(), ["Hatreds"], ["Drive Them Off", "Resist Cavalry"])
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert "Negation ends: no legal negation is left." in texts(events)


def test_IW_R11_plan_is_carried_out_one_item_per_action_skipping_illegal_items() -> None:
    state = deal(fresh(), ["Resist Cavalry", "Drive Them Off", "Hatreds"], ["Lancers", "Sortie", "Capture Leader"])
    plan = "NEGATE-PLAN Resist > Vanguard; Resist > Lancers; Drive > Sortie"
    state, events = go(state, ["DISCARD NONE", plan], ["DISCARD NONE", "NEGATE-PLAN NONE"])
    negs = [e.data["target"] for e in events if e.kind == "negate"]
    assert negs == ["Lancers", "Sortie"]
    skipped = [e for e in events if e.kind == "plan-skip"]
    assert skipped and all(e.visibility == (A,) for e in skipped)


def test_IW_R11_coin_is_flipped_every_hand() -> None:
    firsts = set()
    for i in range(12):
        state = deal(fresh(f"c{i}"), ["Hatreds"], ["Drummers"])
        state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
        coins = [e for e in events if e.kind == "coin"]
        assert len(coins) == 1
        firsts.add(coins[0].data["first"])
        state = deal(state, ["Lancers"], ["Hatreds"], winner=A)
        state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
        assert sum(e.kind == "coin" for e in events) == 1
    assert firsts == {A, B}


# --- IW-R3 / IW-R4 results and victory -------------------------------------------------


def test_IW_R3_tie_resets_both_streaks_and_nobody_wins() -> None:
    state = deal(fresh(), ["Hatreds"], ["Great Ferocity"])
    state["streak"] = {A: 2, B: 0}
    state["won"] = {A: 4, B: 3}
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert state["streak"] == {A: 0, B: 0} and state["won"] == {A: 4, B: 3}
    assert state["prev_winner"] is None and len(state["hands"][A]) == 8 and len(state["hands"][B]) == 8
    sc = next(e for e in events if e.kind == "scores")
    assert sc.data == {"scores": {A: 4, B: 3}, "streaks": {A: 0, B: 0}, "forces": {A: 8, B: 8}, "hand": 1, "turn": 1}


def test_IW_R4_three_hands_in_a_row_win_the_battle() -> None:
    state = deal(fresh(), ["Hatreds"], ["Drummers"])
    state["streak"] = {A: 2, B: 0}
    state, events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    res = E.result(state)
    assert res is not None and res.winners == (A,)
    over = next(e for e in events if e.kind == "game-over")
    assert over.data["winners"] == [A] and "3 hands in a row" in over.text
    assert any(e.kind == "reveal-discards" for e in events)
    assert E.requests(state) == []


def test_IW_R4_eight_total_hands_win_the_battle() -> None:
    state = deal(fresh(), ["Drummers"], ["Hatreds"])
    state["won"] = {A: 3, B: 7}
    state, _events = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert E.result(state).winners == (B,) and E.result(state).scores == {A: 3, B: 8}


# --- views ----------------------------------------------------------------------------


def test_IW_4_3_view_never_shows_the_other_hand_during_tactics() -> None:
    state = fresh()
    v = E.view(state, A)
    text = repr(v)
    assert all(c in text for c in state["hands"][A])
    assert not any(c in text for c in state["hands"][B])
    assert not any(c in repr(E.view(state, None)) for c in state["hands"][A] + state["hands"][B])


def test_IW_R11_negated_card_cannot_use_its_own_negate_effect() -> None:
    state = deal(fresh(), ["Resist Cavalry", "Light Cavalry"], ["Drive Them Off", "Hatreds"])
    state, _ = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    assert legal_negations(state, B) == [["Drive Them Off", "Light Cavalry"]]
    state["neg"]["turn"] = A
    out = E.apply(state, A, ["NEGATE Resist Cavalry Drive Them Off"])
    assert out.accepted
    assert "Negation ends: no legal negation is left." in texts(out.events)
    assert force_of(out.events, A, "Light Cavalry") == 4


def test_IW_R12_typos_do_not_block_card_names_or_effects() -> None:
    assert "Culverins" in BY_NAME and BY_NAME["Ditch"]["type"] == "D"
    assert BY_NAME["Uneven Terrain"]["effect"]["delta"] == -3
    state = fresh()
    card = state["hands"][A][0]
    out = E.apply(state, A, [f"discard {card.lower()[:-1]}"])
    assert out.accepted and out.lines[0].understood == f"DISCARD {card}"


def test_orders_not_asked_and_wrong_cards_are_rejected_with_legal_lines() -> None:
    state = fresh()
    foreign = state["hands"][B][0]
    out = E.apply(state, A, [f"DISCARD {foreign}"])
    assert not out.accepted and "DISCARD NONE" in out.lines[0].legal
    out = E.apply(state, A, ["PASS"])  # A is asked to discard: told so, never "not asked" (the players' testers)
    assert not out.accepted and out.lines[0].reason.startswith("that is not an answer to what you are asked now")
    assert out.lines[0].not_asked and "DISCARD NONE" in out.lines[0].legal
    assert out.state is state


def test_IW_4_3_view_shows_deployed_forces_with_arithmetic_once_revealed() -> None:
    state = deal(fresh(), ["Resist Cavalry", "Ditch"], ["Lancers", "Sortie", "Rout Enemy Cavalry"])
    state, _ = go(state, ["DISCARD NONE"], ["DISCARD NONE"])
    v = E.view(state, None)
    table = next(s for s in v["sections"] if s["title"] == "Deployed cards")["table"]
    row = next(r for r in table["rows"] if r[1] == "Lancers")
    assert row[0] == B and row[3] == "Lancers 7 +3 (Sortie) -3 (Ditch) = 7" and row[4] == 7
    assert sorted(r["card"] for r in v["data"]["deployed"][A]) == ["Ditch", "Resist Cavalry"]


def test_handbook_lists_every_order_and_cites_rulings() -> None:
    text = E.handbook()
    for word in ("DISCARD", "LEADER-PREF", "NEGATE-PLAN", "LEADER <card>", "NEGATE <own card>", "PASS"):
        assert word in text
    for rid in ("IW-R1", "IW-R3", "IW-R4", "IW-R5", "IW-R6", "IW-R7", "IW-R8", "IW-R9", "IW-R11"):
        assert rid in text
    assert 60 <= len(text.splitlines()) <= 150
