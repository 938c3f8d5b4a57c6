"""Dynasties scenarios, DATC-style: each case is a set-up state, the orders, and the exact
outcome. Names cite the rulebook phase or the ruling (docs/rulings.md, Dynasties); each docstring
quotes the rule text it checks. They add the corners the rule tests in
tests/engine/test_dynasties_rules.py do not reach: tribute ties of every shape, powers on an
empty Stakes, the Coronation's activation, the last Conclusion, and the defaults when nobody
answers."""

from __future__ import annotations

from tests.engine.test_dynasties_rules import E, gold_total, ok, scenario, texts, turn


def tribute_all(st: dict, lines: dict[str, str]) -> tuple[dict, list]:
    ev: list = []
    for p, card in lines.items():
        st, more = ok(st, p, f"TRIBUTE {card}")
        ev += more
    return st, ev


def test_DY_R9_two_pairs_tied_no_unique_value_next_tied_seat_after_previous_first() -> None:
    """TRIBUTE PHASE: "Where tied for highest, the second highest Tribute wins first play". DY-R9: the
    First Player owns the highest value held by exactly one player; "If no value is unique: among the
    players tied at H, the First Player is the first one in seat order starting from the seat after
    the previous First Player." 9, 9, 5, 5: no unique value; after Cid (the previous First Player)
    the first seat tied at 9 is Ann (Dee holds a 5), so Ann."""
    st = scenario(
        {
            "Ann": ["Copper 9", "Copper 2"],
            "Bob": ["Gold 9", "Gold 2"],
            "Cid": ["Copper 5", "Copper 3"],
            "Dee": ["Gold 5", "Gold 3"],
        },
        gambit=2,
    )
    st["first"] = "Cid"
    st, _ = tribute_all(st, {"Ann": "Copper 9", "Bob": "Gold 9", "Cid": "Copper 5", "Dee": "Gold 5"})
    assert st["first"] == "Ann" and st["stakes"] == 36
    assert st["treasury"] == {"Ann": 41, "Bob": 41, "Cid": 41, "Dee": 41}


def test_DY_R9_the_unique_value_may_be_the_lowest_tribute() -> None:
    """DY-R9: "The First Player is the owner of the highest value held by exactly one player" (the
    saraid 3DA precedent). 9, 9, 5, 5, 2: only 2 is unique, so Eve plays first; everyone pays 9."""
    st = scenario(
        {
            "Ann": ["Copper 9", "Copper 3"],
            "Bob": ["Gold 9", "Gold 3"],
            "Cid": ["Copper 5", "Copper 4"],
            "Dee": ["Gold 5", "Gold 4"],
            "Eve": ["Silver 2", "Silver 3"],
        },
        gambit=2,
    )
    st["first"] = "Ann"
    st, _ = tribute_all(st, {"Ann": "Copper 9", "Bob": "Gold 9", "Cid": "Copper 5", "Dee": "Gold 5", "Eve": "Silver 2"})
    assert st["first"] == "Eve" and st["stakes"] == 45


def test_DY_R9_first_gambit_tie_without_a_unique_value_is_drawn_at_random_among_the_tied() -> None:
    """DY-R9: "In the first gambit, one of them is drawn at random." Both tribute a 7: the First Player
    is Ann or Bob, drawn from the game's generator, and the report says it was drawn."""
    firsts = set()
    for seed in range(12):
        st = scenario({"Ann": ["Copper 7", "Copper 2"], "Bob": ["Gold 7", "Gold 2"]})
        st["rng"]["seed"] = f"tie-{seed}"
        st, ev = tribute_all(st, {"Ann": "Copper 7", "Bob": "Gold 7"})
        firsts.add(st["first"])
        assert "random" in texts(ev).lower() and st["stakes"] == 14
    assert firsts == {"Ann", "Bob"}


def test_DY_R3_copper_on_empty_stakes_takes_nothing() -> None:
    """DY-R3 Copper: "Take 2 Gold from the Stakes (all of it if the Stakes hold less)." With an empty
    Stakes nothing moves and no Gold is created."""
    st = scenario({"Ann": ["Copper 5"], "Bob": ["Gold 9"]}, stakes=0)
    turn(st, "Ann")
    st, _ = ok(st, "Ann", "PLAY Copper 5")
    assert st["treasury"] == {"Ann": 50, "Bob": 50} and st["stakes"] == 0 and gold_total(st) == 100


