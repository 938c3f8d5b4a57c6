"""The mail one inbound message causes: keys, the per-address answers budget, and short quotes.

Every mail derived from one message is keyed (message, recipient, purpose,
index), so any number of press relays, answers and reports to one person from
one message get distinct, stable Message-IDs.

The budget (issue 12, "Every reply counts"): every mail sent in answer to
inbound mail (acknowledgements, refusals, HELP, STATUS reports, the games
list, warnings to the player a forged message claimed to be, answers to
strangers) counts against one budget per address, `replies_per_hour` in any
hour.  Past it, the address gets ONE "too many messages, answering again at
HH:MM" notice and then nothing until the window passes.  Mail about the game
moving on (reports, reminders, deadline notices, press relayed to others) is
not counted.  The shell loads the counts from the outbox by purpose
(`pbem.record.outbox.answers_in_last_hour`); the budget itself is decided here.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pbem.app.decision import Decision
from pbem.mail.inbound.message import Inbound
from pbem.mail.outbound.outgoing import Mail
from pbem.orders.extract import is_order
from pbem.orders.typed import cleaned
from pbem.record.outbox import COUNTED, LIMIT, Window
from pbem.record.rows import Seat
from pbem.record.store import Loaded

ANSWERS = COUNTED  # the purposes the budget counts; LIMIT: the one "too many messages" notice
WINDOW = timedelta(hours=1)
SHOWN = 10  # refused, set-aside or noted input lines quoted back at most, per list; the rest are counted
MANY = 100  # accepted order lines quoted back at most
LINE_CHARS = 200  # characters of one quoted input line


class Outgoing:
    """Keys and the answers budget for one message's mail.  `replies`: answers already queued per address."""

    def __init__(
        self,
        msg: Inbound,
        replies: dict[str, int],
        cap: int,
        game_id: int | None,
        windows: dict[str, Window] | None = None,
        now: datetime | None = None,
    ) -> None:
        self.msg, self.cap, self.game_id, self.now = msg, cap, game_id, now
        self.windows = dict(windows or {})
        self.counts = {**dict(replies), **{a: w.answers for a, w in self.windows.items()}}
        self.limited = {a for a, w in self.windows.items() if w.limited}
        self.used: dict[tuple[str, str], int] = {}

    def key(self, to: str, purpose: str) -> tuple[object, ...]:
        n = self.used.get((to, purpose), 0)
        self.used[(to, purpose)] = n + 1
        return (self.msg.ident, to, purpose, n)

    def allowed(self, to: str) -> bool:
        """Whether one more answer to `to` fits in the budget (counts nothing)."""
        return self.counts.get(to, 0) < self.cap

    def admit(self, d: Decision, to: str, *, player: str = "", to_name: str = "", quiet: bool = False) -> bool:
        """May one more answer go to `to`?  Yes: it is counted.  No: the one "too many" notice is added to `d`
        (`quiet`: not for an address that wrote nothing, such as the moderator's)."""
        if self.allowed(to):
            self.counts[to] = self.counts.get(to, 0) + 1
            return True
        if to not in self.limited and not quiet:
            self.limited.add(to)
            context = {"again_at": self.again_at(to), "per_hour": self.cap}
            d.effects.append(self.mail(to, "too_many", LIMIT, context, player=player, to_name=to_name))
        return False

    def again_at(self, to: str) -> str:
        """When the oldest counted answer leaves the window ("HH:MM UTC"), as far as the shell said."""
        w = self.windows.get(to)
        start = (w.oldest if w else None) or self.now
        return (start + WINDOW).strftime("%H:%M UTC") if start else "within the hour"

    def mail(
        self,
        to: str,
        kind: str,
        purpose: str,
        context: dict[str, Any],
        *,
        player: str = "",
        to_name: str = "",
        reply: bool = True,
    ) -> Mail:
        """A mail derived from this message; `reply` threads it into the message (an answer to its sender).

        The budget is checked and counted by `admit`, before the mail is made.
        """
        return Mail(
            to=to,
            kind=kind,
            context=context,
            purpose=purpose,
            key=self.key(to, purpose),
            to_name=to_name,
            player=player,
            in_reply_to=self.msg.message_id if reply else None,
            references=self.msg.references if reply else (),
            game_id=self.game_id,
        )


def short(line: str, chars: int = LINE_CHARS) -> str:
    """One input line as quoted back: at most `chars` characters."""
    return line if len(line) <= chars else line[: chars - 1] + "\u2026"


def summary(lines: list[Any], shown: int = SHOWN) -> tuple[list[Any], int]:
    """(the first `shown` items, how many more there are): what a reply quotes of a long list."""
    return lines[:shown], max(0, len(lines) - shown)


