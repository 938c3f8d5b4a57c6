"""The append-only game record: reading the current state and appending to it.

All writes happen inside a session the caller commits (the moderator owns
transactions).  A game's current state is its newest snapshot; a missing or
corrupted snapshot is rebuilt by replaying the accepted orders from the seed.
Every appended input and event gets its link in the game's hash chain
(`pbem.trust.chain`), computed here from the head of the chain.

The poll's hot path (load a game, append to it) runs SQLAlchemy Core statements
built once at import on the SQLModel tables, which stay the one definition of
the schema, through the session's connection (its transaction): no ORM
identity map or object loading.  Rows handed out as `Game`, `Seat`, `OrderInput`,
`Deadline` or `GameEvent` are frozen dataclasses (`pbem.record.rows`) that no session
tracks: the record is append-only, and what the use cases hold cannot change under them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, TypeVar

from sqlalchemy import bindparam, func
from sqlalchemy.engine import Row
from sqlmodel import Session, select

from pbem import engine as registry
from pbem.engine.base import PUBLIC, Engine, Event, Outcome
from pbem.engine.seats import RENAME
from pbem.record import db, due, kept_state, models, reader_view
from pbem.record.models import ControlAction, Snapshot
from pbem.record.rows import Deadline, Game, GameEvent, OrderInput, Seat
from pbem.trust import chain
from pbem.trust import deal as joining
from pbem.trust.fold import Fold

_GAMES = models.Game.__table__  # type: ignore[attr-defined]
_SEATS = models.Seat.__table__  # type: ignore[attr-defined]
_ORDERS = models.OrderInput.__table__  # type: ignore[attr-defined]
_EVENTS = models.GameEvent.__table__  # type: ignore[attr-defined]
_SNAPS = Snapshot.__table__  # type: ignore[attr-defined]
_DEADLINES = models.Deadline.__table__  # type: ignore[attr-defined]
_GID: Any = bindparam("gid")

# The hot path's statements, built once (SQLAlchemy caches their compiled form).
Q_GAME_BY_NAME = select(_GAMES).where(_GAMES.c.name == bindparam("name"))
Q_GAME_BY_ID = select(_GAMES).where(_GAMES.c.id == _GID)
Q_SEATS = select(_SEATS).where(_SEATS.c.game_id == _GID).order_by(_SEATS.c.id)
Q_LAST_ORDER = select(func.max(_ORDERS.c.seq)).where(_ORDERS.c.game_id == _GID)
Q_SNAPSHOT = (
    select(_SNAPS.c.seq, _SNAPS.c.state_json, _SNAPS.c.over, _SNAPS.c.readers_json)
    .where(_SNAPS.c.game_id == _GID)
    .order_by(_SNAPS.c.seq.desc())
    .limit(1)
)
# whether the game is over, from its newest snapshot's `over` alone: the state stored after it is not read (a finished
# 6-player Sixteen Thirty's is 11 KB, three pages a game of `pbem game list` and every publish; costs16)
Q_OVER = select(_SNAPS.c.over).where(_SNAPS.c.game_id == _GID).order_by(_SNAPS.c.seq.desc()).limit(1)
Q_ORDER_HEAD = (
    select(_ORDERS.c.seq, _ORDERS.c.hash).where(_ORDERS.c.game_id == _GID).order_by(_ORDERS.c.seq.desc()).limit(1)
)
Q_EVENT_HEAD = (
    select(_EVENTS.c.input_seq, _EVENTS.c.hash).where(_EVENTS.c.game_id == _GID).order_by(_EVENTS.c.seq.desc()).limit(1)
)
Q_DEADLINE = select(_DEADLINES).where(_DEADLINES.c.game_id == _GID).order_by(_DEADLINES.c.id.desc()).limit(1)
Q_EVENTS_AFTER = (
    select(_EVENTS).where(_EVENTS.c.game_id == _GID, _EVENTS.c.seq > bindparam("after")).order_by(_EVENTS.c.seq)
)
Q_EVENTS_BETWEEN = Q_EVENTS_AFTER.where(_EVENTS.c.seq <= bindparam("upto"))
Q_EVENTS_OF_KIND = (  # on the index ix_events_game_kind_seq
    select(_EVENTS).where(_EVENTS.c.game_id == _GID, _EVENTS.c.kind == bindparam("kind")).order_by(_EVENTS.c.seq)
)


_CONTROLS = ControlAction.__table__  # type: ignore[attr-defined]
CONTROL = ("pause", "resume", "abandon")  # the control actions that set a game's state; the newest wins
Q_CONTROL = select(
    *(
        select(func.max(_CONTROLS.c.id))
        .where(_CONTROLS.c.game_id == _GID, _CONTROLS.c.action == action)
        .scalar_subquery()
        for action in CONTROL
    )
)
Q_HEAD = select(
    Q_ORDER_HEAD.with_only_columns(_ORDERS.c.seq).scalar_subquery(),
    Q_ORDER_HEAD.with_only_columns(_ORDERS.c.hash).scalar_subquery(),
    Q_EVENT_HEAD.with_only_columns(_EVENTS.c.input_seq).scalar_subquery(),
    Q_EVENT_HEAD.with_only_columns(_EVENTS.c.hash).scalar_subquery(),
)
# What `load` reads besides the seats and the snapshot, in one statement of index probes: the newest order
# and event seqs, the newest pause, resume and abandon (`control_state`), and the chain's head (`chain_head`).
Q_POSITION = select(
    Q_LAST_ORDER.scalar_subquery(),
    select(func.max(_EVENTS.c.seq)).where(_EVENTS.c.game_id == _GID).scalar_subquery(),
    *Q_CONTROL.selected_columns,
    *Q_HEAD.selected_columns,
)
Q_JOIN_OPENED = select(_CONTROLS.c.id).where(_CONTROLS.c.game_id == _GID, _CONTROLS.c.action == "join").limit(1)
Q_STEP = select(_SNAPS.c.step).where(_SNAPS.c.game_id == _GID).order_by(_SNAPS.c.seq.desc()).limit(1)


R = TypeVar("R", Game, Seat, OrderInput, GameEvent, Deadline)


def _built(kind: type[R], row: Row[Any]) -> R:
    """A frozen row (`pbem.record.rows`) from a Core row."""
    return kind(**row._mapping)


def plain(kind: type[R], fields: Mapping[str, Any]) -> R:
    """A frozen row (`pbem.record.rows`) from a table row's fields (no validation, no session)."""
    return kind(**fields)


