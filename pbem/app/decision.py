"""What a decision is: the values the pure deciding functions return and `apply` writes.

A `Decision` is an ordered list of effects (mails to queue, reports to
finish, events and inputs to append) plus what to record about the inbound
message that caused it, if any; once finished (`pbem.app.finish`) it holds
every mail as data and `pbem.app.apply` only writes it.  Order matters only as the order of the
outbox (the order mail is sent in) and of the history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pbem.engine.base import Event, Outcome
from pbem.mail.outbound.outgoing import Mail
from pbem.record.bounced import Run
from pbem.record.due import DueRow

if TYPE_CHECKING:
    from pbem.record.store import Loaded

Recorded = Literal["accepted", "held", "rejected", "ignored", "duplicate"]


@dataclass(frozen=True)
class Report:
    """A player's private report at its place in the effects, asked for by a deciding function and turned
    into its finished mail (`ReportMail`) by `pbem.app.finish` before the decision is written.

    `since` None: since their last report.  `code`: the player's code, shown
    once (the kept copy is redacted).  `key` None: keyed by the point of the game.
    """

    player: str
    since: int | None = None
    code: str | None = None
    takeover: bool = False
    key: tuple[object, ...] | None = None
    extra: str = ""
    purpose: str = "report"  # "status": the answer to a STATUS command (counted by the answers budget)
    ack: dict[str, Any] | None = None  # the acknowledgement of the player's message, told at the top (issue 23)
    asked: bool = False  # the moderator asked for it (`pbem game resend`): a player who resigned gets it too
    in_reply_to: str | None = None  # with `ack`: the message it answers
    references: tuple[str, ...] = ()


@dataclass(frozen=True)
class Events:
    """Events appended outside an input (press, moderator announcements)."""

    events: tuple[Event, ...]


@dataclass(frozen=True)
class Input:
    """An accepted input: `kind` orders (a player's lines) or deadline (the published defaults)."""

    kind: str
    player: str
    lines: tuple[str, ...]
    outcome: Outcome
    inbound_id: int | None = None  # a held message applied at the deadline
    message_id: str | None = None  # its Message-ID (the chain's entry names it)
    reopen: str = ""  # step whose deadline is opened again (the deadline moved nothing)


@dataclass(frozen=True)
class Control:
    """A moderator action row (pause, resume, abandon, extend, replace, code, held-done)."""

    action: str
    detail: str = ""


@dataclass(frozen=True)
class NewDeadline:
    step: str
    due_at: Any  # datetime
    reason: str


@dataclass(frozen=True)
class NewSeat:
    """A seat row appended (a new game, a replacement or a new code): `code_hash` of the new code;
    `thread` names the first report to this seat's player, which all their later mail references."""

    position: int
    player: str
    address: str
    display_name: str
    code_hash: str
    thread: str = ""
    given_at: Any = None  # datetime: when the seat's code was given, kept by an address move (None: now)


@dataclass(frozen=True)
class MailModeSet:
    """A player chose how much mail they get (WATCH, NORMAL, DIGEST: `pbem.app.notify`); "" the game's default."""

    player: str
    mode: str


@dataclass(frozen=True)
class DueHandled:
    """Rows of the `due` table handled (`pbem.record.due`); `again`: the next look at the step's reminders."""

    ids: tuple[int, ...]
    again: DueRow | None = None


@dataclass(frozen=True)
class NewGame:
    """A new game: its row and the first snapshot (`state` at seq 0).  The effects after it (seats, set-up
    events, first deadline, first reports) belong to this game."""

    name: str
    kind: str
    seed: str
    seed_commitment: str
    insecure_seed: bool
    players: tuple[str, ...]
    options: dict[str, Any]
    deadline_seconds: int
    resolve: str
    state: dict[str, Any]
    step: str
    bindings: int = 0  # the format mark the game declares (`pbem.trust.asked.BINDINGS`), signed in its header


@dataclass(frozen=True)
class PressCounted:
    """Press mails one message caused, counted against its sender's `[mail] press_per_day` (issue 26)."""

    address: str
    mails: int


@dataclass(frozen=True)
class BounceRun:
    """An address's run of bounces as a bounce leaves it (`pbem.app.bounced`, months4)."""

    run: Run


@dataclass(frozen=True)
class ReportMail:
    """A report finished (`pbem.app.finish`): the mail, context and all, at its place in the effects."""

    mail: Mail


Effect = (
    Mail
    | Report
    | ReportMail
    | Events
    | Input
    | Control
    | NewDeadline
    | NewSeat
    | NewGame
    | DueHandled
    | MailModeSet
    | PressCounted
    | BounceRun
)


@dataclass
class Decision:
    """What one message, deadline or command does.  `outcome`/`reason` are recorded for a message."""

    outcome: Recorded = "ignored"
    reason: str = ""
    game: str = ""
    player: str = ""
    effects: list[Effect] = field(default_factory=list)
    duplicate_of: int | None = None  # outcome duplicate: the record id of the first copy
    late: bool = False  # a reply's lines answer nothing asked now: decided again once its step's closing is read

    @property
    def mails(self) -> list[Mail]:
        return [e for e in self.effects if isinstance(e, Mail)]

    @property
    def reports(self) -> list[Report]:
        return [e for e in self.effects if isinstance(e, Report)]

    @property
    def inputs(self) -> list[Input]:
        return [e for e in self.effects if isinstance(e, Input)]

    @property
    def events(self) -> list[Event]:
        out: list[Event] = []
        for e in self.effects:
            if isinstance(e, Events):
                out += e.events
            elif isinstance(e, Input):
                out += e.outcome.events
        return out

    @property
    def handled(self) -> str:
        """The poll summary's column: a held message counts as accepted, a duplicate as already seen."""
        return {"held": "accepted", "duplicate": "duplicates"}.get(self.outcome, self.outcome)


MODERATOR_SEAT = (
    "that is the moderator's address ([moderator] address): mail from it is read as moderator commands,"
    " so no player can play from it; give the player their own address"
)


class GameError(Exception):
    """A moderator command cannot be done; one sentence."""


def check_open(loaded: Loaded, control: str, allow_paused: bool = False) -> None:
    """GameError when a moderator command cannot act on a game: over, abandoned, or (unless allowed) paused."""
    if loaded.over:
        raise GameError(f"game {loaded.game.name} is over")
    if control == "abandoned" or (control == "paused" and not allow_paused):
        raise GameError(f"game {loaded.game.name} is {control}")
