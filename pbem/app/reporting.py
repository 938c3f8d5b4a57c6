"""A player's private report: its context, read from the record at one point of the game.

Templates receive only `view(state, player)`, the events that player may see
and that player's requests, never the state (docs/architecture.md, principle 5).  Pure: what
the reports read (the events since each reader's last report, the deadline, the
seats' earlier names) was loaded before with the game (`Loaded.recent`,
`pbem.record.recent.read`) and is kept up to date while a decision is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbem.app import join, views
from pbem.app.decision import Report
from pbem.engine.base import Engine, Event, Request, Result
from pbem.mail.outbound.compose import stable_message_id
from pbem.mail.outbound.outgoing import Mail
from pbem.record import store
from pbem.record.rows import Deadline, GameEvent
from pbem.trust import deal as joining


@dataclass
class Moment:
    """What every report at one point of a game shares, read once however many players are told."""

    requests: list[Request]
    result: Result | None
    deadline: Deadline | None
    events: list[GameEvent]  # rows after `after`, in order
    after: int

    @classmethod
    def now(cls, loaded: store.Loaded) -> Moment:
        """The game as it stands, from what was loaded with it (`Loaded.recent`)."""
        eng, recent = views.engine(loaded), loaded.recent
        assert recent is not None, "the reports' facts are read before a decision is written (apply.prepare)"
        return cls(eng.requests(loaded.state), eng.result(loaded.state), recent.deadline, recent.events, recent.after)


@dataclass(frozen=True)
class Look:
    """What finished mails read besides the game: the home's Message-ID key and domain (threads), the
    moderator's name (signatures), and when the decision happens (the deadline a new step opens)."""

    secret: bytes
    domain: str
    moderator_name: str
    when: datetime

    def thread_root(self, thread: str) -> str | None:
        """The Message-ID of a seat's first report (`pbem.mail.outbound.outgoing.thread_root`)."""
        return stable_message_id(self.domain, "report", "thread", thread, secret=bytes(self.secret)) if thread else None


@dataclass(frozen=True)
class Reader:
    """Who a report is for and from where: `since` the last event seq they were told (0: from the start)."""

    player: str
    since: int
    code: str | None = None  # their code, shown once (a new game, a replacement)
    takeover: bool = False  # they take over a seat


def report_context(
    moderator: str, loaded: store.Loaded, reader: Reader, moment: Moment | None = None
) -> dict[str, Any]:
    """Everything a report template gets: only the reader's view and the events they may see."""
    player, since = reader.player, reader.since
    moment = moment or Moment.now(loaded)
    assert moment.after <= since, "the report's events were loaded from its reader's last report"
    eng = views.engine(loaded)
    game = loaded.game
    assert loaded.recent is not None
    # from the start: a replaced seat's newcomer also sees what the seat saw under its earlier names
    names = loaded.recent.names.get(player, (player,)) if since == 0 else (player,)
    happened = [
        _addressed(ev, names, player)
        for r in moment.events
        if r.seq > since
        for ev in [store.event_seen(r)]
        if any(ev.visible_to(n) for n in names)
    ]
    asked_now = any(r.player == player for r in moment.requests)
    due = store.aware(moment.deadline.due_at) if (moment.deadline and asked_now and moment.result is None) else None
    until = store.aware(moment.deadline.due_at) if (moment.deadline and moment.result is None) else None
    point = Point(
        game.name,
        tuple(moment.requests),
        moment.result,
        seed=game.seed if moment.result is not None else None,
        commitment_final=game.seed_commitment,
        insecure_seed=game.insecure_seed,
        moderator=moderator,
    )
    salts = _salts(loaded, moment.events, since)
    told = Told(
        tuple(happened),
        deadline=due.strftime("%Y-%m-%d %H:%M UTC") if due else None,
        due_at=until.isoformat() if until else None,
        commitment=game.seed_commitment if since == 0 else None,
        code=reader.code,
        takeover=reader.takeover,
        salts=salts,
        former=tuple(n for n in names if n != player),
        deal_warning=_deal_warning(loaded, moment.events) if salts is not None or moment.result is not None else None,
    )
    return player_report(eng, loaded.state, player, point, told)


def _salts(loaded: store.Loaded, events: list[GameEvent], since: int) -> list[dict[str, str]] | None:
    """The players' salts, for the report that first follows the deal of a game with a join step."""
    row = next((r for r in events if r.seq > since and r.kind == "salts"), None)
    if row is None:
        return None
    data = store.event_of(row).data
    signed = data.get("signed") or [""] * len(data["salts"])
    return [
        {"player": p, "salt": salt} | ({"signed": True} if sig else {})
        for p, salt, sig in zip(views.players(loaded), data["salts"], signed)
    ]


