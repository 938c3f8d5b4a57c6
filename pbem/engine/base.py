"""The engine contract shared by every game kind.

An engine is a pure, deterministic rules module.  It imports only the standard
library and `pbem.engine` itself: no database, templates, mail, clock or global
`random`.  The moderator (the IO shell) drives it through the small interface
below and never looks inside the state.

Shape of a game
---------------
* ``setup(players, seed, options)`` deals and returns the first state and the
  set-up events.
* The state is a plain JSON value (dicts, lists, str, int, bool, None) so that
  it can be snapshotted, copied and compared.  It holds the generator counter
  (``state["rng"]``), so replaying the accepted inputs reproduces it exactly.
* ``requests(state)`` says who is asked what right now: one `Request` per
  player whose answer the current step needs.  A sequential step asks one
  player; a simultaneous one (secret ballots, discards) asks several.
* ``apply(state, player, lines)`` takes the order lines of one message from one
  player.  It is all-or-nothing: either every line is accepted (and the new
  state and events are returned) or nothing changes and each bad line gets a
  `LineResult` that quotes it, says why and lists what would be legal.
  Answers to a simultaneous step are held secretly in the state until every
  answer is in; then the engine resolves the step inside the same call.
  Orders for a later step may be kept as standing orders and used when that
  step opens, if still legal.
* ``timeout(state)`` applies the published default of every open request that
  has no answer (the NMR policy in RULINGS.md) and resolves.
* ``view(state, player)`` is what that player may know (``None`` = the public
  view, what every player knows).  Reports render views, never the state.
* ``result(state)`` is ``None`` while the game runs, then the final `Result`.
* ``order_words`` are the words an order line starts with; the moderator sends
  only lines starting with one of them to ``apply`` (the rest is chatter).

Every random step (shuffle, draw, die, coin) uses `pbem.engine.rng.Rng`,
whose counter lives in the state.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Protocol

PUBLIC = "public"
MODERATOR = "moderator"


@dataclass(frozen=True)
class Event:
    """Something that happened, with who may see it.

    ``visibility`` is ``"public"``, ``"moderator"`` (nobody but the moderator
    and, once the game is over, the export) or a tuple of player names.
    ``text`` is the one-line English sentence shown in reports and the game
    record; ``data`` holds the same facts as JSON for exports and charts.
    Engines emit several events when audiences differ (e.g. the thief and the
    victim see the stolen card, everyone else sees "one card moved").
    """

    kind: str
    text: str
    visibility: str | tuple[str, ...] = PUBLIC
    data: dict[str, Any] = field(default_factory=dict)

    def visible_to(self, player: str | None) -> bool:
        """True if `player` (None = public observer) may see this event."""
        if self.visibility == PUBLIC:
            return True
        if self.visibility == MODERATOR or player is None:
            return False
        return player in self.visibility

    def to_json(self) -> dict[str, Any]:
        vis = self.visibility if isinstance(self.visibility, str) else list(self.visibility)
        return {"kind": self.kind, "text": self.text, "visibility": vis, "data": self.data}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Event:
        vis = obj["visibility"]
        return cls(obj["kind"], obj["text"], vis if isinstance(vis, str) else tuple(vis), obj.get("data", {}))


@dataclass(frozen=True)
class Request:
    """What one player is asked now.

    ``step`` identifies the step (stable text such as ``"t3.vote2.ballot"``) so
    that reminders and deadlines refer to it.  ``legal`` lists complete order
    lines the player could send right now, exactly as they would type them
    (a bot may pick one of them verbatim).  ``syntax`` gives the order forms
    with placeholders.  ``default`` is the order lines applied at the deadline.
    ``answered`` is True when this player already has orders on file for the
    step (revisable until it resolves); ``on_file`` lists them for the player.
    """

    player: str
    step: str
    prompt: str
    legal: tuple[str, ...]
    syntax: tuple[str, ...]
    default: tuple[str, ...]
    answered: bool = False
    on_file: tuple[str, ...] = ()


@dataclass(frozen=True)
class LineResult:
    """The fate of one order line: accepted, or rejected with why and what is legal."""

    line: str
    ok: bool
    reason: str = ""
    legal: tuple[str, ...] = ()
    understood: str = ""


@dataclass
class Outcome:
    """What `apply`/`timeout` return: the new state (unchanged on rejection)."""

    state: dict[str, Any]
    events: list[Event]
    lines: list[LineResult]

    @property
    def accepted(self) -> bool:
        return all(r.ok for r in self.lines)


@dataclass(frozen=True)
class Result:
    """Final scores.  ``winners`` may hold several names (shared wins)."""

    scores: dict[str, int]
    winners: tuple[str, ...]
    summary: str
    details: dict[str, Any] = field(default_factory=dict)


class Engine(Protocol):
    """The per-game contract.  See the module docstring."""

    kind: str
    title: str
    min_players: int
    max_players: int
    #: The words (or phrases, upper case) an order line of this game starts with, aliases included.
    #: A mail line starting with none of them (nor a control word such as CODE or HELP) is chatter:
    #: set aside and listed to the player, never sent to `apply`.
    order_words: tuple[str, ...]

    def setup(self, players: list[str], seed: str, options: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]: ...

    def requests(self, state: dict[str, Any]) -> list[Request]: ...

    def apply(self, state: dict[str, Any], player: str, lines: list[str]) -> Outcome: ...

    def timeout(self, state: dict[str, Any]) -> Outcome: ...

    def view(self, state: dict[str, Any], player: str | None) -> dict[str, Any]: ...

    def result(self, state: dict[str, Any]) -> Result | None: ...

    def handbook(self) -> str: ...


class RuleError(Exception):
    """Raised inside an engine when an order breaks a rule.

    Engines catch it in `apply` and turn it into a rejected `LineResult`;
    it never escapes the engine (rejections are values).
    """

    def __init__(self, reason: str, legal: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.legal = tuple(legal)


_ATOMIC = frozenset({str, int, bool, type(None), float})


def _copy(x: Any, memo: dict[int, Any]) -> Any:
    """`copy.deepcopy` specialised for JSON values: same result, same sharing.

    Plain dicts and lists are copied here (memoised by ``id`` exactly as
    deepcopy does, so a list reachable twice stays one list in the copy);
    str/int/bool/None/float are immutable and kept as they are; anything else
    (tuples, subclasses) is handed to `copy.deepcopy` with the same memo.
    """
    cls = type(x)
    if cls in _ATOMIC:
        return x
    i = id(x)
    y = memo.get(i, memo)
    if y is not memo:
        return y
    if cls is list:
        y = []
        memo[i] = y
        for v in x:
            y.append(v if type(v) in _ATOMIC else _copy(v, memo))
        return y
    if cls is dict:
        y = {}
        memo[i] = y
        for k, v in x.items():
            if type(k) not in _ATOMIC:
                k = _copy(k, memo)  # before the value, in deepcopy's order
            y[k] = v if type(v) in _ATOMIC else _copy(v, memo)
        return y
    return copy.deepcopy(x, memo)


def clone(state: dict[str, Any]) -> dict[str, Any]:
    """A deep copy, so an engine can work on a draft and drop it on rejection.

    Equivalent to ``copy.deepcopy(state)`` (engines call it on every apply, so
    it takes the fast path for the plain dicts and lists a state is made of).
    """
    return _copy(state, {})


def apply_defaults(engine: Engine, state: dict[str, Any]) -> Outcome:
    """The deadline passed: apply the published default of every open request.

    Each defaulted player is named in a public event ("sent no orders; the
    published default was applied"); the exact default lines are shown only
    to that player, since they may name hidden cards.  Engines may use this
    as their ``timeout``.  A default the engine itself rejects is a bug.
    """
    events: list[Event] = []
    open_reqs = [r for r in engine.requests(state) if not r.answered]
    if not open_reqs:
        return Outcome(state, [], [])
    step = open_reqs[0].step
    for req in open_reqs:
        if req.step != step:
            continue
        events.append(
            Event(
                "default",
                f"{req.player} sent no orders for this step by the deadline; the published default was applied.",
                PUBLIC,
                {"player": req.player, "step": req.step},
            )
        )
        events.append(
            Event(
                "default-orders",
                f"Your default orders: {'; '.join(req.default) or '(none)'}",
                (req.player,),
                {"player": req.player, "lines": list(req.default)},
            )
        )
        out = engine.apply(state, req.player, list(req.default))
        if not out.accepted:
            bad = [r for r in out.lines if not r.ok]
            raise AssertionError(f"default for {req.player} at {req.step} was rejected: {bad}")
        state = out.state
        events.extend(out.events)
        # A sequential step may stay open for the same player (e.g. a second prompt).
        still = [r for r in engine.requests(state) if r.player == req.player and r.step == step and not r.answered]
        if still and list(still[0].default) != list(req.default):
            more = apply_defaults(engine, state)
            return Outcome(more.state, events + more.events, [])
    return Outcome(state, events, [])
