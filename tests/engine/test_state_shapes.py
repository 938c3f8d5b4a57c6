"""Every game's state has the shape its TypedDicts declare, at every step of random games.

The engines read the plain JSON state through `typed()` (a cast the type checker
trusts and nothing checks), so this test is what keeps the declared shape and
the real one the same: it walks the state after every input of bot games
(deadlines included) and compares each value with its declared type.  It also
checks that every engine takes the contract's defaults (`base.Game`) rather
than forwarding them again.
"""

from __future__ import annotations

import types
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from pbem import engine as registry
from pbem.engine.base import Game, Outcome
from pbem.engine.bots import Playthrough, play
from pbem.engine.dynasties import table as dynasties_table
from pbem.engine.habsburg import table as habsburg_table
from pbem.engine.italian_wars import table as italian_table
from pbem.engine.sixteen_thirty import shape as sixteen_shape

SHAPES: dict[str, Any] = {
    "habsburg": habsburg_table.State,
    "italian-wars": italian_table.State,
    "sixteen-thirty": sixteen_shape.State,
    "dynasties": dynasties_table.State,
}
SEATS = {"habsburg": 4, "italian-wars": 2, "sixteen-thirty": 4, "dynasties": 3}


def mismatches(value: Any, tp: Any, path: str = "state") -> list[str]:
    """Where `value` differs from the type `tp` (TypedDicts, dict/list/tuple, unions, Literal, Any, scalars)."""
    if tp is Any:
        return []
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, not a {tp.__name__}"]
        declared = get_type_hints(tp, include_extras=True)  # keeps NotRequired, which string annotations hide
        hints = {k: get_args(t)[0] if get_origin(t) is NotRequired else t for k, t in declared.items()}
        required = [k for k, t in declared.items() if get_origin(t) is not NotRequired]
        out = [f"{path}: no key {k!r}" for k in required if k not in value]
        out += [f"{path}: key {k!r} is not declared in {tp.__name__}" for k in value if k not in hints]
        for k, v in value.items():
            if k in hints:
                out += mismatches(v, hints[k], f"{path}[{k!r}]")
        return out
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        options = [mismatches(value, t, path) for t in get_args(tp)]
        return [] if any(not o for o in options) else min(options, key=len)
    if origin is Literal:
        return [] if value in get_args(tp) else [f"{path}: {value!r} is not one of {get_args(tp)}"]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, not a dict"]
        kt, vt = get_args(tp)
        return [m for k, v in value.items() for m in mismatches(k, kt, path) + mismatches(v, vt, f"{path}[{k!r}]")]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__}, not a list"]
        (it,) = get_args(tp)
        return [m for i, v in enumerate(value) for m in mismatches(v, it, f"{path}[{i}]")]
    if tp is type(None):
        return [] if value is None else [f"{path}: {value!r}, not None"]
    if tp in (int, str, bool, float):
        ok = type(value) is tp or (tp is float and type(value) is int)
        return [] if ok else [f"{path}: {value!r} is a {type(value).__name__}, not a {tp.__name__}"]
    raise AssertionError(f"{path}: the checker does not know the type {tp!r}")


def _checked_game(kind: str, seed: str, timeout_every: int) -> tuple[Playthrough, int]:
    eng = registry.get(kind)
    shape = SHAPES[kind]
    seen = 0

    def check(pt: Playthrough, out: Outcome) -> None:
        nonlocal seen
        seen += 1
        bad = mismatches(out.state, shape)
        assert not bad, f"{kind} after input {seen} ({pt.inputs[-1]}): {bad[:5]}"

    players = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"][: SEATS[kind]]
    state, _ = eng.setup(list(players), seed, {})
    assert mismatches(state, shape) == [], f"{kind} set-up: {mismatches(state, shape)[:5]}"
    pt = play(eng, players, seed, bot_seed=f"shape-{seed}", timeout_every=timeout_every, on_input=check)
    return pt, seen


@pytest.mark.parametrize("kind", sorted(SHAPES))
@pytest.mark.parametrize(("seed", "timeout_every"), [("shape-1", 0), ("shape-2", 5)])
def test_the_state_keeps_its_declared_shape_through_a_whole_game(kind: str, seed: str, timeout_every: int) -> None:
    pt, seen = _checked_game(kind, seed, timeout_every)
    assert registry.get(kind).result(pt.state) is not None and seen == len(pt.inputs) > 0


def test_the_shape_check_reports_a_wrong_type_a_missing_key_and_an_undeclared_key() -> None:
    eng = registry.get("italian-wars")
    state, _ = eng.setup(["Ann", "Bob"], "s", {})
    shape = SHAPES["italian-wars"]
    assert mismatches(state, shape) == []
    wrong = {**state, "hand": "1"}
    assert mismatches(wrong, shape) == ["state['hand']: '1' is a str, not a int"]
    missing = {k: v for k, v in state.items() if k != "neg"}
    assert mismatches(missing, shape) == ["state: no key 'neg'"]
    extra = {**state, "stray": 1}
    assert mismatches(extra, shape) == ["state: key 'stray' is not declared in State"]
    nested = {**state, "won": {"Ann": True, "Bob": 0}}
    assert mismatches(nested, shape) == ["state['won']['Ann']: True is a bool, not a int"]


@pytest.mark.parametrize("kind", sorted(SHAPES))
def test_every_engine_takes_the_contract_defaults_instead_of_forwarding_them(kind: str) -> None:
    eng = registry.get(kind)
    assert isinstance(eng, Game)
    for name in ("setup", "timeout", "scramble", "hidden_names"):
        assert getattr(type(eng), name) is getattr(Game, name), f"{kind} re-implements {name}"
    assert isinstance(eng.handbook(), str) and eng.handbook()


def test_the_registry_lists_exactly_the_games_with_a_declared_shape() -> None:
    assert set(registry.KINDS) == set(SHAPES)
