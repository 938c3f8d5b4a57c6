"""A mail of commands only from a player asked nothing now is answered without "Reply to this mail with your orders".

Found walking the README as four players (walk7): Bob, not to play in Habsburg, sent WATCH and was answered "your
mail: WATCH noted ... Still awaited from: Alice. Reply to this mail with your orders"; Dave's press to Bob and his HELP
were answered the same way ("You are not asked anything now. Waiting for: Alice." above the closing).  There was
nothing to reply: the README says only mail that asks a player for orders ends so, and walk6 took the line off the
refusal of an order sent out of turn.  Now the answer to a mail without orders (WATCH, NORMAL, DIGEST, a press,
HELP, or no orders at all) leaves the closing off when its sender is asked nothing, not even a step they answered
(`pbem.app.answers.asks`); a player asked something still gets it.

The generator: the states the bots reach in every kind (`tests.app.test_refusals_agree.states`), each player, each
such mail, the answers rendered as mailed.  Counted over the four kinds with `PBEM_UNASKED_FULL=1` (every state;
`python3 -m pytest tests/app/test_answers_unasked.py` with it set, about 15 s): on efd12b07 all 390 answers to a
player asked nothing asked for a reply (none of the 414 answers to a player asked something lacked it); on walk7
none of the 390, and every one of the 414 still does.  The suite's sample (every 4th state, 6 answers of each sort
per game) checks 24 and 24, the 24 failing on efd12b07.
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

FULL = os.environ.get("PBEM_UNASKED_FULL") == "1"
STATES, CAP = (1, 10**9) if FULL else (4, 6)  # the suite: every 4th state, 6 answers of each sort per game
REPLY = "Reply to this mail with your orders"
RECORD = {"entries": 3, "head": "0" * 64}


def mails(players: tuple[str, ...], p: str) -> list[list[str]]:
    other = next(q for q in players if q != p)
    return [["WATCH"], ["DIGEST"], ["NORMAL"], [f"PRESS TO {other}: shall we?"], ["HELP"], ["Hi all"]]


def answers(kind: str) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(player, mail sent, answer) of the answers to a player asked nothing, and of those to a player asked."""
    eng = registry.get(kind)
    found, _, players = states(kind)
    g0 = loaded(kind, players)
    unasked: list[tuple[str, str, str]] = []
    asked: list[tuple[str, str, str]] = []
    for st in found[::STATES]:
        if len(unasked) >= CAP and len(asked) >= CAP:
            break
        g = dataclasses.replace(g0, state=st)
        for p in players:
            mine = any(r.player == p for r in eng.requests(st))
            for lines in mails(players, p) if len(asked if mine else unasked) < CAP else ():
                d = send(g, p, lines)
                for mail in (e for e in d.effects if isinstance(e, Mail) and e.kind in ("ack", "help")):
                    shown = render_mail(mail.kind, {**mail.context, "moderator": "pbem moderator", "record": RECORD})
                    (asked if mine else unasked).append((p, lines[0], shown.text + "\n" + shown.html))
    return unasked, asked


@pytest.mark.parametrize("kind", registry.available())
def test_a_mail_of_commands_from_a_player_asked_nothing_asks_for_no_reply(kind: str) -> None:
    unasked, asked = answers(kind)
    assert unasked and asked, (len(unasked), len(asked))  # both were tried
    for p, line, text in unasked:
        assert REPLY not in text, (kind, p, line, text)
    for p, line, text in asked:
        assert text.count(REPLY) == 2, (kind, p, line, text)  # in the text and the HTML part
