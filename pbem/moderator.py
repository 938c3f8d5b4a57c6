"""The poll pipeline: decide, then do.  Owns every transaction.

`poll` reads the inbox; each message is handled in ONE transaction (record
the message, apply its orders, append events, queue replies and reports),
committed, and only then settled in the inbox.  Then due deadlines are
applied, and finally the outbox is sent.  A crash anywhere loses nothing and
applies nothing twice: a message seen again is recognised by Message-ID and
body hash.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import func
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from . import engine as registry
from . import outbox
from .codes import check_code, hash_code, new_code
from .config import Config
from .engine.base import Outcome
from .engine.names import norm, player_name
from .engine.rng import commitment
from .engine.words import count
from .mail.message import Inbound, parse
from .mail.storage import scrub
from .mail.transport import Inbox, Sender, TransportError
from .names import game_name_problem
from .orders.extract import extract
from .record import store
from .record.db import DatabaseError, reading, session
from .record.models import Game, InboundMessage, Seat

log = logging.getLogger("pbem.moderator")
Clock = Callable[[], datetime]


class GameError(Exception):
    """A moderator command cannot be done; one sentence."""


@dataclass
class PollSummary:
    read: int = 0
    accepted: int = 0
    rejected: int = 0
    ignored: int = 0
    duplicates: int = 0
    deadlines: int = 0
    reminders: int = 0
    sent: int = 0
    retry: int = 0
    failed: int = 0
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # seconds, see timing_line

    def timing_line(self) -> str:
        """Where the run's time went (`pbem poll --timings`): the poll's own steps, then the sender thread's."""
        t = self.timings
        return ("timings: " + ", ".join(f"{k.replace('_', ' ')} {v:.2f} s" for k, v in t.items())) if t else ""

    def line(self) -> str:
        return (
            f"read {count(self.read, 'message')}: {self.accepted} accepted, {self.rejected} rejected, "
            f"{self.ignored} ignored, {self.duplicates} already seen; {count(self.deadlines, 'deadline')} applied, "
            f"{count(self.reminders, 'reminder')}; "
            f"sent {count(self.sent, 'mail')} ({self.retry} to retry, {self.failed} failed)"
        )


# --------------------------------------------------------------------------- games


def create_game(
    cfg: Config,
    kind: str,
    name: str,
    players: list[tuple[str, str]],
    seed: str | None = None,
    deadline: timedelta | None = None,
    options: dict | None = None,
    clock: Clock = store.now_utc,
    codes: dict[str, str] | None = None,
    resolve: str | None = None,
    insecure_seed: bool = False,
) -> Game:
    """Create a game, deal, and queue each player's first report (with the seed commitment and their code).

    `codes` fixes the players' secret codes (tests and the demo); by default each is random.
    """
    import secrets

    eng = registry.get(kind)
    name = name.lower()
    if (why := game_name_problem(name)) is not None:
        raise GameError(why)
    if not (eng.min_players <= len(players) <= eng.max_players):
        raise GameError(f"{eng.title} takes {eng.min_players} to {eng.max_players} players, not {len(players)}")
    try:
        names = [player_name(p) for p, _ in players]
    except ValueError as exc:
        raise GameError(str(exc)) from None
    if len(set(norm(n) for n in names)) != len(names):
        raise GameError("two players have the same name (ignoring case and accents); names must differ")
    players = list(zip(names, [a for _, a in players]))
    if len(set(a.lower() for _, a in players)) != len(players):
        raise GameError("two players have the same address; each player needs their own address")
    seed = seed or secrets.token_hex(32)
    when = clock()
    with session(cfg.database_url) as s:
        if store.game_by_name(s, name):
            raise GameError(f'a game named "{name}" already exists; choose another name')
        options = dict(options or {})
        state, events = eng.setup(names, seed, options)
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
        from .record.models import Snapshot

        s.add(
            Snapshot(
                game_id=game.id,
                seq=0,
                step=store.current_step(loaded),
                over=False,
                state_json=json.dumps(state, sort_keys=True),
                created_at=when,
            )
        )
        step = store.current_step(loaded)
        if step:
            store.open_deadline(s, loaded, step, when)
        for player in names:
            outbox.queue_report(s, cfg, loaded, player, when, code=codes[player])
        s.commit()
        log.info("created %s game %s for %d players", kind, name, len(names))
        return game


