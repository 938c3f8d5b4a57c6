"""Dynasties rule tests, named after the rulings (DY-R1..DY-R22) and the rulebook's examples."""

from __future__ import annotations

import statistics

import pytest

from pbem.engine import get
from pbem.engine.base import RuleError
from pbem.engine.dynasties import cards as C
from pbem.engine.dynasties import rules as R
from pbem.engine.dynasties.bot import rounds_per_gambit

E = get("dynasties")
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


def scenario(
    hands: dict[str, list[str]],
    deck_top: list[str] = (),
    families: dict | None = None,
    zone: list[str] = (),
    stakes: int = 0,
    treasury: dict | None = None,
    gambit: int = 1,
    grave: list[str] | None = None,
) -> dict:
    """A fresh game with seats in the order of `hands`, edited to the scenario; unused cards fill the deck."""
    players = list(hands)
    st, _ = E.setup(players, "rules", {})
    st["players"] = players
    st["hands"] = {p: list(h) for p, h in hands.items()}
    st["families"] = {p: list((families or {}).get(p, [])) for p in players}
    st["zone"] = list(zone)
    used = [c for h in hands.values() for c in h] + [c for f in st["families"].values() for c in f] + list(zone)
    st["grave"] = list(grave) if grave is not None else []
    used += st["grave"]
    rest = [c for c in C.DECK if c not in used and c not in deck_top]
    st["deck"] = list(deck_top) + ([] if grave is not None else rest)
    if grave is not None:
        st["grave"] += rest
    st["stakes"] = stakes
    st["treasury"] = {p: 50 for p in players} | dict(treasury or {})
    st["removed"] = 50 * len(players) - sum(st["treasury"].values()) - stakes
    st["gambit"] = gambit
    st["asked"] = [p for p in players if st["hands"][p]]
    st["plans"] = {p: [] for p in players}
    st["conclave_pref"] = {p: None for p in players}
    return st


def turn(st: dict, leader: str, n: int = 1) -> list:
    ev: list = []
    R.start_turn(st, ev, leader, n, [])
    return ev


def ok(st: dict, player: str, *lines: str):
    out = E.apply(st, player, list(lines))
    assert out.accepted, out.lines
    return out.state, out.events


def texts(events) -> str:
    return "\n".join(e.text for e in events)


def gold_total(st: dict) -> int:
    return sum(st["treasury"].values()) + st["stakes"] + st["removed"]


# ---------------------------------------------------------------- DY-R1, R2


def test_DY_R1_two_to_six_players_and_random_seats():
    for n in range(2, 7):
        st, _ev = E.setup(NAMES[:n], "seats", {})
        assert sorted(st["players"]) == sorted(NAMES[:n])
    with pytest.raises(ValueError):
        E.setup(NAMES[:1], "x", {})
    with pytest.raises(ValueError):
        E.setup([*NAMES, "Gus"], "x", {})
    seatings = {tuple(E.setup(NAMES[:4], f"s{i}", {})[0]["players"]) for i in range(10)}
    assert len(seatings) > 1


def test_DY_R2_deck_of_52_four_lineages_coronations_and_kings():
    assert len(C.DECK) == 52 == len(set(C.DECK))
    for lin in C.LINEAGES:
        mine = [c for c in C.DECK if C.lineage(c) == lin]
        assert sorted(C.value(c) for c in mine) == list(range(1, 14))
        assert f"{lin} Coronation" in mine and f"{lin} King" in mine
    assert C.is_coronation("Gold Coronation") and C.is_king("Silver King")


def test_DY_R2_card_names_in_both_forms_and_by_prefix():
    assert C.parse_card("Gold 1") == C.parse_card("gold coronation") == "Gold Coronation"
    assert C.parse_card("Silver 13") == C.parse_card("silver king") == C.parse_card("s13") == "Silver King"
    assert C.parse_card("cop 7") == "Copper 7"
    assert C.parse_card("g13") == "Gold King"
    assert C.parse_cards("Copper 7, Gold 3 then Silver 12") == ["Copper 7", "Gold 3", "Silver 12"]
    assert C.parse_card("7", ["Copper 7", "Gold 8"]) == "Copper 7"
    with pytest.raises(RuleError, match="could be any of"):
        C.parse_card("7", ["Copper 7", "Gold 7"])
    with pytest.raises(RuleError, match="not a card name"):
        C.parse_card("Bronze 7")


