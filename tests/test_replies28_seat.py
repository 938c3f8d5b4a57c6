"""players28, item 2: a footer under RESIGN or ADDRESS is left unread, and the answer says the line was read.

A mail with a RESIGN or an ADDRESS line is about that only (`pbem.app.resigning`, `pbem.app.addresses`); its answer
said "The rest of your mail was not read ... Send your orders or other commands in a mail of their own" whenever the
mail held an order line, and a footer starting with an order word is one ("Pass it on!", "Keep calm and carry on").
The player was told they had sent orders they never meant.  Now the footer is read as under any command
(`pbem.app.footers.about_the_seat`): the answer says the RESIGN or ADDRESS line was read and lists the footer as left
unread; an order the game takes, or a mistyped one, under the line is still "the rest of your mail".

Generated: each footer of `tests.test_replies27_footers.FOOTERS` placed each of its `PLACES` ways under each line of
`SEAT_LINES`, in each game at its first step, and each of the first `ORDERS` legal orders and their mistypes
(`tests.test_replies28_footers.MISTYPES`) in the same places.  On c83d8ea7 390 of the 2,720 footer cases said "the
rest of your mail was not read" (footers starting with an order word of the game, not under "-- " or a sign-off);
now 0, and each of the 1,340 order cases still says so.  The suite runs a seeded sample of `SAMPLED`;
`REPLIES28_ALL=1 python3 -m pytest tests/test_replies28_seat.py -n 0` runs every case (about 6 s).
"""

from __future__ import annotations

import os
import random

from pbem.app.footers import about_the_seat
from pbem.orders.extract import extract
from tests.conftest import body_of, deliver, order_mail, sent_mail, signed
from tests.replies27 import first_state
from tests.test_moderator import new_game, run_poll
from tests.test_replies27_footers import FOOTERS, PLACES
from tests.test_replies28_footers import MISTYPES

SEAT_LINES = ("RESIGN", "Resign.", "RESIGN 123456", "ADDRESS alice@new.example.org", "ADDRESS CONFIRM 123456")
KINDS = ("habsburg", "italian-wars", "sixteen-thirty", "dynasties")
ORDERS = 4
SAMPLED = 300


def cases() -> list[tuple[str, str, str, bool]]:
    """(game, the seat's line, the lines under it, whether they are anything else: an order or a mistyped one)."""
    out: list[tuple[str, str, str, bool]] = []
    for kind in KINDS:
        eng, state = first_state(kind)
        legal = next(r for r in eng.requests(state) if r.player == "Alice").legal[:ORDERS]
        typed = sorted({f(o) for o in legal for f in MISTYPES.values()} | set(legal))
        for line in SEAT_LINES:
            for place in PLACES:
                out += [(kind, line, "\n".join([*PLACES[place], *FOOTERS[f]]), False) for f in FOOTERS]
                out += [
                    (kind, line, "\n".join([*PLACES[place], t]), True) for t in typed if place in ("under", "blank")
                ]
    return out


def misread(kind: str, line: str, under: str, other: bool) -> str:
    eng, state = first_state(kind)
    ex = extract(f"{line}\n{under}\n", "", tuple(eng.order_words))
    others, left = about_the_seat(eng, state, "Alice", ex)
    return "" if others == other else f"{kind}: {line!r} above {under!r}: others {others}, left {left}"


def test_a_footer_under_resign_or_address_is_left_and_an_order_under_it_is_the_rest_of_the_mail() -> None:
    every = cases()
    chosen = every if os.environ.get("REPLIES28_ALL") else random.Random(28).sample(every, SAMPLED)
    failures = [why for case in chosen if (why := misread(*case))]
    assert not failures, f"{len(failures)} of {len(chosen)} misread:\n" + "\n".join(failures[:40])


def test_the_resign_and_address_answers_say_the_line_was_read_and_list_the_footer(home, clock) -> None:
    """Through the mail: RESIGN, then ADDRESS, each above "Pass it on!" (Habsburg's PASS)."""
    players = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
    name = new_game(home, clock, kind="habsburg", players=players)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    alice = "Alice <alice@players.test>"
    for line, word in (("RESIGN", "RESIGN"), ("ADDRESS alice@new.example.org", "ADDRESS")):
        deliver(home, order_mail(alice, name, signed("Alice", f"{line}\n\nPass it on!")))
        run_poll(home, clock)
        mine = [m for m in sent_mail(home, seen) if m["To"].addresses[0].addr_spec == "alice@players.test"]
        (answer,) = mine
        text = body_of(answer)
        assert f"Your {word} line was read" in text and "    Pass it on!" in text, text
        assert "The rest of your mail was not read" not in text, text
    deliver(home, order_mail(alice, name, signed("Alice", "RESIGN\nNO EVENT\n\nPass it on!")))
    run_poll(home, clock)
    (answer,) = [m for m in sent_mail(home, seen) if m["To"].addresses[0].addr_spec == "alice@players.test"]
    assert "The rest of your mail was not read" in body_of(answer), body_of(answer)
