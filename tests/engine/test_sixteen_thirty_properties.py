"""Hypothesis properties over seeded bot games of Sixteen Thirty Something: cards conserved,
scores = sum of min(status, influence), vote results = weighted ballots, tracks in range,
status moves only as ruled, no leaks of hands/counters/ballots/placements while a simultaneous
step is open.  The generic properties (games end, replay, the default-only path, the secrecy
scramble for every reader) are in test_contract.py."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st_

from pbem.engine import bots
from pbem.engine.sixteen_thirty import ENGINE, bot
from pbem.engine.sixteen_thirty.state import all_cards
from pbem.engine.sixteen_thirty.tables import CAP, COUNTRIES, build_deck

DECK = Counter(build_deck())
PRIVATE_KINDS = {
    "deal",
    "drew",
    "counters",
    "score-breakdown",
    "default-orders",
    "pre-order",
    "pre-order-dropped",
    "dropped",
}
SIMULTANEOUS = {"start", "offers", "place", "ballot", "lose"}
seeds = st_.integers(min_value=0, max_value=10_000)
sizes = st_.integers(min_value=3, max_value=6)


def status_sum(s):
    return sum(s["countries"][c]["status"] for c in COUNTRIES)


def status_changes_as_ruled(before, out):
    """The total Status moves only by Increase Status (+1) and wars (winner +0/+1, loser -1/0)."""
    expected = 0
    for e in out.events:
        if e.kind == "special" and e.data.get("card") == "Increase Status":
            expected += 1
        if e.kind == "war":
            ch = e.data["status_change"]
            if e.data["winner"] is None:
                assert set(ch.values()) == {0}
            else:
                w, lo = ch[e.data["winner"]], ch[e.data["loser"]]
                assert w in (0, 1) and lo in (-1, 0) and (w == 0 or lo == -1)
            expected += sum(ch.values())
    assert status_sum(out.state) - before == expected


def checks(pt, out, leak_every=0, before=None):
    s = out.state
    if before is not None:
        status_changes_as_ruled(before, out)
    assert Counter(all_cards(s)) == DECK
    for c in COUNTRIES:
        k = s["countries"][c]
        for key in ("status", "army", "ability"):
            assert 0 <= k[key] <= CAP[key]
    for e in out.events:
        if e.kind in PRIVATE_KINDS:
            assert (e.visibility not in ("public",) and len(e.visibility) <= 2) or e.visibility == "moderator"
        if e.kind == "ballots":
            d = e.data
            red = sum(w for q, w in d["weights"].items() if d["ballots"][q] == "RED")
            blue = sum(w for q, w in d["weights"].items() if d["ballots"][q] == "BLUE")
            assert d["totals"] == {"RED": red, "BLUE": blue}
            assert d["winner"] == ("RED" if red > blue else "BLUE" if blue > red else None)
        if e.kind == "scores":
            h = next(x for x in s["history"] if x["turn"] == e.data["turn"])
            for q, rows in h["breakdown"].items():
                assert [r[0] for r in rows] == s["counters"][q]
                assert all(r[3] == min(r[1], r[2]) and r[1] == e.data["countries"][r[0]]["status"] for r in rows)
                assert sum(r[3] for r in rows) == h["gained"][q]
    if leak_every and not s["over"] and len(pt.inputs) % leak_every == 0:
        no_leaks(s)


def no_leaks(s):
    # the engine is pure: each reader's view of `s`, and the requests of `s` and of each scramble, made once (the
    # loops below had made them again for every pair: 7.7 -> 5.6 CPU s for this file)
    views = {p: ENGINE.view(s, p) for p in [None, *s["players"]]}
    asked = ENGINE.requests(s)
    for p in s["players"]:
        d = views[p]["data"]
        assert d["hand"] == s["hands"][p] and d["my_counters"] == s["counters"][p]
        assert "counters" not in d and "breakdowns" not in d
    for q in s["players"]:
        t = ENGINE.scramble(s, q)
        asked_t = ENGINE.requests(t)
        for p in [None] + [x for x in s["players"] if x != q]:
            assert views[p] == ENGINE.view(t, p), (p, q)
            assert [r for r in asked if r.player == p] == [r for r in asked_t if r.player == p]


def leak_free_steps(pt, out, prev_step):
    """While a simultaneous step is still open, a message produces only events for its sender."""
    s = out.state
    if s["step"] == prev_step and s["phase"] in SIMULTANEOUS and pt.inputs and pt.inputs[-1][0] != "!deadline":
        who = pt.inputs[-1][0]
        for e in out.events:
            assert e.visibility != "public" and (e.visibility == "moderator" or set(e.visibility) == {who}), e


def run(n, seed, timeout_every=0, leak_every=0):
    players = [f"P{i}" for i in range(n)]
    prev = {"step": None, "status": 26}

    def hook(pt, out):
        checks(pt, out, leak_every, prev["status"])
        leak_free_steps(pt, out, prev["step"])
        prev["step"], prev["status"] = out.state["step"], status_sum(out.state)

    return bots.play(ENGINE, players, f"prop-{seed}", bot_seed=f"b{seed}", timeout_every=timeout_every, on_input=hook)


@settings(max_examples=10, deadline=None)
@given(n=sizes, seed=seeds)
def test_bot_games_keep_every_invariant_and_end(n, seed):
    pt = run(n, seed, leak_every=9)
    r = ENGINE.result(pt.state)
    assert r is not None and set(r.winners) <= set(pt.players)
    assert [e for e in pt.events if e.kind == "game-over"]
    assert max(r.scores.values()) == r.scores[r.winners[0]]


@settings(max_examples=6, deadline=None)
@given(n=sizes, seed=seeds)
def test_whole_turn_bot_plays_to_the_end_with_few_rounds(n, seed):
    state, rounds = bot.play_game([f"P{i}" for i in range(n)], f"r{seed}", f"rb{seed}")
    assert ENGINE.result(state) is not None
    assert all(v >= 1 for v in rounds.values()) and sorted(rounds)[0] == 1


def test_rounds_per_turn_counts_one_entry_per_game_turn():
    rounds = bot.rounds_per_turn(3, 2, "unit")
    assert rounds and all(isinstance(r, int) and r >= 1 for r in rounds)
    assert len(rounds) >= 2 * 7  # every game lasts at least 7 turns (ST-R4)
