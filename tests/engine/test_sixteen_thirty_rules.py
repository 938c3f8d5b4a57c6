"""Rule tests for Sixteen Thirty Something, named after rulebook sections and rulings
ST-R1..ST-R22, including the rulebook's worked examples as scenarios."""

from __future__ import annotations

from collections import Counter

import pytest

from pbem.engine.base import clone
from pbem.engine.rng import Rng
from pbem.engine.sixteen_thirty import ENGINE, tables, wars
from pbem.engine.sixteen_thirty.state import goto, influence
from pbem.engine.sixteen_thirty.turn import end_turn, score_turn

FIVE = ["Tim", "Martin", "Simon", "Ann", "Bob"]


def blank(players=FIVE, seed="rules"):
    """A state after set-up with empty displays and hands, turn 1, nobody placed yet."""
    st, _ = ENGINE.setup(list(players), seed, {})
    for p in players:
        st["deck"] += st["hands"][p]
        st["hands"][p] = []
    return st


def at(st, active, phase, suffix=None):
    st["active"] = active
    st["order_idx"] = st["players"].index(active)
    st["first"] = 0
    goto(st, phase, suffix)
    return st


def give(st, p, cards):
    for c in cards:
        st["deck"].remove(c)
    st["hands"][p] = tables.sort_cards(st["hands"][p] + list(cards))


def show(st, p, country, cards, desc=False):
    for c in cards:
        st["deck"].remove(c)
    st["displays"][p][country] = {"cards": tables.sort_cards(list(cards)), "desc": desc}


def ok(st, p, *lines):
    out = ENGINE.apply(st, p, list(lines))
    assert out.accepted, out.lines
    return out


def asked(st):
    return {r.player: r for r in ENGINE.requests(st) if not r.answered}


def texts(out):
    return [e.text for e in out.events]


def england_vote_table():
    """The rulebook's vote example: England red, France blue, Tim 7, Martin 5, Simon 6."""
    st = blank()
    st["countries"]["England"]["faction"] = "RED"
    st["countries"]["France"]["faction"] = "BLUE"
    show(st, "Tim", "England", ["England 1", "England 3", "England 3"])
    show(st, "Martin", "England", ["England 2", "England 3"])
    show(st, "Simon", "England", ["England 1", "England 2", "Open 1", "England 2"])
    show(st, "Simon", "France", ["France 2"])
    show(st, "Simon", "Sweden", ["Sweden 2", "Sweden 3"])
    return at(st, "Tim", "call", "vote1.call")


# ---------------------------------------------------------------- set-up
def test_ST_R1_initial_set_up_table_and_all_countries_neutral():
    st, _ = ENGINE.setup(["A", "B", "C"], "s", {})
    k = st["countries"]
    assert [(k[c]["status"], k[c]["army"], k[c]["ability"]) for c in tables.COUNTRIES] == [
        (5, 2, 1),
        (1, 1, 0),
        (3, 2, 1),
        (1, 1, 0),
        (2, 1, 1),
        (2, 1, 1),
        (5, 1, 0),
        (2, 2, 0),
        (5, 2, 1),
    ]
    assert all(k[c]["faction"] is None for c in tables.COUNTRIES)
    assert sum(k[c]["status"] for c in tables.COUNTRIES) == 26


def test_ST_R2_adjacency_is_symmetric_with_18_pairs():
    assert len(set(tables.ADJACENT_PAIRS)) == 18
    deg = Counter()
    for a, b in tables.ADJACENT_PAIRS:
        deg[a] += 1
        deg[b] += 1
        assert tables.adjacent(b, a)
    assert deg["German States"] == 6 and deg["Poland"] == 3 and deg["England"] == 4
    assert not tables.adjacent("England", "Sweden")


def test_ST_R3_deck_has_110_cards():
    deck = tables.build_deck()
    c = Counter(deck)
    assert len(deck) == 110
    assert c["England 1"] == 3 and c["England 2"] == 4 and c["England 3"] == 3
    assert c["Open 1"] == 2 and c["Open 2"] == 2 and c["Vote"] == 3 and c["Unrest"] == 3
    assert sum(n for card, n in c.items() if tables.is_special(card)) == 16


@pytest.mark.parametrize("n,each", [(3, 4), (4, 4), (5, 3), (6, 3)])
def test_taking_victory_point_counters_4_or_3_each_and_deal_of_13(n, each):
    st, ev = ENGINE.setup([f"P{i}" for i in range(n)], "s", {})
    for p in st["players"]:
        assert len(st["counters"][p]) == each and len(st["hands"][p]) == 13
    drawn = [c for p in st["players"] for c in st["counters"][p]] + st["unused_counters"]
    assert Counter(drawn) == Counter({c: 2 for c in tables.COUNTRIES})
    counter_events = [e for e in ev if e.kind == "counters" and e.visibility not in ("moderator",)]
    assert all(len(e.visibility) == 1 for e in counter_events)


def test_ST_R18_first_player_is_the_unique_highest_roll():
    st, ev = ENGINE.setup(FIVE, "first", {})
    last = [e for e in ev if e.kind == "first-roll"][-1].data["rolls"]
    top = max(last.values())
    assert [p for p, r in last.items() if r == top] == [st["players"][st["first"]]]


def test_ST_R8_starting_placement_is_secret_until_all_have_placed():
    st, _ = ENGINE.setup(["A", "B", "C"], "start", {})
    a = ENGINE.requests(st)[0]
    out = ok(st, "A", a.legal[0])
    assert out.events == [] and out.state["displays"]["A"] == {}
    assert "A" not in str(ENGINE.view(out.state, "B")["data"]["displays"]["A"])
    st = out.state
    for p in ("B", "C"):
        st = ok(st, p, ENGINE.requests(st)[["A", "B", "C"].index(p)].legal[0]).state
    assert all(sum(len(pl["cards"]) for pl in st["displays"][p].values()) == 3 for p in "ABC")