def test_DY_R2_setup_deals_four_each_and_50_gold():
    st, _ = E.setup(NAMES[:5], "deal", {"legacy": 7})
    assert all(len(h) == 4 for h in st["hands"].values())
    assert len(st["deck"]) == 52 - 20
    assert all(g == 50 for g in st["treasury"].values()) and st["stakes"] == 0 and st["legacy"] == 7
    with pytest.raises(ValueError):
        E.setup(NAMES[:3], "x", {"legacy": -1})


# ---------------------------------------------------------------- DY-R3 powers, DY-R4 activation


def test_DY_R3_copper_takes_two_from_the_stakes_or_all_if_less():
    st = scenario({"Ann": ["Copper 5", "Copper 9"], "Bob": ["Gold 9", "Gold 10"]}, stakes=1)
    ev = turn(st, "Ann")
    st, ev = ok(st, "Ann", "PLAY Copper 5")
    assert st["treasury"]["Ann"] == 51 and st["stakes"] == 0
    assert "Ann takes 1 Gold from the Stakes" in texts(ev)


def test_DY_R3_silver_draws_one_noble():
    st = scenario({"Ann": ["Silver 5", "Copper 9"], "Bob": ["Gold 9"]}, deck_top=["Platinum 8"])
    turn(st, "Ann")
    st, ev = ok(st, "Ann", "PLAY Silver 5")
    assert "Platinum 8" in st["hands"]["Ann"]
    private = [e for e in ev if e.kind == "draw"]
    assert private and private[0].visibility == ("Ann",)
    assert "Platinum 8" not in " ".join(e.text for e in ev if e.visible_to("Bob"))


def test_DY_R3_gold_levy_every_other_player_pays_one_or_what_they_have():
    st = scenario({"Ann": ["Gold 5"], "Bob": ["Copper 9"], "Cid": ["Copper 10"]}, treasury={"Cid": 0})
    turn(st, "Ann")
    st, ev = ok(st, "Ann", "PLAY Gold 5")
    assert st["treasury"] == {"Ann": 50, "Bob": 49, "Cid": 0} and st["stakes"] == 1
    assert "Cid pays 0 Gold to the Stakes (owed 1" in texts(ev)


def test_DY_R3_platinum_each_richer_player_pays_one():
    st = scenario(
        {"Ann": ["Platinum 5"], "Bob": ["Copper 9"], "Cid": ["Copper 10"]}, treasury={"Ann": 40, "Bob": 45, "Cid": 30}
    )
    turn(st, "Ann")
    st, _ = ok(st, "Ann", "PLAY Platinum 5")
    assert st["treasury"] == {"Ann": 41, "Bob": 44, "Cid": 30}


def test_DY_R4_first_noble_always_activates_later_only_if_equal_or_lower():
    st = scenario(
        {
            "Ann": ["Copper 9", "Gold 2"],
            "Bob": ["Copper 10", "Gold 3"],
            "Cid": ["Copper 9", "Gold 4"],
            "Dee": ["Copper 3", "Gold 5"],
        },
        stakes=20,
    )
    turn(st, "Ann")
    st, ev = ok(st, "Ann", "PLAY Copper 9")
    st, ev2 = ok(st, "Bob", "PLAY Copper 10")
    st, ev3 = ok(st, "Cid", "PLAY Copper 9")
    st, ev4 = ok(st, "Dee", "PLAY Copper 3")
    assert [e.data["active"] for e in ev + ev2 + ev3 + ev4 if e.kind == "play"] == [True, False, True, True]
    assert E.requests(st)[0].player == "Bob" and st["turn"]["n"] == 2
    assert st["treasury"] == {"Ann": 52, "Bob": 50, "Cid": 52, "Dee": 52}


