"""Moderator commands on a running game: extend, pause, resume, replace, abandon, new code.

Each appends a `ControlAction` (and, where players should know, a public
"moderator" event in the history and a notice or report) in one transaction.
Nothing is edited in place: a new deadline, a new seat row, a new code hash.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from sqlmodel import Session

from . import outbox
from .codes import hash_code, new_code
from .config import Config
from .engine.base import Event
from .moderator import GameError
from .record import store
from .record.db import session
from .record.models import ControlAction, Deadline, Seat


def _game(s: Session, name: str) -> store.Loaded:
    game = store.game_by_name(s, name)
    if game is None:
        raise GameError(f'no game named "{name}"; see pbem game list')
    return store.load(s, game)


def _running(s: Session, loaded: store.Loaded, allow_paused: bool = False) -> None:
    if store.is_over(s, loaded.game.id):
        raise GameError(f"game {loaded.game.name} is over")
    state = store.control_state(s, loaded.game.id)
    if state == "abandoned" or (state == "paused" and not allow_paused):
        raise GameError(f"game {loaded.game.name} is {state}")


def _announce(
    s: Session, cfg: Config, loaded: store.Loaded, text: str, when: datetime, action: str, detail: str = ""
) -> None:
    s.add(ControlAction(game_id=loaded.game.id, action=action, detail=detail, created_at=when))
    store.append_events(s, loaded, loaded.seq, [Event("moderator", text, "public", {"action": action})], when)
    for p in json.loads(loaded.game.players_json):
        seat = loaded.seat_for_player(p)
        outbox.queue_notice(
            s,
            cfg,
            to=seat.address,
            subject=f"[pbem {loaded.game.name}] {text}"[:200],
            body=text,
            when=when,
            key=("control", loaded.game.name, action, loaded.event_seq, p),
            game_id=loaded.game.id,
            player=p,
        )


def extend(cfg: Config, name: str, by: timedelta, when: datetime) -> datetime:
    with session(cfg.database_url) as s:
        loaded = _game(s, name)
        _running(s, loaded, allow_paused=True)
        dl = store.current_deadline(s, loaded.game.id)
        if dl is None:
            raise GameError(f"game {name} has no open step to extend")
        due = store.aware(dl.due_at) + by
        s.add(Deadline(game_id=loaded.game.id, step=dl.step, due_at=due, reason=f"extended by {by}", created_at=when))
        _announce(
            s, cfg, loaded, f"The moderator extended the deadline to {due:%Y-%m-%d %H:%M} UTC.", when, "extend", str(by)
        )
        s.commit()
        return due


def pause(cfg: Config, name: str, when: datetime) -> None:
    with session(cfg.database_url) as s:
        loaded = _game(s, name)
        _running(s, loaded)
        _announce(
            s, cfg, loaded, "The moderator paused the game; deadlines are stopped.", when, "pause", when.isoformat()
        )
        s.commit()


def resume(cfg: Config, name: str, when: datetime) -> datetime | None:
    """Resume; the current deadline moves on by the time the game was paused."""
    from sqlmodel import select

    with session(cfg.database_url) as s:
        loaded = _game(s, name)
        if store.control_state(s, loaded.game.id) != "paused":
            raise GameError(f"game {name} is not paused")
        paused_at = (
            s.exec(
                select(ControlAction)
                .where(ControlAction.game_id == loaded.game.id, ControlAction.action == "pause")
                .order_by(ControlAction.id.desc())
            )
            .first()
            .created_at
        )
        dl = store.current_deadline(s, loaded.game.id)
        due = None
        if dl is not None:
            due = store.aware(dl.due_at) + (when - store.aware(paused_at))
            s.add(Deadline(game_id=loaded.game.id, step=dl.step, due_at=due, reason="resumed", created_at=when))
        _announce(
            s,
            cfg,
            loaded,
            "The moderator resumed the game" + (f"; deadline {due:%Y-%m-%d %H:%M} UTC." if due else "."),
            when,
            "resume",
        )
        s.commit()
        return due


def abandon(cfg: Config, name: str, when: datetime) -> None:
    with session(cfg.database_url) as s:
        loaded = _game(s, name)
        _running(s, loaded, allow_paused=True)
        _announce(
            s, cfg, loaded, "The moderator abandoned the game; no further orders will be accepted.", when, "abandon"
        )
        s.commit()


def replace(
    cfg: Config, name: str, old: str, newcomer: tuple[str, str], when: datetime, code: str | None = None
) -> str:
    """The newcomer takes OLD's seat (same player name in the game), with a fresh code and a full report."""
    display, address = newcomer
    with session(cfg.database_url) as s:
        loaded = _game(s, name)
        _running(s, loaded, allow_paused=True)
        seat = next((st for st in loaded.seats if st.player.lower() == old.lower()), None)
        if seat is None:
            raise GameError(f"{old} is not a player of {name}")
        if any(st.address == address.lower() for st in loaded.seats if st is not seat):
            raise GameError(f"{address} already plays in {name}")
        code = code or new_code()
        s.add(
            Seat(
                game_id=loaded.game.id,
                position=seat.position,
                player=seat.player,
                address=address.lower(),
                display_name=display,
                code_hash=hash_code(code),
                since_seq=loaded.seq,
                created_at=when,
            )
        )
        s.flush()
        loaded.seats = store.current_seats(s, loaded.game.id)
        _announce(
            s,
            cfg,
            loaded,
            f"{display} replaces the player in seat {seat.player}.",
            when,
            "replace",
            f"{seat.player}: {seat.address} -> {address.lower()}",
        )
        # a full report: everything this seat may know, from the start, with the new code
        outbox.queue_report(
            s,
            cfg,
            loaded,
            seat.player,
            when,
            code=code,
            extra=f"replace:{address}",
            since=0,
            subject=f"[pbem {name}] You now play {seat.player}: full report",
        )
        s.commit()
        return code


def new_player_code(cfg: Config, name: str, player: str, when: datetime, code: str | None = None) -> None:
    """Issue a fresh code: a new seat row with the new hash, mailed only to the registered address."""
    with session(cfg.database_url) as s:
        loaded = _game(s, name)
        seat = next((st for st in loaded.seats if st.player.lower() == player.lower()), None)
        if seat is None:
            raise GameError(f"{player} is not a player of {name}")
        code = code or new_code()
        s.add(
            Seat(
                game_id=loaded.game.id,
                position=seat.position,
                player=seat.player,
                address=seat.address,
                display_name=seat.display_name,
                code_hash=hash_code(code),
                since_seq=loaded.seq,
                created_at=when,
            )
        )
        s.add(ControlAction(game_id=loaded.game.id, action="code", detail=seat.player, created_at=when))
        body = (
            f"Your new player code for game {name} is {{code}}.\nPut a line CODE {{code}} in every order "
            "message; the old code no longer works. Keep it private."
        )
        outbox.queue_notice(
            s,
            cfg,
            to=seat.address,
            subject=f"[pbem {name}] Your new player code",
            body=body.format(code=code),
            keep_body=body.format(code=outbox.REDACTED),
            when=when,
            key=("code", name, seat.player, loaded.seq, when.isoformat()),
            game_id=loaded.game.id,
            player=seat.player,
        )
        s.commit()
