"""The game record: SQLModel tables.

Append-only by design (docs/architecture.md, principles 7 and 8).  Rows are inserted and
never changed, with one exception: the status columns of `OutboxMessage`
(status, attempts, last_error, next_attempt_at, sent_at; its bytes, `OutboxMail.raw`, replaced
by `keep_raw` once a mail carrying a player's code has been sent, and emptied by `pbem prune` in a game ended
long ago, its digest kept), and the index tables `Due` and `PollMark`,
which say what is due and what the last poll saw.  A game's state is
the fold of its accepted orders (`OrderInput`) from its seed; `Snapshot` rows
cache that fold; `GameEvent` rows are what the engine said happened.
Everything about "now" (the current step, whether the game is over, the
deadline) is read from the newest rows, not from updated columns.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Column, ForeignKey, Index, Integer, LargeBinary, Text, UniqueConstraint, false
from sqlmodel import Field, SQLModel


class Game(SQLModel, table=True):
    __tablename__ = "games"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True, max_length=64)
    kind: str = Field(max_length=32)
    seed: str = Field(max_length=128)  # secret until the game is over
    seed_commitment: str = Field(max_length=64)
    # The moderator gave a seed weaker than 128 bits with --insecure-seed: every report and the export say so.
    insecure_seed: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))
    # Events up to this seq were recorded before the chain existed (migration 0004): verified fact by fact.
    legacy_events: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    # The bindings its entries carry, a format mark signed in every receipt's header (migration 0025,
    # `pbem.trust.asked.BINDINGS`); 0 for a game made before.
    bindings: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    # The game's Ed25519 signing key (32 bytes as hex, `pbem.trust.signing`): it signs every receipt; its public
    # half's fingerprint is in the invitation.  None for games created before migration 0012 (unsigned).
    signing_key: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # sealed (0013)
    players_json: str = Field(sa_column=Column(Text, nullable=False))  # engine player names, seat order
    options_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    deadline_seconds: int = 172800
    resolve: str = Field(default="asap", max_length=16)
    created_at: datetime


class Seat(SQLModel, table=True):
    """A player's place in a game.

    A replacement or a new code appends a new row for the same position; the
    row with the highest id is the current one.
    """

    __tablename__ = "seats"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    position: int
    player: str = Field(max_length=64)
    address: str = Field(max_length=320, index=True)
    display_name: str = Field(default="", max_length=128)
    code_hash: str = Field(default="", max_length=128)
    since_seq: int = 0  # seat valid from this order seq on (replacements)
    # Names the first report to this seat's player (its Message-ID key); their later mail references it (0006).
    thread: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    created_at: datetime


class InboundMessage(SQLModel, table=True):
    """Every message read from the inbox, kept (bounded and redacted) for audit.

    A copy of a message already read (same Message-ID and sender) is kept too,
    with outcome `duplicate` and `duplicate_of` its first copy; it changes nothing.
    """

    __tablename__ = "inbound_messages"
    __table_args__ = (
        UniqueConstraint("message_id", "body_hash"),
        Index("ix_inbound_game_outcome_id", "game_id", "outcome", "id"),  # held orders: the newest only
        # when each player last wrote, read without the mails' bytes (stored before received_at; migration 0019)
        Index("ix_inbound_game_player_received", "game_id", "player", "outcome", "received_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(max_length=998, index=True)
    body_hash: str = Field(max_length=64)
    sender: str = Field(default="", max_length=320)
    subject: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    game_id: int | None = Field(default=None, foreign_key="games.id", index=True)
    player: str = Field(default="", max_length=64)
    outcome: str = Field(max_length=16)  # accepted, held, rejected, ignored, duplicate
    reason: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    received_at: datetime
    # When the message says it was written (its Date, never later than received_at; migration 0006).
    sent_at: datetime | None = None
    # For outcome duplicate: the id of the first copy (same Message-ID and sender; `pbem.mail.inbound.fingerprint`).
    duplicate_of: int | None = None


class DkimEvidence(SQLModel, table=True):
    """What a player's provider vouches for in one inbound message (issue 25, migration 0013): the
    DKIM-Signature and the header fields it signs as received, the body when pbem may keep it (no code was
    redacted from it), and the key as fetched at arrival, so that `pbem verify` re-checks it without DNS
    (`pbem.trust.dkim`)."""

    __tablename__ = "dkim_evidence"

    inbound_id: int = Field(foreign_key="inbound_messages.id", primary_key=True)
    domain: str = Field(max_length=253)
    selector: str = Field(max_length=253)
    verified: bool = Field(sa_column=Column(Boolean, nullable=False))
    headers: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    body: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    key: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))


class OrderInput(SQLModel, table=True):
    """One accepted input to a game: a player's order lines, or a deadline default."""

    __tablename__ = "orders"

    game_id: int = Field(foreign_key="games.id", primary_key=True)
    seq: int = Field(primary_key=True)
    kind: str = Field(max_length=16)  # orders, deadline
    player: str = Field(default="", max_length=64)
    lines_json: str = Field(sa_column=Column(Text, nullable=False))
    inbound_id: int | None = Field(default=None, foreign_key="inbound_messages.id")
    created_at: datetime
    hash: str = Field(default="", max_length=64)  # link in the game's record chain (pbem.trust.chain)
    # in the chained entry: HMAC of the secret seed (`chain.input_salt`); None for inputs recorded before 0012
    salt: str | None = Field(default=None, max_length=64)