def test_DY_R4_skipped_player_compares_with_last_noble_actually_played():
    st = scenario({"Ann": ["Copper 5"], "Bob": [], "Cid": ["Copper 5"]}, stakes=10)
    turn(st, "Ann")
    st, _ = ok(st, "Ann", "PLAY Copper 5")
    st, ev = ok(st, "Cid", "PLAY Copper 5")
    assert [e.data["active"] for e in ev if e.kind == "play"] == [True]


# ---------------------------------------------------------------- DY-R5 coronations


def test_DY_R5_coronation_removes_kings_then_sets_dynasty_then_power():
    st = scenario(
        {"Ann": ["Copper 4"], "Bob": ["Silver Coronation", "Gold 2"]},
        families={"Ann": ["Gold King", "Copper 3"], "Bob": ["Platinum King"]},
        deck_top=["Copper 8"],
    )
    turn(st, "Ann")
    st, _ = ok(st, "Ann", "PLAY Copper 4")
    st, ev = ok(st, "Bob", "PLAY Silver Coronation")
    assert st["families"]["Ann"] == ["Copper 3", "Copper 4"] and st["families"]["Bob"] == ["Silver Coronation"]
    assert "Gold King" in st["grave"] and "Platinum King" in st["grave"]
    assert st["dynasty"] == "Silver" and "Copper 8" in st["hands"]["Bob"]
    kinds = [e.kind for e in ev]
    assert kinds.index("kings") < kinds.index("dynasty") < kinds.index("draw")


def test_DY_R5a_coronation_as_tribute_is_a_plain_1():
    st = scenario({"Ann": ["Gold Coronation", "Copper 4"], "Bob": ["Copper 2", "Copper 7"]}, families={})
    st, _ = ok(st, "Ann", "TRIBUTE Gold Coronation")
    st, _ev = ok(st, "Bob", "TRIBUTE Copper 2")
    assert st["dynasty"] is None and st["treasury"] == {"Ann": 48, "Bob": 48}
    assert st["first"] == "Bob"


def test_DY_R5c_coronation_counts_11_and_never_gets_the_dynasty_bonus():
    st = scenario({"Ann": [], "Bob": []}, families={"Ann": ["Gold Coronation", "Gold 5"], "Bob": ["Gold 9"]})
    st["dynasty"] = "Gold"
    assert R.family_total(st, "Ann") == 11 + 5 + 3
    assert R.family_total(st, "Bob") == 12


def test_DY_R5d_only_the_latest_coronation_stays_in_the_tribute_zone():
    st = scenario(
        {"Ann": [], "Bob": []},
        families={"Ann": ["Gold Coronation"], "Bob": ["Silver Coronation"]},
        zone=["Copper Coronation", "Platinum 5"],
    )
    st["crown"], st["crowned"] = "Copper Coronation", ["Gold Coronation", "Silver Coronation"]
    R.into_grave(st, [])
    assert st["zone"] == ["Silver Coronation"] and st["crown"] == "Silver Coronation"
    assert {"Gold Coronation", "Copper Coronation", "Platinum 5"} <= set(st["grave"])


def test_DY_R5e_later_coronation_sets_the_dynasty():
    st = scenario({"Ann": ["Gold Coronation"], "Bob": ["Silver Coronation"]})
    turn(st, "Ann")
    st, _ = ok(st, "Ann", "PLAY Gold Coronation")
    st, _ = ok(st, "Bob", "PLAY Silver Coronation")
    assert st["dynasty"] == "Silver"


# ---------------------------------------------------------------- DY-R6, R7 enquire and payment


