"""Sixteen Thirty Something scenarios, DATC-style: each case is a set-up state, the orders, and
the exact outcome. Names cite the rulebook section or the ruling (docs/rulings.md, Sixteen Thirty Something); each
docstring quotes the rule text it checks. They add the corners the rule tests in
tests/engine/test_sixteen_thirty_rules.py do not reach: ties in wars and in WAR votes, REARM,
forced removals that empty a pile, reshuffles in the middle of a draw, the hand limit at its
boundary, short starting placements, a Vote card with nothing to vote with, the last turn, and
the defaults when nobody answers."""

from __future__ import annotations

import pytest

from pbem.engine.rng import Rng
from pbem.engine.sixteen_thirty import ENGINE, wars
from pbem.engine.sixteen_thirty.state import draw, goto, influence
from pbem.engine.sixteen_thirty.turn import advance, end_turn
from tests.engine.test_sixteen_thirty_rules import FIVE, asked, at, blank, england_vote_table, give, ok, show


def everyone_places_none(st: dict, but: str) -> dict:
    for p in FIVE:
        if p != but:
            st = ok(st, p, "PLACE NONE").state
    return st


def test_ST_R12_a_tied_war_costs_both_armies_one_and_nothing_else() -> None:
    """Resolving a War: "If the result is a tie then both countries reduce their Army Size by one".
    ST-R12: "Tie: both lose 1 Army Size (floor 0). No Status changes and no Military Ability is lost.\""""
    st = blank()
    k = st["countries"]
    k["France"].update(faction="RED", army=2, ability=1)
    k["Spain"].update(faction="BLUE", army=1, ability=1)
    n = 0
    while True:  # a generator position where |d1 - d2| is equal for both sides
        probe = Rng({"seed": st["rng"]["seed"], "n": n})
        d = [probe.die() for _ in range(4)]
        if abs(d[0] - d[1]) == abs(d[2] - d[3]):
            break
        n += 1
    st["rng"]["n"] = n
    ev: list = []
    wars.resolve_war(st, "France", "Spain", ev)
    assert (k["France"]["army"], k["Spain"]["army"]) == (1, 0)
    assert (k["France"]["status"], k["Spain"]["status"], k["France"]["ability"], k["Spain"]["ability"]) == (3, 5, 1, 1)
    assert k["France"]["faction"] == "RED" and k["Spain"]["faction"] == "BLUE"


def test_ST_R9_a_tied_WAR_vote_is_peace_and_nobody_loses() -> None:
    """ST-R9.4: "A tie has no effect and produces no losers." ST-R10: the tie of a WAR vote is peace.
    Tim 7 RED, Martin 7 BLUE (Simon has no pile): no war, no pile turns descendant."""
    st = england_vote_table()
    st["displays"]["Martin"]["England"]["cards"] = ["England 2", "England 2", "England 3"]
    del st["displays"]["Simon"]["England"]
    st = ok(st, "Tim", "CALL England WAR France", "VOTE RED").state
    st = everyone_places_none(st, "Tim")
    out = ok(st, "Martin", "VOTE BLUE")
    ballots = next(e for e in out.events if e.kind == "ballots").data
    assert ballots["totals"] == {"RED": 7, "BLUE": 7} and ballots["winner"] is None
    assert not any(e.kind in ("war", "descendant") for e in out.events)
    s = out.state
    assert not s["displays"]["Tim"]["England"]["desc"] and not s["displays"]["Martin"]["England"]["desc"]
    assert s["countries"]["England"]["army"] == 1 and s["countries"]["France"]["status"] == 3


def test_ST_R10_a_won_REARM_vote_gives_army_1_and_the_losers_piles_turn() -> None:
    """ST-R10: "In a faction, Army = 0: REARM: RED Army becomes 1, BLUE no change." ST-R9.5: "Each
    loser's ascendant pile turns descendant.\""""
    st = england_vote_table()
    st["countries"]["England"]["army"] = 0
    assert "CALL England REARM" in asked(st)["Tim"].legal
    st = ok(st, "Tim", "CALL England REARM", "VOTE RED").state
    st = everyone_places_none(st, "Tim")
    st = ok(st, "Martin", "VOTE RED").state
    out = ok(st, "Simon", "VOTE BLUE")
    s = out.state
    assert s["countries"]["England"]["army"] == 1 and any(e.kind == "rearm" for e in out.events)
    assert s["displays"]["Simon"]["England"]["desc"] and not s["displays"]["Martin"]["England"]["desc"]


