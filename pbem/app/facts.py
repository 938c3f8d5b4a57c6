"""What the load step hands `pbem.app.intake.decide` for one inbound message (plain values, no reads).

`pbem.app.load.load_facts` fills a `Facts` in the message's transaction; deciding reads only it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pbem.app.resigning import Resign
from pbem.app.revisions import FirstCopy, OnFile
from pbem.mail.inbound.replies import SentMail
from pbem.orders.extract import Extracted
from pbem.record.lookups import Closed
from pbem.record.modes import Mailing
from pbem.record.outbox import Window
from pbem.record.press_budget import PressWindow
from pbem.record.rows import Seat
from pbem.record.store import Loaded
from pbem.trust.codes import check_seat_code


@dataclass(frozen=True)
class SenderGame:
    """A game the sender of a message without a game tag plays: for HELP without a tag."""

    name: str
    title: str
    player: str


@dataclass(frozen=True)
class Strangers:
    """How much a sender who is no registered seat of any game may be answered (`[mail]` keys)."""

    per_day: int = 0  # short answers to one such address per day (0: never answered)
    per_hour: int = 60  # answers to all such addresses together per hour


@dataclass
class Facts:
    """What the shell loaded for one message."""

    loaded: Loaded | None  # the game named in the subject, if it exists
    control: str = "running"  # running, paused, abandoned
    replies: dict[str, int] = field(default_factory=dict)  # answers queued per address in the last hour
    sender_games: list[str] = field(default_factory=list)  # no game named: the games the sender plays
    sender_seats: list[SenderGame] = field(default_factory=list)  # the same, with title and player name
    extracted: Extracted | None = None  # the message's lines read with the game's order words, codes redacted
    when: datetime | None = None  # when the message arrived
    first: FirstCopy | None = None  # the message this one is a copy of (same Message-ID and sender)
    on_file: OnFile | None = None  # the sender's revision on file for the current step
    moderator: str = ""  # the [moderator] address, told when a player's code comes from another player
    windows: dict[str, Window] = field(default_factory=dict)  # the answers budget per address (last hour)
    now: datetime | None = None  # when the message is handled (for "answering again at HH:MM")
    registered: bool = False  # the sender is a seat of some game: only then may a code be checked
    stranger_answers: tuple[int, int] = (0, 0)  # answers to strangers: to this address today, to anyone this hour
    strangers: Strangers = Strangers()  # how much strangers may be answered (configuration)
    max_away: timedelta = timedelta(days=14)  # [games] max_away: how long a game waits for one player's absences
    away_now: dict[str, datetime] | None = None  # AWAY or BACK from a seat: who is away, until when
    codes: dict[int, bool] = field(default_factory=dict)  # the load step's code checks: seat id -> it is theirs
    reply: SentMail | None = None  # the mail pbem sent to the sender's seat that this message answers
    answered_other: str = ""  # no such mail, but one pbem sent another seat: that player's name
    answered_before: str = ""  # no such mail, but one sent this seat before its code: when the code was given
    earlier: OnFile | None = None  # no revision on file for this step: the newest orders mail of an earlier one
    mailing: Mailing = field(default_factory=Mailing)  # the game's mail modes (`pbem.app.notify`)
    last_reports: dict[str, datetime] = field(default_factory=dict)  # for DIGEST players: their last report
    press: PressWindow = field(default_factory=PressWindow)  # the press the sender caused in the last day
    press_per_day: int = 60  # [mail] press_per_day: at most that many (issue 26)
    history: dict[str, object] | None = None  # HISTORY asked by a seat: its answer's context (`pbem.app.histories`)
    resign: Resign | None = None  # RESIGN from a seat: the words that confirm it, whether it did (`pbem.app.resigning`)
    address: tuple[str, str] | None = None  # ADDRESS new from a seat: today's word for it, when it stops working
    closed: Closed | None = (
        None  # a reply whose lines answer nothing asked now: its step's closing (`pbem.app.closing`)
    )
    closed_read: bool = False  # `closed` was read (None: the step the reply answers is still open)
    asked_then: tuple[str, ...] = ()  # with `closed`: the steps of the player's requests then (`closing.changed`)


def is_code(facts: Facts, seat: Seat, code: str | None) -> bool:
    """Whether `code` is `seat`'s, as the load step checked it (`pbem.app.load.code_checks`: deciding then
    derives no key); a seat it did not check (facts built by hand, in tests) is checked here."""
    known = facts.codes.get(seat.id) if seat.id is not None else None
    return known if known is not None else check_seat_code(seat.id, code, seat.code_hash)