class GameEvent(SQLModel, table=True):
    """What happened, in order, with who may see it (JSON: "public", "moderator" or a list of players)."""

    __tablename__ = "events"
    __table_args__ = (Index("ix_events_game_kind_seq", "game_id", "kind", "seq"),)  # scoring events: HISTORY's turns

    game_id: int = Field(foreign_key="games.id", primary_key=True)
    seq: int = Field(primary_key=True)
    input_seq: int  # 0 = set-up
    kind: str = Field(max_length=32)
    text: str = Field(sa_column=Column(Text, nullable=False))
    visibility_json: str = Field(sa_column=Column(Text, nullable=False))
    data_json: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime
    hash: str = Field(default="", max_length=64)  # link in the game's record chain (pbem.trust.chain)
    # in the chained entry of an event not everyone sees: HMAC of the secret seed (`chain.entry_salt`); None for
    # public events and for events recorded before migration 0010
    salt: str | None = Field(default=None, max_length=64)


#: An `EventReader` row's reader for a public event (no player is named "").
EVERYONE = ""


class EventReader(SQLModel, table=True):
    """Who may see each event: a row for each player a list visibility names, one for everyone (`EVERYONE`) for a
    public event, none for the moderator's.  Written with the event (`pbem.record.store.append_events`; migration
    0018 filled it for older events), so HISTORY and `pbem game show --as` read the latest events a reader may see
    by its key, bounded by the answer and not by the events hidden from them (`pbem.record.history_rows`, costs11)."""

    __tablename__ = "event_readers"

    game_id: int = Field(foreign_key="games.id", primary_key=True)
    reader: str = Field(primary_key=True, max_length=64)
    seq: int = Field(primary_key=True)


def readers_of(visibility: object) -> list[str]:
    """The `EventReader` readers of an event's visibility ("public", "moderator" or a list of players' names)."""
    if visibility == "public":
        return [EVERYONE]
    return [n for n in dict.fromkeys(visibility) if isinstance(n, str)] if isinstance(visibility, list) else []


class Snapshot(SQLModel, table=True):
    """The engine state after input `seq` (a cache: it can always be rebuilt by replay)."""

    __tablename__ = "snapshots"

    game_id: int = Field(foreign_key="games.id", primary_key=True)
    seq: int = Field(primary_key=True)
    step: str = Field(default="", max_length=128)
    over: bool = False
    state_json: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime
    # each player's receipt position here, {"event_seq": E, "readers": {player: [entries, head]}}; a cache too
    # (`pbem.record.reader_view`): NULL where not every player's count was known
    readers_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class Deadline(SQLModel, table=True):
    """When the current step of a game is due.  Appended when a step opens or is extended."""

    __tablename__ = "deadlines"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    step: str = Field(max_length=128)
    due_at: datetime
    reason: str = Field(default="step opened", max_length=64)
    created_at: datetime


class ControlAction(SQLModel, table=True):
    """Moderator actions that are not game orders (pause, resume, abandon, extend, replace, new code)."""

    __tablename__ = "control_actions"
    __table_args__ = (Index("ix_control_game_action_id", "game_id", "action", "id"),)  # the newest of each action

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    action: str = Field(max_length=32)
    detail: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    created_at: datetime


class Due(SQLModel, table=True):
    """What is due when: the deadline of each open step and the next time to look at its reminders.

    Written by `apply` when a deadline opens, moves, pauses or ends, read by `run_deadlines` and the idle
    check with one indexed query (`done` false, `due_at` passed).  An index of the record, not part of
    it: `done` is set when a row is handled or replaced.  `opened_at`/`deadline_at` are the step's start and
    deadline, from which the reminder times follow (`pbem.app.deadlines.reminder_times`).
    """

    __tablename__ = "due"
    __table_args__ = (
        Index("ix_due_open", "done", "due_at"),
        Index("ix_due_game_done", "game_id", "done"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")
    kind: str = Field(max_length=16)  # deadline, reminder
    due_at: datetime
    opened_at: datetime
    deadline_at: datetime
    done: bool = False


class PollMark(SQLModel, table=True):
    """What the last complete poll saw, by name (`imap-inbox`: the inbox's UIDVALIDITY:UIDNEXT), for the
    idle check; and what the poll keeps of its inbox between runs (`imap-copied`: the messages copied to their
    folder that the server kept in the inbox, `pbem.app.filing`)."""

    __tablename__ = "poll_marks"

    name: str = Field(primary_key=True, max_length=64)
    value: str = Field(sa_column=Column(Text, nullable=False))
    updated_at: datetime


class AddressBounce(SQLModel, table=True):
    """An address whose mail bounces: its run of bounces (since when, the newest, how many, the newest's reason) and
    how many times the moderator was told of it (`pbem.app.bounced`, months4: told at once, then after 1, 3 and 7
    days and weekly, not every day).  A week without a bounce ends the run; a bounce after it starts another.  One
    row per address that held a seat when its mail bounced; read by its key."""

    __tablename__ = "address_bounces"

    address: str = Field(primary_key=True, max_length=320)
    first_at: datetime
    last_at: datetime
    bounces: int = 0
    told: int = 0
    reason: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))