def test_ST_R13_a_descendant_loser_with_one_named_card_and_an_open_loses_the_open_automatically() -> None:
    """ST-R13: "A player removing a card from their own pile may not remove the last named card while
    an Open card remains ... If only identical cards are eligible, the removal is made automatically."
    Simon's descendant pile [England 2, Open 1] loses the vote: Open 1 goes without a question."""
    st = england_vote_table()
    st["displays"]["Simon"]["England"] = {"cards": ["England 2", "Open 1"], "desc": True}
    st = ok(st, "Tim", "CALL England SWITCH", "VOTE RED").state
    st = everyone_places_none(st, "Tim")
    st = ok(st, "Martin", "VOTE RED").state
    out = ok(st, "Simon", "VOTE BLUE")
    assert out.state["displays"]["Simon"]["England"] == {"cards": ["England 2"], "desc": True}
    assert out.state["phase"] != "lose" and any("Open 1" in e.text for e in out.events if e.kind == "remove")


def test_ST_R14_unrest_on_a_descendant_pile_of_one_card_removes_the_pile() -> None:
    """ST-R14: "Unrest hits the player or players with the highest total influence in the country
    (every tied player), under ST-R13." ST-R13: "An emptied pile disappears, and a new ascendant pile
    for that country may be started later.\""""
    st = blank()
    show(st, "Tim", "Spain", ["Spain 2"], desc=True)
    show(st, "Martin", "Spain", ["Spain 1"])
    give(st, "Ann", ["Unrest"])
    at(st, "Ann", "specials")
    out = ok(st, "Ann", "PLAY Unrest Spain")
    s = out.state
    assert "Spain" not in s["displays"]["Tim"] and s["displays"]["Martin"]["Spain"] == {
        "cards": ["Spain 1"],
        "desc": False,
    }
    assert s["phase"] != "lose" and "Spain 2" in s["discard"] and s["countries"]["Spain"]["unrest"]


def test_ST_R14_one_leader_per_country_and_the_caps_of_ST_R7() -> None:
    """ST-R14: "At most one Leader counter and one Unrest counter per country." ST-R7: "Army Size 0-5,
    Military Ability 0-3. A Special card that would push a value past its cap cannot be played.\""""
    st = blank()
    st["countries"]["Sweden"].update(army=5, ability=3, leader=True)
    give(st, "Ann", ["Military Leader", "Increase Army Size", "Military Improvement"])
    at(st, "Ann", "specials")
    legal = asked(st)["Ann"].legal
    for line in ("PLAY Military Leader Sweden", "PLAY Increase Army Size Sweden", "PLAY Military Improvement Sweden"):
        assert line not in legal and not ENGINE.apply(st, "Ann", [line]).accepted
    assert "PLAY Increase Army Size Poland" in legal


def test_ST_R11_a_vote_card_with_nothing_to_vote_with_cannot_be_played_and_phase_5_is_skipped() -> None:
    """ST-R11: "if the phasing player has no pile anywhere and no Influence card in hand (an Open card
    alone cannot start a pile), Phase 5 is skipped. A Vote card follows the same eligibility rules.\""""
    st = blank()
    give(st, "Tim", ["Vote", "Open 2"])
    at(st, "Tim", "specials")
    assert not ENGINE.apply(st, "Tim", ["PLAY Vote"]).accepted
    ev: list = []
    advance(st, ev)
    assert any(e.kind == "no-vote" for e in ev) and st["active"] == "Martin" and "Vote" in st["hands"]["Tim"]