def now_utc() -> datetime:
    return datetime.now(UTC)


def aware(dt: datetime | None) -> datetime | None:
    """SQLite hands datetimes back naive; they were stored as UTC."""
    if dt is not None and dt.tzinfo is None:
        return dt.replace(tzinfo=UTC)
    return dt


@dataclass
class Recent:
    """What the reports of one decision read, loaded before `apply` (`pbem.record.recent.read`) and kept up
    to date in memory while it writes, so that writing a decision issues no SELECT."""

    last_reports: dict[str, int]  # the last event seq each player's reports covered
    deadline: Deadline | None  # the game's current deadline
    events: list[GameEvent]  # the event rows after `after`, in order
    after: int
    names: dict[str, tuple[str, ...]]  # each player's name with their seat's earlier names, oldest first
    deal: dict[str, Any] | None = None  # the data of the game's `salts` event (a join step's deal), if dealt


@dataclass
class Loaded:
    """A game with its current state, as the moderator works on it."""

    game: Game
    seats: list[Seat]
    state: dict[str, Any]
    seq: int  # last order seq folded into `state`
    event_seq: int  # last event seq
    head: str = ""  # hash of the last entry of the record ("" = not read yet; see chain_head)
    control: str = "running"  # 'running', 'paused' or 'abandoned' when loaded (`control_state`)
    last_input: tuple[int, str] | None = None  # (seq, hash) of the input appended last through this object
    # per reader who may see that input: its place among the entries they may see (what their receipt numbers it
    # by while the game runs: its seq would count every other player's secret inputs before it, issue 26)
    last_input_seen: dict[str, int] = field(default_factory=dict)
    recent: Recent | None = None  # what reports read (`pbem.record.recent`), kept up to date by the appends
    # per reader: (entries they may see, the head after the newest of them), read before a decision is written
    # (`pbem.record.reader_view`) and kept up to date by the appends: what a receipt shown to them states
    readers: dict[str, tuple[int, str]] = field(default_factory=dict)
    # the names seats had before a replacement (`former_players`): read by a moderator's command only, to say who
    # took the seat of a name that is no longer a player's (`pbem.app.game_names.player_named`)
    former: tuple[Former, ...] = ()
    # the players who resigned by mail since their seat was given (`pbem.record.recent.left`), read by the shells that
    # mail the game's flow: no turn reports, reminders, defaults notices or moderator notices but the game's end
    resigned: frozenset[str] = frozenset()

    @property
    def engine(self) -> Engine:
        """The game's engine, or the join step (`pbem.trust.deal`) while the game waits for its players."""
        eng: Engine = registry.get(self.game.kind)
        if joining.is_joining(self.state):
            return joining.JoinStep(eng, json.loads(self.game.players_json), self.game.seed, self.options)
        return eng

    @property
    def over(self) -> bool:
        return self.engine.result(self.state) is not None

    @property
    def options(self) -> dict[str, Any]:
        opts: dict[str, Any] = json.loads(self.game.options_json)
        return opts

    def seat_for_address(self, address: str) -> Seat | None:
        address = address.lower()
        return next((s for s in self.seats if s.address.lower() == address), None)

    def seat_for_player(self, player: str) -> Seat | None:
        return next((s for s in self.seats if s.player == player), None)


