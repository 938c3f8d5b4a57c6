"""House of Habsburg rule tests, named after the rulings (docs/rulings.md, House of Habsburg) they check."""

from __future__ import annotations

import json

from pbem.engine.base import PUBLIC
from pbem.engine.habsburg import ENGINE
from pbem.engine.habsburg.cards import NAMES, TYPE, VALUE

P3 = ["Alice", "Bob", "Carol"]


def scenario(
    hands: dict,
    deck: list | None = None,
    discard: list | None = None,
    melds: list | None = None,
    tokens: dict | None = None,
    active: str = "Alice",
    **extra,
) -> dict:
    """A state with seats Alice, Bob, Carol, Alice to play (draw already done), built from the given cards.

    Cards not placed anywhere go to the bottom of the deck unless `deck` is given explicitly.
    melds: (owner, person, holding, claim) tuples, ids M1, M2, ...
    """
    st, _ = ENGINE.setup(P3, "rules", {})
    st["players"] = list(P3)
    st["hands"] = {p: list(hands.get(p, [])) for p in P3}
    st["discard"] = list(discard or [])
    st["melds"] = [
        {"id": f"M{i + 1}", "owner": o, "person": a, "holding": h, "claim": c}
        for i, (o, a, h, c) in enumerate(melds or [])
    ]
    st["next_meld"] = len(st["melds"]) + 1
    used = {c for h in st["hands"].values() for c in h} | set(st["discard"])
    used |= {m[k] for m in st["melds"] for k in ("person", "holding", "claim")}
    st["deck"] = list(deck) if deck is not None else [c for c in NAMES if c not in used]
    st["tokens"] = {p: (tokens or {}).get(p, 0) for p in P3}
    st.update(
        active=P3.index(active),
        phase="play",
        turn=1,
        idle=0,
        played=False,
        standing=None,
        empty_start=not st["deck"],
        winners=None,
    )
    st.update(extra)
    return st


def run(st: dict, player: str, *lines: str):
    out = ENGINE.apply(st, player, list(lines))
    return out


def ok(st: dict, player: str, *lines: str):
    out = run(st, player, *lines)
    assert out.accepted, [(r.line, r.reason) for r in out.lines if not r.ok]
    return out.state, out.events


def rejected(st: dict, player: str, *lines: str) -> str:
    before = json.dumps(st, sort_keys=True)
    out = run(st, player, *lines)
    assert not out.accepted
    assert out.state is st and json.dumps(st, sort_keys=True) == before
    return " / ".join(r.reason for r in out.lines if not r.ok)


# ---------------------------------------------------------------- set-up, HH-R4


def test_HH_R4_seating_is_drawn_at_random_and_the_first_seat_draws_first() -> None:
    orders = set()
    for seed in range(12):
        st, ev = ENGINE.setup(P3, f"seat{seed}", {})
        orders.add(tuple(st["players"]))
        first = st["players"][0]
        assert ENGINE.requests(st)[0].player == first
        assert len(st["hands"][first]) == 4 and all(len(st["hands"][p]) == 3 for p in st["players"][1:])
        assert len(st["deck"]) == 90 - 10
        assert ev[0].kind == "seating" and ev[0].visibility == PUBLIC
    assert len(orders) > 1


def test_deck_census_2_1() -> None:
    assert len(NAMES) == len(set(NAMES)) == 90
    for kind, count in (("H", 20), ("P", 25), ("C", 25), ("D", 10), ("S", 10)):
        cards = [c for c in NAMES if TYPE[c] == kind]
        assert len(cards) == count
        assert sorted({VALUE[c] for c in cards}) == [1, 2, 3, 4, 5]


# ---------------------------------------------------------------- HH-R1, HH-R2, HH-R3


def test_HH_R1_a_meld_gains_tokens_equal_to_the_person_value() -> None:
    st = scenario({"Alice": ["Otto", "Spain", "King", "Balthasar", "Croatia", "Elected"]}, tokens={"Alice": 2})
    st, ev = ok(st, "Alice", "MELD Otto Spain King", "meld balth croatia elected")
    assert st["tokens"]["Alice"] == 2 + 5 + 1
    assert [m["id"] for m in st["melds"]] == ["M1", "M2"]
    assert any("gains 5 tokens" in e.text for e in ev)


