"""A player's private report: its context, read from the record at one point of the game.

Templates receive only `view(state, player)`, the events that player may see
and that player's requests, never the state (DESIGN.md principle 5).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from pbem.app import join, views
from pbem.app.decision import Report
from pbem.engine.base import Engine, Event, Request, Result
from pbem.home.config import Config
from pbem.mail.outbound.outgoing import Mail, thread_root
from pbem.record import outbox, store
from pbem.record.home_secrets import message_id_key
from pbem.record.models import Deadline, GameEvent


@dataclass
class Moment:
    """What every report at one point of a game shares, read once however many players are told."""

    requests: list[Request]
    result: Result | None
    deadline: Deadline | None
    events: list[GameEvent]  # rows after `after`, in order
    after: int

    @classmethod
    def read(cls, s: Session, loaded: store.Loaded, after: int) -> Moment:
        eng = views.engine(loaded)
        assert loaded.game.id is not None
        return cls(
            eng.requests(loaded.state),
            eng.result(loaded.state),
            store.current_deadline(s, loaded.game.id),
            store.events_for(s, loaded.game.id, after),
            after,
        )


def report_context(
    s: Session,
    cfg: Config,
    loaded: store.Loaded,
    player: str,
    since: int,
    code: str | None = None,
    moment: Moment | None = None,
    takeover: bool = False,
) -> dict[str, Any]:
    """Everything a report template gets: only `player`'s view and the events they may see."""
    if moment is None or moment.after > since:
        moment = Moment.read(s, loaded, since)
    eng = views.engine(loaded)
    game = loaded.game
    assert game.id is not None
    # from the start: a replaced seat's newcomer also sees what the seat saw under its earlier names
    names = store.seat_names(s, game.id).get(player, (player,)) if since == 0 else (player,)
    happened = [
        _addressed(ev, names, player)
        for r in moment.events
        if r.seq > since
        for ev in [store.event_of(r)]
        if any(ev.visible_to(n) for n in names)
    ]
    asked_now = any(r.player == player for r in moment.requests)
    due = store.aware(moment.deadline.due_at) if (moment.deadline and asked_now and moment.result is None) else None
    return player_report(
        eng,
        loaded.state,
        player,
        game_name=game.name,
        happened=happened,
        requests=moment.requests,
        result=moment.result,
        deadline=due.strftime("%Y-%m-%d %H:%M UTC") if due else None,
        commitment=game.seed_commitment if since == 0 else None,
        seed=game.seed if moment.result is not None else None,
        commitment_final=game.seed_commitment,
        insecure_seed=game.insecure_seed,
        code=code,
        takeover=takeover,
        moderator=cfg.moderator_name,
        salts=_salts(loaded, moment.events, since),
        former=[n for n in names if n != player],
    )


def _salts(loaded: store.Loaded, events: list[GameEvent], since: int) -> list[dict[str, str]] | None:
    """The players' salts, for the report that first follows the deal of a game with a join step."""
    row = next((r for r in events if r.seq > since and r.kind == "salts"), None)
    if row is None:
        return None
    salts = store.event_of(row).data["salts"]
    return [{"player": p, "salt": salt} for p, salt in zip(views.players(loaded), salts)]


def _addressed(ev: Event, names: tuple[str, ...], player: str) -> str:
    """An event's text for `player`; one that only their seat saw under an earlier name ("Carol, you were
    dealt ...") is addressed to them by their own name.  Everything else keeps the names it was told with."""
    former = [n for n in names if n != player]
    if not former or isinstance(ev.visibility, str) or not set(ev.visibility) <= set(names):
        return ev.text
    text = ev.text
    for name in former:
        text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", player, text)
    return text


def player_report(
    eng: Engine,
    state: dict[str, Any],
    player: str,
    *,
    game_name: str,
    happened: list[str],
    requests: list[Request],
    result: Result | None,
    deadline: str | None,
    commitment: str | None = None,
    seed: str | None = None,
    commitment_final: str = "",
    insecure_seed: bool = False,
    code: str | None = None,
    takeover: bool = False,
    moderator: str = "",
    salts: list[dict[str, str]] | None = None,
    former: list[str] | None = None,
) -> dict[str, Any]:
    """The report template's context from plain values (pure): `player`'s view, their requests and the
    events they may see.  `report_context` fills it from the record; tests fill it from a bare state."""
    reqs = [r for r in requests if r.player == player]
    view = eng.view(state, player)
    asked = [
        {
            "prompt": r.prompt,
            "syntax": list(r.syntax),
            "legal": list(r.legal),
            "default": list(r.default),
            "on_file": list(r.on_file),
            "answered": r.answered,
        }
        for r in reqs
    ]
    return {
        "title": eng.title,
        "game_name": game_name,
        "player": player,
        "view": view,
        "sections": view["sections"],
        "happened": happened,
        "asked": asked,
        "deadline": deadline,
        "waiting": sorted({r.player for r in requests if not r.answered}),
        "commitment": commitment,
        "result": None if result is None else {"summary": result.summary, "scores": result.scores},
        "seed": seed,
        "commitment_final": commitment_final,
        "insecure_seed": insecure_seed,
        "code": code,
        "takeover": takeover,
        "former": list(former or []),  # the seat's earlier names (a replacement)
        "moderator": moderator,
        "salts": salts,
    }


def report_mails(s: Session, cfg: Config, loaded: store.Loaded, reports: list[Report]) -> list[Mail]:
    """The mails for `reports` at the current point, reading what they share once."""
    assert loaded.game.id is not None
    seqs = outbox.last_report_seqs(s, loaded.game.id, [r.player for r in reports])
    secret = message_id_key(s)
    since = {r.player: (r.since if r.since is not None else seqs.get(r.player, 0)) for r in reports}
    moment = Moment.read(s, loaded, min(since.values(), default=0))
    mails = []
    for r in reports:
        seat = loaded.seat_for_player(r.player)
        if seat is None:
            continue
        kind = "report"
        if join.is_open(loaded):  # not dealt yet: the invitation to JOIN stands for the report
            kind, due = "join_invite", store.aware(moment.deadline.due_at) if moment.deadline else None
            ctx = join.invitation(
                loaded, r.player, code=r.code, due=due, takeover=r.takeover, moderator=cfg.moderator_name
            )
        else:
            ctx = report_context(s, cfg, loaded, r.player, since[r.player], r.code, moment, r.takeover)
        if r.ack is not None:  # the player's own message answered at the top of the report: one mail
            ctx = {**ctx, "ack": r.ack, "ack_applied": bool(r.ack.get("applied"))}
        key = r.key or (loaded.game.name, r.player, loaded.event_seq, loaded.seq, seat.id, r.extra)
        root = thread_root(cfg, seat.thread, secret) if key != ("thread", seat.thread) else None
        mails.append(
            Mail(
                to=seat.address,
                kind=kind,
                context=ctx,
                purpose=r.purpose,
                key=key,
                to_name=seat.display_name or r.player,
                player=r.player,
                secret="code" if r.code else None,
                upto_seq=loaded.event_seq,
                game_id=loaded.game.id,
                references=r.references or ((root,) if root else ()),
                in_reply_to=r.in_reply_to,
            )
        )
    return mails