def test_ST_R8_open_card_needs_a_named_pile():
    st = blank(["A", "B", "C"])
    goto(st, "start")
    st["active"] = None
    give(st, "A", ["Spain 2", "France 1", "Open 1"])
    out = ENGINE.apply(st, "A", ["PLACE-START Spain 2, France 1, Open 1"])
    assert not out.accepted and "ON" in out.lines[0].reason
    ok(st, "A", "PLACE-START Spain 2, France 1, Open 1 ON France")


# ---------------------------------------------------------------- the vote (rulebook examples)
def test_placing_influence_cards_example_everyone_but_the_caller_is_asked():
    st = england_vote_table()
    st = ok(st, "Tim", "CALL England WAR France").state
    assert set(asked(st)) == {"Martin", "Simon", "Ann", "Bob"}  # Ann and Bob hold no English cards


def test_adding_up_the_votes_example_tim_martin_simon_in_england():
    st = england_vote_table()
    st = ok(st, "Tim", "CALL England WAR France", "VOTE RED").state
    for p in ("Martin", "Simon", "Ann", "Bob"):
        st = ok(st, p, "PLACE NONE").state
    assert set(asked(st)) == {"Martin", "Simon"}  # Tim's ballot is locked already
    st = ok(st, "Martin", "VOTE RED").state
    out = ok(st, "Simon", "VOTE BLUE")
    ballots = next(e for e in out.events if e.kind == "ballots")
    assert ballots.data["totals"] == {"RED": 12, "BLUE": 6} and ballots.data["winner"] == "RED"
    assert any(e.kind == "war" and e.data["attacker"] == "England" for e in out.events)
    simon = out.state["displays"]["Simon"]
    assert simon["England"]["desc"] and influence(out.state, "Simon", "England") == 6
    assert not out.state["displays"]["Tim"]["England"]["desc"]


def test_effect_of_losing_a_vote_example_simons_display():
    st = england_vote_table()
    st = ok(st, "Tim", "CALL England WAR France", "VOTE RED").state
    for p in ("Martin", "Simon", "Ann", "Bob"):
        st = ok(st, p, "PLACE NONE").state
    st = ok(ok(st, "Martin", "VOTE RED").state, "Simon", "VOTE BLUE").state
    simon = st["displays"]["Simon"]
    assert simon["England"]["cards"] == ["England 1", "England 2", "England 2", "Open 1"]
    assert simon["France"] == {"cards": ["France 2"], "desc": False}
    assert simon["Sweden"] == {"cards": ["Sweden 2", "Sweden 3"], "desc": False}
    # "at the start of his next turn Simon must remove an Influence Card ... an English card"
    from pbem.engine.sixteen_thirty.turn import removal_options

    assert {c for c, _ in removal_options(st, "Simon")} == {"England"}


def test_effect_of_losing_a_vote_already_descendant_loses_a_card_of_the_owners_choice():
    st = england_vote_table()
    st["displays"]["Simon"]["England"]["desc"] = True
    st = ok(st, "Tim", "CALL England WAR France", "VOTE RED").state
    for p in ("Martin", "Simon", "Ann", "Bob"):
        st = ok(st, p, "PLACE NONE").state
    st = ok(ok(st, "Martin", "VOTE RED").state, "Simon", "VOTE BLUE").state
    assert st["phase"] == "lose" and set(asked(st)) == {"Simon"}
    assert "LOSE England 1" in asked(st)["Simon"].legal
    out = ok(st, "Simon", "LOSE England 1")
    assert influence(out.state, "Simon", "England") == 5
    assert any(e.kind == "war" for e in out.events)  # ST-R9.6: the war after the losers' piles


def test_a_tied_vote_nobody_suffers():
    st = england_vote_table()
    st["displays"]["Martin"]["England"]["cards"] = ["England 1"]  # Tim 7 vs Martin 1 + Simon 6
    st = ok(st, "Tim", "CALL England SWITCH", "VOTE RED").state
    for p in ("Martin", "Simon", "Ann", "Bob"):
        st = ok(st, p, "PLACE NONE", "VOTE BLUE" if p in ("Martin", "Simon") else "STANDING CLEAR").state
    assert st["countries"]["England"]["faction"] == "RED"
    assert not any(pl["desc"] for p in FIVE for pl in st["displays"][p].values())


def test_ST_R9_placements_and_ballots_are_secret_until_all_are_in():
    st = england_vote_table()
    give(st, "Martin", ["England 1"])
    st = ok(st, "Tim", "CALL England WAR France").state
    out = ok(st, "Martin", "PLACE England 1", "VOTE BLUE")
    assert out.events == []
    for q in ("Simon", "Ann", None):
        v = ENGINE.view(out.state, q)["data"]
        assert v["displays"]["Martin"]["England"]["cards"] == ["England 2", "England 3"]
        assert v.get("on_file") is None and v["hand_sizes"]["Martin"] == 1
    assert "BLUE" not in str(ENGINE.view(out.state, "Simon")["data"]["vote"])
    assert out.lines[1].understood.startswith("VOTE BLUE")
    st = out.state
    for p in ("Simon", "Ann", "Bob"):
        out = ok(st, p, "PLACE NONE")
        st = out.state
    assert any(e.kind == "placements" for e in out.events)
    assert influence(st, "Martin", "England") == 6
    assert st["phase"] == "ballot" and "Martin" not in asked(st)