def _fetched(kind: type[R], stmt: Any, row: tuple[Any, ...]) -> R:
    """A frozen row from a row of `db.fetch` (the statement's columns are the row's fields)."""
    return kind(**dict(zip(db.names(stmt), row, strict=True)))


def game_by_name(s: Session, name: str) -> Game | None:
    rows = db.fetch(s.connection(), Q_GAME_BY_NAME, {"name": name.lower()})
    return _fetched(Game, Q_GAME_BY_NAME, rows[0]) if rows else None


MAX_NAMES = 10_000  # names looked through for the nearest to a mistyped one (an error's path only)


def game_names(s: Session) -> list[str]:
    """Every game's name (at most `MAX_NAMES`), for the suggestion a mistyped name gets."""
    return list(s.connection().execute(select(_GAMES.c.name).order_by(_GAMES.c.name).limit(MAX_NAMES)).scalars())


def game_by_id(s: Session, game_id: int) -> Game | None:
    row = s.connection().execute(Q_GAME_BY_ID, {"gid": game_id}).first()
    return _built(Game, row) if row is not None else None


def current_seats(s: Session, game_id: int) -> list[Seat]:
    """The newest row for each position (replacements and new codes append rows)."""
    latest: dict[int, tuple[Any, ...]] = {}
    position = db.names(Q_SEATS).index("position")
    for row in db.fetch(s.connection(), Q_SEATS, {"gid": game_id}):
        latest[row[position]] = row
    return [_fetched(Seat, Q_SEATS, latest[p]) for p in sorted(latest)]


def seat_names(s: Session, game_id: int, renamed: list[tuple[str, str]] | None = None) -> dict[str, tuple[str, ...]]:
    """Each current player's name with the names their seat had before (replacements), oldest first; `renamed`:
    (old, new) renames being written, not yet in the seats' rows (a newcomer's first count)."""
    rows = s.connection().execute(
        select(_SEATS.c.position, _SEATS.c.player).where(_SEATS.c.game_id == game_id).order_by(_SEATS.c.id)
    )
    names: dict[int, list[str]] = {}
    for row in rows:
        names.setdefault(row.position, [])
        if row.player not in names[row.position]:
            names[row.position].append(row.player)
    out = {seen[-1]: tuple(seen) for seen in names.values()}
    for old, new in renamed or ():
        out[new] = (*out.get(old, (old,)), new)
    return out


#: A name a seat had before a replacement: (that name, who took the seat, when, who plays it now).
Former = tuple[str, str, datetime, str]


def former_players(s: Session, game_id: int) -> tuple[Former, ...]:
    """Each name a seat had before it was given to someone else, oldest first; never a current player's name."""
    rows = s.connection().execute(
        select(_SEATS.c.position, _SEATS.c.player, _SEATS.c.created_at)
        .where(_SEATS.c.game_id == game_id)
        .order_by(_SEATS.c.id)
    )
    taken: list[tuple[int, str, str, datetime]] = []
    last: dict[int, str] = {}
    for row in rows:
        before = last.get(row.position)
        if before is not None and before != row.player:
            taken.append((row.position, before, row.player, aware(row.created_at) or row.created_at))
        last[row.position] = row.player
    now = set(last.values())
    return tuple((old, new, when, last[pos]) for pos, old, new, when in taken if old not in now)