def test_DY_R6_R7_enquire_flips_pays_takes_the_card_and_draws_to_four():
    st = scenario(
        {"Ann": ["Copper 2"], "Bob": ["Copper 3", "Copper 4", "Copper 5", "Copper 6"], "Cid": []},
        deck_top=["Gold 9", "Silver 2", "Silver 3", "Platinum Coronation", "Gold 4"],
        treasury={"Cid": 0},
        gambit=1,
    )
    st["first"] = "Bob"
    ev: list = []
    R.start_gambit(st, ev)
    assert st["gambit"] == 2
    assert st["hands"]["Cid"] == ["Gold 9", "Silver 2", "Silver 3", "Platinum Coronation"]
    assert st["hands"]["Ann"][:2] == ["Copper 2", "Gold 4"] and len(st["hands"]["Ann"]) == 4
    assert len(st["hands"]["Bob"]) == 4
    assert st["treasury"]["Ann"] == 46 and st["treasury"]["Cid"] == 0 and st["stakes"] == 4
    flips = [e for e in ev if e.kind == "enquire"]
    assert [e.data["player"] for e in flips] == ["Cid", "Ann"] and all(e.visibility == "public" for e in flips)


def test_DY_R7_pay_what_you_can_rest_forgiven():
    st = scenario({"Ann": ["Copper King", "Copper 3"], "Bob": ["Copper 2", "Copper 4"]}, treasury={"Bob": 5})
    st, _ = ok(st, "Ann", "TRIBUTE Copper King")
    st, _ev = ok(st, "Bob", "TRIBUTE Copper 2")
    assert st["treasury"] == {"Ann": 37, "Bob": 0} and st["stakes"] == 18
    assert gold_total(st) == 100


# ---------------------------------------------------------------- DY-R8 legacy


def test_DY_R8_legacy_is_split_between_tied_winners():
    st = scenario({"Ann": [], "Bob": [], "Cid": []}, treasury={"Ann": 60, "Bob": 60, "Cid": 0}, stakes=30)
    st["legacy"] = 9
    R.finish(st, [])
    res = E.result(st)
    assert res.winners == ("Ann", "Bob") and res.details["legacy_share"] == "4.5"
    assert st["removed"] == 30 and gold_total(st) == 150


# ---------------------------------------------------------------- DY-R9, R10 tribute


def test_DY_R9_tied_highest_second_highest_wins_first_play_but_highest_is_paid():
    st = scenario({"Ann": ["Copper 9", "Gold 2"], "Bob": ["Gold 9", "Gold 3"], "Cid": ["Silver 5", "Gold 4"]})
    st, _ = ok(st, "Ann", "TRIBUTE Copper 9")
    st, _ = ok(st, "Bob", "TRIBUTE Gold 9")
    st, _ev = ok(st, "Cid", "TRIBUTE Silver 5")
    assert st["first"] == "Cid" and st["treasury"] == {"Ann": 41, "Bob": 41, "Cid": 41} and st["stakes"] == 27
    assert sorted(st["zone"]) == ["Copper 9", "Gold 9", "Silver 5"]


def test_DY_R9_no_unique_value_next_tied_seat_after_previous_first():
    st = scenario({"Ann": ["Copper 9", "Copper 2"], "Bob": ["Gold 9", "Gold 2"]}, gambit=2)
    st["first"] = "Ann"
    st, _ = ok(st, "Ann", "TRIBUTE Copper 9")
    st, _ = ok(st, "Bob", "TRIBUTE Gold 9")
    assert st["first"] == "Bob"


def test_DY_R9_tributes_are_secret_until_all_are_in_and_revisable():
    st = scenario({"Ann": ["Copper 9", "Copper 2"], "Bob": ["Gold 9", "Gold 2"], "Cid": ["Silver 4", "Silver 6"]})
    st, ev = ok(st, "Ann", "TRIBUTE Copper 9")
    st, ev2 = ok(st, "Ann", "TRIBUTE Copper 2")
    for e in ev + ev2:
        assert "Copper" not in e.text or e.visibility == ("Ann",)
    for who in ("Bob", "Cid", None):
        assert "Copper 2" not in str(E.view(st, who))
        assert all("Copper 2" not in str(r) for r in E.requests(st) if r.player != "Ann")
    assert next(r for r in E.requests(st) if r.player == "Ann").on_file == ("TRIBUTE Copper 2",)
    st, _ = ok(st, "Bob", "TRIBUTE Gold 9")
    st, ev = ok(st, "Cid", "TRIBUTE Silver 4")
    reveal = next(e for e in ev if e.kind == "tributes")
    assert reveal.visibility == "public" and reveal.data["tributes"]["Ann"] == "Copper 2"


