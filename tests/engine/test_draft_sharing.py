"""`apply` works on a `Draft` (pbem/engine/base.py): each top-level part of the state is copied when a
line first reads it, and the accepted state shares the parts no line read with the state before.

These tests hold that to what a deep copy of the whole state gives: in whole bot games of every kind
no message changes any earlier state (every state is kept and compared as JSON at the end), a state
holds no list or dict twice (a `Draft` copies each part on its own), the accepted state is a plain
dict, and the same message applied to a deep copy gives the same state and events; a rejected
message returns the very state it was given, unchanged.  The `Draft` itself answers every dict
operation as a deep copy would and never writes into its source."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from pbem import engine as registry
from pbem.engine.base import Draft, apply_defaults
from pbem.engine.bots import play


def containers(x, acc: list) -> list:
    if isinstance(x, (dict, list)):
        acc.append(x)
        for v in x.values() if isinstance(x, dict) else x:
            containers(v, acc)
    return acc


SIZES = {"habsburg": (3, 6), "italian-wars": (2, 2, 2, 2), "dynasties": (2, 5), "sixteen-thirty": (3, 4)}
BAD = ["DISCARD Nothing At All", "PLAY Nobody", "VOTE RED", "PASS PASS PASS"]


@pytest.mark.parametrize("kind", registry.available())
def test_no_message_changes_an_earlier_state_and_deep_copies_give_the_same_game(kind: str) -> None:
    eng = registry.get(kind)
    checked = rejected = 0
    for g, n in enumerate(SIZES.get(kind, (eng.min_players, eng.max_players))):
        snapshots: list[tuple[dict, str]] = []
        before: list[dict] = []

        def hook(pt, out, snapshots=snapshots, before=before) -> None:
            nonlocal checked, rejected
            st = out.state
            assert type(st) is dict, type(st)
            inside = containers(st, [])
            assert len({id(c) for c in inside}) == len(inside), "a list or dict is reachable twice in the state"
            text = json.dumps(st)
            snapshots.append((st, text))
            prev = before[-1] if before else None
            before.append(st)
            if prev is None or len(pt.inputs) % 3:
                return
            # the same input on a deep copy of the state before (as a snapshot read back gives it)
            who, lines = pt.inputs[-1]
            fresh = json.loads(json.dumps(prev))
            again = apply_defaults(eng, fresh) if who == "!deadline" else eng.apply(fresh, who, lines)
            assert json.dumps(again.state) == text
            assert [e.to_json() for e in again.events] == [e.to_json() for e in out.events]
            checked += 1
            if eng.result(st) is None and len(pt.inputs) % 2 == 0:
                for p in pt.players:
                    bad = eng.apply(st, p, BAD)
                    assert not bad.accepted and bad.state is st and bad.events == []
                    assert json.dumps(st) == text
                    rejected += 1

        play(eng, [f"P{i}" for i in range(n)], f"share-{kind}-{g}", bot_seed=f"share-bots-{g}",
             timeout_every=5, on_input=hook)  # fmt: skip
        for st, text in snapshots:
            assert json.dumps(st) == text, "a later message changed an earlier state"
    assert checked > 20 and rejected > 20


def _src() -> dict:
    return {"n": 1, "s": "x", "none": None, "a": [1, [2, 3]], "d": {"k": [4], "j": {"z": 5}}, "b": True, "e": []}


def test_a_draft_answers_as_a_deep_copy_and_never_writes_its_source() -> None:
    src = _src()
    text = json.dumps(src)
    ops = [
        lambda d: d["a"],
        lambda d: d.get("d"),
        lambda d: d.get("missing", 7),
        lambda d: ("a" in d, "missing" in d, len(d)),
        lambda d: list(d),
        lambda d: list(d.keys()),
        lambda d: list(d.values()),
        lambda d: list(d.items()),
        lambda d: {**d},
        lambda d: dict(d),
        lambda d: d == _src(),
        lambda d: d != _src(),
        lambda d: json.dumps(d),
        lambda d: copy.deepcopy(d),
        lambda d: pickle.loads(pickle.dumps(d)),
        lambda d: d.copy(),
        lambda d: d | {"n": 2},
        lambda d: list(reversed(d)),
        lambda d: repr(d),
        lambda d: d.setdefault("a", None),
        lambda d: d.setdefault("new", [9]),
        lambda d: d.pop("d"),
        lambda d: d.pop("missing", 0),
        lambda d: d.popitem(),
    ]
    for op in ops:
        want = op(copy.deepcopy(_src()))
        d = Draft(src)
        got = op(d)
        assert got == want and type(got) is type(want), (got, want)
        assert json.dumps(d.settle()) == json.dumps(op_state(op)), op
        assert json.dumps(src) == text
    with pytest.raises(KeyError):
        Draft(src)["missing"]


def op_state(op) -> dict:
    d = copy.deepcopy(_src())
    op(d)
    return d


def test_writes_go_to_the_draft_and_the_key_order_is_a_plain_dicts() -> None:
    src = _src()
    text = json.dumps(src)
    d = Draft(src)
    d["a"][1].append(9)  # read, so copied, then changed
    d["d"] = {"new": 1}  # replaced without being read
    d["added"] = [1]
    d.update(e=[2])
    want = copy.deepcopy(src)
    want["a"][1].append(9)
    want["d"] = {"new": 1}
    want["added"] = [1]
    want.update(e=[2])
    out = d.settle()
    assert json.dumps(out) == json.dumps(want) and type(out) is dict
    assert json.dumps(src) == text
    # the parts never read are the source's own (shared), the rest are copies
    assert out["a"] is not src["a"]
    assert Draft(src).settle()["a"] is src["a"]
    # deleting and adding back moves a key to the end, as in a plain dict
    d, want = Draft(src), copy.deepcopy(src)
    for x in (d, want):
        del x["a"]
        x["a"] = [0]
        x["s"] = "y"
    assert json.dumps(d.settle()) == json.dumps(want)
    assert json.dumps(src) == text


def test_a_draft_of_a_draft_copies_from_the_settled_state() -> None:
    src = _src()
    text = json.dumps(src)
    d1 = Draft(src)
    d1["a"].append(1)
    d2 = Draft(d1)
    d2["a"].append(2)
    assert d1["a"] == [1, [2, 3], 1] and d2.settle()["a"] == [1, [2, 3], 1, 2]
    assert json.dumps(src) == text


@pytest.mark.parametrize("kind", registry.available())
def test_scramble_never_changes_the_state_it_was_given(kind: str) -> None:
    """`scramble` may share the parts holding no secret with its input (sixteen-thirty's does): the
    input stays as it was, the copy is a plain dict, and no list or dict is reachable twice in it."""
    eng = registry.get(kind)
    seen = 0

    def hook(pt, out) -> None:
        nonlocal seen
        if len(pt.inputs) % 2:
            return
        text = json.dumps(out.state)
        for p in pt.players:
            t = eng.scramble(out.state, p)
            assert type(t) is dict and json.dumps(out.state) == text
            inside = containers(t, [])
            assert len({id(c) for c in inside}) == len(inside)
            seen += 1

    n = SIZES.get(kind, (eng.min_players,))[0]
    play(eng, [f"P{i}" for i in range(n)], f"scramble-{kind}", bot_seed="scramble-bots", on_input=hook)
    assert seen > 10