def _deal_warning(loaded: store.Loaded, events: list[GameEvent]) -> str | None:
    """What the deal of a game with a join step lacks (`pbem.trust.deal.weakness`): said where it is news, in the
    report that lists the salts (the first after the deal, a newcomer's full report) and in the final one, not in
    every report between (walk6: a long paragraph above "What happened" in each, where providers sign nothing)."""
    row = next((r for r in events if r.kind == "salts"), None)
    data = store.event_of(row).data if row is not None else (loaded.recent.deal if loaded.recent else None)
    return joining.weakness(data) if data else None


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


@dataclass(frozen=True)
class Point:
    """What every report at one point of a game shares: the game's name, who is asked what, the result,
    and the seed's commitment (the seed itself once the game is over)."""

    game_name: str
    requests: tuple[Request, ...]
    result: Result | None
    seed: str | None = None
    commitment_final: str = ""
    insecure_seed: bool = False
    moderator: str = ""


@dataclass(frozen=True)
class Told:
    """What one reader is told: the events they may see since their last report, their deadline, and
    what a first report carries (the commitment; their code; the salts after the deal; earlier names)."""

    happened: tuple[str, ...]
    deadline: str | None = None
    commitment: str | None = None
    code: str | None = None
    takeover: bool = False
    salts: list[dict[str, str]] | None = None
    former: tuple[str, ...] = ()  # the seat's earlier names (a replacement)
    deal_warning: str | None = None  # whose contribution to the deal the moderator could have chosen
    due_at: str | None = None  # ISO; the templates tell it from the render time ("in 23 hours, Tue 2 Dec 18:00 UTC")


def player_report(eng: Engine, state: dict[str, Any], player: str, at: Point, told: Told) -> dict[str, Any]:
    """The report template's context from plain values (pure): `player`'s view, their requests and the
    events they may see.  `report_context` fills it from the record; tests fill it from a bare state."""
    requests, result = at.requests, at.result
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
        "game_name": at.game_name,
        "player": player,
        "view": view,
        "sections": view["sections"],
        "happened": list(told.happened),
        "asked": asked,
        "deadline": told.deadline,
        "due_at": told.due_at,  # ISO; the templates tell it from the render time ("in 23 hours, Tue 2 Dec 18:00 UTC")
        "waiting": sorted({r.player for r in requests if not r.answered}),
        "commitment": told.commitment,
        "result": None if result is None else {"summary": result.summary, "scores": result.scores},
        "seed": at.seed,
        "commitment_final": at.commitment_final,
        "insecure_seed": at.insecure_seed,
        "code": told.code,
        "takeover": told.takeover,
        "former": list(told.former),
        "moderator": at.moderator,
        "salts": told.salts,
        "deal_warning": told.deal_warning,
    }


def report_mails(look: Look, loaded: store.Loaded, reports: list[Report]) -> list[Mail]:
    """The mails for `reports` at the current point (pure: from what was loaded with the game)."""
    assert loaded.recent is not None  # (a game created in this decision has no id yet: apply files it)
    seqs = loaded.recent.last_reports
    since = {r.player: (r.since if r.since is not None else seqs.get(r.player, 0)) for r in reports}
    moment = Moment.now(loaded)
    mails = []
    for r in reports:
        seat = loaded.seat_for_player(r.player)
        if seat is None:
            continue
        kind = "report"
        if join.is_open(loaded):  # not dealt yet: the invitation to JOIN stands for the report
            kind, due = "join_invite", store.aware(moment.deadline.due_at) if moment.deadline else None
            ctx = join.invitation(
                loaded, r.player, code=r.code, due=due, takeover=r.takeover, moderator=look.moderator_name
            )
        else:
            ctx = report_context(
                look.moderator_name, loaded, Reader(r.player, since[r.player], r.code, r.takeover), moment
            )
        if r.ack is not None:  # the player's own message answered at the top of the report: one mail
            ctx = {**ctx, "ack": r.ack, "ack_applied": bool(r.ack.get("applied"))}
        key = r.key or (loaded.game.name, r.player, loaded.event_seq, loaded.seq, seat.id, r.extra)
        root = look.thread_root(seat.thread) if key != ("thread", seat.thread) else None
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
    seqs.update({m.player: loaded.event_seq for m in mails})  # a later report to them in this decision starts here
    return mails