def last_order_seq(s: Session, game_id: int) -> int:
    seq: int | None = s.connection().execute(Q_LAST_ORDER, {"gid": game_id}).scalar()
    return seq or 0


def replay(game: Game, orders: list[OrderInput], join: bool = False) -> tuple[dict[str, Any], list[list[Event]]]:
    """Fold the orders over a fresh set-up: the state and the events of each input (index 0 = set-up).

    `join`: the game opened with a join step (also seen from its first input), dealt by that step."""
    _, state, per_input = folded(game, orders, join)
    return state, per_input


def folded(game: Game, orders: list[OrderInput], join: bool = False) -> tuple[Fold, dict[str, Any], list[list[Event]]]:
    """`replay`, also handing back the fold (`pbem.trust.fold`), which can go back to any earlier input."""
    real = registry.get(game.kind)
    players, options = json.loads(game.players_json), json.loads(game.options_json)
    events: list[Event] = []
    if join or (orders and orders[0].kind in joining.KINDS):
        state = joining.open_state(json.loads(game.players_json))
    else:
        state, events = real.setup(players, game.seed, options)
    per_input = [list(events)]
    fold = Fold(state, lambda st: joining.step_engine(real, st, players, game.seed, options), game.seed)
    for order in orders:
        out = fold.run(order.seq, order.kind, order.player, json.loads(order.lines_json), state)
        if not out.accepted:
            raise RuntimeError(f"replay of order {order.seq} of {game.name} was rejected: {out.lines}")
        state = out.state
        per_input.append(out.events)
    return fold, state, per_input


def inputs(s: Session, game_id: int) -> list[OrderInput]:
    """Every recorded input of a game, in order."""
    q = select(_ORDERS).where(_ORDERS.c.game_id == game_id).order_by(_ORDERS.c.seq)
    return [_built(OrderInput, row) for row in s.connection().execute(q)]


def load(s: Session, game: Game) -> Loaded:
    assert game.id is not None
    seats = current_seats(s, game.id)
    conn = s.connection()
    seq, event_seq, *controls, order_seq, order_hash, event_input, event_hash = db.fetch(
        conn, Q_POSITION, {"gid": game.id}
    )[0]
    seq, event_seq = seq or 0, event_seq or 0
    head = _newest(game, order_seq, order_hash, event_input, event_hash)
    snaps = db.fetch(conn, Q_SNAPSHOT, {"gid": game.id})
    state: dict[str, Any] | None = None
    readers: dict[str, tuple[int, str]] = {}
    if snaps and snaps[0][0] == seq:
        state = kept_state.loads(snaps[0][1])  # None: corrupted cache, or its digest differs (walk12): rebuilt below
        if state is not None and snaps[0][3]:  # each reader's receipt position, kept with the snapshot
            readers = reader_view.cached(conn, game.id, snaps[0][3], event_seq)
    if state is None:
        state, _ = replay(game, inputs(s, game.id), join=join_opened(s, game.id))
    return Loaded(game, seats, state, seq, event_seq, head=head, control=_control(controls), readers=readers)


def state_text(state: dict[str, Any]) -> str:
    """A snapshot's `state_json`: the state's JSON led by its digest (`pbem.record.kept_state`)."""
    return kept_state.dumps(state)


def join_opened(s: Session, game_id: int) -> bool:
    """True if the game was created with a join step (its "join" control row)."""
    return s.connection().execute(Q_JOIN_OPENED, {"gid": game_id}).first() is not None


def current_step_name(s: Session, game_id: int) -> str | None:
    """The step of the game's newest snapshot (one index probe)."""
    rows = db.fetch(s.connection(), Q_STEP, {"gid": game_id})
    return str(rows[0][0]) if rows else None


def chain_head(s: Session, game: Game) -> str:
    """The hash of the game's last record entry (the seed commitment before the first one)."""
    return _newest(game, *s.connection().execute(Q_HEAD, {"gid": game.id}).one())


def _newest(game: Game, order_seq: Any, order_hash: Any, event_input: Any, event_hash: Any) -> str:
    if event_hash is not None and (order_seq is None or event_input >= order_seq):
        return str(event_hash)
    return str(order_hash) if order_hash is not None else game.seed_commitment