def test_DY_R10_player_without_cards_gives_no_tribute_but_pays():
    st = scenario({"Ann": ["Copper 9", "Copper 2"], "Bob": []})
    assert [r.player for r in E.requests(st)] == ["Ann"]
    out = E.apply(st, "Bob", ["TRIBUTE Copper 9"])
    assert not out.accepted
    st, _ = ok(st, "Ann", "TRIBUTE Copper 9")
    assert st["treasury"] == {"Ann": 41, "Bob": 41}


# ---------------------------------------------------------------- DY-R11..R14


def test_DY_R11_highest_leads_next_turn_tie_goes_to_who_played_first():
    st = scenario({"Ann": ["Copper 5", "Copper 6"], "Bob": ["Gold 9", "Gold 3"], "Cid": ["Silver 9", "Silver 4"]})
    turn(st, "Ann")
    st, _ = ok(st, "Ann", "PLAY Copper 5")
    st, _ = ok(st, "Bob", "PLAY Gold 9")
    st, _ev = ok(st, "Cid", "PLAY Silver 9")
    assert st["turn"]["n"] == 2 and st["turn"]["order"][0] == "Bob"


def test_DY_R12_player_with_no_card_is_skipped():
    st = scenario({"Ann": ["Copper 5"], "Bob": [], "Cid": ["Silver 4"]})
    turn(st, "Ann")
    st, ev = ok(st, "Ann", "PLAY Copper 5")
    assert "Bob has no Noble in hand and is skipped" in texts(ev)
    assert E.requests(st)[0].player == "Cid"


def test_DY_R13_conclusion_after_exactly_three_turns_even_when_hands_run_out():
    st = scenario({"Ann": ["Copper 5"], "Bob": ["Gold 3"]}, stakes=10)
    turn(st, "Ann")
    st, _ = ok(st, "Ann", "PLAY Copper 5")
    st, ev = ok(st, "Bob", "PLAY Gold 3")
    assert [e.data["turn"] for e in ev if e.kind == "turn"] == [2, 3]
    assert any(e.kind == "conclusion" for e in ev)
    assert st["gambit"] == 2


def test_DY_R14_dynasty_bonus_for_every_noble_of_that_lineage_in_every_family():
    st = scenario(
        {"Ann": [], "Bob": []}, families={"Ann": ["Silver 5", "Silver 6", "Gold 2"], "Bob": ["Silver 2", "Copper 9"]}
    )
    st["dynasty"] = "Silver"
    assert R.family_total(st, "Ann") == 5 + 6 + 2 + 6 and R.family_total(st, "Bob") == 2 + 9 + 3


# ---------------------------------------------------------------- DY-R15..R17 conclave and pureblood


def test_DY_R16_rulebook_conclave_of_three_4s_takes_4_gold_and_two_tribute_zone_cards():
    st = scenario(
        {"Ann": ["Platinum 4", "Copper 8"], "Bob": ["Copper 9", "Copper 10"]},
        families={"Ann": ["Copper 4", "Gold 4"]},
        zone=["Silver Coronation", "Gold 9", "Copper 2"],
        stakes=20,
    )
    st["dynasty"], st["dynasty_card"], st["crown"] = "Silver", "Silver Coronation", "Silver Coronation"
    turn(st, "Bob")
    st, _ = ok(st, "Bob", "PLAY Copper 9")
    assert st["stakes"] == 18 and st["treasury"] == {"Ann": 50, "Bob": 52}
    st, ev = ok(st, "Ann", "PLAY Platinum 4")
    assert "Bob pays 1 Gold to Ann" in texts(ev)
    assert st["treasury"]["Ann"] == 50 + 1 + 4 and st["stakes"] == 14
    req = E.requests(st)[0]
    assert req.player == "Ann" and ".conclave." in req.step and req.step.startswith("g1.")
    assert req.default == ("CONCLAVE TAKE Gold 9, Copper 2",)
    st, ev = ok(st, "Ann", "CONCLAVE TAKE Silver Coronation, gold 9")
    assert {"Silver Coronation", "Gold 9"} <= set(st["hands"]["Ann"]) and st["zone"] == ["Copper 2"]
    assert st["dynasty"] is None and "no Current Dynasty" in texts(ev)


