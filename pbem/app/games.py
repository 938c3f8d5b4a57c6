"""Games as the moderator sees them: create one, list them, show one.

`create_game` checks the seats, deals (the engine's set-up from the seed),
records the game with its seats (codes stored only hashed), its set-up events
and first snapshot, opens the first deadline and queues each player's first
report with the seed commitment and their code.  With a join step it deals
nothing yet: it opens the join step (`pbem.joining`, `pbem.app.join`) and the
first mail is the invitation to JOIN.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import col, select

from .. import engine as registry
from .. import joining
from ..codes import hash_code, new_code
from ..config import Config
from ..engine.names import norm, player_name
from ..engine.rng import commitment
from ..names import game_name_problem
from ..record import store
from ..record.db import session
from ..record.models import Game, Seat, Snapshot
from . import views
from .apply import apply
from .decision import Control, Decision, Effect, GameError, Report

log = logging.getLogger("pbem.games")


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


def create_game(
    cfg: Config,
    kind: str,
    name: str,
    players: list[tuple[str, str]],
    seed: str | None = None,
    deadline: timedelta | None = None,
    options: dict[str, Any] | None = None,
    clock: Any = store.now_utc,
    codes: dict[str, str] | None = None,
    resolve: str | None = None,
    insecure_seed: bool = False,
    join: bool = False,
) -> Game:
    """Create a game, deal, and queue each player's first report (with the seed commitment and their code).

    `codes` fixes the players' secret codes (tests and the demo); by default each is random.
    `join`: open the join step instead of dealing (`pbem.joining`; `pbem game new` does unless --no-join):
    each player's first mail is then the invitation to JOIN, and the deal waits for the salts.
    """
    name = name.lower()
    if (why := game_name_problem(name)) is not None:
        raise GameError(why)
    players = check_seats(kind, players)
    eng = registry.get(kind)
    names = [p for p, _ in players]
    seed = seed or secrets.token_hex(32)
    when: datetime = clock()
    with session(cfg.database_url) as s:
        if store.game_by_name(s, name):
            raise GameError(f'a game named "{name}" already exists; choose another name')
        options = dict(options or {})
        state, events = (joining.open_state(), []) if join else eng.setup(names, seed, options)
        game = Game(
            name=name,
            kind=kind,
            seed=seed,
            seed_commitment=commitment(seed),
            insecure_seed=insecure_seed,
            players_json=json.dumps(names),
            options_json=json.dumps(options, sort_keys=True),
            deadline_seconds=int((deadline or cfg.default_deadline).total_seconds()),
            resolve=resolve or cfg.resolve,
            created_at=when,
        )
        s.add(game)
        s.flush()
        assert game.id is not None
        codes = {p: (codes or {}).get(p) or new_code() for p in names}
        for pos, (player, address) in enumerate(players):
            s.add(
                Seat(
                    game_id=game.id,
                    position=pos,
                    player=player,
                    address=address.lower(),
                    display_name=player,
                    code_hash=hash_code(codes[player]),
                    created_at=when,
                )
            )
        s.flush()
        loaded = store.Loaded(game, store.current_seats(s, game.id), state, 0, 0)
        store.append_events(s, loaded, 0, events, when)
        step = views.current_step(views.engine(loaded), state)
        s.add(
            Snapshot(
                game_id=game.id,
                seq=0,
                step=step,
                over=False,
                state_json=json.dumps(state, sort_keys=True),
                created_at=when,
            )
        )
        if step:
            store.open_deadline(s, loaded, step, when)
        first: list[Effect] = [Control("join", "open")] if join else []
        first += [Report(p, code=codes[p]) for p in names]  # while joining: the invitation (`join.invitations`)
        apply(s, cfg, Decision(game=name, effects=first), when, loaded)
        s.commit()
        log.info("created %s game %s for %d players", kind, name, len(names))
        return game


@dataclass(frozen=True)
class GameRow:
    """One line of `pbem game list`."""

    name: str
    kind: str
    status: str  # running, paused, abandoned, over
    players: list[str]
    step: str | None
    due: datetime | None


def list_games(cfg: Config) -> list[GameRow]:
    rows = []
    with session(cfg.database_url) as s:
        for g in s.exec(select(Game).order_by(col(Game.id))).all():
            assert g.id is not None
            status = "over" if store.is_over(s, g.id) else store.control_state(s, g.id)
            dl = store.current_deadline(s, g.id) if status == "running" else None
            rows.append(
                GameRow(
                    g.name,
                    g.kind,
                    status,
                    json.loads(g.players_json),
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


def show_game(cfg: Config, name: str, as_player: str | None = None, last: int = 20) -> Shown:
    from .reporting import report_context

    with session(cfg.database_url) as s:
        game = store.game_by_name(s, name)
        if game is None:
            raise GameError(f'no game named "{name}"; see pbem game list')
        loaded = store.load(s, game)
        eng = views.engine(loaded)
        players = views.players(loaded)
        title: str = eng.title
        waiting = views.waiting(eng, loaded.state)
        if as_player is None:
            return Shown(title, game.name, players, None, eng.view(loaded.state, None), waiting)
        match = [p for p in players if p.lower() == as_player.lower()]
        if not match:
            raise GameError(f"{as_player} is not a player of {name}; players: {', '.join(players)}")
        ctx = report_context(s, cfg, loaded, match[0], 0)
        ctx["happened"] = ctx["happened"][-last:]
        return Shown(title, game.name, players, ctx, None, waiting)