def _head(s: Session, loaded: Loaded) -> str:
    if not loaded.head:
        loaded.head = chain_head(s, loaded.game)
    return loaded.head


def record_position(s: Session, loaded: Loaded) -> tuple[int, str]:
    """(entries, head): how many entries the game's record holds now, and the hash of the last one."""
    return loaded.seq + loaded.event_seq, _head(s, loaded)


def insert(s: Session, model: Any, rows: dict[str, Any] | list[dict[str, Any]]) -> int | None:
    """Plain INSERTs in the session's transaction (the record is append-only: no ORM object is needed,
    and building one cost more than the statement; `db.insert`).  Returns the new row's id for one row."""
    return db.insert(s.connection(), model.__table__, rows)


def append_events(s: Session, loaded: Loaded, input_seq: int, events: list[Event], when: datetime) -> None:
    rows: list[dict[str, Any]] = []
    seen: list[dict[str, Any]] = []  # who may see each (`models.EventReader`)
    at = chain.iso(when)
    head = _head(s, loaded) if events else loaded.head
    for ev in events:
        loaded.event_seq += 1
        vis = ev.visibility if isinstance(ev.visibility, str) else list(ev.visibility)
        seen += [dict(game_id=loaded.game.id, reader=r, seq=loaded.event_seq) for r in models.readers_of(vis)]
        data_json = json.dumps(ev.data, sort_keys=True)
        salt = chain.entry_salt(loaded.game.seed, loaded.event_seq)  # every event: docs/security.md, heads
        entry = chain.event_entry(loaded.event_seq, input_seq, ev.kind, ev.text, vis, json.loads(data_json), at, salt)
        head = chain.link(head, entry)
        for reader, (n, _) in loaded.readers.items():
            if vis == PUBLIC or (isinstance(vis, list) and reader in vis):  # a word is no list of names
                loaded.readers[reader] = (n + 1, head)
        rows.append(
            dict(
                game_id=loaded.game.id,
                seq=loaded.event_seq,
                input_seq=input_seq,
                kind=ev.kind,
                text=ev.text,
                visibility_json=json.dumps(vis),
                data_json=data_json,
                created_at=when,
                hash=head,
                salt=salt,
            )
        )
    loaded.head = head
    if rows:
        insert(s, models.GameEvent, rows)
        if seen:
            insert(s, models.EventReader, seen)
        if loaded.recent is not None:
            loaded.recent.events.extend(plain(GameEvent, row) for row in rows)


_KEEP_READERS = (
    _SNAPS.update()
    .where(_SNAPS.c.game_id == _GID, _SNAPS.c.seq == bindparam("at_seq"))  # not "seq": a column's name is
    .values(readers_json=bindparam("readers"))  # reserved for its SET value in an UPDATE (PostgreSQL's compile)
)


def append_news(s: Session, loaded: Loaded, events: list[Event], when: datetime) -> None:
    """Events with no input of their own (press, a moderator's notice, `pbem game say`): appended after the game's
    last input, and the readers' counts of that input's snapshot brought up to them (one UPDATE of that row, a
    cache; `reader_view.cached`), since they make no snapshot.  The next load then counts none of them again:
    it read every event since the snapshot, so each mail of a step of n such events read them all (costs10).
    The counts are kept only when every player's is known, and not once the game is over (its snapshot keeps
    none)."""
    append_events(s, loaded, loaded.seq, events, when)
    if loaded.game.id is None or not events or loaded.over:
        return
    kept = reader_view.snapshot_json(loaded.readers, players(loaded), loaded.event_seq)
    if kept is not None:
        db.execute(s.connection(), _KEEP_READERS, {"gid": loaded.game.id, "at_seq": loaded.seq, "readers": kept})


def receipts_of(
    s: Session, loaded: Loaded, readers: list[str], renamed: list[tuple[str, str]]
) -> dict[str, tuple[int, str]]:
    """Each of `readers`' receipt while the game runs (`pbem.record.reader_view`), a newcomer's counting their seat's
    entries under its earlier names (a player replaced in turn: those before them); `renamed`: the (old, new)
    renames being written."""
    assert loaded.game.id is not None
    seats = seat_names(s, loaded.game.id, renamed).values() if readers else ()
    before = {name: seen[:i] for seen in seats for i, name in enumerate(seen)}
    commitment = loaded.game.seed_commitment
    return {
        name: reader_view.visible_record(s, loaded.game.id, name, commitment, before.get(name, ())) for name in readers
    }


