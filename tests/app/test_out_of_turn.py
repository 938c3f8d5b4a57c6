"""An order sent out of turn is answered with "nothing is asked of you now", never "correct the line" (walk6).

Found walking the README as four players: Alice, not to play in Habsburg, replied NO EVENT to a report and was told
"NOTHING WAS APPLIED ... Correct the line below and send the whole message again." and "Reply to this mail with your
orders", though there was nothing to correct and no order she could send: the only next step is to wait.  A refused
message whose every refused line answers nothing (`LineResult.not_asked`) from a player asked nothing now (not even a
step they answered: such a player may revise) says instead that nothing more is needed and they will be mailed when
asked, in both parts, and asks for no reply.  A player who is asked something and sends another step's order is
still told to correct it.

The generator: the states the bots reach in every kind (`tests.app.test_refusals_agree.states`), each player, the
legal lines seen on the way (any player's, any step's) sent one a message, the answers rendered as mailed.  Counted
over the four kinds with `PBEM_OUT_OF_TURN_FULL=1` (every state, every line; `python3 -m pytest
tests/app/test_out_of_turn.py` with it set, about 80 s): on e5c877a all 3,287 answers to an order out of turn said
"Correct the line" and asked for a reply (none of the 3,991 answers to a player asked something lacked either); on
walk6 none of the 3,287, and every one of the 3,991 still does.  The suite's sample (every 2nd state, 7th line, 8
answers of each sort per game) checks 45 and 38, all failing on e5c877a but the 38.
"""

from __future__ import annotations

import dataclasses
import os

import pytest

from pbem import engine as registry
from pbem.mail.outbound.outgoing import Mail
from pbem.render.templates import render_mail
from tests.app.plain import loaded
from tests.app.test_refusals_agree import send, states

FULL = os.environ.get("PBEM_OUT_OF_TURN_FULL") == "1"
STATES, LINES, CAP = (1, 1, 10**9) if FULL else (2, 7, 8)  # the suite: every 2nd state, 7th line, 8 answers of each
CORRECT = "send the whole message again"
REPLY = "Reply to this mail with your orders"
IDLE = "Nothing is asked of you now: nothing more is needed from you, and you will be mailed when you are asked."


def _answer(d) -> Mail | None:
    return next((e for e in d.effects if isinstance(e, Mail) and e.kind == "ack"), None)


def answers(kind: str) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(player, line, mail) of the refusals that answered an order out of turn, and of those to a player asked."""
    eng = registry.get(kind)
    found, seen, players = states(kind)
    g0 = loaded(kind, players)
    idle, asked = [], []
    for st in found[::STATES]:
        if len(idle) >= CAP and len(asked) >= CAP:
            break
        g = dataclasses.replace(g0, state=st)
        for p in players:
            mine = [r for r in eng.requests(st) if r.player == p]
            for line in seen[::LINES] if len(asked if mine else idle) < CAP else ():
                d = send(g, p, [line])
                mail = _answer(d)
                if d.outcome != "rejected" or mail is None or not mail.context.get("lines"):
                    continue
                refused = [r for r in mail.context["lines"] if not r["ok"]]
                shown = render_mail(
                    "ack", {**mail.context, "moderator": "pbem moderator", "record": {"entries": 3, "head": "0" * 64}}
                )
                text = shown.text + "\n" + shown.html
                if not mine and all("not asked anything" in r["reason"] for r in refused):
                    idle.append((p, line, text))
                elif mine and any(r["player"] == p and not r["answered"] for r in map(vars, mine)):
                    asked.append((p, line, text))
    return idle, asked


@pytest.mark.parametrize("kind", registry.available())
def test_an_order_out_of_turn_is_told_nothing_is_asked_and_asks_for_no_reply(kind: str) -> None:
    idle, asked = answers(kind)
    assert idle and asked, (len(idle), len(asked))  # both were tried
    for p, line, text in idle:
        assert CORRECT not in text and REPLY not in text and text.count(IDLE) == 2, (kind, p, line, text)
    for p, line, text in asked:
        assert CORRECT in text and REPLY in text and IDLE not in text, (kind, p, line, text)