def test_ST_R9_revising_a_placement_replaces_it():
    st = england_vote_table()
    give(st, "Martin", ["England 1", "Open 2"])
    st = ok(st, "Tim", "CALL England SWITCH").state
    st = ok(st, "Martin", "PLACE England 1").state
    st = ok(st, "Martin", "PLACE Open 2").state
    assert st["answers"]["Martin"] == ["Open 2"]


def test_ST_R9_descendant_pile_cannot_be_added_to():
    st = england_vote_table()
    st["displays"]["Simon"]["England"]["desc"] = True
    give(st, "Simon", ["England 1"])
    st = ok(st, "Tim", "CALL England SWITCH").state
    out = ENGINE.apply(st, "Simon", ["PLACE England 1"])
    assert not out.accepted and "descendant" in out.lines[0].reason


# ---------------------------------------------------------------- issues and wars
def test_ST_R10_neutral_country_only_align():
    st = blank()
    show(st, "Tim", "Poland", ["Poland 2"])
    at(st, "Tim", "call")
    out = ENGINE.apply(st, "Tim", ["CALL Poland SWITCH"])
    assert not out.accepted and out.lines[0].legal == ("CALL Poland ALIGN",)
    assert ok(st, "Tim", "CALL Poland").lines[0].understood == "CALL Poland ALIGN"


def test_ST_R10_war_targets_need_other_faction_and_status_2_or_adjacency():
    st = blank()
    from pbem.engine.sixteen_thirty.votes import legal_issues

    k = st["countries"]
    for c in tables.COUNTRIES:
        k[c]["faction"] = "BLUE"
    k["Sweden"]["faction"] = "RED"
    k["England"]["status"] = 1
    k["Poland"]["status"] = 1
    targets = {t for i, t in legal_issues(st, "Sweden") if i == "WAR"}
    assert "England" not in targets and "Poland" in targets and "Spain" in targets
    k["Sweden"]["unrest"] = True
    assert legal_issues(st, "Sweden") == [("SWITCH", None)]
    k["Sweden"]["unrest"], k["Sweden"]["army"] = False, 0
    assert legal_issues(st, "Sweden") == [("SWITCH", None), ("REARM", None)]


def test_ST_R11_no_pile_and_no_influence_card_means_no_vote():
    st = blank()
    give(st, "Tim", ["Open 1", "Vote"])
    at(st, "Tim", "call", "vote1.call")
    st["call_origin"] = "mandatory"
    from pbem.engine.sixteen_thirty.turn import advance

    ev = []
    advance(st, ev)
    assert any(e.kind == "no-vote" for e in ev)


def test_resolving_a_war_example_england_against_france_with_a_leader():
    st = blank()
    k = st["countries"]
    k["England"].update(ability=1, army=1, leader=True, faction="RED")
    k["France"].update(ability=1, army=2, faction="BLUE")
    assert sum(v for _, v in wars.modifiers(st, "England", False)) == 3
    assert sum(v for _, v in wars.modifiers(st, "France", True)) == 1
    n = 0
    while True:  # find the generator position that rolls the example's dice 1,2 and 2,6
        probe = Rng({"seed": st["rng"]["seed"], "n": n})
        if [probe.die() for _ in range(4)] == [1, 2, 2, 6]:
            break
        n += 1
    st["rng"]["n"] = n
    ev = []
    wars.resolve_war(st, "England", "France", ev)
    sides = ev[0].data["sides"]
    assert sides["England"]["total"] == 4 and sides["France"]["total"] == 5
    assert k["England"]["status"] == 0 and k["England"]["army"] == 0 and k["France"]["status"] == 4


def test_ST_R5_england_and_sweden_defend_at_status_1_or_less():
    st = blank()
    st["countries"]["Sweden"]["status"] = 1
    assert ("defence across water", 1) in wars.modifiers(st, "Sweden", True)
    assert ("defence across water", 1) not in wars.modifiers(st, "Sweden", False)
    st["countries"]["Denmark"]["status"] = 1
    assert len(wars.modifiers(st, "Denmark", True)) == 1


def test_ST_R6_unrest_is_a_flat_minus_one_even_at_ability_0():
    st = blank()
    st["countries"]["England"]["unrest"] = True
    assert sum(v for _, v in wars.modifiers(st, "England", True)) == -1 + 1  # ability 0, unrest, water


def test_ST_R12_war_results():
    st = blank()
    k = st["countries"]
    k["Spain"]["status"], k["Poland"]["status"], k["Poland"]["army"], k["Poland"]["ability"] = 7, 0, 0, 1
    wars.apply_defeat(st, "Spain", "Poland")
    assert (k["Spain"]["status"], k["Poland"]["status"], k["Poland"]["army"], k["Poland"]["ability"]) == (7, 0, 0, 0)
    k["France"]["status"] = 3
    wars.apply_defeat(st, "France", "Denmark")
    assert k["France"]["status"] == 4 and k["Denmark"]["status"] == 0 and k["Denmark"]["army"] == 0


# ---------------------------------------------------------------- removals and specials
def test_ST_R13_open_card_cannot_be_left_alone():
    from pbem.engine.sixteen_thirty.state import own_removal_options

    assert own_removal_options({"cards": ["Spain 3", "Open 1"], "desc": True}) == ["Open 1"]
    assert own_removal_options({"cards": ["Spain 1", "Spain 3", "Open 2"], "desc": True}) == [
        "Spain 1",
        "Open 2",
        "Spain 3",
    ]