def players(loaded: Loaded) -> list[str]:
    """The game's current players: its seats' (a replacement's name included), or as created."""
    return [st.player for st in loaded.seats] or list(json.loads(loaded.game.players_json))


def current_step(loaded: Loaded) -> str:
    reqs = loaded.engine.requests(loaded.state)
    return reqs[0].step if reqs else ""


def append_input(
    s: Session,
    loaded: Loaded,
    kind: str,
    player: str,
    lines: list[str],
    out: Outcome,
    inbound_id: int | None,
    when: datetime,
    message_id: str | None = None,
) -> int:
    """Record one accepted input, its events, the new snapshot and, if a new step opened, its deadline.
    `message_id`: the Message-ID of the inbound message `inbound_id` (the chain's entry names it)."""
    assert (inbound_id is None) == (message_id is None), "an input from a message names its Message-ID"
    before = current_step(loaded)
    loaded.seq += 1
    salt = chain.input_salt(loaded.game.seed, loaded.seq)
    join = loaded.seq == 1 and joining.is_joining(loaded.state)  # a join step's moves are chained (fairness17)
    pace = chain.paced(loaded.game.deadline_seconds, loaded.game.created_at, join) if loaded.seq == 1 else None
    entry = chain.input_entry(loaded.seq, kind, player, lines, message_id, chain.iso(when), salt, pace)
    loaded.head = chain.link(_head(s, loaded), entry)
    loaded.last_input = (loaded.seq, loaded.head)
    loaded.last_input_seen = {}
    for reader, (n, _) in loaded.readers.items():  # a player sees their own inputs and the player-less ones
        if player in ("", reader) or (kind == RENAME and lines[:1] == [reader]):  # a newcomer: their seat's rename
            loaded.readers[reader] = (n + 1, loaded.head)
            loaded.last_input_seen[reader] = n + 1
    insert(
        s,
        models.OrderInput,
        dict(
            game_id=loaded.game.id,
            seq=loaded.seq,
            kind=kind,
            player=player,
            lines_json=json.dumps(lines),
            inbound_id=inbound_id,
            created_at=when,
            hash=loaded.head,
            salt=salt,
        ),
    )
    append_events(s, loaded, loaded.seq, out.events, when)
    loaded.state = out.state
    step = current_step(loaded)
    over = loaded.engine.result(loaded.state) is not None
    insert(
        s,
        Snapshot,
        dict(
            game_id=loaded.game.id,
            seq=loaded.seq,
            step=step,
            over=over,
            state_json=kept_state.dumps(loaded.state),
            created_at=when,
            readers_json=None if over else reader_view.snapshot_json(loaded.readers, players(loaded), loaded.event_seq),
        ),
    )
    if step and step != before:
        open_deadline(s, loaded, step, when)
    return loaded.seq


def open_deadline(s: Session, loaded: Loaded, step: str, when: datetime) -> None:
    from datetime import timedelta

    add_deadline(s, loaded, step, when + timedelta(seconds=loaded.game.deadline_seconds), "step opened", when)


def add_deadline(s: Session, loaded: Loaded, step: str, due_at: datetime, reason: str, when: datetime) -> None:
    """A new deadline for `step` (the newest row is the current one) and what becomes due with it."""
    assert loaded.game.id is not None
    row: dict[str, Any] = dict(game_id=loaded.game.id, step=step, due_at=due_at, reason=reason, created_at=when)
    insert(s, models.Deadline, row)
    if loaded.recent is not None:
        loaded.recent.deadline = plain(Deadline, row)
    due.plan(s, loaded.game.id, when, due_at)


def current_deadline(s: Session, game_id: int) -> Deadline | None:
    rows = db.fetch(s.connection(), Q_DEADLINE, {"gid": game_id})
    return _fetched(Deadline, Q_DEADLINE, rows[0]) if rows else None