def test_HH_R1_tokens_are_permanent_when_the_meld_is_stolen_or_destroyed() -> None:
    st = scenario(
        {"Alice": ["Second", "Ottoman Turks"]},
        tokens={"Bob": 9, "Carol": 4},
        melds=[("Bob", "Otto", "Spain", "King"), ("Carol", "Albert", "Swabia", "Duke")],
    )
    st, _ = ok(st, "Alice", "EVENT SUCCESSION Second TARGET Bob M1")
    assert st["tokens"] == {"Alice": 0, "Bob": 9, "Carol": 4}
    st2 = scenario({"Alice": ["Ottoman Turks"]}, tokens={"Bob": 9}, melds=[("Bob", "Otto", "Spain", "King")])
    st2, _ = ok(st2, "Alice", "EVENT DISASTER Ottoman Turks TARGET Bob M1")
    assert st2["tokens"]["Bob"] == 9 and st2["melds"] == []


def test_HH_R2_score_is_tokens_plus_holdings_of_melds_controlled_including_stolen() -> None:
    st = scenario(
        {"Alice": ["Branch Division", "Hungary"]},
        tokens={"Alice": 3, "Bob": 5},
        melds=[("Bob", "Otto", "Spain", "King"), ("Alice", "Peter", "Croatia", "Elected")],
    )
    st, ev = ok(st, "Alice", "SUCCESSION Branch Bob M1")
    sc = next(e for e in ev if e.kind == "scores")
    assert sc.data["scores"] == {"Alice": 3 + 5 + 1, "Bob": 5, "Carol": 0}
    assert sc.data["tokens"] == {"Alice": 3, "Bob": 5, "Carol": 0}
    assert sc.data["holdings"] == {"Alice": 6, "Bob": 0, "Carol": 0}
    assert sc.data["turn"] == 1 and sc.visibility == PUBLIC


def finished(tokens: dict, melds: list) -> dict:
    st = scenario({}, deck=[], tokens=tokens, melds=melds)
    st, _ = ok(st, "Alice", "NO EVENT")  # every hand and the deck are empty: over at once
    assert ENGINE.result(st) is not None
    return st


def test_HH_R3_tie_broken_by_higher_holding_total() -> None:
    st = finished(
        {"Alice": 5, "Bob": 8, "Carol": 1},
        [("Alice", "Peter", "Spain", "Elected"), ("Bob", "Lorenz", "Croatia", "Inbreeding")],
    )
    res = ENGINE.result(st)
    assert res.scores == {"Alice": 10, "Bob": 9, "Carol": 1}
    st = finished(
        {"Alice": 5, "Bob": 9, "Carol": 1},
        [("Alice", "Peter", "Spain", "Elected"), ("Bob", "Lorenz", "Croatia", "Inbreeding")],
    )
    assert ENGINE.result(st).scores["Alice"] == ENGINE.result(st).scores["Bob"] == 10
    assert ENGINE.result(st).winners == ("Alice",)


def test_HH_R3_then_by_more_melds_then_shared() -> None:
    melds = [
        ("Alice", "Peter", "Spain", "Elected"),
        ("Bob", "Lorenz", "Croatia", "Inbreeding"),
        ("Bob", "Matthias", "Bohemia", "Occupation"),
    ]
    st = finished({"Alice": 5, "Bob": 5}, melds)
    assert ENGINE.result(st).winners == ("Bob",)
    st = finished({"Alice": 5, "Bob": 5}, [*melds[:1], ("Bob", "Lorenz", "Austria", "Inbreeding")])
    res = ENGINE.result(st)
    assert res.winners == ("Alice", "Bob") and "win" in res.summary


# ---------------------------------------------------------------- HH-R5 end


def test_HH_R5_ends_at_once_when_deck_and_every_hand_are_empty() -> None:
    st = scenario({"Alice": ["Otto", "Spain", "King"]}, deck=[])
    st, ev = ok(st, "Alice", "MELD Otto Spain King", "NO EVENT")
    assert st["phase"] == "over" and ENGINE.requests(st) == []
    kinds = [e.kind for e in ev]
    assert kinds.index("scores") < kinds.index("game-over")
    assert ENGINE.result(st).winners == ("Alice",)