def test_ST_R17_phase_1_removal_is_an_order_unless_forced():
    st = blank()
    show(st, "Tim", "Spain", ["Spain 1", "Spain 3"], desc=True)
    at(st, "Tim", "remove")
    r = asked(st)["Tim"]
    assert set(r.legal) == {"REMOVE Spain 1", "REMOVE Spain 3"} and r.default == ("REMOVE Spain 1",)
    out = ok(st, "Tim", "REMOVE spain 3")
    assert out.state["displays"]["Tim"]["Spain"]["cards"] == ["Spain 1"] and len(out.state["hands"]["Tim"]) == 4
    st2 = blank()
    show(st2, "Tim", "Spain", ["Spain 2", "Spain 2"], desc=True)
    at(st2, "Tim", "remove")
    from pbem.engine.sixteen_thirty.turn import advance

    advance(st2, [])
    assert st2["displays"]["Tim"]["Spain"]["cards"] == ["Spain 2"] and st2["phase"] == "trade"


def test_ST_R14_unrest_hits_every_tied_highest_player():
    st = blank()
    show(st, "Tim", "Spain", ["Spain 3"])
    show(st, "Martin", "Spain", ["Spain 1", "Spain 2"], desc=True)
    show(st, "Simon", "Spain", ["Spain 1"])
    give(st, "Ann", ["Unrest", "Unrest"])
    at(st, "Ann", "specials")
    out = ok(st, "Ann", "PLAY Unrest Spain")
    s = out.state
    assert s["countries"]["Spain"]["unrest"] and s["displays"]["Tim"]["Spain"]["desc"]
    assert s["phase"] == "lose" and set(asked(s)) == {"Martin"}
    assert not s["displays"]["Simon"]["Spain"]["desc"]
    s = ok(s, "Martin", "LOSE Spain 1").state
    assert s["displays"]["Martin"]["Spain"]["cards"] == ["Spain 2"] and s["phase"] == "specials"
    assert ENGINE.apply(s, "Ann", ["PLAY Unrest Spain"]).accepted is False  # ST-R14: one Unrest counter


def test_ST_R14_assassin_removing_last_named_card_discards_the_open_cards():
    st = blank()
    show(st, "Tim", "Spain", ["Spain 3", "Open 2"])
    give(st, "Ann", ["Assassin"])
    at(st, "Ann", "specials")
    out = ok(st, "Ann", "ASSASSIN Tim Spain 3")
    assert "Spain" not in out.state["displays"]["Tim"] and "Open 2" in out.state["discard"]


def test_ST_R7_caps_block_special_cards():
    st = blank()
    st["countries"]["Spain"]["status"] = 7
    give(st, "Ann", ["Increase Status"])
    at(st, "Ann", "specials")
    assert "PLAY Increase Status Spain" not in asked(st)["Ann"].legal
    assert not ENGINE.apply(st, "Ann", ["PLAY Increase Status Spain"]).accepted
    out = ok(st, "Ann", "PLAY increase stat France")
    assert out.state["countries"]["France"]["status"] == 4


def test_playing_special_cards_vote_card_vote_resolved_before_the_second_special():
    st = blank()
    show(st, "Ann", "Poland", ["Poland 2"])
    give(st, "Ann", ["Vote", "Military Leader"])
    at(st, "Ann", "specials")
    st = ok(st, "Ann", "PLAY Vote", "CALL Poland ALIGN", "VOTE RED", "PLAY Leader Poland", "CALL Poland SWITCH").state
    assert st["phase"] == "place" and st["queue"]["Ann"] == ["PLAY Leader Poland", "CALL Poland SWITCH"]
    for p in ("Tim", "Martin", "Simon", "Bob"):
        st = ok(st, p, "PLACE NONE").state
    assert st["countries"]["Poland"]["faction"] == "RED" and st["countries"]["Poland"]["leader"]
    assert st["vote"]["n"] == 2 and st["vote"]["origin"] == "mandatory"


# ---------------------------------------------------------------- trade, hand limit, whole turn
def test_ST_R15_trade_offers_secret_then_exact_cards_only_to_the_traders():
    st = blank()
    give(st, "Tim", ["Spain 3", "Vote"])
    give(st, "Martin", ["France 2"])
    at(st, "Tim", "trade")
    st = ok(st, "Tim", "TRADE WANT France").state
    out = ok(st, "Martin", "OFFER GIVE France 2 FOR Spain")
    assert out.events == []
    st = out.state
    for p in ("Simon", "Ann"):
        st = ok(st, p, "NO OFFER").state
    out = ok(st, "Bob", "NO OFFER")
    offers = next(e for e in out.events if e.kind == "offers")
    assert "France 2" not in offers.text and "France" in offers.text
    st = out.state
    assert "ACCEPT Martin GIVING Spain 3" in asked(st)["Tim"].legal
    bad = ENGINE.apply(st, "Tim", ["ACCEPT Martin GIVING Vote"])
    assert not bad.accepted
    out = ok(st, "Tim", "ACCEPT Martin GIVING Spain 3")
    assert "France 2" in out.state["hands"]["Tim"] and "Spain 3" in out.state["hands"]["Martin"]
    pub = next(e for e in out.events if e.kind == "trade")
    assert "Spain 3" not in pub.text and pub.visibility == "public"
    secret = next(e for e in out.events if e.kind == "trade-cards")
    assert set(secret.visibility) == {"Tim", "Martin"}


