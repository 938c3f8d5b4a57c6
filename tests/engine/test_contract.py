"""The engine contract, checked for every registered game kind (OpenSpiel's generic random-simulation test).

Every kind in `pbem.engine.KINDS` gets the same properties, over seeded bot
games with every player count the game seats:

* random legal games finish, with winners among the players, and the state
  stays a plain JSON value;
* replaying the recorded inputs from the seed reproduces the state and the
  events exactly (deadlines included);
* the default-only path (every request answered by its deadline) finishes;
* the secrecy scramble: change one player's secrets (`engine.scramble`) and
  every other reader's view, requests and rendered report sections stay
  byte-identical, while the player's own view does change.

Game-specific properties (cards and gold conserved, scoring rules) stay in
the per-game test_<kind>_properties.py files.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import engine as registry
from pbem.engine.base import Engine
from pbem.engine.bots import Playthrough, play, replay
from pbem.render.templates import render

KINDS = list(registry.KINDS)
seeds = st.integers(min_value=0, max_value=10**6)


def engine_of(kind: str) -> Engine:
    if kind not in registry.available():
        pytest.skip(f"the {kind} engine is not installed")
    return registry.get(kind)


def seats(engine: Engine) -> st.SearchStrategy[int]:
    return st.integers(min_value=engine.min_players, max_value=engine.max_players)


def players(n: int) -> list[str]:
    return [f"P{i}" for i in range(n)]


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=6, deadline=None)
@given(data=st.data(), seed=seeds)
def test_random_legal_games_finish(kind: str, data: st.DataObject, seed: int) -> None:
    engine = engine_of(kind)
    n = data.draw(seats(engine), label="players")
    pt = play(engine, players(n), f"c{seed}", bot_seed=f"cb{seed}")
    res = engine.result(pt.state)
    assert res is not None and res.winners and set(res.winners) <= set(pt.players)
    assert set(res.scores) == set(pt.players)
    assert not [r for r in engine.requests(pt.state) if not r.answered], "a finished game still asks"
    assert json.loads(json.dumps(pt.state)) == pt.state
    for p in [None, *pt.players]:
        assert json.loads(json.dumps(engine.view(pt.state, p))) == engine.view(pt.state, p)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=5, deadline=None)
@given(data=st.data(), seed=seeds)
def test_replay_from_the_seed_reproduces_state_and_events(kind: str, data: st.DataObject, seed: int) -> None:
    engine = engine_of(kind)
    n = data.draw(seats(engine), label="players")
    pt = play(engine, players(n), f"r{seed}", bot_seed=f"rb{seed}", timeout_every=7)
    state, events = replay(engine, pt)
    assert state == pt.state
    assert [e.to_json() for e in events] == [e.to_json() for e in pt.events]


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=5, deadline=None)
@given(data=st.data(), seed=seeds)
def test_the_default_only_path_finishes(kind: str, data: st.DataObject, seed: int) -> None:
    engine = engine_of(kind)
    n = data.draw(seats(engine), label="players")
    pt = play(engine, players(n), f"d{seed}", bot_seed="x", timeout_every=1)
    assert engine.result(pt.state) is not None
    assert all(who == "!deadline" for who, _ in pt.inputs)
    assert any(e.kind == "default" and e.visibility == "public" for e in pt.events)


def report(engine: Engine, state: dict[str, Any], reader: str | None) -> tuple[Any, ...]:
    """What `reader` is shown: the view, the requests, and the report sections as rendered text and HTML."""
    view = engine.view(state, reader)
    asked = [dataclasses.asdict(r) for r in engine.requests(state) if r.player == reader]
    sections = view["sections"]
    return (
        view,
        asked,
        render("mail/_sections.txt.j2", sections=sections),
        render("mail/_sections.html.j2", sections=sections),
    )


def moments(engine: Engine, pt: Playthrough, count: int) -> list[dict[str, Any]]:
    """`count` states spread evenly over the game (set-up and end included), rebuilt from its inputs."""
    state, _ = engine.setup(list(pt.players), pt.seed, dict(pt.options))
    total = len(pt.inputs)
    marks = {round(i * total / (count - 1)) for i in range(count)}
    out = [state] if 0 in marks else []
    for i, (who, lines) in enumerate(pt.inputs, start=1):
        state = (engine.timeout(state) if who == "!deadline" else engine.apply(state, who, lines)).state
        if i in marks:
            out.append(state)
    return out


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=4, deadline=None)
@given(data=st.data(), seed=seeds)
def test_changing_another_players_secrets_leaves_the_readers_report_byte_identical(
    kind: str, data: st.DataObject, seed: int
) -> None:
    engine = engine_of(kind)
    n = data.draw(seats(engine), label="players")
    pt = play(engine, players(n), f"s{seed}", bot_seed=f"sb{seed}", timeout_every=11)
    changed = 0
    for s in moments(engine, pt, 16):
        before = json.dumps(s, sort_keys=True)
        shown = {reader: report(engine, s, reader) for reader in [None, *pt.players]}
        for q in pt.players:
            t = engine.scramble(s, q)
            assert json.dumps(s, sort_keys=True) == before, "scramble must not change the state it is given"
            for reader, seen in shown.items():
                if reader != q:
                    assert report(engine, t, reader) == seen, (reader, q)
            changed += engine.view(s, q) != engine.view(t, q)
    assert changed > 0, "the scramble never changed any player's own view: it hides nothing"
