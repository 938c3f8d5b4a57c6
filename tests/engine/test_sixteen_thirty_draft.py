"""Sixteen Thirty Something: `apply` works on `state.draft`, a copy made by shape that
shares the write-once score history entries.  These tests hold it to what a deep
copy gives: an equal value, no list or dict shared with the original except the
history entries, and an original left exactly as it was (all-or-nothing)."""

from __future__ import annotations

import json

from pbem.engine.bots import play
from pbem.engine.sixteen_thirty import ENGINE
from pbem.engine.sixteen_thirty.state import draft


def containers(x, acc: list) -> list:
    if isinstance(x, (dict, list)):
        acc.append(x)
        for v in x.values() if isinstance(x, dict) else x:
            containers(v, acc)
    else:
        assert x is None or type(x) in (str, int, bool), f"not a JSON atom: {x!r}"
    return acc


def check_draft(state: dict) -> None:
    d = draft(state)
    everything = containers(state, [])  # and every value in it a JSON atom: so == compares values, as with a deep copy
    assert d == state  # the value a deep copy has (compared with the state itself: the deep copy cost 40% of the test)
    assert json.dumps(d) == json.dumps(state)  # same key order too
    inside = {id(c) for c in everything}
    assert len(inside) == len(everything), "a list or dict is reachable twice in the state"
    history = {id(c) for h in state["history"] for c in containers(h, [])}
    shared = [c for c in containers(d, []) if id(c) in inside and id(c) not in history]
    assert not shared, shared[:3]


def test_draft_is_a_deep_copy_except_the_write_once_history_entries() -> None:
    for n in (3, 4, 6):
        snapshots: list[tuple[dict, str]] = []

        def hook(pt, out, snapshots=snapshots) -> None:
            check_draft(out.state)
            snapshots.append((out.state, json.dumps(out.state)))

        play(
            ENGINE,
            [f"P{i}" for i in range(n)],
            f"draft-{n}",
            bot_seed=f"draft-bots-{n}",
            timeout_every=7 if n == 4 else 0,
            on_input=hook,
        )
        assert snapshots[-1][0]["history"], "the game should have scored a turn"
        # no later message changed any earlier state (history entries included)
        for st, text in snapshots:
            assert json.dumps(st) == text


def test_a_rejected_message_leaves_the_state_as_it_was() -> None:
    seen = 0

    def hook(pt, out) -> None:
        nonlocal seen
        if ENGINE.result(pt.state) is not None or len(pt.inputs) % 9:
            return
        before = json.dumps(pt.state)
        for p in pt.players:
            bad = ENGINE.apply(pt.state, p, ["NO TRADE", "VOTE RED", "DISCARD Nothing At All"])
            assert not bad.accepted and bad.state is pt.state and bad.events == []
            assert json.dumps(pt.state) == before
            seen += 1

    play(ENGINE, ["A", "B", "C"], "draft-reject", bot_seed="draft-reject-bots", on_input=hook)
    assert seen > 50