def test_DY_R15_coronation_counts_as_1_for_conclave():
    st = scenario(
        {"Ann": ["Gold Coronation"], "Bob": ["Copper 9"]},
        families={"Ann": ["Copper Coronation", "Silver Coronation"]},
        stakes=5,
    )
    turn(st, "Ann")
    st, ev = ok(st, "Ann", "PLAY Gold Coronation")
    assert "Conclave of 1s" in texts(ev)


def test_DY_R16_conclave_happens_once_per_gambit_and_standing_choice_is_used():
    st = scenario(
        {"Ann": ["Platinum 4", "Silver 4"], "Bob": ["Copper 9", "Copper 10"]},
        families={"Ann": ["Copper 4", "Gold 4"]},
        zone=["Gold 9", "Copper 2"],
        stakes=20,
    )
    st, _ = ok(st, "Ann", "CONCLAVE TAKE NONE")
    turn(st, "Ann")
    st, ev = ok(st, "Ann", "PLAY Platinum 4")
    assert st["zone"] == ["Gold 9", "Copper 2"] and st["phase"] == "play" and E.requests(st)[0].player == "Bob"
    st, _ = ok(st, "Bob", "PLAY Copper 9")
    st, ev = ok(st, "Ann", "PLAY Silver 4")
    assert "Conclave" not in texts(ev)


def test_DY_R17_rulebook_copper_pureblood_2_6_13_each_other_player_pays_6():
    st = scenario(
        {"Ann": ["Copper King"], "Bob": ["Gold 9"], "Cid": ["Gold 10"]},
        families={"Ann": ["Copper 2", "Copper 6"]},
        treasury={"Cid": 4},
        stakes=0,
    )
    turn(st, "Bob")
    st, _ = ok(st, "Bob", "PLAY Gold 9")
    before = dict(st["treasury"])
    st, ev = ok(st, "Cid", "PLAY Gold 10")
    st, ev = ok(st, "Ann", "PLAY Copper King")
    pays = [e.data for e in ev if e.kind == "payment" and "Pureblood" in e.data["why"]]
    assert [(d["from"], d["to"], d["owed"], d["paid"]) for d in pays] == [
        ("Bob", "Ann", 6, 6),
        ("Cid", "Ann", 6, before["Cid"]),
    ]
    assert before[
        "Cid"
    ] == 3 and "Pureblood Copper (Copper 2, Copper 6, Copper King): each other player pays 6" in texts(ev)


def test_DY_R17_later_king_removal_does_not_undo_pureblood():
    st = scenario(
        {"Ann": ["Copper King", "Copper 3"], "Bob": ["Gold Coronation", "Gold 5"]},
        families={"Ann": ["Copper 2", "Copper 6"]},
    )
    turn(st, "Ann")
    st, _ = ok(st, "Ann", "PLAY Copper King")
    paid = st["treasury"]["Ann"]
    st, _ev = ok(st, "Bob", "PLAY Gold Coronation")
    assert "Copper King" not in st["families"]["Ann"] and "Ann" in st["purebloods"]
    assert st["treasury"]["Ann"] == paid - 1  # only Bob's Royal Levy; nothing is paid back


# ---------------------------------------------------------------- DY-R18 ties