def test_ST_R16_hand_limit_discard_at_end_of_own_turn():
    st = blank()
    give(
        st,
        "Tim",
        [c for c in tables.ALL_CARD_NAMES if tables.country_of(c) in ("Spain", "France")][:6]
        + ["Poland 1"] * 2
        + ["Denmark 1"] * 3
        + ["Sweden 1"] * 3,
    )
    at(st, "Tim", "discard")
    assert len(st["hands"]["Tim"]) == 14
    assert not ENGINE.apply(st, "Tim", ["DISCARD Poland 1, Poland 1"]).accepted
    out = ok(st, "Tim", "DISCARD poland 1")
    assert len(out.state["hands"]["Tim"]) == 13 and out.state["active"] == "Martin"


def test_the_turn_sequence_whole_turn_in_one_message():
    st = blank()
    show(st, "Tim", "Spain", ["Spain 1", "Spain 3"], desc=True)
    give(st, "Tim", ["England 2", "Military Leader"])
    at(st, "Tim", "remove")
    for p in ("Martin", "Simon", "Ann", "Bob"):
        st = ok(st, p, "STANDING PLACE NONE").state
    out = ok(
        st,
        "Tim",
        "REMOVE Spain 1",
        "NO TRADE",
        "PLAY Military Leader England",
        "CALL England ALIGN PLACE England 2",
        "VOTE RED",
        "DISCARD Poland 1",
    )
    s = out.state
    assert s["countries"]["England"]["faction"] == "RED" and s["countries"]["England"]["leader"]
    assert s["active"] == "Martin"
    assert out.lines[-1].understood.endswith("(not needed: your turn had ended)")


def test_ST_R9_standing_vote_is_used_only_when_it_matches():
    st = england_vote_table()
    st = ok(st, "Martin", "STANDING VOTE England WAR BLUE", "STANDING VOTE ANY ANY RED").state
    st = ok(st, "Simon", "STANDING PLACE NONE EXCEPT France").state
    st = ok(st, "Tim", "CALL England WAR France", "VOTE RED").state
    assert set(asked(st)) == {"Martin", "Ann", "Bob"}
    for p in ("Martin", "Ann", "Bob"):
        st = ok(st, p, "PLACE NONE").state
    assert set(asked(st)) == {"Simon"}
    out = ok(st, "Simon", "VOTE RED")
    ballots = next(e for e in out.events if e.kind == "ballots").data["ballots"]
    assert ballots == {"Tim": "RED", "Martin": "BLUE", "Simon": "RED"}


def test_not_asked_players_are_told_who_is_awaited():
    st = england_vote_table()
    out = ENGINE.apply(st, "Ann", ["VOTE RED"])
    assert not out.accepted and "waiting for Tim" in out.lines[0].reason


# ---------------------------------------------------------------- scoring and the end
def test_scoring_points_example_martin_scores_6():
    st = blank()
    st["counters"]["Martin"] = ["Spain", "England", "Sweden"]
    st["countries"]["England"]["status"], st["countries"]["Sweden"]["status"] = 1, 3
    show(st, "Martin", "England", ["England 2", "England 3"])
    show(st, "Martin", "Sweden", ["Sweden 2", "Sweden 3"])
    show(st, "Martin", "Spain", ["Spain 2"])
    ev = []
    score_turn(st, ev)
    assert st["scores"]["Martin"] == 6
    pub = next(e for e in ev if e.kind == "scores")
    assert pub.data["scores"]["Martin"] == 6 and "Spain" not in pub.text
    mine = next(e for e in ev if e.kind == "score-breakdown" and e.visibility == ("Martin",))
    assert [r[3] for r in mine.data["rows"]] == [2, 1, 3]


def test_ST_R19_two_counters_for_one_country_score_twice():
    st = blank()
    st["counters"]["Tim"] = ["Spain", "Spain"]
    show(st, "Tim", "Spain", ["Spain 3", "Spain 3"])
    score_turn(st, [])
    assert st["scores"]["Tim"] == 10


def test_ST_R4_random_end_and_ST_R20_shared_win():
    ends = 0
    for i in range(30):
        st = blank(seed=f"end{i}")
        st["turn"], st["order_idx"] = 9, len(FIVE)
        ev = []
        end_turn(st, ev)
        roll = next(e for e in ev if e.kind == "random-end").data["roll"]
        assert st["over"] == (roll <= 3)
        ends += st["over"]
    assert 0 < ends < 30
    st = blank()
    st["turn"] = 10
    end_turn(st, [])
    r = ENGINE.result(st)
    assert r and set(r.winners) == set(FIVE)  # everyone on 0 shares the win


def test_checking_for_a_random_end_no_roll_before_turn_7():
    st = blank()
    st["turn"] = 6
    ev = []
    end_turn(st, ev)
    assert not st["over"] and st["turn"] == 7 and not any(e.kind == "random-end" for e in ev)


def test_ST_R21_reshuffle_when_the_deck_runs_out():
    st = blank()
    from pbem.engine.sixteen_thirty.state import draw

    st["discard"], st["deck"] = st["deck"][2:], st["deck"][:2]
    ev = []
    draw(st, "Tim", 4, ev)
    assert len(st["hands"]["Tim"]) == 4 and any(e.kind == "reshuffle" for e in ev)


def test_end_of_turn_removes_leaders_and_unrest_and_passes_the_marker():
    st = blank()
    st["countries"]["Spain"]["leader"] = st["countries"]["France"]["unrest"] = True
    st["turn"], st["first"] = 2, 4
    end_turn(st, [])
    assert not st["countries"]["Spain"]["leader"] and not st["countries"]["France"]["unrest"]
    assert st["first"] == 0 and st["turn"] == 3


