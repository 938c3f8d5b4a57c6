"""Twenty-third round of the fairness red team: a request of the player's own that the player never sent.

A resignation (`resign` event) and a move of a seat's mail asked by its player (`address` event, ``by: player``) are
public moderator events of the chain that name no message: the chain binds the event, not who asked.  The moderator,
who holds the database, writes the very effects a confirmed RESIGN (or ADDRESS CONFIRM) writes, and every check
passed: `pbem verify`, the player's `--mail` and their `--sent` (`forgeries`: 5 of 5 verified without a word on
90a53973, `--sent` included; 0 of 5 named).  Now `--sent` names each (`pbem.trust.asked`: 5 of 5), and every honest
request verifies.  Played on the embedded defaults (real SQLite, real Maildirs, the real poll, a clock after
`resigns.SINCE`), on the game `tests.test_moderator.new_game` makes (Habsburg: Alice, Bob, Carol); the moderator's
forgery goes through pbem's own `Command.apply`, as a moderator with the database would write it.  The suite plays
the honest game and two forgeries; `PBEM_FAIRNESS23_FULL=1` plays all five.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from pbem.app import control, processing
from pbem.app.addresses import moved
from pbem.app.control import Command
from pbem.app.decision import Control, Decision, Events
from pbem.engine.base import Event
from pbem.history.export import build
from pbem.home.app import Home
from pbem.orders.moderator import resigned as resigned_text
from pbem.record import store
from pbem.record.db import session
from pbem.trust.sent import check_sent
from pbem.trust.verify import check
from tests.conftest import Clock, body_of, deliver, order_mail, sent_mail, signed
from tests.test_moderator import PLAYERS, new_game, run_poll
from tests.test_process import _asked

FULL = os.environ.get("PBEM_FAIRNESS23_FULL") == "1"
NAME = "hh1"
ADDRESS = dict(PLAYERS)
EVE = "eve@evil.test"


@dataclass
class Table:
    """One game played: the home, its clock, and what each player sent (their Sent folder)."""

    home: object
    clock: Clock
    sent: dict[str, list[bytes]] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)

    def send(self, player: str, body: str, frm: str = "", **headers: str) -> None:
        raw = order_mail(f"{player} <{frm or ADDRESS[player]}>", NAME, body, **headers)
        self.sent.setdefault(player, []).append(raw)
        deliver(self.home, raw)
        run_poll(self.home, self.clock)

    def mailed(self, to: str, pattern: str) -> tuple[str, object]:
        """The word of the newest mail to `to` whose body matches `pattern`, and that mail."""
        mails = sent_mail(self.home, self.seen)
        mail = [m for m in mails if m["To"].addresses[0].addr_spec == to and re.search(pattern, body_of(m))][-1]
        return re.search(pattern, body_of(mail)).group(1), mail

    def forge(self, effects: Callable[[store.Loaded], list], player: str) -> None:
        """The moderator writes `effects` into the record himself, as pbem's own shell would apply them."""
        with Home.of(self.home).units() as s:
            c = Command(s, NAME)
            c.apply(
                Home.of(self.home).policy, Decision(game=NAME, player=player, effects=effects(c.loaded)), self.clock.now
            )
        run_poll(self.home, self.clock)


def _seat(loaded: store.Loaded, player: str):
    return next(st for st in loaded.seats if st.player == player)


def _resigned(player: str) -> Callable[[store.Loaded], list]:
    """The effects of a confirmed RESIGN (`pbem.app.resigning.decide`) without its mails."""

    def effects(loaded: store.Loaded) -> list:
        data = {"action": "resign", "player": player, "seat": _seat(loaded, player).position}
        return [Control("resign", player), Events((Event("moderator", resigned_text(player), "public", data),))]

    return effects


def _moved(player: str, new: str) -> Callable[[store.Loaded], list]:
    """The effects of an ADDRESS CONFIRM (`pbem.app.addresses.confirm`): the seat moved, recorded as the player's."""
    return lambda loaded: moved(loaded, _seat(loaded, player), new, "", "player")


def _resign(t: Table, player: str) -> None:
    t.send(player, signed(player, "RESIGN"))
    word, ask = t.mailed(ADDRESS[player], r"RESIGN (\d{6})")
    t.send(player, f"RESIGN {word}", In_Reply_To=str(ask["Message-ID"]))


def _address(t: Table, player: str, new: str) -> None:
    t.send(player, signed(player, f"ADDRESS {new}"))
    word, ask = t.mailed(new, r"ADDRESS CONFIRM (\d{6})")
    t.send(player, f"ADDRESS CONFIRM {word}", frm=new, In_Reply_To=str(ask["Message-ID"]))