def test_DY_R18_tie_gives_another_turn_for_everyone():
    st = scenario(
        {"Ann": ["Copper 5", "Copper 9"], "Bob": ["Gold 6", "Gold 2"], "Cid": ["Silver 2", "Silver 3"]},
        families={"Ann": ["Platinum 10"], "Bob": ["Platinum 9"]},
        stakes=9,
    )
    st["turn"] = None
    turn(st, "Ann", 3)
    st, _ = ok(st, "Ann", "PLAY Copper 5")
    st, _ = ok(st, "Bob", "PLAY Gold 6")
    st, ev = ok(st, "Cid", "PLAY Silver 2")
    assert "Ann and Bob tie at 15" in texts(ev) and st["turn"]["n"] == 4 and st["turn"]["tied"] == ["Ann", "Bob"]
    assert E.requests(st)[0].player == "Bob" and E.requests(st)[0].step == "g1.t4.play.Bob"
    st, _ = ok(st, "Bob", "PLAY Gold 2")
    st, _ = ok(st, "Cid", "PLAY Silver 3")
    st, ev = ok(st, "Ann", "PLAY Copper 9")
    assert "Ann takes" in texts(ev) and "winning the Stakes" in texts(ev) and st["winner_of_stakes"] == "Ann"


def test_DY_R18_split_when_nobody_can_play_remainder_stays():
    st = scenario({"Ann": [], "Bob": [], "Cid": []}, families={"Ann": ["Copper 9"], "Bob": ["Gold 9"]}, stakes=9)
    st["turn"] = None
    ev = turn(st, "Ann", 3)
    assert "split the Stakes, 4 Gold each; 1 Gold stays" in texts(ev)
    assert "Ann takes 4 Gold from the Stakes: share of split Stakes" in texts(ev)
    assert "Bob takes 4 Gold from the Stakes: share of split Stakes" in texts(ev)


# ---------------------------------------------------------------- DY-R19..R21


def test_DY_R19_draw_order_most_cards_first_and_simultaneous_discards():
    hand_a = ["Copper 2", "Copper 3", "Copper 4", "Copper 5", "Copper 6", "Copper 7"]
    st = scenario(
        {"Ann": ["Copper 8"], "Bob": hand_a, "Cid": ["Gold 2"]},
        deck_top=["Gold 9", "Silver 9", "Platinum 9", "Gold 10"],
    )
    st["winner_of_stakes"] = "Ann"
    ev: list = []
    R.draw_and_retire(st, ev)
    assert st["hands"]["Bob"][-1] == "Gold 9" and st["hands"]["Ann"][-1] == "Silver 9"
    assert st["hands"]["Cid"][-1] == "Platinum 9"
    assert st["phase"] == "discard" and st["need_discard"] == {"Bob": 1}
    [req] = E.requests(st)
    assert req.step == "g1.discard" and req.default == ("DISCARD Copper 2",)
    bad = E.apply(st, "Bob", ["DISCARD Copper 2, Copper 3"])
    assert not bad.accepted and "exactly 1" in bad.lines[0].reason
    st, ev = ok(st, "Bob", "DISCARD Gold 9")
    assert "Gold 9" in st["grave"] and st["gambit"] == 2
    assert all("Gold 9" not in e.text for e in ev if e.visible_to("Ann"))


def test_DY_R20_game_ends_when_a_treasury_is_zero_after_conclusion():
    st = scenario({"Ann": ["Copper 5"], "Bob": ["Gold 3"]}, treasury={"Bob": 0}, stakes=4)
    turn(st, "Ann")
    st, _ = ok(st, "Ann", "PLAY Copper 5")
    st, ev = ok(st, "Bob", "PLAY Gold 3")
    assert st["phase"] == "over" and E.result(st).winners == ("Ann",)
    over = next(e for e in ev if e.kind == "game-over")
    assert over.data["winners"] == ["Ann"] and "scores" in over.data
    assert E.requests(st) == [] and not E.apply(st, "Ann", ["PLAY Copper 5"]).accepted
    assert gold_total(st) == 100


def test_DY_R21_graveyard_reshuffles_when_deck_empty_and_is_never_listed():
    st = scenario({"Ann": ["Silver 5"], "Bob": ["Copper 9"]}, grave=["Platinum 12"])
    st["deck"] = []
    turn(st, "Ann")
    st, ev = ok(st, "Ann", "PLAY Silver 5")
    assert "shuffled to form a new Noble Deck" in texts(ev)
    assert len(st["hands"]["Ann"]) == 1 and st["grave"] == []
    for who in (None, "Ann", "Bob"):
        v = E.view(st, who)
        assert "grave" not in str(v["data"]).lower()