def test_game_over_reveals_counters_history_and_seed():
    st = blank()
    st["turn"] = 10
    ev = []
    end_turn(st, ev)
    kinds = [e.kind for e in ev]
    assert "game-over" in kinds and "reveal-seed" in kinds and kinds.count("reveal-counters") == 5
    assert ENGINE.view(st, None)["data"]["counters"]["Tim"] == st["counters"]["Tim"]


def test_views_hide_other_players_hands_and_counters():
    st, _ = ENGINE.setup(FIVE, "v", {})
    v = ENGINE.view(st, "Tim")
    assert v["data"]["hand"] == st["hands"]["Tim"] and "counters" not in v["data"]
    assert v["data"]["my_counters"] == st["counters"]["Tim"]
    assert "hand" not in ENGINE.view(st, None)["data"]


def test_apply_is_all_or_nothing():
    st = england_vote_table()
    before = clone(st)
    out = ENGINE.apply(st, "Tim", ["CALL England WAR France", "VOTE PURPLE"])
    assert not out.accepted and out.state is st and st == before


@pytest.mark.parametrize(
    "line", ["PLAY Assassin Tim Open 2 FROM Spain", "ASSASSIN Tim Spain Open 2", "assassin tim spa open 2"]
)
def test_ST_R14_assassin_order_forms_name_the_pile(line):
    st = blank()
    show(st, "Tim", "Spain", ["Spain 3", "Open 2"])
    show(st, "Tim", "France", ["France 1", "Open 1"])
    give(st, "Ann", ["Assassin"])
    at(st, "Ann", "specials")
    out = ok(st, "Ann", line)
    assert out.lines[0].understood == "PLAY Assassin Tim Open 2 FROM Spain"
    assert out.state["displays"]["Tim"]["Spain"]["cards"] == ["Spain 3"]


def test_ST_R13_remove_open_card_names_its_pile():
    st = blank()
    show(st, "Tim", "Spain", ["Spain 3", "Spain 1", "Open 2"], desc=True)
    at(st, "Tim", "remove")
    out = ok(st, "Tim", "REMOVE Spain Open 2")
    assert out.lines[0].understood == "REMOVE Open 2 FROM Spain"


def test_ST_R15_offer_with_show_publishes_values_and_request_can_be_revised():
    st = blank(["Tim", "Martin", "Simon"])
    give(st, "Tim", ["Spain 3"])
    give(st, "Martin", ["France 2"])
    give(st, "Simon", ["Poland 1"])
    at(st, "Tim", "trade")
    st = ok(st, "Tim", "TRADE WANT France").state
    st = ok(st, "Martin", "OFFER GIVE France 2 FOR Spain SHOW").state
    st = ok(st, "Tim", "TRADE WANT France 2, Open").state  # revision: offers asked again
    assert set(asked(st)) == {"Martin", "Simon"} and st["trade"]["revisions"] == 1
    st = ok(st, "Martin", "OFFER GIVE France 2 FOR Spain SHOW").state
    out = ok(st, "Simon", "OFFER GIVE Poland 1 FOR NOTHING")
    offers = next(e for e in out.events if e.kind == "offers")
    assert "France 2" in offers.text and "Poland 1" not in offers.text and "(Poland)" in offers.text
    out = ok(out.state, "Tim", "ACCEPT Simon GIVING NOTHING")
    assert "Poland 1" in out.state["hands"]["Tim"]


def test_ST_R15_at_most_three_cards_each_way_and_one_must_move():
    st = blank(["Tim", "Martin", "Simon"])
    give(st, "Martin", ["France 1", "France 2", "France 3", "Poland 1"])
    at(st, "Tim", "trade")
    st = ok(st, "Tim", "TRADE WANT ANY").state
    assert not ENGINE.apply(st, "Martin", ["OFFER GIVE France 1, France 2, France 3, Poland 1 FOR ANY"]).accepted
    assert not ENGINE.apply(st, "Martin", ["OFFER GIVE NOTHING FOR NOTHING"]).accepted
    assert not ENGINE.apply(st, "Martin", ["OFFER GIVE Poland 1 FOR ANY, ANY, ANY, ANY"]).accepted


def test_orders_kept_for_later_survive_a_trade_answer_and_are_used_in_order():
    st = blank()
    give(st, "Tim", ["Spain 3", "Poland 2", "Military Leader"])
    give(st, "Martin", ["France 2"])
    at(st, "Tim", "trade")
    st = ok(st, "Tim", "TRADE WANT France", "PLAY Leader Poland", "CALL Poland ALIGN PLACE Poland 2").state
    assert st["queue"]["Tim"] == ["PLAY Leader Poland", "CALL Poland ALIGN PLACE Poland 2"]
    for p in ("Martin", "Simon", "Ann", "Bob"):
        st = ok(st, p, "OFFER GIVE France 2 FOR Spain" if p == "Martin" else "NO OFFER").state
    out = ok(st, "Tim", "ACCEPT Martin GIVING Spain 3")
    s = out.state
    assert s["countries"]["Poland"]["leader"] and s["vote"]["country"] == "Poland" and s["phase"] == "place"
    assert [e.kind for e in out.events].count("pre-order") == 2


def test_deadline_defaults_keep_pre_submitted_orders():
    st = blank()
    give(st, "Tim", ["Poland 2"])
    at(st, "Tim", "trade")
    st = ok(st, "Tim", "TRADE WANT ANY", "CALL Poland ALIGN PLACE Poland 2").state
    out = ENGINE.timeout(st)  # every offer defaults to NO OFFER, so the window closes
    assert out.state["vote"]["country"] == "Poland"