def test_HH_R5_ends_after_N_consecutive_turns_without_a_play_once_the_deck_is_empty() -> None:
    st = scenario({"Alice": ["Spain"], "Bob": ["Austria"], "Carol": ["Hungary"]}, deck=[])
    for who in ("Alice", "Bob"):
        st, _ = ok(st, who, "NO EVENT")
        assert ENGINE.result(st) is None
    assert st["idle"] == 2
    st, ev = ok(st, "Carol", "END")
    assert ENGINE.result(st) is not None
    reveal = [e.text for e in ev if e.kind == "reveal"]
    assert any("Spain" in t for t in reveal) and any("Hungary" in t for t in reveal)


def test_HH_R5_a_play_resets_the_count_and_discards_do_not_count() -> None:
    st = scenario({"Alice": ["Spain"], "Bob": ["Peter", "Austria"], "Carol": ["Hungary"]}, deck=[])
    st, _ = ok(st, "Alice", "PASS")
    st, _ = ok(st, "Bob", "EVENT PERSON Peter")
    assert st["idle"] == 0
    st, _ = ok(st, "Carol", "PASS")
    st, _ = ok(st, "Alice", "PASS")
    assert ENGINE.result(st) is None and st["idle"] == 2


def test_HH_R5_counting_starts_with_the_first_turn_that_begins_on_an_empty_deck() -> None:
    st = scenario({"Alice": ["Spain"], "Bob": ["Austria"], "Carol": ["Hungary"]}, deck=["Croatia"], empty_start=False)
    st, _ = ok(st, "Alice", "NO EVENT")
    assert st["deck"] == [] and st["hands"]["Bob"] == ["Austria", "Croatia"]
    st, _ = ok(st, "Bob", "NO EVENT")  # began with a card in the deck: does not count
    assert st["idle"] == 0
    for who in ("Carol", "Alice"):
        st, _ = ok(st, who, "NO EVENT")
        assert ENGINE.result(st) is None
    st, _ = ok(st, "Bob", "NO EVENT")
    assert ENGINE.result(st) is not None


def test_HH_R5b_no_draw_on_an_empty_deck_and_a_person_event_draws_what_remains() -> None:
    st = scenario({"Alice": ["Otto"], "Bob": ["Peter"]}, deck=["Croatia"])
    st, ev = ok(st, "Alice", "EVENT PERSON Otto")
    assert st["hands"]["Alice"] == ["Croatia"] and st["deck"] == []
    assert ENGINE.requests(st)[0].player == "Bob" and st["hands"]["Bob"] == ["Peter"]
    assert any("no draw" in e.text for e in ev)


def test_HH_R5_a_player_with_no_cards_on_an_empty_deck_passes_automatically() -> None:
    st = scenario({"Alice": ["Spain"], "Carol": ["Hungary"]}, deck=[])
    st, ev = ok(st, "Alice", "NO EVENT")
    assert ENGINE.requests(st)[0].player == "Carol" and st["idle"] == 2
    assert any(e.kind == "pass" and "Bob" in e.text for e in ev)


# ---------------------------------------------------------------- HH-R6 TOP


def test_HH_R6_top_holding_of_the_discard_pile_and_the_newly_exposed_top() -> None:
    st = scenario({"Alice": ["Otto", "King", "Peter", "Elected"]}, discard=["Croatia", "Spain"])
    st, ev = ok(st, "Alice", "MELD Otto TOP King", "MELD Peter top Elected")
    assert [m["holding"] for m in st["melds"]] == ["Spain", "Croatia"]
    assert st["discard"] == [] and st["tokens"]["Alice"] == 6
    assert any("from the discard pile" in e.text for e in ev)


def test_HH_R6_top_may_be_named_and_is_refused_when_not_a_holding() -> None:
    st = scenario({"Alice": ["Otto", "King"]}, discard=["Spain"])
    st2, _ = ok(st, "Alice", "MELD Otto Spain King")
    assert st2["melds"][0]["holding"] == "Spain"
    st = scenario({"Alice": ["Otto", "King", "Peter", "Elected"]}, discard=["Croatia", "Dethroned"])
    assert "not a Holding" in rejected(st, "Alice", "MELD Otto TOP King")
    st = scenario({"Alice": ["Otto", "King", "Peter", "Elected"]}, discard=["Dethroned", "Spain"])
    assert "not a Holding" in rejected(st, "Alice", "MELD Otto TOP King", "MELD Peter TOP Elected")
    st = scenario({"Alice": ["Otto", "King", "Peter", "Elected"]}, discard=["Croatia", "Spain"])
    st, _ = ok(st, "Alice", "MELD Otto TOP King")
    assert ENGINE.view(st, None)["data"]["discard_top_first"] == ["Croatia"]