class OutboxMessage(SQLModel, table=True):
    """A message to send.  Queued in the same transaction as what caused it."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_status_next", "status", "next_attempt_at"),
        # covering indexes: the reply cap, and each player's last report
        Index("ix_outbox_to_purpose_created", "to_addr", "purpose", "created_at"),
        Index("ix_outbox_game_purpose_player_seq", "game_id", "purpose", "player", "upto_seq"),
        Index("ix_outbox_purpose_created", "purpose", "created_at"),  # the hourly cap on answers to strangers
        # each DIGEST player's last report: its time by one probe, not read past every report's bytes (0019); and
        # whether the step's report reached each asked player (`deliveries`), its status and sent time too (0020)
        Index(
            "ix_outbox_game_purpose_player_created_sent",
            "game_id",
            "purpose",
            "player",
            "created_at",
            "status",
            "sent_at",
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(max_length=998, unique=True)
    game_id: int | None = Field(default=None, foreign_key="games.id", index=True)
    player: str = Field(default="", max_length=64)
    purpose: str = Field(
        max_length=16
    )  # report, status, ack, notice, news, limit, stranger, reminder, press, alert, resign
    upto_seq: int = 0  # for reports: the last event seq this report covers
    to_addr: str = Field(max_length=320)
    status: str = Field(default="queued", max_length=16)  # queued, sent, failed
    attempts: int = 0
    last_error: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    next_attempt_at: datetime
    created_at: datetime
    sent_at: datetime | None = None
    # `pbem prune` (migration 0021): the SHA-256 of the stored copy (`raw`, as kept once sent) when its bytes were
    # dropped, and when; `raw` is then empty.  None: the mail is kept whole.
    digest: str | None = Field(default=None, max_length=64)
    pruned_at: datetime | None = None


class OutboxMail(SQLModel, table=True):
    """The bytes of an outbox mail, one row per `OutboxMessage` (its `id`), written when it is queued (migration
    0022).  Kept out of the row whose status changes: SQLite rewrites a row whole, its overflow pages too, when an
    UPDATE changes its size, so marking a 20 KB report sent wrote it again (issue 27, perf29).  Changed only when
    a mail carrying a player's code is sent or given up (`raw` becomes the redacted `keep_raw`) and by `pbem
    prune` (`raw` emptied)."""

    __tablename__ = "outbox_mail"

    id: int = Field(sa_column=Column(Integer, ForeignKey("outbox.id"), primary_key=True, autoincrement=False))
    # What to keep once sent, when `raw` holds a secret (a player's code): the same mail with the code redacted.
    keep_raw: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    # SHA-256 of `raw` and `keep_raw` as queued (`pbem.record.outbox.mail_checksum`), checked by the sender before it
    # hands the mail over: SQLite does not see an overflow page overwritten (migration 0024, walk10).  NULL once
    # `raw` has become `keep_raw` (sent) or was pruned, and for a row sent before 0024.
    checksum: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))


class HomeSecret(SQLModel, table=True):
    """A secret of this moderator home, made once (migration 0005) and never shown: the key of outgoing
    Message-IDs (`pbem.record.home_secrets`)."""

    __tablename__ = "home_secrets"

    name: str = Field(primary_key=True, max_length=32)
    value: str = Field(max_length=128)
    created_at: datetime


class MailMode(SQLModel, table=True):
    """How much mail a player of a game wants (issue 23: WATCH, NORMAL, DIGEST), append-only: the newest row
    for (game, player) counts; `player` "" is the game's default, set by the moderator (`pbem.record.modes`)."""

    __tablename__ = "mail_modes"
    __table_args__ = (Index("ix_mail_modes_game_player_id", "game_id", "player", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")
    player: str = Field(default="", max_length=64)
    mode: str = Field(max_length=16)
    created_at: datetime


class PressRelay(SQLModel, table=True):
    """The press mails one inbound message caused, counted against its sender's `[mail] press_per_day`
    (issue 26, `pbem.record.press_budget`).  Append-only."""

    __tablename__ = "press_relays"
    __table_args__ = (Index("ix_press_relays_address_created", "address", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    address: str = Field(max_length=320)
    mails: int
    created_at: datetime