def test_ST_R21_the_deck_runs_out_in_the_middle_of_a_draw() -> None:
    """The Deck: "If the deck is exhausted then shuffle the discard pile and place it face down to make
    a new deck." ST-R21: "the reshuffle happens the moment a draw is needed." One card left, five in
    the discard pile: draw 1, reshuffle 5, draw 3."""
    st = blank()
    st["discard"], st["deck"] = st["deck"][1:6], st["deck"][:1]
    ev: list = []
    draw(st, "Tim", 4, ev)
    assert len(st["hands"]["Tim"]) == 4 and len(st["deck"]) == 2 and st["discard"] == []
    assert [e.kind for e in ev].count("reshuffle") == 1
    assert next(e for e in ev if e.kind == "draw").text == "Tim draws 4 cards."


def test_ST_R16_a_hand_of_exactly_thirteen_needs_no_discard() -> None:
    """Phase 6: "must end their turn with no more than thirteen cards in their hand". ST-R16: checked
    at the end of the player's own phases 1-5."""
    st = blank()
    give(st, "Tim", [c for c in st["deck"] if c.startswith(("Poland", "Sweden"))][:13])
    at(st, "Tim", "discard")
    advance(st, [])
    assert st["active"] == "Martin" and len(st["hands"]["Tim"]) == 13 and st["discard"] == []


def test_ST_R16_nmr_discards_the_lowest_value_cards() -> None:
    """RULINGS 5.3 NMR: "Card choices: the lowest-value card". Fifteen cards: the two lowest go."""
    st = blank()
    cards = ["Spain 3"] * 3 + ["France 3"] * 3 + ["England 3"] * 3 + ["Poland 2"] * 4 + ["Sweden 1", "Denmark 1"]
    give(st, "Tim", cards)
    at(st, "Tim", "discard")
    out = ENGINE.timeout(st)
    assert sorted(out.state["discard"]) == ["Denmark 1", "Sweden 1"] and out.state["active"] == "Martin"


def test_ST_R8_fewer_than_three_influence_cards_places_all_it_can() -> None:
    """Starting the game: "If a player does not have enough Influence Cards to place down then he must
    place down as many as he has." An Open card needs a named card (ST-R8); specials never count."""
    st = blank(["A", "B", "C"])
    goto(st, "start")
    st["active"] = None
    give(st, "A", ["Spain 2", "Open 1", "Vote", "Unrest"])
    give(st, "B", ["Open 2", "Assassin"])
    give(st, "C", ["France 1", "France 2", "Poland 3", "Open 1"])
    assert not ENGINE.apply(st, "A", ["PLACE-START Spain 2"]).accepted  # two must be placed
    reqs = {r.player: r for r in ENGINE.requests(st)}
    assert reqs["B"].default == ("PLACE-START NONE",) and reqs["B"].legal == ("PLACE-START NONE",)
    st = ok(st, "A", "PLACE-START Spain 2, Open 1").state
    st = ok(st, "B", "PLACE-START NONE").state
    out = ok(st, "C", "PLACE-START France 2, Poland 3, Open 1 ON Poland")
    d = out.state["displays"]
    assert d["A"] == {"Spain": {"cards": ["Spain 2", "Open 1"], "desc": False}} and d["B"] == {}
    assert influence(out.state, "C", "Poland") == 4 and out.state["hands"]["B"] == ["Open 2", "Assassin"]


def test_ST_ballot_nmr_defaults_are_the_status_quo() -> None:
    """RULINGS 5.3 NMR: "Vote: the status quo, meaning peace, no rearming, and keeping the current
    faction. For ALIGN, BLUE." A SWITCH vote in red England with no ballots: everyone votes RED."""
    st = england_vote_table()
    st = ok(st, "Tim", "CALL England SWITCH").state
    st = everyone_places_none(st, "Tim")
    assert {r.default for r in asked(st).values()} == {("VOTE RED",)}
    out = ENGINE.timeout(st)
    ballots = next(e for e in out.events if e.kind == "ballots").data
    assert set(ballots["ballots"].values()) == {"RED"} and out.state["countries"]["England"]["faction"] == "RED"
    assert not any(pl["desc"] for p in FIVE for pl in out.state["displays"][p].values())


