"""Games as the moderator sees them: create one, list them, show one.

`decide_new_game` (pure) checks the name and the seats, deals (the engine's
set-up from the seed) and returns the game with its seats (codes stored only
hashed), its set-up events and first snapshot, the first deadline and each
player's first report with the seed commitment and their code; `create_game`
hashes the codes, decides and applies it in one transaction.  With a join step
it deals nothing yet: it opens the join step (`pbem.trust.deal`, `pbem.app.join`)
and the first mail is the invitation to JOIN.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pbem import engine as registry
from pbem.app import bounced, views
from pbem.app.decision import (
    MODERATOR_SEAT,
    Control,
    Decision,
    Effect,
    Events,
    GameError,
    NewDeadline,
    NewGame,
    NewSeat,
    Report,
)
from pbem.app.game_names import game_name_problem, player_named, unknown_game
from pbem.app.settle import settle
from pbem.engine.declare import read_options
from pbem.engine.names import norm, player_name
from pbem.engine.rng import commitment
from pbem.home.app import Home
from pbem.record import listing, store
from pbem.record.rows import Game
from pbem.trust import deal as joining
from pbem.trust.asked import BINDINGS
from pbem.trust.codes import hash_code, new_code

log = logging.getLogger("pbem.games")


def check_options(kind: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options of a new game as its engine declares them (`Engine.declared_options`); GameError for a key
    the game does not take or a value it does not accept, listing what it does."""
    eng = registry.get(kind)
    try:
        return read_options(eng.title, eng.declared_options, dict(options))
    except ValueError as exc:
        raise GameError(str(exc)) from None