def test_HH_R6_top_only_in_the_meld_phase() -> None:
    st = scenario({"Alice": ["Otto", "King", "Peter", "Croatia", "Elected", "Duke"]}, discard=["Spain"])
    assert "Meld Phase is over" in rejected(st, "Alice", "EVENT PERSON Peter", "MELD Otto TOP King")


# ---------------------------------------------------------------- HH-R7 discard order


def test_HH_R7_disaster_card_first_then_claim_person_holding_on_top() -> None:
    st = scenario({"Alice": ["Extinction"]}, discard=["Croatia"], melds=[("Bob", "Rudolph", "Spain", "King")])
    st, _ = ok(st, "Alice", "EVENT DISASTER Extinction TARGET Bob M1")
    assert st["discard"] == ["Croatia", "Extinction", "King", "Rudolph", "Spain"]
    view = ENGINE.view(st, None)
    assert view["data"]["discard_top_first"][0] == "Spain"


def test_HH_R7_end_phase_discards_go_on_in_the_listed_order() -> None:
    hand = ["Otto", "Spain", "King", "Croatia", "Elected", "Peter", "Balthasar"]
    st = scenario({"Alice": hand})
    st, _ = ok(st, "Alice", "NO EVENT")
    assert ENGINE.requests(st)[0].step.endswith("discard")
    st, _ev = ok(st, "Alice", "DISCARD Elected, Croatia")
    assert st["discard"] == ["Elected", "Croatia"] and len(st["hands"]["Alice"]) == 5
    assert ENGINE.requests(st)[0].player == "Bob"


def test_HH_R7_discard_lowest_and_highest_use_values_then_hand_order() -> None:
    hand = ["Otto", "Croatia", "Spain", "Elected", "King", "Balthasar", "Maximilian"]
    st = scenario({"Alice": hand})
    st1, _ = ok(st, "Alice", "DISCARD-IF-NEEDED LOWEST", "NO EVENT")
    assert st1["discard"] == ["Croatia", "Elected"]
    st2, _ = ok(st, "Alice", "PASS", "DISCARD HIGHEST")
    assert st2["discard"] == ["Otto", "Spain"]


# ---------------------------------------------------------------- HH-R8 events and targets


def test_HH_R8_succession_takes_a_meld_intact_if_its_claim_is_not_higher() -> None:
    st = scenario({"Alice": ["Third"]}, melds=[("Bob", "Otto", "Spain", "King"), ("Bob", "Peter", "Croatia", "Duke")])
    why = rejected(st, "Alice", "EVENT SUCCESSION Third TARGET Bob M1")
    assert "King (C5) is higher than Third (S4)" in why
    st, _ev = ok(st, "Alice", "EVENT SUCCESSION Third TARGET Bob M2")
    m2 = st["melds"][1]
    assert (m2["owner"], m2["person"], m2["holding"], m2["claim"]) == ("Alice", "Peter", "Croatia", "Duke")
    assert st["tokens"]["Alice"] == 0 and st["discard"] == ["Third"]


def test_HH_R8_disaster_uses_the_person_value() -> None:
    st = scenario(
        {"Alice": ["Dutch Revolt"]},
        melds=[("Bob", "Rudolph", "Croatia", "Elected"), ("Carol", "Albert", "Spain", "King")],
    )
    assert "Rudolph (P4) is higher" in rejected(st, "Alice", "DISASTER Dutch Revolt M1")
    st, _ = ok(st, "Alice", "DISASTER Dutch Revolt M2")
    assert [m["id"] for m in st["melds"]] == ["M1"]


def test_HH_R8_targets_must_belong_to_another_player() -> None:
    st = scenario(
        {"Alice": ["Second", "Duke", "Ottoman Turks"], "Bob": ["Spain"]},
        melds=[("Alice", "Otto", "Spain", "King"), ("Bob", "Peter", "Croatia", "Elected")],
    )
    assert "your own" in rejected(st, "Alice", "EVENT SUCCESSION Second TARGET Alice M1")
    assert "your own" in rejected(st, "Alice", "EVENT DISASTER Ottoman TARGET M1")
    assert "another player" in rejected(st, "Alice", "EVENT CLAIM Duke TARGET Alice")
    assert "belongs to Bob, not Carol" in rejected(st, "Alice", "EVENT SUCCESSION Second TARGET Carol M2")
    assert "no meld M9" in rejected(st, "Alice", "EVENT SUCCESSION Second TARGET Bob M9")