def _asked_for_word(t: Table, player: str) -> None:
    """Bob asks to resign, then thinks better of it: his reply to the word asks a question and never gives it."""
    t.send(player, signed(player, "RESIGN"))
    _, ask = t.mailed(ADDRESS[player], r"RESIGN (\d{6})")
    t.send(player, "What happens to my seat if I resign? Can I come back?", In_Reply_To=str(ask["Message-ID"]))


#: (what, the game's script): the honest game, then each forgery.  The forged requests are Bob's resignation (then
#: his turn processed at once) and Alice's seat moved to Eve's address.
SCRIPTS: dict[str, Callable[[Table], None]] = {
    "honest: Bob resigns and Alice moves by mail": lambda t: (
        _resign(t, "Bob"),
        _address(t, "Alice", "alice@new.test"),
    ),
    "Bob resigned by the moderator, having asked STATUS": lambda t: (
        t.send("Bob", signed("Bob", "STATUS")),
        t.forge(_resigned("Bob"), "Bob"),
    ),
    "Bob resigned by the moderator after a bare RESIGN": lambda t: (
        t.send("Bob", signed("Bob", "RESIGN")),
        t.forge(_resigned("Bob"), "Bob"),
    ),
    "Bob resigned by the moderator after asking about resigning": lambda t: (
        _asked_for_word(t, "Bob"),
        t.forge(_resigned("Bob"), "Bob"),
    ),
    "Alice's seat moved to Eve as Alice's request": lambda t: (
        t.send("Alice", signed("Alice", "STATUS")),
        t.forge(_moved("Alice", EVE), "Alice"),
    ),
    "Alice's seat moved to Eve as her request, three days after she asked to move elsewhere": lambda t: (
        t.send("Alice", signed("Alice", "ADDRESS alice@new.test")),
        t.clock.advance(days=3),
        t.forge(_moved("Alice", EVE), "Alice"),
        _resign(t, "Bob"),
    ),
}
SAMPLE = list(SCRIPTS)[:2] + list(SCRIPTS)[4:5]


def _played(home, script: Callable[[Table], None]) -> tuple[dict, Table]:
    """A game played by `script`, then the others pass until only Bob is asked; if he resigned, his turn is
    processed at once and applied; the game abandoned (its seed revealed).  (The moderator's export, the table.)"""
    t = Table(home, Clock(datetime(2026, 12, 8, 12, 0, tzinfo=UTC)))
    new_game(home, t.clock, name=NAME)
    run_poll(home, t.clock)
    script(t)
    while (asked := _asked(home, NAME)) != ["Bob"]:
        (who,) = asked
        t.send(who, signed(who, "PASS"), frm="" if who != "Alice" else _seat_address(home, "Alice"))
    try:
        processing.process(Home.of(home), NAME, t.clock.now)
        run_poll(home, t.clock)
    except Exception:  # Bob did not resign: nothing to process
        pass
    control.abandon(Home.of(home), NAME, t.clock.now)
    with session(home.database_url) as s:
        return json.loads(json.dumps(build(s, store.game_by_name(s, NAME)))), t


def _seat_address(home, player: str) -> str:
    with session(home.database_url) as s:
        game = store.game_by_name(s, NAME)
        return next(st.address for st in store.current_seats(s, game.id) if st.player == player)


@pytest.mark.parametrize("what", [w for w in SCRIPTS if FULL or w in SAMPLE])
def test_a_request_the_player_never_sent_is_named_by_their_sent_folder(home, what) -> None:
    doc, t = _played(home, SCRIPTS[what])
    v = check(json.loads(json.dumps(doc)))
    assert v.ok, v.problem  # the forged record is one consistent history: the export alone cannot tell
    named = {p: [x for x in check_sent(doc, t.sent[p], p).problems if x.startswith("UNASKED")] for p in t.sent}
    other = {p: [x for x in check_sent(doc, t.sent[p], p).problems if not x.startswith("UNASKED")] for p in t.sent}
    assert not any(other.values()), other
    if what.startswith("honest"):
        assert not any(named.values()), named
        assert any((e.get("data") or {}).get("by") == "player" for e in doc["events"])
        return
    victim = "Bob" if what.startswith("Bob") else "Alice"
    (line,) = named[victim]
    assert ("resigned you" in line) == (victim == "Bob") and f"says {victim} asked it" in line, line
    assert not [x for p, xs in named.items() if p != victim for x in xs], named