def check_seats(kind: str, players: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The seats as given, with names checked (`player_name`); GameError unless the engine takes this many
    players, with names distinct ignoring case and accents, and distinct addresses."""
    eng = registry.get(kind)
    if not (eng.min_players <= len(players) <= eng.max_players):
        raise GameError(f"{eng.title} takes {eng.min_players} to {eng.max_players} players, not {len(players)}")
    try:
        names = [player_name(p) for p, _ in players]
    except ValueError as exc:
        raise GameError(str(exc)) from None
    if len(set(norm(n) for n in names)) != len(names):
        raise GameError("two players have the same name (ignoring case and accents); names must differ")
    if len(set(a.lower() for _, a in players)) != len(players):
        raise GameError("two players have the same address; each player needs their own address")
    return list(zip(names, [a for _, a in players]))


@dataclass(frozen=True)
class GameSpec:
    """What the moderator asked for: `players` as (name, address); `codes` each player's code and
    `hashes` its stored hash (hashing is deliberately slow: the shell does it)."""

    kind: str
    name: str
    players: list[tuple[str, str]]
    seed: str
    deadline_seconds: int
    resolve: str
    options: dict[str, Any] = field(default_factory=dict)
    insecure_seed: bool = False
    codes: dict[str, str] = field(default_factory=dict)
    hashes: dict[str, str] = field(default_factory=dict)
    join: bool = False  # open the join step instead of dealing


def decide_new_game(spec: GameSpec, when: datetime, exists: bool) -> Decision:
    """A new game (pure): the game with its first snapshot, its seats, the set-up events, the first
    deadline and each player's first report with the seed commitment and their code.  `exists`: a game
    of that name is already recorded."""
    name = spec.name.lower()
    if (why := game_name_problem(name)) is not None:
        raise GameError(why)
    players = check_seats(spec.kind, spec.players)
    check_options(spec.kind, spec.options)
    if exists:
        raise GameError(f'a game named "{name}" already exists; choose another name')
    eng = registry.get(spec.kind)
    names = tuple(p for p, _ in players)
    state, events = (
        (joining.open_state(list(names)), []) if spec.join else eng.setup(list(names), spec.seed, dict(spec.options))
    )
    shown = joining.JoinStep(eng, list(names), spec.seed, dict(spec.options)) if spec.join else eng
    step = views.current_step(shown, state)
    game = NewGame(
        name,
        spec.kind,
        spec.seed,
        commitment(spec.seed),
        spec.insecure_seed,
        names,
        dict(spec.options),
        spec.deadline_seconds,
        spec.resolve,
        state,
        step,
        BINDINGS,
    )
    effects: list[Effect] = [game]
    for pos, (player, address) in enumerate(players):
        seat = NewSeat(pos, player, address.lower(), player, spec.hashes[player], thread=f"{name}:{pos}:0")
        effects.append(seat)
    effects.append(Events(tuple(events)))
    if step:
        effects.append(NewDeadline(step, when + timedelta(seconds=spec.deadline_seconds), "step opened"))
    if spec.join:
        effects.append(Control("join", "open"))
    for pos, player in enumerate(names):  # the first report starts the player's thread (joining: the invitation)
        effects.append(Report(player, code=spec.codes[player], key=("thread", f"{name}:{pos}:0")))
    return Decision(game=name, effects=effects)


@dataclass(frozen=True)
class Table:
    """How a new game is played, beyond its kind, name, seats and seed (each default: the home's setting).

    `join`: open the join step instead of dealing (`pbem.trust.deal`; `pbem game new` does unless
    --no-join): each player's first mail is then the invitation to JOIN, and the deal waits for the salts.
    """

    deadline: timedelta | None = None  # the length of a step
    options: Mapping[str, Any] = field(default_factory=dict)  # the engine's options
    resolve: str | None = None  # asap, or deadline (orders held until the step's deadline)
    insecure_seed: bool = False  # the moderator chose the seed (`--seed`): the reports say so
    join: bool = False


def create_game(
    home: Home,
    kind: str,
    name: str,
    players: list[tuple[str, str]],
    seed: str | None = None,
    *,
    clock: Callable[[], datetime] | None = None,
    codes: dict[str, str] | None = None,
    table: Table = Table(),
) -> Game:
    """Create a game, deal, and queue each player's first report (with the seed commitment and their code).

    `codes` fixes the players' secret codes (tests and the demo); by default each is random.
    """
    seats = check_seats(kind, players)
    if any(a.lower() == home.policy.moderator_address.lower() for _, a in seats):
        raise GameError(MODERATOR_SEAT)
    chosen = {p: (codes or {}).get(p) or new_code() for p, _ in seats}
    spec = GameSpec(
        kind,
        name,
        seats,
        seed or secrets.token_hex(32),
        int((table.deadline or home.policy.default_deadline).total_seconds()),
        table.resolve or home.policy.resolve,
        check_options(kind, table.options),
        table.insecure_seed,
        chosen,
        {p: hash_code(c, home=home.policy.home) for p, c in chosen.items()},  # keyed: docs/security.md
        table.join,
    )
    when: datetime = (clock or home.clock)()
    with home.units() as s:
        d = decide_new_game(spec, when, store.game_by_name(s, name) is not None)
        loaded = settle(s, home.policy, d, when)
        s.commit()
        assert loaded is not None
        log.info("created %s game %s for %d players", kind, loaded.game.name, len(seats))
        return loaded.game


@dataclass(frozen=True)
class GameRow:
    """One line of `pbem game list`."""

    name: str
    kind: str
    status: str  # running, paused, abandoned, over
    players: list[str]
    step: str | None
    due: datetime | None


def list_games(home: Home) -> list[GameRow]:
    rows = []
    with home.units() as s:
        for g in listing.all_games(s):
            assert g.id is not None
            status = "over" if store.is_over(s, g.id) else store.control_state(s, g.id)
            dl = store.current_deadline(s, g.id) if status == "running" else None
            rows.append(
                GameRow(
                    g.name,
                    g.kind,
                    status,
                    [st.player for st in store.current_seats(s, g.id)] or json.loads(g.players_json),
                    dl.step if dl else None,
                    dl.due_at if dl else None,
                )
            )
    return rows


@dataclass(frozen=True)
class Shown:
    """`pbem game show`: a player's report context, or the public view."""

    title: str
    name: str
    players: list[str]
    report: dict[str, Any] | None  # with --as: the report template's context
    view: Mapping[str, Any] | None  # without: the public view
    waiting: list[str]
    state: str = "running"  # running, paused, abandoned or over
    due: datetime | None = None  # the current step's deadline
    bouncing: tuple[str, ...] = ()  # a line per seat whose address bounces (`pbem.app.bounced`, months4)


def game_named(home: Home, typed: str) -> str:
    """The name of the game `typed` names (any case), as the game is named: what a command prints and logs; a
    GameError naming the nearest names when it names none."""
    with home.units() as s:
        game = store.game_by_name(s, typed)
        if game is None:
            raise GameError(unknown_game(typed, store.game_names(s)))
        return game.name


def show_game(home: Home, name: str, as_player: str | None = None, last: int = 20) -> Shown:
    from pbem.app.reporting import Reader, report_context
    from pbem.record import recent

    with home.units() as s:
        game = store.game_by_name(s, name)
        if game is None:
            raise GameError(unknown_game(name, store.game_names(s)))
        loaded = store.load(s, game)
        eng = views.engine(loaded)
        players = views.players(loaded)
        title: str = eng.title
        state = "over" if loaded.over else store.control_state(s, game.id or 0)
        waiting = views.waiting(eng, loaded.state) if state in ("running", "paused") else []
        dl = store.current_deadline(s, game.id or 0) if waiting else None
        due = store.aware(dl.due_at) if dl is not None else None
        if as_player is None:
            seats = {p: st.address for p in players if (st := loaded.seat_for_player(p)) is not None}
            now = home.clock() if state in ("running", "paused") else None
            dead = bounced.bouncing(s, seats, now) if now is not None else {}
            lines = tuple(bounced.bouncing_line(game.name, p, r) for p, r in sorted(dead.items()))
            return Shown(title, game.name, players, None, eng.view(loaded.state, None), waiting, state, due, lines)
        who = player_named(as_player, players, name, store.former_players(s, game.id or 0))
        recent.shown(s, loaded, who, last)  # the report from the start, its last `last` events read
        ctx = report_context(home.policy.moderator_name, loaded, Reader(who, 0))
        ctx["happened"] = ctx["happened"][-last:]
        return Shown(title, game.name, players, ctx, None, waiting)