def test_DY_R3_platinum_when_nobody_is_richer_nobody_pays() -> None:
    """DY-R3 Platinum: "Every other player with more Gold in their Treasury than you (checked as the
    power resolves) pays you 1 Gold." Equal is not more."""
    st = scenario({"Ann": ["Platinum 5"], "Bob": ["Gold 9"], "Cid": ["Gold 10"]}, treasury={"Cid": 20})
    turn(st, "Ann")
    st, _ = ok(st, "Ann", "PLAY Platinum 5")
    assert st["treasury"] == {"Ann": 50, "Bob": 50, "Cid": 20}


def test_DY_R4_a_coronation_played_later_always_activates() -> None:
    """CORONATION: "plays as a "1" for all purposes (meaning it will always activate its Lineage
    Power)". DY-R4: a later Noble activates if its value is <= the one played before it."""
    st = scenario({"Ann": ["Copper 2", "Gold 8"], "Bob": ["Copper Coronation", "Gold 9"]}, stakes=10)
    turn(st, "Ann")
    st, _ = ok(st, "Ann", "PLAY Copper 2")
    st, ev = ok(st, "Bob", "PLAY Copper Coronation")
    assert [e.data["active"] for e in ev if e.kind == "play"] == [True]
    assert st["treasury"]["Bob"] == 52 and st["dynasty"] == "Copper"


def test_DY_R4_an_equal_value_activates_and_a_higher_one_does_not() -> None:
    """RAISING THE FAMILY: "Subsequent players' Nobles will only activate their Lineage Power if their
    value is equal or lower than the last player's Noble." 6 then 6 (equal: yes) then 7 (no)."""
    st = scenario(
        {"Ann": ["Copper 6", "Gold 8"], "Bob": ["Copper 6", "Gold 9"], "Cid": ["Copper 7", "Gold 10"]}, stakes=10
    )
    turn(st, "Ann")
    played = []
    for p, card in (("Ann", "Copper 6"), ("Bob", "Copper 6"), ("Cid", "Copper 7")):
        st, ev = ok(st, p, f"PLAY {card}")
        played += [e.data["active"] for e in ev if e.kind == "play"]
    assert played == [True, True, False] and st["treasury"] == {"Ann": 52, "Bob": 52, "Cid": 50}


def test_DY_R20_a_broke_player_who_wins_the_stakes_is_not_broke_at_the_end_of_the_conclusion() -> None:
    """END OF GAME: "If any player is Broke at the end of the Conclusion Phase ... the game ends."
    DY-R20: "If any Treasury was exactly 0 at the end of the Conclusion, the game ends." Bob at 0
    wins the Stakes in that Conclusion, so nobody is broke and play goes on."""
    st = scenario({"Ann": ["Gold 3"], "Bob": ["Gold 5"]}, treasury={"Bob": 0}, stakes=6)
    turn(st, "Ann", 3)
    st, _ = ok(st, "Ann", "PLAY Gold 3")
    st, ev = ok(st, "Bob", "PLAY Gold 5")
    assert st["winner_of_stakes"] == "Bob" and "Bob takes 6 Gold from the Stakes: winning the Stakes" in texts(ev)
    assert E.result(st) is None and st["phase"] != "over" and st["gambit"] == 2


def test_DY_R20_the_last_conclusion_removes_the_leftover_stakes_and_names_the_richest() -> None:
    """DY-R20: "The winner is the player with the most Gold ... Any Gold left in the Stakes is removed
    from play." A split with a remainder (DY-R18) leaves Gold that nobody gets."""
    st = scenario(
        {"Ann": [], "Bob": [], "Cid": []},
        families={"Ann": ["Copper 9"], "Bob": ["Gold 9"]},
        treasury={"Ann": 30, "Bob": 20, "Cid": 0},
        stakes=9,
    )
    st["turn"] = None
    turn(st, "Ann", 3)
    r = E.result(st)
    assert r is not None and r.winners == ("Ann",) and r.scores == {"Ann": 34, "Bob": 24, "Cid": 0}
    assert st["stakes"] == 0 and gold_total(st) == 150


def test_DY_tribute_nmr_lowest_card_for_everyone_who_did_not_answer() -> None:
    """RULINGS 3.2 NMR: "the Tribute defaults to the lowest card". Ann answered; Bob and Cid did not."""
    st = scenario({"Ann": ["Copper 9", "Copper 4"], "Bob": ["Gold 3", "Gold 8"], "Cid": ["Silver 12", "Silver 2"]})
    st, _ = ok(st, "Ann", "TRIBUTE Copper 4")
    out = E.timeout(st)
    assert sorted(out.state["zone"]) == ["Copper 4", "Gold 3", "Silver 2"]
    assert out.state["first"] == "Ann" and out.state["stakes"] == 12
    assert [e.data["player"] for e in out.events if e.kind == "default"] == ["Bob", "Cid"]
