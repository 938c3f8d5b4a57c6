"""One slot, one order (issue 23): each engine declares its slots; two lines of one message for
one slot are refused with both quoted, unless the slot replaces and the engine kept only the later
(the acknowledgement then says so, `pbem.app.lines.replaced`)."""

from __future__ import annotations

import collections

import pytest

from pbem.engine import get, slots
from pbem.engine.bots import play

GAMES = [("habsburg", 4), ("italian-wars", 2), ("dynasties", 4), ("sixteen-thirty", 4)]


def _find(kind, n, want, seed="slots"):
    """The first state of a bot game where `want(state, request)` holds: (state, request)."""
    eng = get(kind)
    found = []

    def look(pt, out):
        if found:
            return
        for r in eng.requests(pt.state):
            if not r.answered and want(pt.state, r):
                found.append((pt.state, r))
                return

    play(eng, [f"P{i}" for i in range(n)], seed, on_input=look, max_inputs=3000)
    assert found, f"{kind}: no state found"
    return eng, *found[0]


def _two(r, word):
    return [ln for ln in r.legal if ln.upper().startswith(word + " ") or ln.upper() == word][:2]


def _refused_quoting_both(eng, st, player, lines):
    out = slots.one_per_slot(eng, st, player, lines, eng.apply(st, player, lines))
    assert not out.accepted and out.state is st and out.events == []
    for ln in lines:
        r = next(x for x in out.lines if x.line == ln)
        assert not r.ok and all(f'"{x}"' in r.reason for x in lines), r.reason
    return out


@pytest.mark.parametrize("kind,n", GAMES)
def test_every_engine_declares_its_slots_with_its_own_order_words(kind, n):
    eng = get(kind)
    assert slots.declared(eng), kind
    for s in slots.declared(eng):
        assert set(s.words) <= set(eng.order_words), (s.name, set(s.words) - set(eng.order_words))
    words = [w for s in slots.declared(eng) for w in s.words]
    assert len(words) == len(set(words)), "a word fills one slot only"


def test_HH_R9_two_events_in_one_turn_are_refused_both_quoted():
    eng, st, r = _find("habsburg", 4, lambda st, r: len(_two(r, "EVENT")) == 2)
    a, b = _two(r, "EVENT")
    out = _refused_quoting_both(eng, st, r.player, [a, "NO EVENT"])
    assert "at most one event" in out.lines[0].reason
    _refused_quoting_both(eng, st, r.player, [a, b])


def test_HH_R10_several_discard_lines_are_no_slot_and_all_stand():
    eng, st, r = _find("habsburg", 4, lambda st, r: len(_two(r, "DISCARD")) == 2 and "discard" in r.step)
    lines = _two(r, "DISCARD")
    result = eng.apply(st, r.player, lines)
    assert result.accepted and slots.one_per_slot(eng, st, r.player, lines, result) is result


def test_IW_a_second_discard_in_the_message_replaces_the_first_and_stands():
    eng, st, r = _find("italian-wars", 2, lambda st, r: r.step.endswith("discard") and len(_two(r, "DISCARD")) == 2)
    lines = _two(r, "DISCARD")
    result = eng.apply(st, r.player, lines)
    assert result.accepted and slots.one_per_slot(eng, st, r.player, lines, result) is result
    assert result.state == eng.apply(st, r.player, lines[1:]).state


def test_DY_two_plays_on_your_turn_are_refused_both_quoted_with_the_list_form():
    eng, st, r = _find("dynasties", 4, lambda st, r: st["phase"] == "play" and len(_two(r, "PLAY")) == 2)
    lines = _two(r, "PLAY")
    assert eng.apply(st, r.player, lines).accepted  # the engine alone would play one and keep the other
    out = _refused_quoting_both(eng, st, r.player, lines)
    assert "PLAYS <card>, <card>" in out.lines[0].reason


def test_DY_R10_a_second_tribute_replaces_the_first_and_stands():
    eng, st, r = _find("dynasties", 4, lambda st, r: r.step.endswith("tribute") and len(_two(r, "TRIBUTE")) == 2)
    lines = _two(r, "TRIBUTE")
    result = eng.apply(st, r.player, lines)  # the last Tribute too: the Tributes are revealed after the message
    assert result.accepted and slots.one_per_slot(eng, st, r.player, lines, result) is result


