"""What pbem's acknowledgement says of a refused message, worked out again (pure): for `pbem verify --mail`.

An acknowledgement of a refused message ("NOTHING WAS APPLIED") quotes each of the player's order lines, "ok" or
"NO" with the reason and what would be accepted.  The refused message leaves no input in the record, so those
reasons were the moderator's word: he could refuse a valid order with a made-up reason and never apply it (sixth
fairness round).  The reading is pure, the engine's and the intake's (`pbem.app.intake._orders`: the engine's
outcome, the lines set aside as prose, one slot one order, the refusal worded from the status), so once the seed
is out `pbem.trust.refused` replays the game to the state the message met and asks this module what pbem would
have written for the lines the acknowledgement quotes.  It is passed to `pbem.trust.receipts.verify_mail` as a
function (`pbem.trust.refused.Reread`): the trust layer does not import the use cases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from pbem.app import refusals, views
from pbem.app.answers import out_of_turn, quoted_lines
from pbem.app.lines import read_again, seeming_told, without_prose
from pbem.app.named import Answered, Named
from pbem.app.reading import extracted
from pbem.engine import slots
from pbem.engine.base import Engine
from pbem.mail.inbound.message import parse
from pbem.mail.inbound.replies import SentMail, looked_up
from pbem.orders.extract import Extracted, extract, seeming_note
from pbem.render.templates import render


def refused(eng: Engine, state: dict[str, Any], player: str, orders: list[str]) -> tuple[str, str]:
    """(the text, the HTML) pbem's acknowledgement writes for the message of order lines `orders` that `player`
    sent at `state` (`mail/_ack_body.txt.j2` and `.html.j2`, with those lines, the player's orders on file and who
    is awaited, and nothing else); when pbem would accept the message, without its lines (no "NOTHING WAS APPLIED":
    what it says of the game at `state`, as the acknowledgement of accepted orders says it of the state after them,
    `pbem.app.answering`)."""
    result = eng.apply(state, player, orders)
    orders, result, _, _ = read_again(eng, state, player, orders, result, {"problems": []}, [])
    result = slots.one_per_slot(eng, state, player, orders, result)
    result = refusals.worded(eng, state, player, result)
    lines, more = quoted_lines([] if result.accepted else [r.__dict__ for r in result.lines])
    context: dict[str, Any] = dict(
        subject_in="",
        game_name="",
        applied=False,
        lines=lines,
        more_lines=more,
        rejected_count=sum(1 for r in result.lines if not r.ok),
        problems=[],
        press_failed=[],
        more_notes=0,
        no_orders=False,
        press_sent=[],
        held=False,
        chatter=[],
        more_chatter=0,
        on_file=views.filed(eng, state, player),  # as the intake's `_now`: the state the message met
        waiting=views.waiting(eng, state),
        report_follows=False,
        idle=out_of_turn(eng, state, player, result.lines),  # as the intake's `_now`
    )
    return render("mail/_ack_body.txt.j2", **context), render("mail/_ack_body.html.j2", **context)


def hint(eng: Engine, state: dict[str, Any], player: str, typed: str) -> str:
    """The note pbem's acknowledgement writes at `state` for the line `typed` that `player` wrote as an order in a
    sentence ("I vote red", "(Pass)"): '"I vote red" was not read as an order: ... so write it as: VOTE red', the
    order offered being the legal line the engine takes alone now (`pbem.app.lines.seeming_told`); "" when pbem
    writes none for it there (a remark, or an order the engine would refuse alone)."""
    ex = extract(typed, "", eng.order_words)
    said = [p for p in seeming_told(eng, state, player, ex).problems if p.startswith(seeming_note(typed, ""))]
    return said[0] if said else ""


def failed(eng: Engine, state: dict[str, Any], player: str, orders: list[str]) -> list[tuple[str, str]]:
    """(line, reason) of each line of a held message the deadline could not apply at `state`, as the held_failed
    notice quotes them (`pbem.app.deadlines.decide_deadline`: the held lines read again without prose, the refusal
    worded as a refusal by mail is); [] when the deadline would apply them."""
    out = eng.apply(state, player, list(orders))
    _, _, out = without_prose(eng, state, player, list(orders), out)
    if out.accepted:
        return []
    return [(r.line, r.reason) for r in refusals.agreeing(eng, state, player, out).lines if not r.ok]


def named_extractor(named: Iterable[Named]) -> Callable[[bytes, tuple[str, ...]], Extracted | None]:
    """`pbem verify --sent`'s whole reading of a player's reply (`pbem.trust.sent.Exact`): as the poll read it, the
    copies of the received mails it names (`named`: (Message-ID, To address, the mail) each) removed, its press blocks
    included (`reading.extracted`); None for a mail that names none of them.  With it a press is matched to the
    block the poll relayed, never to a Sent copy's reading that runs on into a pasted copy (fairness26)."""
    answered = cast(dict[str, SentMail], Answered(named))  # a kept folder's mail read when named

    def read(raw: bytes, words: tuple[str, ...]) -> Extracted | None:
        m = parse(raw)
        sender = m.sender.lower()
        if not any(r in answered and answered[r].to_addr.lower() == sender for r in looked_up(m.references)):
            return None
        return extracted(m, answered, 0, words)

    return read
