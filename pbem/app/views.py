"""Pure questions about a loaded game that several decisions ask (who is asked, who is told)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pbem.engine.base import Engine, Event
from pbem.record.store import Loaded


def players(loaded: Loaded) -> list[str]:
    """The players' names now, in seat order (a replaced seat goes by its newcomer's name)."""
    if loaded.seats:
        return [st.player for st in loaded.seats]
    names: list[str] = json.loads(loaded.game.players_json)  # the names the game was set up with
    return names


def engine(loaded: Loaded) -> Engine:
    eng: Engine = loaded.engine
    return eng


def unasked(loaded: Loaded, player: str) -> bool:
    """Whether the game asks `player` nothing now (no request, answered or not): their refusals end with no "Reply to
    this mail with your orders" (players28)."""
    return loaded.over or all(r.player != player for r in engine(loaded).requests(loaded.state))


def asked_steps(eng: Engine, state: dict[str, Any]) -> dict[str, str]:
    """Each player asked something now, with the step they are asked for."""
    return {r.player: r.step for r in eng.requests(state) if not r.answered}


def players_to_report(
    eng: Engine, state: dict[str, Any], everyone: list[str], events: Iterable[Event], before: dict[str, str]
) -> list[str]:
    """Players for whom the game moved on: new events they may see, or a new question for them."""
    after = asked_steps(eng, state)
    evs = list(events)
    return [p for p in everyone if any(e.visible_to(p) for e in evs) or (p in after and after[p] != before.get(p))]


def on_file(eng: Engine, state: dict[str, Any], player: str) -> list[str]:
    return [line for r in eng.requests(state) if r.player == player for line in r.on_file]


def filed(eng: Engine, state: dict[str, Any], player: str) -> list[str]:
    """Everything `player` has on file: their answers to the current step, then their standing orders."""
    return list(dict.fromkeys([*on_file(eng, state, player), *eng.standing(state, player)]))


def waiting(eng: Engine, state: dict[str, Any]) -> list[str]:
    return sorted({r.player for r in eng.requests(state) if not r.answered})


def current_step(eng: Engine, state: dict[str, Any]) -> str:
    reqs = eng.requests(state)
    return reqs[0].step if reqs else ""