def test_HH_R8_event_with_no_legal_target_cannot_be_played() -> None:
    st = scenario({"Alice": ["Sixth", "Compromise", "Duke"]}, melds=[("Bob", "Otto", "Spain", "King")])
    legal = ENGINE.requests(st)[0].legal
    assert not any("Sixth" in line or "Compromise" in line for line in legal)
    assert "EVENT CLAIM Duke TARGET Bob" not in legal  # Bob and Carol hold no cards
    assert "no cards in hand" in rejected(st, "Alice", "EVENT CLAIM Duke TARGET Bob")
    assert "needs a target" in rejected(st, "Alice", "EVENT CLAIM Duke")


def test_HH_R8_claim_steals_a_random_card_told_only_to_thief_and_victim() -> None:
    st = scenario({"Alice": ["Duke"], "Bob": ["Otto", "Spain", "King"], "Carol": ["Peter"]}, deck=[])
    st, ev = ok(st, "Alice", "CLAIM Duke Bob")
    (stolen,) = st["hands"]["Alice"]
    assert stolen in ("Otto", "Spain", "King") and stolen not in st["hands"]["Bob"]
    assert len(st["hands"]["Bob"]) == 2
    private = [e for e in ev if e.kind == "stolen"]
    assert len(private) == 1 and set(private[0].visibility) == {"Alice", "Bob"} and stolen in private[0].text
    for e in ev:
        if e.visible_to("Carol"):
            assert stolen not in e.text and stolen not in json.dumps(e.data)


# ---------------------------------------------------------------- HH-R9 one event


def test_HH_R9_at_most_one_event_and_holdings_are_never_events() -> None:
    st = scenario({"Alice": ["Otto", "Peter", "Spain", "Croatia", "Elected"]})
    assert "already had your Event Phase" in rejected(st, "Alice", "EVENT PERSON Otto", "EVENT PERSON Peter")
    assert "already ended" in rejected(st, "Alice", "NO EVENT", "EVENT PERSON Peter")
    assert "never be an Event" in rejected(st, "Alice", "EVENT Spain")
    assert "not a Claim card" in rejected(st, "Alice", "EVENT CLAIM Otto TARGET Bob")


def test_HH_R9_cards_drawn_by_a_person_event_cannot_be_melded_this_turn() -> None:
    st = scenario({"Alice": ["Otto", "Spain"]}, deck=["Croatia", "Peter", "King"])
    st1, _ = ok(st, "Alice", "EVENT PERSON Otto")
    assert st1["hands"]["Alice"] == ["Spain", "King", "Peter"]
    st = scenario({"Alice": ["Otto", "Spain", "Rudolph", "Elected", "Lorenz"]}, deck=["Croatia", "Peter", "King"])
    assert "Meld Phase is over" in rejected(st, "Alice", "EVENT PERSON Otto", "MELD Rudolph Spain King")


def test_HH_R9_a_card_drawn_earlier_in_the_turn_may_be_the_event() -> None:
    st = scenario({"Bob": ["Peter"]}, deck=["Croatia", "Duke"], active="Carol")
    st, ev = ok(st, "Carol", "NO EVENT")
    assert st["hands"]["Alice"] == ["Duke"] and ENGINE.requests(st)[0].player == "Alice"
    assert any(e.visibility == ("Alice",) and "Duke" in e.text for e in ev)
    st, _ = ok(st, "Alice", "EVENT CLAIM Duke TARGET Bob")
    assert st["hands"]["Alice"] == ["Peter"]


# ---------------------------------------------------------------- HH-R10 hand limit


def test_HH_R10_limit_only_in_own_end_phase() -> None:
    hand = ["Otto", "Spain", "King", "Croatia", "Elected", "Peter"]
    st = scenario({"Alice": hand, "Bob": ["Duke"]})
    st, _ = ok(st, "Alice", "MELD Otto Spain King", "NO EVENT")  # melding brings the hand to 3: no discard
    assert st["discard"] == [] and ENGINE.requests(st)[0].player == "Bob"
    st = scenario({"Alice": ["Duke", "Otto", "Spain", "King", "Croatia", "Elected"], "Bob": ["Peter"]})
    st, _ = ok(st, "Alice", "EVENT CLAIM Duke TARGET Bob")
    assert len(st["hands"]["Alice"]) == 6 and ENGINE.requests(st)[0].player == "Alice"
    assert "discard first" in rejected(st, "Alice", "END")
    st, _ = ok(st, "Alice", "DISCARD Croatia Elected")  # only the excess goes; the rest is kept
    assert st["discard"] == ["Duke", "Croatia"] and "Elected" in st["hands"]["Alice"]