def _last_ballot(st, r):
    return r.step.endswith("ballot") and [q.player for q in get("sixteen-thirty").requests(st) if not q.answered] == [
        r.player
    ]


def test_ST_R9_two_ballots_in_one_message_from_the_last_voter_the_later_stands_too():
    """The last voter's message is read whole before the vote resolves (it was refused, both quoted, while the
    same message from anyone else stood: tests/engine/test_arrival_order.py)."""
    eng, st, r = _find("sixteen-thirty", 4, _last_ballot)
    lines = ["VOTE RED", "VOTE BLUE"]
    result = eng.apply(st, r.player, lines)
    assert result.accepted and slots.one_per_slot(eng, st, r.player, lines, result) is result
    assert any("BLUE" in e.text for e in result.events if e.visibility == "public")


def test_ST_a_second_ballot_while_others_still_vote_replaces_the_first_and_stands():
    def open_ballot(st, r):
        waiting = [q.player for q in get("sixteen-thirty").requests(st) if not q.answered]
        return r.step.endswith("ballot") and len(waiting) > 1

    eng, st, r = _find("sixteen-thirty", 4, open_ballot)
    lines = ["VOTE RED", "VOTE BLUE"]
    result = eng.apply(st, r.player, lines)
    assert result.accepted and slots.one_per_slot(eng, st, r.player, lines, result) is result


def test_ST_each_call_opens_its_own_ballot_so_an_extra_vote_carries_two_vote_lines():
    eng = get("sixteen-thirty")
    lines = ["PLAY Vote", "CALL Spain ALIGN", "VOTE RED", "CALL France SWITCH", "VOTE BLUE"]
    assert slots.doubled(eng, lines) == []
    assert [d.at for d in slots.doubled(eng, ["CALL Spain ALIGN", "VOTE RED", "VOTE BLUE"])] == [(1, 2)]
    assert slots.slot_of(eng, "NO TRADE").name == "your trade request"  # the longest word decides
    assert slots.slot_of(eng, "PLACE-START Spain 1").name == "your starting placement"


@pytest.mark.parametrize("kind,n", GAMES)
def test_in_bot_games_a_doubled_slot_stands_only_as_a_replacement(kind, n):
    """Over whole bot games: for two legal lines of one slot sent together, the message either is
    refused with both quoted, or the engine kept only the later line and the slot replaces."""
    eng = get(kind)
    seen = collections.Counter()

    def check(pt, out):
        st = pt.state
        for r in eng.requests(st):
            if r.answered:
                continue
            by: dict[str, list[str]] = collections.defaultdict(list)
            for ln in r.legal:
                s = slots.slot_of(eng, ln)
                if s is not None:
                    by[s.name].append(ln)
            for name, ls in by.items():
                if len(ls) < 2:
                    continue
                lines = ls[:2]
                raw = eng.apply(st, r.player, lines)
                told = slots.one_per_slot(eng, st, r.player, lines, raw)
                if told.accepted:
                    assert told is raw and next(s for s in slots.declared(eng) if s.name == name).replaces
                    assert raw.state == eng.apply(st, r.player, lines[1:]).state
                    seen["replaced"] += 1
                else:
                    assert told.state is st and all(not x.ok for x in told.lines)
                    assert all(f'"{x}"' in told.lines[0].reason for x in lines) or not raw.accepted
                    seen["refused"] += 1

    play(eng, [f"P{i}" for i in range(n)], f"slots-{kind}", on_input=check, max_inputs=1500)
    assert sum(seen.values()) > 0, seen


def test_lines_refused_on_their_own_keep_their_reason_and_a_long_message_quotes_three():
    eng, st, r = _find("dynasties", 4, lambda st, r: st["phase"] == "play" and len(_two(r, "PLAY")) == 2)
    junk = ["PLAY Nothing Such", "PLAY Nothing Else"]
    raw = eng.apply(st, r.player, junk)
    assert slots.one_per_slot(eng, st, r.player, junk, raw) is raw  # not a slot problem: no such cards
    many = [_two(r, "PLAY")[0]] * 6
    out = slots.one_per_slot(eng, st, r.player, many, eng.apply(st, r.player, many))
    assert not out.accepted and "6 orders for your play" in out.lines[0].reason and "and 3 more" in out.lines[0].reason
    assert len(out.lines[0].reason) < 400