# ---------------------------------------------------------------- play lists, NMR, gold, rounds


def test_play_list_with_tribute_in_one_message_plays_whole_gambit():
    st = scenario(
        {"Ann": ["Copper 9", "Copper 2", "Copper 3", "Copper 4"], "Bob": ["Gold 9", "Gold 2", "Gold 3", "Gold 4"]}
    )
    st, ev = ok(st, "Ann", "TRIBUTE Copper 9", "PLAYS Copper 2, Copper 3, Copper 4", "CONCLAVE TAKE HIGHEST")
    st, ev = ok(st, "Bob", "TRIBUTE Gold 2", "PLAY Gold 9 THEN Gold 3 THEN Gold 4")
    assert st["gambit"] == 2 and st["phase"] in ("tribute", "discard")
    assert [e.data["card"] for e in ev if e.kind == "play"][:2] == ["Copper 2", "Gold 9"]


def test_play_list_asks_when_a_listed_card_is_gone():
    st = scenario({"Ann": ["Copper 9", "Copper 2", "Copper 3"], "Bob": ["Gold 9", "Gold 2", "Gold 3"]})
    st, _ = ok(st, "Bob", "PLAYS Gold 9, Gold 2")
    bad = E.apply(st, "Bob", ["TRIBUTE Gold 3", "PLAYS Gold 3"])
    assert not bad.accepted and "Tribute on file" in bad.lines[1].reason
    st, _ = ok(st, "Bob", "TRIBUTE Gold 9")
    assert st["plans"]["Bob"] == ["Gold 2"]
    st["plans"]["Bob"] = ["Gold 9", "Gold 2"]  # as if the list had survived: Gold 9 is no longer in hand
    st, ev = ok(st, "Ann", "TRIBUTE Copper 2", "PLAYS Copper 3")
    assert st["first"] == "Bob" and E.requests(st)[0].player == "Bob"
    assert "no longer in your hand" in texts(e for e in ev if e.visibility == ("Bob",))
    st, ev = ok(st, "Bob", "PLAY Gold 3")
    assert [e.data["card"] for e in ev if e.kind == "play"] == ["Gold 3", "Copper 3", "Gold 2"]
    assert E.requests(st)[0].player == "Ann"  # Bob's single PLAY kept the rest of his list


def test_not_asked_orders_are_rejected_with_who_is_awaited():
    st = scenario({"Ann": ["Copper 9"], "Bob": ["Gold 9"]})
    out = E.apply(st, "Ann", ["DISCARD Copper 9"])
    assert not out.accepted and "not what you are asked now" in out.lines[0].reason
    assert out.lines[0].legal == ("TRIBUTE Copper 9",) and out.state is st
    turn(st, "Bob")
    out = E.apply(st, "Ann", ["DISCARD Copper 9"])
    assert not out.accepted and "not asked anything now; waiting for Bob" in out.lines[0].reason


def test_NMR_defaults_tribute_lowest_play_lowest_conclave_highest_discard_lowest():
    st = scenario({"Ann": ["Copper 9", "Gold Coronation"], "Bob": ["Gold 9", "Silver 4"]})
    assert {r.player: r.default for r in E.requests(st)} == {
        "Ann": ("TRIBUTE Gold Coronation",),
        "Bob": ("TRIBUTE Silver 4",),
    }
    out = E.timeout(st)
    assert out.state["first"] == "Bob" and sorted(out.state["zone"]) == ["Gold Coronation", "Silver 4"]
    assert E.requests(out.state)[0].default == ("PLAY Gold 9",)


def test_gold_is_conserved_with_the_removed_counter():
    st, _ = E.setup(NAMES[:4], "gold", {})
    while E.result(st) is None:
        st = E.timeout(st).state
        assert gold_total(st) == 200
    assert E.result(st) is not None


def test_bot_plays_a_gambit_in_few_rounds_of_email():
    for n in (3, 6):
        counts = rounds_per_gambit(n, 8, "rounds")
        assert counts and min(counts) >= 1
        assert statistics.median(counts) <= 2