def test_HH_R10_standing_discard_avoids_a_second_prompt() -> None:
    st = scenario(
        {"Alice": ["Otto", "Spain", "King", "Croatia", "Elected"], "Bob": ["Peter"]},
        deck=["Lorenz", "Dalmatia", "Galicia"],
    )
    st, _ev = ok(st, "Alice", "DISCARD-IF-NEEDED Elected, Croatia", "EVENT PERSON Otto")
    assert ENGINE.requests(st)[0].player == "Bob"
    assert st["discard"] == ["Otto", "Elected"]


# ---------------------------------------------------------------- order handling


def test_orders_whole_turn_in_one_message_with_trailing_end() -> None:
    st = scenario({"Alice": ["Otto", "Spain", "King", "Duke", "Peter", "Croatia"], "Bob": ["Lorenz"]})
    st, _ev = ok(st, "Alice", "MELD Otto Spain King", "EVENT CLAIM Duke TARGET Bob", "DISCARD-IF-NEEDED LOWEST", "END")
    assert ENGINE.requests(st)[0].player == "Bob"


def test_orders_multiword_names_and_short_event_forms() -> None:
    hand = ["Maria Theresa", "Holy Roman Empire", "Archduke", "Thirty Years War", "Third"]
    st = scenario({"Alice": hand, "Bob": ["Peter"]}, melds=[("Bob", "Albert", "Spain", "Duke")])
    st1, _ = ok(st, "Alice", "MELD Maria Theresa Holy Roman Empire Archduke", "DISASTER thirty years bob m1")
    assert st1["melds"] == [
        dict(id="M2", owner="Alice", person="Maria Theresa", holding="Holy Roman Empire", claim="Archduke")
    ]
    st2, _ = ok(st, "Alice", "EVENT third TARGET bob #1")
    assert st2["melds"][0]["owner"] == "Alice"
    assert "Otto is not in your hand" in rejected(st, "Alice", "PERSON Otto Bob M1")


def test_orders_from_a_player_not_asked_are_rejected() -> None:
    st = scenario({"Alice": ["Otto"], "Bob": ["Peter"]})
    assert "waiting for Alice" in rejected(st, "Bob", "EVENT PERSON Peter")


def test_orders_all_or_nothing() -> None:
    st = scenario({"Alice": ["Otto", "Spain", "King"]})
    out = run(st, "Alice", "MELD Otto Spain King", "EVENT PERSON Nobody")
    assert not out.accepted and out.lines[0].ok and out.state is st and st["melds"] == []


def test_nmr_default_no_meld_no_event_keep_highest() -> None:
    st = scenario({"Alice": ["Otto", "Spain", "King", "Croatia", "Elected", "Peter", "Duke"]})
    req = ENGINE.requests(st)[0]
    assert req.default == ("DISCARD-IF-NEEDED LOWEST", "NO EVENT")
    out = ENGINE.timeout(st)
    assert out.state["melds"] == [] and sorted(out.state["discard"]) == ["Croatia", "Elected"]
    assert any(e.kind == "default" for e in out.events)


def test_view_hides_hands_from_others() -> None:
    st = scenario({"Alice": ["Otto", "Spain"], "Bob": ["Peter", "Croatia"]})
    pub = json.dumps(ENGINE.view(st, None))
    bob = json.dumps(ENGINE.view(st, "Bob"))
    for c in ("Otto", "Spain", "Peter", "Croatia"):
        assert c not in pub
    assert "Peter" in bob and "Otto" not in bob
    assert ENGINE.view(st, "Alice")["turn"] == "Turn 1, Alice to play"


def test_handbook_mentions_every_order() -> None:
    text = ENGINE.handbook()
    for word in (
        "MELD",
        "EVENT SUCCESSION",
        "EVENT DISASTER",
        "EVENT CLAIM",
        "EVENT PERSON",
        "NO EVENT",
        "DISCARD-IF-NEEDED",
        "END",
        "HH-R5",
        "HH-R8",
    ):
        assert word in text
    assert 60 <= len(text.splitlines()) <= 150
