"""Random bot players for tests, demos and benchmarks (pure and seeded).

A bot answers its request by picking one of the request's `legal` lines
verbatim (with its own generator, separate from the game's), exactly as a
player reading the report would copy a line.  `play` drives a whole game in
process; the demo's bots do the same from the report emails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pbem.engine.base import Engine, Event, Outcome, Request, apply_defaults
from pbem.engine.rng import Rng, init_state


def choose(req: Request, rng: Rng) -> list[str]:
    """One legal line chosen at random (the default if nothing is listed)."""
    if req.legal:
        return [req.legal[rng.below(len(req.legal))]]
    return list(req.default)


@dataclass
class Playthrough:
    """The inputs and events of a bot game, for replay checks."""

    players: list[str]
    seed: str
    options: dict[str, Any]
    state: dict[str, Any]
    inputs: list[tuple[str, list[str]]] = field(default_factory=list)  # (player or "!deadline", lines)
    events: list[Event] = field(default_factory=list)
    rounds: int = 0


def play(
    engine: Engine,
    players: list[str],
    seed: str,
    bot_seed: str = "bots",
    options: dict[str, Any] | None = None,
    max_inputs: int = 50_000,
    timeout_every: int = 0,
    on_input: Callable[[Playthrough, Outcome], None] | None = None,
) -> Playthrough:
    """Play a game to its end with random bots.

    ``timeout_every=k`` lets every k-th request lapse to its deadline default
    instead of being answered, so the NMR path is exercised too.
    """
    options = dict(options or {})
    state, events = engine.setup(list(players), seed, options)
    pt = Playthrough(list(players), seed, options, state, events=list(events))
    rng = Rng(init_state(bot_seed))
    count = 0
    while engine.result(pt.state) is None:
        if len(pt.inputs) >= max_inputs:
            raise AssertionError(f"{engine.kind}: game did not end within {max_inputs} inputs")
        reqs = [r for r in engine.requests(pt.state) if not r.answered]
        if not reqs:
            raise AssertionError(f"{engine.kind}: game not over but nobody is asked anything")
        count += 1
        if timeout_every and count % timeout_every == 0:
            out = apply_defaults(engine, pt.state)
            pt.inputs.append(("!deadline", []))
        else:
            req = reqs[rng.below(len(reqs))]
            lines = choose(req, rng)
            out = engine.apply(pt.state, req.player, lines)
            if not out.accepted:
                raise AssertionError(f"{engine.kind}: legal line rejected for {req.player}: {out.lines}")
            pt.inputs.append((req.player, lines))
        pt.state = out.state
        pt.events.extend(out.events)
        if on_input:
            on_input(pt, out)
    return pt


def replay(engine: Engine, pt: Playthrough) -> tuple[dict[str, Any], list[Event]]:
    """Fold the recorded inputs over a fresh set-up; returns (state, events)."""
    state, events = engine.setup(list(pt.players), pt.seed, dict(pt.options))
    events = list(events)
    for who, lines in pt.inputs:
        out = apply_defaults(engine, state) if who == "!deadline" else engine.apply(state, who, lines)
        assert out.accepted, out.lines
        state = out.state
        events.extend(out.events)
    return state, events