def test_ST_mandatory_vote_nmr_calls_in_the_country_of_the_largest_pile() -> None:
    """Phase 5: "The player MUST call a vote in one country ... A player cannot choose to pass."
    RULINGS 5.3 NMR: "an ALIGN or SWITCH vote in the country where the player has the largest pile.\""""
    st = blank()
    show(st, "Tim", "Poland", ["Poland 1"])
    show(st, "Tim", "Sweden", ["Sweden 3", "Sweden 2"])
    st["countries"]["Sweden"]["faction"] = "BLUE"
    at(st, "Tim", "call", "vote1.call")
    st["call_origin"] = "mandatory"
    assert asked(st)["Tim"].default == ("CALL Sweden SWITCH",)
    out = ENGINE.timeout(st)
    assert out.state["vote"]["country"] == "Sweden" and out.state["vote"]["issue"] == "SWITCH"


def test_ST_trade_window_nmr_every_offer_is_no_offer_and_the_turn_goes_on() -> None:
    """ST-R15 offers are made "during a fixed window"; RULINGS 5.3 NMR: "Trade: none." Nobody answers:
    the window closes with no offers and the phasing player goes on to Phase 4."""
    st = blank()
    give(st, "Tim", ["Military Leader"])
    at(st, "Tim", "trade")
    st = ok(st, "Tim", "TRADE WANT ANY").state
    out = ENGINE.timeout(st)
    offers = next(e for e in out.events if e.kind == "offers")
    assert all(v is None for v in offers.data["offers"].values()) and out.state["phase"] == "specials"
    assert out.state["active"] == "Tim" and out.state["hands"]["Tim"] == ["Military Leader"]


def test_ST_R4_the_last_turn_is_scored_before_the_game_ends() -> None:
    """Turn track: "The game will automatically end at the end of game turn 10." ST-R4: the end comes
    "after scoring ... so the last turn's points always count." ST-R20: tied leaders share the win."""
    st = blank()
    st["turn"] = 10
    st["counters"]["Tim"], st["counters"]["Martin"] = ["Spain"], ["France"]
    show(st, "Tim", "Spain", ["Spain 3"])
    show(st, "Martin", "France", ["France 3"])
    st["scores"].update(Tim=10, Martin=10)
    ev: list = []
    end_turn(st, ev)
    r = ENGINE.result(st)
    assert r.scores["Tim"] == 13 and r.scores["Martin"] == 13 and set(r.winners) == {"Tim", "Martin"}
    kinds = [e.kind for e in ev]
    assert kinds.index("scores") < kinds.index("game-over") and not any(e.kind == "random-end" for e in ev)


def test_ST_R9_two_descendant_losers_choose_at_the_same_time_and_nmr_takes_the_lowest() -> None:
    """ST-R9.5: "A pile that was already descendant loses 1 card of the owner's choice (ST-R13). Several
    losers choose at the same time." RULINGS 5.3 NMR: "the lowest-value card, with Open cards first
    where ST-R13 allows.\""""
    st = england_vote_table()
    st["displays"]["Martin"]["England"] = {"cards": ["England 2", "England 3"], "desc": True}
    st["displays"]["Simon"]["England"] = {"cards": ["England 1", "England 1", "Open 1"], "desc": True}
    give(st, "Tim", ["England 2"])
    st = ok(st, "Tim", "CALL England SWITCH PLACE England 2", "VOTE RED").state
    st = everyone_places_none(st, "Tim")
    st = ok(st, "Martin", "VOTE BLUE").state
    st = ok(st, "Simon", "VOTE BLUE").state  # Tim 9 RED against Martin 5 + Simon 3 BLUE
    assert st["phase"] == "lose" and set(asked(st)) == {"Martin", "Simon"}
    assert asked(st)["Simon"].default == ("LOSE Open 1 FROM England",)
    st = ok(st, "Martin", "LOSE England 3").state
    assert st["phase"] == "lose" and set(asked(st)) == {"Simon"}  # Martin's choice stays secret
    out = ENGINE.timeout(st)
    lost = [(e.data["player"], e.data["cards"], e.data["left"]) for e in out.events if e.kind == "remove"]
    assert lost[:2] == [("Martin", ["England 3"], 2), ("Simon", ["Open 1"], 2)]
    assert out.state["countries"]["England"]["faction"] == "RED"


