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
  step opens, if still legal; ``standing(state, player)`` lists those a player
  has on file, as order lines (the acknowledgement shows them with the step's).
* ``timeout(state)`` applies the published default of every open request that
  has no answer (each game's deadline defaults, docs/rulings.md) and resolves.
* ``view(state, player)`` is what that player may know (``None`` = the public
  view, what every player knows).  Reports render views, never the state.
* ``result(state)`` is ``None`` while the game runs, then the final `Result`.
* ``order_words`` are the words an order line starts with; the moderator sends
  only lines starting with one of them to ``apply`` (the rest is chatter).
* ``history`` declares how the history tells the game (`HistorySpec`:
  the step word, the series to chart, their labels and colours).
* ``scramble(state, player)`` changes that player's secrets (hand, ballots,
  orders on file) and nothing else, and ``hidden_names(state, player)`` names
  the items only that player may know, for the secrecy tests.

Shared glue, written once here: `Game` (the contract with its defaults: a game
declares only what differs), `check_players` (the seat count and distinct
names), `apply_lines` (one message's lines, all-or-nothing), `apply_defaults`
(the deadline) and, in `pbem.engine.views`, the typed view.

Every random step (shuffle, draw, die, coin) uses `pbem.engine.rng.Rng`,
whose counter lives in the state.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pbem.engine.declare import HistorySpec, Option, Slot
from pbem.engine.views import View

State = dict[str, Any]
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
    """The fate of one order line: accepted, or rejected with why and what is legal.

    ``legal`` are whole order lines; ``names`` the names (cards, leaders) the refused line could have
    used there; ``unchecked`` counts offered lines `pbem.engine.offers.legal_now` had no budget to try.
    ``not_asked`` marks a line refused because it answers nothing the player is asked (a `NotAsked`), with
    the engine's ``hint`` (what else they may send): the moderator words that reason from the requests of
    the state the message met, as the status in the same mail (`pbem.app.refusals.agreeing`).
    """

    line: str
    ok: bool
    reason: str = ""
    legal: tuple[str, ...] = ()
    understood: str = ""
    names: tuple[str, ...] = ()
    unchecked: int = 0
    not_asked: bool = False
    hint: str = ""


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
    earlier: tuple[str, ...] = ()  # the summaries an earlier pbem wrote of this result (`pbem verify` accepts them)


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
    history: HistorySpec
    #: The options a game takes at creation (`pbem.engine.declare.Option`); any other key is refused.
    declared_options: tuple[Option, ...]

    def setup(self, players: list[str], seed: str, options: dict[str, Any]) -> tuple[State, list[Event]]: ...

    def requests(self, state: State) -> list[Request]: ...

    def apply(self, state: State, player: str, lines: list[str]) -> Outcome: ...

    def timeout(self, state: State) -> Outcome: ...

    def standing(self, state: State, player: str) -> tuple[str, ...]:
        """`player`'s standing and pre-submitted orders on file (for later steps), as order lines."""
        ...

    def view(self, state: State, player: str | None) -> View: ...

    def result(self, state: State) -> Result | None: ...

    def handbook(self) -> str: ...

    def scramble(self, state: State, player: str) -> State:
        """A copy of `state` with `player`'s secrets changed: no other player's view or requests may differ."""
        ...

    def hidden_names(self, state: State, player: str) -> list[str] | None:
        """Names of the items only `player` may know now (cards in hand...), to search other players' mail for;
        None when the game's secret items are named by words that are public anyway (countries)."""
        ...

    def earlier_forms(self, event: Event) -> tuple[Event, ...]:
        """The forms in which an earlier pbem recorded `event` (its text or data reworded, its facts the same):
        `pbem verify` accepts a recorded event in one of them, so that a game recorded before a wording was
        mended still verifies.  Empty for an event never reworded."""
        ...


class Secrets(Protocol):
    """A game's secrets module: what `Engine.scramble` and `Engine.hidden_names` forward to."""

    def scramble(self, state: State, player: str) -> State: ...

    def hidden_names(self, state: State, player: str) -> list[str] | None: ...


class Game:
    """The engine contract with what every game does the same way written once.

    A game subclasses this and declares its data (kind, title, seats, order
    words, history, `handbook_text`, its `secrets` module) and the parts that
    differ: `deal` (set-up once the seats are checked), `requests`, `view`,
    `result`, and either `line` (one order line, for `apply_lines`) with an
    optional `finish`, or its own `apply`.  `timeout` applies the published
    defaults (`apply_defaults`); `scramble` and `hidden_names` forward to
    `secrets`.
    """

    kind: str
    title: str
    min_players: int
    max_players: int
    order_words: tuple[str, ...]
    history: HistorySpec
    #: What a player gives at most once per message (`pbem.engine.slots`; an engine without the
    #: attribute declares none): two lines for one slot are refused, both quoted, unless the slot
    #: `replaces` and the engine kept only the later line.
    slots: tuple[Slot, ...] = ()
    declared_options: tuple[Option, ...] = ()
    handbook_text: str
    secrets: Secrets

    def setup(self, players: list[str], seed: str, options: dict[str, Any]) -> tuple[State, list[Event]]:
        check_players(self, players)
        return self.deal(players, seed, options)

    def deal(self, players: list[str], seed: str, options: dict[str, Any]) -> tuple[State, list[Event]]:
        """The first state and the set-up events, for seats `check_players` accepted."""
        raise NotImplementedError

    def requests(self, state: State) -> list[Request]:
        raise NotImplementedError

    def apply(self, state: State, player: str, lines: list[str]) -> Outcome:
        return apply_lines(state, player, lines, self.line, finish=self.finish)

    def line(self, state: State, player: str, text: str, events: list[Event]) -> str:
        """Apply one order line to the draft (`apply_lines`): what was understood, or raise RuleError."""
        raise NotImplementedError

    def finish(self, state: State, player: str, events: list[Event]) -> None:
        """Resolve whatever a whole accepted message completed (by default nothing)."""

    def timeout(self, state: State) -> Outcome:
        return apply_defaults(self, state)

    def earlier_forms(self, event: Event) -> tuple[Event, ...]:
        return ()

    def must_know(self, state: State, event: Event, player: str) -> bool:
        """True when `player` must know `event` before their next decision: something done to them
        (their card stolen, their meld taken, a war on a country they hold), `state` being the state
        after it.  `pbem.app.notify` mails those at once in NORMAL mode; every other event waits for
        the player's next mail.  Each game declares its own; by default nothing is that urgent."""
        return False

    def standing(self, state: State, player: str) -> tuple[str, ...]:
        """`player`'s standing orders on file (a game without them: none)."""
        return ()

    def view(self, state: State, player: str | None) -> View:
        raise NotImplementedError

    def result(self, state: State) -> Result | None:
        raise NotImplementedError

    def handbook(self) -> str:
        return self.handbook_text

    def scramble(self, state: State, player: str) -> State:
        return self.secrets.scramble(state, player)

    def hidden_names(self, state: State, player: str) -> list[str] | None:
        return self.secrets.hidden_names(state, player)


class RuleError(Exception):
    """Raised inside an engine when an order breaks a rule.

    Engines catch it in `apply` and turn it into a rejected `LineResult`;
    it never escapes the engine (rejections are values).
    """

    def __init__(self, reason: str, legal: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.legal = tuple(legal)


class NotAsked(RuleError):
    """A line that answers nothing the player is asked at the (draft) state it met: another step's order, another
    player's, or one more answer after an earlier line of the same message took the player's turn.

    The engine's own `reason` says so from the draft; the refusal the player reads is worded from the requests
    of the state the message met (`pbem.app.refusals.agreeing`), the facts its status section shows, so that
    a player listed as awaited is never told they are not asked.  `hint`: what else the player may send now,
    or why this order's step is over ("LEADER-PREF is a standing order sent during the discard step").
    """

    def __init__(self, reason: str, legal: tuple[str, ...] | list[str] = (), hint: str = "") -> None:
        super().__init__(reason, legal)
        self.hint = hint


class Seats(Protocol):
    """What `check_players` needs of an engine."""

    @property
    def title(self) -> str: ...

    @property
    def min_players(self) -> int: ...

    @property
    def max_players(self) -> int: ...


def check_players(engine: Seats, players: Sequence[str]) -> None:
    """Raise ValueError unless `players` are distinct names and as many as the game seats."""
    lo, hi, n = engine.min_players, engine.max_players, len(players)
    if not lo <= n <= hi:
        need = f"exactly {lo}" if lo == hi else f"{lo} to {hi}"
        raise ValueError(f"{engine.title} needs {need} players, not {n}")
    if len(set(players)) != n:
        raise ValueError("player names must be distinct")


#: Applies one order line to the draft state: returns what was understood, raises RuleError.
LineFn = Callable[[State, str, str, list[Event]], str]


def apply_lines(
    state: State,
    player: str,
    lines: Sequence[str],
    line: LineFn,
    *,
    draft: Callable[[State], State] | None = None,
    legal: Callable[[State, str, RuleError], tuple[str, ...]] | None = None,
    finish: Callable[[State, str, list[Event]], None] | None = None,
) -> Outcome:
    """One message's lines, all-or-nothing: the contract of every engine's ``apply``.

    `line(draft, player, text, events)` applies one line to a working copy
    (`draft(state)`, default a `Draft`, which copies each part of the state when a line first
    reads it; the accepted state shares the parts no line read with `state`).  A line that raises `RuleError` is
    rejected with its reason and legal orders (`legal(draft, player, err)`,
    default the error's own); the other lines still run so that the reply
    lists every problem at once.  If any line is rejected the state is
    unchanged and no event is kept; otherwise `finish(draft, player, events)`
    resolves whatever the message completed.  A sender who is not seated gets
    every line rejected.
    """
    if player not in state["players"]:
        return Outcome(state, [], [LineResult(ln, False, f"{player} is not a player in this game") for ln in lines])
    work = draft(state) if draft else Draft(state)
    events: list[Event] = []
    results: list[LineResult] = []
    for text in lines:
        try:
            results.append(LineResult(text, True, understood=line(work, player, text, events)))
        except RuleError as err:
            allowed = legal(work, player, err) if legal else err.legal
            asked = isinstance(err, NotAsked)
            hint = err.hint if isinstance(err, NotAsked) else ""
            results.append(LineResult(text, False, err.reason, tuple(allowed), not_asked=asked, hint=hint))
    if not all(r.ok for r in results):
        return Outcome(state, [], results)
    if finish:
        finish(work, player, events)
    return Outcome(work.settle() if type(work) is Draft else work, events, results)


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
        if _ATOMIC.issuperset(map(type, x)):  # names, numbers: a shallow copy is a deep one (checked in C)
            y = x.copy()
            memo[i] = y
            return y
        y = []
        memo[i] = y
        for v in x:
            y.append(v if type(v) in _ATOMIC else _copy(v, memo))
        return y
    if cls is dict:
        if _ATOMIC.issuperset(map(type, x.values())) and _ATOMIC.issuperset(map(type, x)):
            y = x.copy()
            memo[i] = y
            return y
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
    out: dict[str, Any] = _copy(state, {})
    return out


#: Copies one top-level value of a state for a `Draft`, given its key: a deep copy of it.
PartCopy = Callable[[str, Any], Any]


def _copy_part(_key: str, v: Any) -> Any:
    return tree_copy(v)


def tree_copy(x: Any) -> Any:
    """A deep copy of a JSON value that holds no list or dict twice (as a state's parts never do).

    The same value as `copy.deepcopy`, without its memo: a list or dict reached twice would be
    copied twice (`Draft`'s docstring says why that never happens).  Keys are immutable and kept."""
    cls = type(x)
    if cls is list:
        if _ATOMIC.issuperset(map(type, x)):
            return x.copy()
        return [v if type(v) in _ATOMIC else tree_copy(v) for v in x]
    if cls is dict:
        if _ATOMIC.issuperset(map(type, x.values())):
            return x.copy()
        return {k: v if type(v) in _ATOMIC else tree_copy(v) for k, v in x.items()}
    if cls in _ATOMIC:
        return x
    return copy.deepcopy(x)


class Draft(dict[str, Any]):
    """A working copy of a state that copies each top-level list or dict the first time it is read.

    `apply` works on a draft and drops it when a line is rejected, so the draft must never write
    into the state it came from.  A deep copy of the whole state on every message was most of the
    cost of `apply`, yet a message reads only some of its parts.  Here the str/int/bool/None/float
    values are copied at once (they are immutable), and every list or dict value is left out of
    the draft and copied (`copy`, a deep copy) by `__missing__` when the engine first reads it:
    whatever an engine can write into, it has read from the draft, so it is a private copy.  Every
    other way into the values (`get`, `in`, iteration, `items`, `values`, `{**draft}`, `==`,
    deletion ...) is written here too, and those that hand out many values copy them all first.

    `settle` turns the draft into the plain state `apply` returns: the parts the message never read
    are the original's own lists and dicts, shared with it (structural sharing).  That is safe
    because states are values: nothing writes into a state except an engine working on a draft,
    and a draft copies before it can write.  `tests/engine/test_draft_sharing.py` holds every
    kind to it: the same states and events as a deep copy gives, in the same key order, and no
    later message changes any earlier state.  One difference from `clone`: a part is copied by
    `tree_copy` (no memo), so a list or dict reached twice would become two copies; no engine state
    holds such a thing (it would not survive the JSON snapshot either), and the test checks that too.
    """

    __slots__ = ("_copy", "_left", "_src", "_whole")

    def __init__(self, src: dict[str, Any], copy: PartCopy = _copy_part) -> None:
        if type(src) is Draft:
            src = src.settle()
        atoms = {k: v for k, v in src.items() if type(v) in _ATOMIC}
        super().__init__(atoms)
        self._src = src
        self._left = set(src.keys() - atoms.keys())  # the list and dict values not read yet
        self._copy = copy
        self._whole = False  # True once every value is in the dict itself (after a deletion, say)

    def __missing__(self, key: str) -> Any:
        if key not in self._left:
            raise KeyError(key)
        self._left.discard(key)
        v = self._copy(key, self._src[key])
        dict.__setitem__(self, key, v)
        return v

    def _all(self) -> None:
        """Copy in every value not read yet and put the keys in the state's order (a plain copy from now on)."""
        if self._whole:
            return
        order = self._order()
        for k in list(self._left):
            self[k]  # copies it in (appended at the end for now)
        items = [(k, dict.__getitem__(self, k)) for k in order]
        dict.clear(self)
        dict.update(self, items)
        self._left.clear()
        self._whole = True

    def _order(self) -> list[str]:
        """The keys in the order the plain state would have them (no key is deleted before `_all`)."""
        return list(self._src) + [k for k in dict.keys(self) if k not in self._src]

    def settle(self) -> dict[str, Any]:
        """The plain state: what the message read (and perhaps changed) is copied, the rest is shared."""
        if self._whole:
            return dict(dict.items(self))
        out = self._src.copy()
        out.update(dict.items(self))
        return out

    # ---- every other way to the values
    def get(self, key: str, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        return self[key] if key in self._left else default

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self._left

    def __len__(self) -> int:
        return dict.__len__(self) + sum(1 for k in self._left if not dict.__contains__(self, k))

    def __iter__(self) -> Any:
        self._all()
        return dict.__iter__(self)

    def keys(self) -> Any:
        self._all()
        return dict.keys(self)

    def values(self) -> Any:
        self._all()
        return dict.values(self)

    def items(self) -> Any:
        self._all()
        return dict.items(self)

    def copy(self) -> dict[str, Any]:
        self._all()
        return dict(dict.items(self))

    def __eq__(self, other: object) -> bool:
        self._all()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __or__(self, other: Any) -> Any:
        self._all()
        return dict(dict.items(self)) | other

    def __ior__(self, other: Any) -> Any:
        self._all()
        dict.update(self, other)
        return self

    def __reversed__(self) -> Any:
        self._all()
        return dict.__reversed__(self)

    def __delitem__(self, key: str) -> None:
        self._all()
        dict.__delitem__(self, key)

    def pop(self, key: str, *default: Any) -> Any:
        self._all()
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, Any]:
        self._all()
        return dict.popitem(self)

    def clear(self) -> None:
        self._all()
        dict.clear(self)

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key in self:
            return self[key]
        dict.__setitem__(self, key, default)
        return default

    def __repr__(self) -> str:
        self._all()
        return dict.__repr__(self)

    def __reduce_ex__(self, protocol: Any) -> Any:  # copy.deepcopy, pickle: as the plain state
        self._all()
        return (dict, (dict(dict.items(self)),))


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