# ---------------------------------------------------------------- issue 14: the four rulings as written
def test_ST_R9_locked_ballot_refuses_a_later_vote_in_placement_and_voting_round():
    """ST-R9 speed option: a player may send PLACE and VOTE together (the caller: CALL and VOTE);
    the vote is then locked. A locked vote cannot be changed by any later message, in the
    placement round or the voting round; a later VOTE from that player is refused with the
    reason, and the player is not asked again in the voting round."""
    st = england_vote_table()
    give(st, "Martin", ["England 1"])
    st = ok(st, "Tim", "CALL England WAR France", "VOTE RED").state
    st = ok(st, "Martin", "PLACE England 1", "VOTE BLUE").state
    (martin,) = [r for r in ENGINE.requests(st) if r.player == "Martin"]  # the ack's "on file" shows both
    assert martin.on_file == ("PLACE England 1", "VOTE BLUE (locked)")
    # placement round: the caller and a placer both try to change their locked ballot
    for who, line in (("Tim", "VOTE BLUE"), ("Martin", "vote red")):
        out = ENGINE.apply(st, who, [line])
        assert not out.accepted and out.state is st
        r = out.lines[0]
        assert r.line == line and "locked" in r.reason and "ST-R9" in r.reason
    assert "with your call" in ENGINE.apply(st, "Tim", ["VOTE BLUE"]).lines[0].reason
    martin = ENGINE.apply(st, "Martin", ["VOTE RED"]).lines[0]
    assert "PLACE NONE" in martin.legal and "PLACE England 1" in martin.legal  # what is still legal
    st = ok(st, "Martin", "PLACE England 1").state  # the placement may still be revised; the vote stays
    for p in ("Simon", "Ann", "Bob"):
        st = ok(st, p, "PLACE NONE").state
    # voting round: Tim and Martin are not asked again, and a VOTE from them is refused
    assert st["phase"] == "ballot" and set(asked(st)) == {"Simon"}
    assert {r.player for r in ENGINE.requests(st) if not r.answered} == {"Simon"}
    # they take part, answered, their locked ballot on file: mailed when the vote resolves, shown in their ack
    locked = {r.player: r.on_file for r in ENGINE.requests(st) if r.answered}
    assert locked == {"Tim": ("VOTE RED (locked)",), "Martin": ("VOTE BLUE (locked)",)}
    for who, line in (("Martin", "VOTE RED"), ("Tim", "VOTE BLUE")):
        out = ENGINE.apply(st, who, [line])
        assert not out.accepted and "locked" in out.lines[0].reason
        assert "nothing more is asked of you" in out.lines[0].reason
    out = ok(st, "Simon", "VOTE BLUE")
    ballots = next(e for e in out.events if e.kind == "ballots").data
    assert ballots["ballots"] == {"Tim": "RED", "Martin": "BLUE", "Simon": "BLUE"}
    assert ballots["totals"] == {"RED": 7, "BLUE": 12} and ballots["winner"] == "BLUE"


def test_ST_R9_a_second_vote_in_the_same_message_is_refused_too():
    """ST-R9: the lock holds from the VOTE line on; a second VOTE cannot change it."""
    st = england_vote_table()
    st = ok(st, "Tim", "CALL England SWITCH").state
    out = ENGINE.apply(st, "Martin", ["PLACE NONE", "VOTE RED", "VOTE BLUE"])
    assert not out.accepted and [r.ok for r in out.lines] == [True, True, False]


def test_ST_R13_assassin_on_ones_own_pile_must_take_the_open_card_first():
    """ST-R13: a player removing a card from their own pile may not remove the last named card
    while an Open card remains; this includes an Assassin played on the player's own pile (it
    must take an Open card first, so it cannot clear a pile of two or more cards at once)."""
    st = blank()
    show(st, "Ann", "England", ["England 2", "Open 2"], desc=True)
    show(st, "Tim", "Spain", ["Spain 3", "Open 1"])
    give(st, "Ann", ["Assassin"])
    at(st, "Ann", "specials")
    legal = asked(st)["Ann"].legal
    assert "PLAY Assassin Ann England 2" not in legal and "PLAY Assassin Ann Open 2 FROM England" in legal
    assert "PLAY Assassin Tim Spain 3" in legal  # another player's pile: any card
    out = ENGINE.apply(st, "Ann", ["PLAY Assassin Ann England 2"])
    assert not out.accepted and out.state is st
    r = out.lines[0]
    assert "Open card first" in r.reason and "ST-R13" in r.reason
    assert "PLAY Assassin Ann Open 2 FROM England" in r.legal
    out = ok(st, "Ann", "PLAY Assassin Ann Open 2 FROM England")
    assert out.state["displays"]["Ann"]["England"] == {"cards": ["England 2"], "desc": True}