def ack(d: Decision, out: Outgoing, seat: Seat, msg: Inbound, loaded: Loaded, chatter: list[str], **ctx: Any) -> None:
    """The acknowledgement, if the budget allows it; long input quoted as its first lines and a count."""
    if not out.admit(d, seat.address, player=seat.player, to_name=seat.display_name):
        return
    context = ack_context(msg, loaded, chatter, **ctx)
    d.effects.append(out.mail(seat.address, "ack", "ack", context, player=seat.player, to_name=seat.display_name))


def out_of_turn(eng: Any, state: dict[str, Any], player: str, lines: list[Any]) -> bool:
    """Whether a refused message is an order out of turn: each refused line answers nothing (`LineResult.not_asked`)
    and its sender is asked nothing now, not even a step they answered.  Its answer says nothing more is needed from
    them, not "correct the line and send the whole message again", and asks for no reply (walk6: Alice, not to play
    in Habsburg, sent NO EVENT and was told to correct it and "reply to this mail with your orders")."""
    refused = [r for r in lines if not r.ok]
    return all(r.not_asked for r in refused) and bool(refused) and all(q.player != player for q in eng.requests(state))


def asks(eng: Any, state: dict[str, Any], player: str, refused: list[Any] | None) -> dict[str, bool]:
    """Whether the answer asks for no reply: `idle`, a refused order sent out of turn (`out_of_turn`); `unasked`, a
    mail of commands only (`refused` None: WATCH, a press, AWAY, no orders) from a player asked nothing now, not even
    a step they answered (walk7: Bob, not to play in Habsburg, sent WATCH and was told "Reply to this mail with your
    orders")."""
    unasked = refused is None and all(q.player != player for q in eng.requests(state))
    return {"idle": out_of_turn(eng, state, player, refused or []), "unasked": unasked}


def ack_context(msg: Inbound, loaded: Loaded, chatter: list[str], **ctx: Any) -> dict[str, Any]:
    """What an acknowledgement tells (its own mail, or the top of the report that answers the message)."""
    shown, more_chatter = summary([short(line) for line in chatter])
    words = tuple(getattr(loaded.engine, "order_words", ()))
    base: dict[str, object] = dict(
        chatter=shown,  # lines set aside: "not read as orders" (the first few)
        # some start with an order word (under the signature, a footer, a closing): "they start with no order word"
        # was the wrong reason for them (players30)
        chatter_worded=any(is_order(cleaned(line) or line, words) for line in shown),
        more_chatter=more_chatter,
        subject_in=short(msg.subject),
        game_name=loaded.game.name,
        applied=False,
        lines=[],
        rejected_count=0,
        problems=[],
        press_failed=[],
        no_orders=False,
        press_sent=[],
        held=False,
        on_file=[],
        waiting=[],
        report_follows=False,
    )
    context: dict[str, Any] = {**base, **ctx}
    context["lines"], context["more_lines"] = quoted_lines(context["lines"])
    context["problems"], more_problems = summary([short(str(n)) for n in context["problems"]])
    context["press_failed"], more_failed = summary([short(str(n)) for n in context["press_failed"]])
    context["more_notes"] = more_problems + more_failed
    return context


def quoted_lines(lines: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The order lines an acknowledgement quotes: all of an ordinary message; of a long one with many refused
    lines only the first refused ones (of a long accepted one, the first MANY), and how many more there are.
    Refused lines are grouped (`grouped`): each is quoted, its reason and what would be accepted told once."""
    refused = [r for r in lines if not r["ok"]]
    short_enough = len(refused) <= SHOWN and len(lines) <= MANY
    shown = lines if short_enough else (refused[:SHOWN] if refused else lines[:MANY])
    return grouped([{**r, "line": short(str(r["line"]))} for r in shown]), len(lines) - len(shown)


def grouped(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`lines` with the refused ones that share a reason and what would be accepted told together (found by the
    players' testers: three lines of another step each got the same long reason and list, three times over).
    The first of a group gets `same`, the group's other lines (quoted right under it, the reason told once after
    them); the others get `told` (quoted there, not again at their own place).  Every line gets both keys."""
    first: dict[tuple[object, ...], dict[str, Any]] = {}
    out: list[dict[str, Any]] = []
    for r in lines:
        r = {**r, "same": [], "told": False}
        if not r["ok"]:
            key = (r.get("reason"), tuple(r.get("legal") or ()), tuple(r.get("names") or ()))
            if key in first:
                first[key]["same"].append(r["line"])
                r["told"] = True
            else:
                first[key] = r
        out.append(r)
    return out