def last_control(s: Session, game_id: int, action: str, detail: str) -> datetime | None:
    """When the newest control row of `action` with `detail` was written (a seat's code: "code", the player)."""
    q = select(func.max(_CONTROLS.c.created_at)).where(
        _CONTROLS.c.game_id == game_id, _CONTROLS.c.action == action, _CONTROLS.c.detail == detail
    )
    got = s.connection().execute(q).scalar()
    return aware(got) if got is not None else None


def control_state(s: Session, game_id: int) -> str:
    """'running', 'paused' or 'abandoned': the newest pause, resume or abandon (three index probes, one query)."""
    return _control(s.connection().execute(Q_CONTROL, {"gid": game_id}).one())


def _control(ids: Any) -> str:
    """The state set by the newest of the pause, resume and abandon ids (None: never)."""
    best = max(((i, a) for i, a in zip(ids, CONTROL) if i is not None), default=(0, "resume"))
    return {"pause": "paused", "resume": "running", "abandon": "abandoned"}[best[1]]


def open_game_ids(s: Session) -> list[int]:
    """Games whose newest snapshot is not over, in one query.

    Each game's newest snapshot is one probe of the snapshots' key (game, seq): grouping the whole table read a
    snapshot of every input of every game, so `pbem game waiting`, WAITING, SAY and UNDO (by mail or not) cost
    the home's whole record (a home of 1,000 finished games of 950 inputs: 105 ms each, costs15)."""
    newest = (
        select(_SNAPS.c.over).where(_SNAPS.c.game_id == _GAMES.c.id).order_by(_SNAPS.c.seq.desc()).limit(1)
    ).scalar_subquery()
    q = select(_GAMES.c.id).where(newest.is_(False)).order_by(_GAMES.c.id)
    return [int(gid) for (gid,) in s.connection().execute(q)]


def is_over(s: Session, game_id: int) -> bool:
    snap = s.connection().execute(Q_OVER, {"gid": game_id}).first()
    return bool(snap and snap.over)


def events_of_kind(s: Session, game_id: int, kind: str) -> list[GameEvent]:
    """The game's event rows of `kind` (its `salts` event: the deal), in order."""
    rows = db.fetch(s.connection(), Q_EVENTS_OF_KIND, {"gid": game_id, "kind": kind})
    return [_fetched(GameEvent, Q_EVENTS_OF_KIND, row) for row in rows]


def events_for(s: Session, game_id: int, after: int = 0, upto: int | None = None) -> list[GameEvent]:
    """The game's event rows after seq `after` (and up to `upto`), in order."""
    q = Q_EVENTS_AFTER if upto is None else Q_EVENTS_BETWEEN
    rows = db.fetch(s.connection(), q, {"gid": game_id, "after": after} | ({} if upto is None else {"upto": upto}))
    return [_fetched(GameEvent, q, row) for row in rows]


def events_at(s: Session, game_id: int, seqs: list[int]) -> list[GameEvent]:
    """The game's event rows at positions `seqs`, in order."""
    if not seqs:
        return []
    q = select(_EVENTS).where(_EVENTS.c.game_id == game_id, _EVENTS.c.seq.in_(seqs)).order_by(_EVENTS.c.seq)
    return [GameEvent(**row._asdict()) for row in s.connection().execute(q)]


def event_of(row: GameEvent) -> Event:
    vis = json.loads(row.visibility_json)
    return Event(row.kind, row.text, vis if isinstance(vis, str) else tuple(vis), json.loads(row.data_json))


SEEN_KEPT = 1024  # distinct `visibility_json` texts whose reading `event_seen` keeps (a game's: "public", each seat)


@lru_cache(maxsize=SEEN_KEPT)
def _seen_by(visibility_json: str) -> str | tuple[str, ...]:
    vis = json.loads(visibility_json)
    return vis if isinstance(vis, str) else tuple(vis)


def event_seen(row: GameEvent) -> Event:
    """`event_of(row)` but for its data (left empty): the kind, text and who may see it, all a report reads of an
    event (`pbem.app.reporting.report_context`).  Each report decoded both JSON texts of every event since its
    reader's last report (perf36: 9 events a report, two reports a reply of `poll_throughput.py`'s, four decodes
    each), though a game's events are seen by few distinct sets of readers: their reading is kept by its text
    (an immutable str or tuple, as `event_of` gives), and the data, which no report line reads, is not decoded."""
    return Event(row.kind, row.text, _seen_by(row.visibility_json))