# --------------------------------------------------------------------------- poll


def poll(
    cfg: Config, inbox: Inbox, sender: Sender | None, clock: Clock = store.now_utc, dry_run: bool = False
) -> PollSummary:
    """Raises TransportError or DatabaseError (one sentence each) where the run cannot go on."""
    try:
        return _poll(cfg, inbox, sender, clock, dry_run)
    except OperationalError as exc:
        raise DatabaseError(f"the database could not be used: {str(exc.orig).splitlines()[0]}") from None
    except OSError as exc:  # a full disk, a read-only or vanished mail folder
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        raise TransportError(f"a mail folder or file could not be used: {exc.strerror or exc}{where}") from None


def _poll(cfg: Config, inbox: Inbox, sender: Sender | None, clock: Clock, dry_run: bool) -> PollSummary:
    summary = PollSummary()
    spent = dict.fromkeys(("fetching", "handling", "filing", "deadlines", "waiting_for_sender"), 0.0)
    started = mark = time.perf_counter()

    def lap(step: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        spent[step] += now - mark
        mark = now

    dispatcher = outbox.Dispatcher(cfg, sender, clock) if (sender is not None and not dry_run) else None
    with dispatcher or contextlib.nullcontext():
        if dispatcher is not None:
            dispatcher.nudge()  # mail left queued by an earlier run goes out first
        for item in inbox.fetch():
            lap("fetching")
            summary.read += 1
            try:
                outcome = handle(cfg, item.raw, clock(), dry_run=dry_run)
            except DatabaseError:
                raise
            except Exception:  # a bug must not stop the run or loop on this message forever
                log.exception("internal error while handling a message; it is kept as rejected for the moderator")
                outcome = _record_failure(cfg, item.raw, clock(), dry_run)
            setattr(summary, outcome.kind, getattr(summary, outcome.kind) + 1)
            if outcome.note:
                summary.notes.append(outcome.note)
            lap("handling")
            if not dry_run:
                inbox.settle(item.key, outcome.processed)
            if dispatcher is not None:
                dispatcher.nudge()
            lap("filing")
        lap("fetching")
        if not dry_run:
            from .deadlines import run_deadlines

            summary.deadlines, summary.reminders = run_deadlines(cfg, clock())
            lap("deadlines")
        if dispatcher is not None:
            sent = dispatcher.finish()
            lap("waiting_for_sender")
            summary.sent, summary.retry, summary.failed = sent.sent, sent.retry, sent.failed
            spent.update({f"sender_{k}": v for k, v in dispatcher.spent.items()})
    summary.timings = {"total": time.perf_counter() - started, **spent}
    return summary


def _record_failure(cfg: Config, raw: bytes, when: datetime, dry_run: bool) -> Handled:
    msg = parse(raw, cfg.moderator_address)
    if not dry_run:
        with session(cfg.database_url) as s:
            msg, raw, _ = scrub(msg, raw, None, cfg.max_stored_stranger)
            if (
                s.exec(
                    select(InboundMessage.id).where(
                        InboundMessage.message_id == msg.message_id, InboundMessage.body_hash == msg.body_hash
                    )
                ).first()
                is None
            ):
                _record(s, msg, raw, when, "rejected", "internal error: see the pbem log")
                s.commit()
    return Handled("rejected", f"{msg.message_id}: internal error")


@dataclass
class Handled:
    kind: str  # accepted, rejected, ignored, duplicates
    note: str = ""
    stored: str = ""  # for duplicates: the outcome recorded when the message was first handled

    @property
    def processed(self) -> bool:
        """Filed with the processed mail (else with the rejected): a message seen again keeps its first filing."""
        if self.kind == "duplicates":
            return self.stored in ("accepted", "held")
        return self.kind == "accepted"


def handle(cfg: Config, raw: bytes, when: datetime, dry_run: bool = False) -> Handled:
    """Process one raw message in one transaction."""
    msg = parse(raw, cfg.moderator_address, cfg.trust_authentication_results)
    _warm_code(cfg, msg)
    try:
        with session(cfg.database_url) as s:
            seen = dict(
                s.exec(
                    select(InboundMessage.body_hash, InboundMessage.outcome).where(
                        InboundMessage.message_id == msg.message_id
                    )
                ).all()
            )
            if msg.body_hash in seen:  # e.g. a run killed between its commit and filing the message
                return Handled("duplicates", f"{msg.message_id} was already handled", stored=seen[msg.body_hash])
            if seen:
                # the same Message-ID with other bytes (a replay, a reusing client): keep outgoing ids unique
                msg = dataclasses.replace(msg, key=f"{msg.message_id}#{msg.body_hash[:16]}")
            result = _decide(s, cfg, msg, raw, when)
            if dry_run:
                s.rollback()
            else:
                s.commit()
            return result
    except OperationalError as exc:
        raise DatabaseError(f"the database could not be used: {str(exc.orig).splitlines()[0]}") from None


def _warm_code(cfg: Config, msg: Inbound) -> None:
    """Run the deliberately slow code hash before the write lock is taken.

    The check under the lock then finds it cached; meanwhile the mail sender,
    which needs the lock to mark mail sent, keeps going (the hash releases the GIL).
    """
    if msg.auto or msg.problem or not msg.game:
        return
    code = extract(msg.text, msg.subject, ()).code  # the code needs no order words
    if not code:
        return
    with reading(cfg.database_url) as conn:
        stored = (
            conn.execute(
                select(Seat.code_hash)
                .join(Game, Game.id == Seat.game_id)
                .where(Game.name == msg.game.lower(), func.lower(Seat.address) == msg.sender.lower())
                .order_by(Seat.id.desc())
            )
            .scalars()
            .first()
        )
    if stored:
        check_code(code, stored)


def _record(
    s: Session,
    msg: Inbound,
    raw: bytes,
    when: datetime,
    outcome: str,
    reason: str,
    game: Game | None = None,
    player: str = "",
) -> int:
    """Keep the inbound message with what became of it; returns its id."""
    res = store.insert(
        s,
        InboundMessage,
        dict(
            message_id=msg.message_id,
            body_hash=msg.body_hash,
            sender=msg.sender,
            subject=msg.subject[:500],
            game_id=game.id if game else None,
            player=player,
            outcome=outcome,
            reason=reason,
            raw=raw,
            received_at=when,
        ),
    )
    return res.inserted_primary_key[0]


def _storage_limit(s: Session, cfg: Config, msg: Inbound) -> int:
    """A registered player's mail may be kept larger than a stranger's."""
    player = msg.sender and s.exec(select(Seat.id).where(Seat.address == msg.sender)).first() is not None
    return cfg.max_stored_player if player else cfg.max_stored_stranger


def _reply_allowed(s: Session, cfg: Config, address: str, when: datetime) -> bool:
    return outbox.replies_in_last_hour(s, address, when) < cfg.replies_per_hour


def _decide(s: Session, cfg: Config, msg: Inbound, raw: bytes, when: datetime) -> Handled:
    game = store.game_by_name(s, msg.game) if msg.game else None
    words = registry.get(game.kind).order_words if game is not None else None
    ex = extract(msg.text, msg.subject, words) if not msg.problem else None
    msg, raw, ex = scrub(msg, raw, ex, _storage_limit(s, cfg, msg))  # no code is stored or echoed from here on
    if msg.auto:
        _record(s, msg, raw, when, "ignored", f"not answered: {msg.auto}")
        return Handled("ignored")
    if game is None:
        return _no_game(s, cfg, msg, raw, when)
    loaded = store.load(s, game)
    seat = loaded.seat_for_address(msg.sender)
    if seat is None:
        return _stranger(s, cfg, msg, raw, when, loaded, ex)
    player = seat.player

    def reply(template: str, subject: str, **ctx) -> None:
        if template == "ack":
            ctx.setdefault("chatter", ex.chatter)  # lines set aside: "not read as orders"
        if _reply_allowed(s, cfg, seat.address, when):
            outbox.queue_reply(
                s,
                cfg,
                to=seat.address,
                to_name=seat.display_name,
                template=template,
                subject=subject,
                when=when,
                in_reply_to=msg.message_id,
                references=msg.references,
                game_id=game.id,
                player=player,
                game_name=game.name,
                key_id=msg.ident,
                **ctx,
            )

    def notice(body: str) -> None:
        reply("notice", f"Re: {msg.subject}"[:200], body=body)

    if msg.problem:
        _record(s, msg, raw, when, "rejected", msg.problem, game, player)
        notice(
            f"Your message could not be read: {msg.problem}.\nSend plain text orders, one per line; "
            "nothing was applied."
        )
        return Handled("rejected")
    acts = bool(ex.orders or ex.press)
    if acts and not check_code(ex.code, seat.code_hash):
        why = "it carried no player code" if not ex.code else "the player code it carried is wrong"
        _record(s, msg, raw, when, "rejected", f"refused: {why}", game, player)
        notice(
            f'We received a message from your address for game {game.name}, subject "{msg.subject}", '
            f"sent {msg.date or 'at an unknown time'}.\nIt was refused because {why}; nothing was applied.\n"
            "Put a line CODE <your code> (from your first report) in every order message.\n"
            "If you did not send it, someone may be forging your address: your code keeps them out."
        )
        return Handled("rejected")
    control = store.control_state(s, game.id)
    if acts and (control != "running" or loaded.over):
        why = "is over" if loaded.over else f"is {control}"
        _record(s, msg, raw, when, "rejected", f"game {why}", game, player)
        notice(f"Game {game.name} {why}; no orders can be applied.")
        return Handled("rejected")
    subject = f"Re: [pbem {game.name}] your orders"
    if ex.help:
        outbox.queue_notice(
            s,
            cfg,
            to=seat.address,
            subject=f"[pbem {game.name}] Handbook (Help) and your legal orders",  # a reply must not ask again
            when=when,
            key=("help", msg.ident),
            game_id=game.id,
            player=player,
            in_reply_to=msg.message_id,
            body=_help_text(loaded, player),
        )
    if ex.status:
        outbox.queue_report(s, cfg, loaded, player, when, extra=msg.ident)
    problems = list(ex.problems)
    press_done = [_press(s, cfg, loaded, player, p, ex.code, when, msg.ident, problems) for p in ex.press]
    if not ex.orders:
        kind = "accepted" if (ex.help or ex.status or any(press_done)) else "rejected"
        _record(s, msg, raw, when, kind, "commands only" if kind == "accepted" else "no orders found", game, player)
        if kind == "rejected" or problems or any(press_done):
            if kind == "rejected":
                problems.append("No orders were found in your message. Send HELP for the order syntax.")
            reply(
                "ack",
                subject,
                subject_in=msg.subject,
                applied=False,
                lines=[],
                rejected_count=0,
                problems=problems + [f"Press sent to {', '.join(t)}." for t in press_done if t],
                on_file=_on_file(loaded, player),
                waiting=_waiting(loaded),
                report_follows=False,
            )
        return Handled(kind)
    return _orders(s, cfg, msg, raw, when, loaded, player, ex.orders, problems, press_done, reply, subject)


def _orders(s, cfg, msg, raw, when, loaded, player, orders, problems, press_done, reply, subject) -> Handled:
    game = loaded.game
    out: Outcome = loaded.engine.apply(loaded.state, player, orders)
    lines = [r.__dict__ for r in out.lines]
    sent = [f"Press sent to {', '.join(t)}." for t in press_done if t]
    if not out.accepted:
        _record(
            s,
            msg,
            raw,
            when,
            "rejected",
            "; ".join(f"{r.line!r}: {r.reason}" for r in out.lines if not r.ok),
            game,
            player,
        )
        reply(
            "ack",
            subject,
            subject_in=msg.subject,
            applied=False,
            lines=lines,
            rejected_count=sum(1 for r in out.lines if not r.ok),
            problems=problems + sent,
            on_file=_on_file(loaded, player),
            waiting=_waiting(loaded),
            report_follows=False,
        )
        return Handled("rejected")
    if game.resolve == "deadline":
        _record(s, msg, raw, when, "held", "held until the deadline", game, player)
        reply(
            "ack",
            subject,
            subject_in=msg.subject,
            applied=True,
            lines=lines,
            rejected_count=0,
            problems=problems
            + sent
            + [
                "This game resolves at the deadline: your orders are on file and will "
                "be applied then, in the order they arrived."
            ],
            on_file=orders,
            waiting=[],
            report_follows=False,
        )
        return Handled("accepted")
    inbound_id = _record(s, msg, raw, when, "accepted", "", game, player)
    before = asked_steps(loaded)
    store.append_input(s, loaded, "orders", player, orders, out, inbound_id, when)
    movers = players_to_report(loaded, out.events, before)
    reply(
        "ack",
        subject,
        subject_in=msg.subject,
        applied=True,
        lines=lines,
        rejected_count=0,
        problems=problems + sent,
        on_file=_on_file(loaded, player),
        waiting=_waiting(loaded),
        report_follows=player in movers,
    )
    outbox.queue_reports(s, cfg, loaded, movers, when)
    return Handled("accepted")


def _press(
    s: Session,
    cfg: Config,
    loaded: store.Loaded,
    player: str,
    press,
    code: str | None,
    when: datetime,
    message_id: str,
    problems: list[str],
) -> list[str]:
    """Relay one press message; returns its recipients (empty if it could not be sent)."""
    from .engine.base import Event, RuleError
    from .engine.names import match_many

    players = json.loads(loaded.game.players_json)
    others = [p for p in players if p != player]
    if any(t.upper() == "ALL" for t in press.to):
        to = others
    else:
        try:
            to = list(dict.fromkeys(p for t in press.to for p in match_many(t, others, "player")))
        except RuleError as exc:
            problems.append(f"Press not sent: {exc.reason}. Write PRESS TO <player>[, <player>...] or PRESS TO ALL.")
            return []
    body = [ln.replace(code, "[code]") if code else ln for ln in press.body]
    text = "\n".join(body).strip() or "(empty)"
    for p in to:
        seat = loaded.seat_for_player(p)
        outbox.queue_notice(
            s,
            cfg,
            to=seat.address,
            subject=f"[pbem {loaded.game.name}] Press from {player}",
            when=when,
            key=("press", message_id, p),
            game_id=loaded.game.id,
            player=p,
            purpose="press",
            body=f"Press from {player} to {', '.join(to) if len(to) < len(others) else 'all players'}"
            f" (relayed by the moderator; it may be a bluff):\n\n{text}\n\n"
            f"Answer with PRESS TO {player} ... END PRESS in a message to the moderator.",
        )
    vis = "public" if len(to) == len(others) else tuple(sorted({player, *to}))
    ev = Event(
        "press",
        f"Press from {player} to {', '.join(to)}: {' / '.join(body)}"[:2000],
        vis,
        {"from": player, "to": to, "lines": body},
    )
    store.append_events(s, loaded, loaded.seq, [ev], when)
    return to


def _stranger(s: Session, cfg: Config, msg: Inbound, raw: bytes, when: datetime, loaded: store.Loaded, ex) -> Handled:
    """A sender who is not a player of this game.  Never answer them; warn the player whose code they used."""
    game = loaded.game
    victim = None
    if ex is not None and ex.code:
        victim = next((st for st in loaded.seats if check_code(ex.code, st.code_hash)), None)
    if victim is None:
        _record(s, msg, raw, when, "ignored", f"{msg.sender or 'no sender'} is not a player of {game.name}", game)
        return Handled("ignored")
    _record(s, msg, raw, when, "rejected", f"code of {victim.player} used from {msg.sender}", game, victim.player)
    if _reply_allowed(s, cfg, victim.address, when):
        outbox.queue_notice(
            s,
            cfg,
            to=victim.address,
            subject=f"[pbem {game.name}] Refused: orders from another address",
            when=when,
            key=("stranger", msg.ident),
            game_id=game.id,
            player=victim.player,
            body=f"A message carrying your player code for game {game.name} came from "
            f"{msg.sender or 'an unknown sender'}, not from your registered address.\n"
            "It was refused and nothing was applied. If you did not send it, your code may be "
            "known to someone else: ask the moderator for a new one (pbem game code).",
        )
    return Handled("rejected")


def _no_game(s: Session, cfg: Config, msg: Inbound, raw: bytes, when: datetime) -> Handled:
    """No [pbem NAME] tag (or an unknown one): answer only a registered player, never a stranger."""
    seats = s.exec(select(Seat).where(Seat.address == msg.sender)).all() if msg.sender else []
    if not seats:
        _record(s, msg, raw, when, "ignored", "sender is not a registered player and no game was named")
        return Handled("ignored")
    games = sorted(s.exec(select(Game).where(Game.id.in_([x.game_id for x in seats]))).all(), key=lambda g: g.name)
    names = [g.name for g in games]
    if not msg.problem and not msg.game and _asks_help(msg):
        _record(s, msg, raw, when, "accepted", "HELP without a game: the player's games listed")
        if _reply_allowed(s, cfg, msg.sender, when):
            player = {x.game_id: x.player for x in seats}
            lines = [
                f'  [pbem {g.name}]  {registry.get(g.kind).title}, you play {player[g.id]}: send "[pbem {g.name}] HELP"'
                for g in games
            ]
            outbox.queue_notice(
                s,
                cfg,
                to=msg.sender,
                subject="Your pbem games",
                when=when,
                key=("help", msg.ident),
                in_reply_to=msg.message_id,
                body="Your games, and how to write to each (keep the tag in the subject; one order per line):\n"
                + "\n".join(lines)
                + "\nThat HELP answers with the game's handbook and your legal orders now.",
            )
        return Handled("accepted")
    _record(s, msg, raw, when, "rejected", "no known game named in the subject")
    if _reply_allowed(s, cfg, msg.sender, when):
        what = f'"[pbem {msg.game}]" names no game' if msg.game else "the subject does not name a game"
        outbox.queue_notice(
            s,
            cfg,
            to=msg.sender,
            subject=f"Re: {msg.subject}"[:200],
            when=when,
            key=(msg.ident,),
            in_reply_to=msg.message_id,
            body=f"Nothing was applied: {what}.\nPut the game's tag in the subject, for example "
            f'"[pbem {names[0]}] orders".\nYour games: {", ".join(names)}.',
        )
    return Handled("rejected")


def _asks_help(msg: Inbound) -> bool:
    """HELP in the body, or a subject that is HELP (after Re:/Fwd: prefixes)."""
    from .orders.extract import subject_line

    return extract(msg.text, "", ()).help or subject_line(f"[pbem -] {msg.subject}").upper().rstrip("!?.") == "HELP"


def asked_steps(loaded: store.Loaded) -> dict[str, str]:
    return {r.player: r.step for r in loaded.engine.requests(loaded.state) if not r.answered}


def players_to_report(loaded: store.Loaded, events: list, before: dict[str, str]) -> list[str]:
    """Players for whom the game moved on: new events they may see, or a new question for them."""
    after = asked_steps(loaded)
    players = json.loads(loaded.game.players_json)
    return [p for p in players if any(e.visible_to(p) for e in events) or (p in after and after[p] != before.get(p))]


def _on_file(loaded: store.Loaded, player: str) -> list[str]:
    return [line for r in loaded.engine.requests(loaded.state) if r.player == player for line in r.on_file]


def _waiting(loaded: store.Loaded) -> list[str]:
    return sorted({r.player for r in loaded.engine.requests(loaded.state) if not r.answered})


def _help_text(loaded: store.Loaded, player: str) -> str:
    eng = loaded.engine
    reqs = [r for r in eng.requests(loaded.state) if r.player == player]
    parts = [eng.handbook().rstrip(), "", "== Your legal orders now =="]
    if not reqs:
        parts.append(f"You are not asked anything now. Waiting for: {', '.join(_waiting(loaded)) or 'nobody'}.")
    for r in reqs:
        parts += [r.prompt, *[f"    {line}" for line in r.legal]]
    parts += ["", "== Writing orders by mail ==", *_WRITING]
    return "\n".join(parts)


_WRITING = (
    "Greetings, signatures and remarks are fine: a line is read as an order only if it starts",
    "with an order word (or CODE, HELP, STATUS, PRESS, END). Other lines are listed in the",
    'acknowledgement under "Not read as orders" and never refuse your message. END alone',
    "on a line stops reading. Quoted text and what your mail client adds are ignored.",
)


def transports(cfg: Config) -> tuple[Inbox, Sender]:
    """The configured inbox and sender."""
    if cfg.transport == "maildir":
        from .mail.maildir import MaildirInbox, MaildirSender

        return MaildirInbox(cfg.maildir_path), MaildirSender(cfg.maildir_path)
    from .mail.connect import transports as mail_transports

    return mail_transports(cfg)


__all__ = ["create_game", "poll", "handle", "transports", "PollSummary", "GameError", "TransportError"]
