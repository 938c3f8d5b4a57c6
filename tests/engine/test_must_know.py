"""Issue 23: each engine declares the events a player must know before their next decision
(`Game.must_know`); `pbem.app.notify` mails those at once in NORMAL mode, the rest waits."""

from __future__ import annotations

import pytest

from pbem.app import notify
from pbem.engine import get
from pbem.engine.base import Event
from pbem.engine.bots import play

GAMES = {"habsburg": 4, "italian-wars": 2, "dynasties": 4, "sixteen-thirty": 4}


def _game(kind, seed="must-know"):
    """A whole bot game with some deadlines: [(state after, event)] in order."""
    eng = get(kind)
    seen: list[tuple[dict, Event]] = []
    play(
        eng,
        [f"P{i}" for i in range(GAMES[kind])],
        seed,
        timeout_every=7,
        max_inputs=3000,
        on_input=lambda pt, out: seen.extend((pt.state, e) for e in out.events),
    )
    return eng, seen


def _urgent_for(eng, st, e):
    return {p for p in st["players"] if e.visible_to(p) and eng.must_know(st, e, p)}


def test_HH_R8_a_card_taken_or_a_meld_lost_is_known_at_once_by_its_victim_only():
    eng, seen = _game("habsburg")
    victims = {"claim": "victim", "stolen": "victim", "disaster": "owner", "succession": "from"}
    found = set()
    for st, e in seen:
        who = _urgent_for(eng, st, e)
        if e.kind in victims:
            assert who == {e.data[victims[e.kind]]}, e
            found.add(e.kind)
        else:
            assert who == set(), e  # draws, turns, scores, one's own cards: they wait for the next mail
    assert {"claim", "stolen"} <= found


def test_IW_R11_a_negated_card_is_known_at_once_by_its_owner():
    eng, seen = _game("italian-wars")
    negated = 0
    for st, e in seen:
        who = _urgent_for(eng, st, e)
        if e.kind == "negate":
            negated += 1
            assert who == {e.data["target_owner"]}
        else:
            assert who == set(), e
    assert negated


def test_DY_R7_gold_a_pureblood_family_makes_you_pay_is_known_at_once_by_the_payer():
    eng, seen = _game("dynasties")
    pureblood = 0
    for st, e in seen:
        who = _urgent_for(eng, st, e)
        if e.kind == "payment" and "Pureblood" in e.data["why"]:
            pureblood += 1
            assert who == {e.data["from"]}, e
        else:  # tributes, enquiries, the one-Gold powers (Precedence, Royal Levy): in the next mail
            assert who == set(), e
    st, _ = eng.setup(["Ann", "Bob", "Cid"], "must-know", {})
    forced = Event(
        "payment", "Bob pays 7 Gold to Ann.", "public", {"from": "Bob", "to": "Ann", "why": "Ann's Pureblood Gold"}
    )
    levy = Event(
        "payment", "Bob pays 1 Gold to Ann.", "public", {"from": "Bob", "to": "Ann", "why": "Ann's X (Precedence)"}
    )
    assert _urgent_for(eng, st, forced) == {"Bob"} and _urgent_for(eng, st, levy) == set()


def test_ST_R13_an_assassin_or_unrest_on_you_a_war_in_a_country_you_hold_and_your_trade_are_known_at_once():
    eng, seen = _game("sixteen-thirty")
    kinds = set()
    for st, e in seen:
        who = _urgent_for(eng, st, e)
        if e.kind == "special" and (e.data.get("target") or e.data.get("hit")):
            assert who == ({e.data["target"]} if e.data.get("target") else set(e.data["hit"]))
            kinds.add(e.data["card"])
        elif e.kind == "trade-cards":
            assert who == set(e.data["gave"])
            kinds.add("trade")
        elif e.kind == "war":
            held = {p for p in st["players"] if {e.data["attacker"], e.data["defender"]} & set(st["displays"][p])}
            assert who == held
            kinds.add("war")
        elif e.kind == "ballots":  # everyone who cast a ballot: a locked one was asked of nobody (ST-R9)
            assert who == set(e.data["ballots"])
            kinds.add("ballots")
        else:
            assert who == set(), e
    assert "war" in kinds and kinds & {"Unrest", "Assassin"}


@pytest.mark.parametrize("kind", list(GAMES))
def test_in_normal_mode_a_bystander_of_a_move_is_mailed_only_for_what_they_must_know(kind):
    """Through the policy: a player neither asked nor taking part is mailed for a move exactly when
    the engine says they must know one of its events (the rest is folded into their next mail)."""
    eng = get(kind)
    checked = {"mailed": 0, "folded": 0}

    def check(pt, out):
        after = pt.state
        before = check.before  # type: ignore[attr-defined]
        check.before = after  # type: ignore[attr-defined]
        asked = {r.player for r in eng.requests(before)} | {r.player for r in eng.requests(after)}
        told = notify.told(eng, before, after, pt.players, out.events)
        for p in pt.players:
            if p in asked or eng.result(after) is not None:
                continue
            urgent = any(e.visible_to(p) and eng.must_know(after, e, p) for e in out.events)
            assert (p in told) == urgent, (p, [e.kind for e in out.events])
            checked["mailed" if urgent else "folded"] += 1

    check.before = eng.setup([f"P{i}" for i in range(GAMES[kind])], "bystander", {})[0]  # type: ignore[attr-defined]
    play(eng, [f"P{i}" for i in range(GAMES[kind])], "bystander", timeout_every=7, max_inputs=3000, on_input=check)
    assert checked["folded"] > 0, checked