def test_ST_R15_a_trade_request_may_be_revised_twice_and_a_third_revision_is_refused():
    """ST-R15: the phasing player may revise the request during the window, at most twice (so
    that a turn cannot be held open); the handbook states the limit and a third revision is
    refused with the reason."""
    st = blank(["Tim", "Martin", "Simon"])
    give(st, "Tim", ["Spain 3"])
    give(st, "Martin", ["France 2"])
    at(st, "Tim", "trade")
    st = ok(st, "Tim", "TRADE WANT France").state
    for n, want in ((1, "France 2"), (2, "Open")):
        st = ok(st, "Martin", "OFFER GIVE France 2 FOR Spain").state
        st = ok(st, "Simon", "NO OFFER").state
        assert st["phase"] == "accept"
        assert any("revise" in x for x in asked(st)["Tim"].syntax)
        st = ok(st, "Tim", f"TRADE WANT {want}").state
        assert st["trade"]["revisions"] == n and st["phase"] == "offers"
    third = ENGINE.apply(st, "Tim", ["TRADE WANT Spain"])  # a third revision while offers are open
    assert not third.accepted and "2 times" in third.lines[0].reason and "ST-R15" in third.lines[0].reason
    st = ok(st, "Martin", "OFFER GIVE France 2 FOR Spain").state
    st = ok(st, "Simon", "NO OFFER").state
    req = asked(st)["Tim"]
    assert not any("revise" in x for x in req.syntax) and "both revisions" in req.prompt
    third = ENGINE.apply(st, "Tim", ["TRADE WANT Spain"])
    assert not third.accepted and third.lines[0].line == "TRADE WANT Spain"
    assert "ST-R15" in third.lines[0].reason
    assert third.lines[0].legal == ("DECLINE ALL", "ACCEPT Martin GIVING Spain 3")
    assert "at most TWICE per turn" in ENGINE.handbook()


def test_ST_R21_deck_and_discard_both_empty_draw_what_there_is():
    """ST-R21: if the deck and the discard pile are both empty (possible with six players, whose
    hands can hold 78 cards), the player draws what there is; the shortfall is not made up
    later. The report says how many cards were drawn and why fewer than four."""
    st = blank(["A", "B", "C", "D", "E", "F"])
    st["deck"], st["discard"] = st["deck"][:2], []
    at(st, "A", "remove")
    out = ok(st, "A", "NO TRADE")  # forced phase 1 (no descendant pile), the draw, then phase 3
    s = out.state
    assert len(s["hands"]["A"]) == 2 and s["deck"] == [] and s["discard"] == []
    draw = next(e for e in out.events if e.kind == "draw")
    assert draw.visibility == "public" and draw.data["count"] == 2
    assert "draws 2 cards instead of 4" in draw.text and "both empty" in draw.text and "ST-R21" in draw.text
    assert not any(e.kind == "reshuffle" for e in out.events)
    # the shortfall is not made up later: once cards reach the discard pile, the next draw is a plain one
    s["discard"] = ["Vote", "Unrest", "Spain 1", "Spain 2", "Spain 3"]
    ev = []
    from pbem.engine.sixteen_thirty.state import draw as draw_cards

    draw_cards(s, "A", 4, ev)
    assert len(s["hands"]["A"]) == 6 and len(s["discard"] + s["deck"]) == 1
    assert "short" not in str(ev) and "ST-R21" not in next(e for e in ev if e.kind == "draw").text
    hb = ENGINE.handbook()
    assert "both empty" in hb and "ST-R21" in hb


def test_handbook_states_the_lock_the_revision_limit_and_the_short_draw():
    """Issue 14: `pbem rules sixteen-thirty` and HELP (both the engine's handbook) state ST-R9's
    lock, ST-R15's two revisions, ST-R21's short draw and ST-R13 for an Assassin on one's own pile."""
    hb = " ".join(ENGINE.handbook().split())
    assert "LOCKED BALLOT (ST-R9)" in hb and "a later VOTE is refused" in hb
    assert "at most TWICE per turn" in hb and "a third TRADE WANT is refused (ST-R15)" in hb
    assert "you draw what there is" in hb and "the shortfall is not made up later" in hb
    assert "take the Open card first" in hb


@pytest.mark.parametrize(
    "line", ["Military Leader England", "military leader eng", "Increase Army Size England", "INCREASE_ARMY England"]
)
def test_a_special_card_named_as_the_hand_shows_it_without_play_is_played(line):
    """The handbook says Specials are written with or without PLAY; a player writing the card's own name
    ("Military Leader Spain") had the line set aside as chatter and the turn went on without the card."""
    from pbem.orders.extract import extract

    assert extract(line, "", ENGINE.order_words).orders, "read as an order, not as chatter"
    st = blank()
    show(st, "Tim", "Spain", ["Spain 1", "Spain 3"], desc=True)
    card = "Military Leader" if "leader" in line.lower() else "Increase Army Size"
    give(st, "Tim", ["England 2", card])
    at(st, "Tim", "remove")
    for p in ("Martin", "Simon", "Ann", "Bob"):
        st = ok(st, p, "STANDING PLACE NONE").state
    out = ok(st, "Tim", "REMOVE Spain 1", "NO TRADE", line)
    assert card not in out.state["hands"]["Tim"], out.lines[-1]


def test_ST_R9_the_caller_whose_ballot_was_locked_is_mailed_when_the_vote_resolves():
    """Found by the players' testers: when every ballot came locked with the CALL and the placements, the vote
    resolved on the last placement with no ballot round, and the caller, asked nothing since the CALL, got no
    mail of their own vote's result (the README promises one)."""
    from pbem.app.notify import told

    st = england_vote_table()
    st = ok(st, "Tim", "CALL England WAR France", "VOTE RED").state
    voters = {"Martin", "Simon"}  # with a pile in England: each locks a ballot with the placement
    waiting = sorted(asked(st), key=lambda p: p in voters)
    for p in waiting[:-1]:
        st = ok(st, p, "PLACE NONE", *(["VOTE BLUE"] if p in voters else [])).state
    last = waiting[-1]
    out = ok(st, last, "PLACE NONE", "VOTE BLUE")
    assert any(e.kind == "ballots" for e in out.events), "the vote resolved on the last placement"
    mailed = told(ENGINE, st, out.state, list(st["players"]), out.events, mover=last)
    assert "Tim" in mailed, mailed