def test_ST_R19_descendant_piles_score_and_a_counter_without_a_pile_scores_nothing() -> None:
    """Scoring Points: "A player only scores points for the lowest of these two values." ST-R19:
    "the player gains min(Status, total influence in that country). Descendant piles count.\""""
    st = blank()
    st["counters"]["Ann"] = ["France", "Poland", "Denmark"]
    show(st, "Ann", "France", ["France 3", "France 2"], desc=True)  # min(status 3, influence 5) = 3
    show(st, "Ann", "Denmark", ["Denmark 1"])  # min(status 1, 1) = 1; Poland: no pile, 0
    ev: list = []
    from pbem.engine.sixteen_thirty.turn import score_turn

    score_turn(st, ev)
    mine = next(e for e in ev if e.kind == "score-breakdown" and e.visibility == ("Ann",))
    assert [r[3] for r in mine.data["rows"]] == [3, 0, 1] and st["scores"]["Ann"] == 4


def test_ST_R9_an_open_card_placed_in_a_vote_needs_a_named_pile() -> None:
    """ST-R9.2: placements follow the pile rules of ST-R8: "an Open card only in a pile that has a
    named card"; "A descendant pile cannot be added to, and no second pile may be started.\""""
    st = england_vote_table()
    give(st, "Ann", ["Open 2"])
    give(st, "Martin", ["Open 1"])
    st = ok(st, "Tim", "CALL England SWITCH").state
    assert "PLACE Open 2" not in asked(st)["Ann"].legal
    out = ENGINE.apply(st, "Ann", ["PLACE Open 2"])
    assert not out.accepted and "named England card" in out.lines[0].reason
    st = ok(st, "Martin", "PLACE Open 1").state
    for p in ("Simon", "Ann", "Bob"):
        st = ok(st, p, "PLACE NONE").state
    assert influence(st, "Martin", "England") == 6 and "Open 1" in st["displays"]["Martin"]["England"]["cards"]


def test_ST_R14_assassin_on_another_players_single_card_pile_removes_the_pile() -> None:
    """Special cards: "Assasin - The player removes one Influence Card from any one pile on the table".
    ST-R13: "An emptied pile disappears, and a new ascendant pile for that country may be started later.\""""
    st = blank()
    show(st, "Tim", "Poland", ["Poland 3"], desc=True)
    give(st, "Ann", ["Assassin"])
    at(st, "Ann", "specials")
    st = ok(st, "Ann", "PLAY Assassin Tim Poland 3").state
    assert "Poland" not in st["displays"]["Tim"] and "Poland 3" in st["discard"] and "Assassin" in st["discard"]


@pytest.mark.parametrize(
    "card,key,cap",
    [("Military Improvement", "ability", 3), ("Increase Army Size", "army", 5), ("Increase Status", "status", 7)],
)
def test_ST_R7_each_raising_card_reaches_its_cap_and_no_further(card: str, key: str, cap: int) -> None:
    """Special cards: "Military Improvement", "Increase Army Size", "Increase Status" each add one.
    ST-R7: "Status 0-7, Army Size 0-5, Military Ability 0-3. A Special card that would push a value
    past its cap cannot be played on that country." One below the cap: the first card reaches it,
    the second is refused with the legal targets, which no longer include that country."""
    st = blank()
    st["countries"]["Denmark"][key] = cap - 1
    give(st, "Ann", [card, card])
    at(st, "Ann", "specials")
    st = ok(st, "Ann", f"PLAY {card} Denmark").state
    assert st["countries"]["Denmark"][key] == cap and st["specials_played"] == 1
    out = ENGINE.apply(st, "Ann", [f"PLAY {card} Denmark"])
    assert not out.accepted and "ST-R7" in out.lines[0].reason
    assert f"PLAY {card} Denmark" not in out.lines[0].legal and f"PLAY {card} Poland" in out.lines[0].legal
