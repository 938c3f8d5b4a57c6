"""Twenty-third round of the fairness red team: a request of the player's own that the player never sent.

A resignation (`resign` event), a move of a seat's mail asked by its player (`address` event, ``by: player``) and a
press (`press` event, ``from`` the player) are entries of the chain that name no message: the chain binds the entry,
not who asked.  The moderator, who holds the database, writes the very effects a confirmed RESIGN, an ADDRESS
CONFIRM or a relayed press writes (`SCRIPTS`: seven forgeries), and every check passed: `pbem verify`, every
player's `--mail` and `--sent` (7 of 7 verified without a word on 90a53973).  Now `--sent` names each UNASKED
(`pbem.trust.asked`: 7 of 7), `--mail` alone warns of the four whose entry no mail told the player of (0 on
90a53973: `receipts._resigned_untold`), and the honest game (a resignation, a press by a fresh mail and by a reply,
a move by mail) gives neither.  Played on the embedded defaults (real SQLite, real Maildirs, the real poll, a clock
after `resigns.SINCE`), on the game `tests.test_moderator.new_game` makes (Habsburg: Alice, Bob, Carol); the
moderator's forgery goes through pbem's own `Command.apply`, as a moderator with the database would write it.  The
suite plays the honest game and three forgeries (about 3.7 s); `PBEM_FAIRNESS23_FULL=1` all seven (about 10 s).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from pbem.app import control, processing
from pbem.app.addresses import moved
from pbem.app.control import Command
from pbem.app.decision import Control, Decision, Events
from pbem.engine.base import Event
from pbem.history.export import build
from pbem.home.app import Home
from pbem.mail.outbound.outgoing import Mail
from pbem.orders.moderator import resigned as resigned_text
from pbem.record import store
from pbem.record.db import session
from pbem.trust.receipts import lines, verify_mail
from pbem.trust.sent import check_sent
from pbem.trust.verify import check
from tests.conftest import Clock, body_of, deliver, order_mail, sent_mail, signed
from tests.test_fairness11 import _mailbox
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


def _moved(player: str, new: str, told: bool) -> Callable[[store.Loaded], list]:
    """The effects of an ADDRESS CONFIRM (`pbem.app.addresses.confirm`): the seat moved, recorded as the player's;
    the notices to the old and the new address only if `told`."""
    return lambda loaded: [
        e for e in moved(loaded, _seat(loaded, player), new, "", "player") if told or not isinstance(e, Mail)
    ]


def _resign(t: Table, player: str) -> None:
    t.send(player, signed(player, "RESIGN"))
    word, ask = t.mailed(ADDRESS[player], r"RESIGN (\d{6})")
    t.send(player, f"RESIGN {word}", In_Reply_To=str(ask["Message-ID"]))


def _address(t: Table, player: str, new: str) -> None:
    t.send(player, signed(player, f"ADDRESS {new}"))
    word, ask = t.mailed(new, r"ADDRESS CONFIRM (\d{6})")
    t.send(player, f"ADDRESS CONFIRM {word}", frm=new, In_Reply_To=str(ask["Message-ID"]))


def _press(player: str, to: list[str], lines: list[str]) -> Callable[[store.Loaded], list]:
    """A press event in `player`'s name (`pbem.app.press._relayed` writes it so), and no mail to anyone."""

    def effects(loaded: store.Loaded) -> list:
        text = f"Press from {player} to {', '.join(to)}: {' / '.join(lines)}"
        return [
            Events((Event("press", text, tuple(sorted({player, *to})), {"from": player, "to": to, "lines": lines}),))
        ]

    return effects


def _asked_for_word(t: Table, player: str) -> None:
    """Bob asks to resign, then thinks better of it: his reply to the word asks a question and never gives it."""
    t.send(player, signed(player, "RESIGN"))
    _, ask = t.mailed(ADDRESS[player], r"RESIGN (\d{6})")
    t.send(player, "What happens to my seat if I resign? Can I come back?", In_Reply_To=str(ask["Message-ID"]))


#: (what, the game's script): the honest game, then each forgery.  The forged requests are Bob's resignation (then
#: his turn processed at once) and Alice's seat moved to Eve's address.
SCRIPTS: dict[str, Callable[[Table], None]] = {
    "honest: Bob resigns, Alice presses and moves by mail": lambda t: (
        t.send("Alice", signed("Alice", "PRESS TO Bob: Shall we both pass?\nI will.\nEND PRESS")),
        t.send(
            "Alice",
            "PRESS TO Bob, Carol: And you, Carol?",
            In_Reply_To=t.mailed(ADDRESS["Alice"], r"(Record)")[1]["Message-ID"],
        ),
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
        t.forge(_moved("Alice", EVE, False), "Alice"),
    ),
    "Alice's seat moved to Eve as her request, three days after she asked to move elsewhere": lambda t: (
        t.send("Alice", signed("Alice", "ADDRESS alice@new.test")),
        t.clock.advance(days=3),
        t.forge(_moved("Alice", EVE, True), "Alice"),  # and told: "The mail of Alice goes to eve@evil.test now"
        _resign(t, "Bob"),
    ),
    "a press in Alice's name to Bob": lambda t: (
        t.send("Alice", signed("Alice", "STATUS")),
        t.forge(_press("Alice", ["Bob"], ["Carol plans to attack you."]), "Alice"),
    ),
    "Alice's press to Bob, its words changed": lambda t: (
        t.send("Alice", signed("Alice", "PRESS TO Bob: Shall we both pass?")),
        t.forge(_press("Alice", ["Bob"], ["Shall we both attack Carol?"]), "Alice"),
    ),
}
SAMPLE = list(SCRIPTS)[:2] + list(SCRIPTS)[4:5] + list(SCRIPTS)[6:7]


def _played(
    home, script: Callable[[Table], None], start: datetime = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)
) -> tuple[dict, Table]:
    """A game played by `script` from `start`, then the others pass until only Bob is asked; if he resigned, his
    turn is processed at once and applied; the game abandoned (its seed revealed).  (The moderator's export, the
    table.)"""
    t = Table(home, Clock(start))
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
    if doc["game"].get("bindings") and ("resigned by" in what or "seat moved" in what):  # fairness25: refused
        # a resignation without its word and a player's move without its binding, the shapes forged here
        assert not v.ok and ("holds no word" in v.problem or "holds no binding" in v.problem), v.problem
    else:
        assert v.ok, v.problem  # the forged record is one consistent history: the export alone cannot tell
    named = {p: [x for x in check_sent(doc, t.sent[p], p).problems if x.startswith("UNASKED")] for p in t.sent}
    other = {p: [x for x in check_sent(doc, t.sent[p], p).problems if not x.startswith("UNASKED")] for p in t.sent}
    assert not any(other.values()), other
    warned = {}
    for p, address in PLAYERS:
        c = verify_mail(doc, _mailbox(home, address), p)
        assert c.ok, (p, lines(c))
        warned[p] = [n for n in c.notes if "none of your mails tells you so" in n]
    if what.startswith("honest"):
        assert not any(named.values()) and not any(warned.values()), (named, warned)
        assert any((e.get("data") or {}).get("by") == "player" for e in doc["events"])
        assert any(e["kind"] == "press" for e in doc["events"]) and any(
            e.get("text", "").startswith("Bob resigned") for e in doc["events"]
        )
        return
    victim = "Bob" if what.startswith("Bob") else "Alice"
    (line,) = named[victim]
    assert ("resigned you" in line) == (victim == "Bob") and f"says {victim} " in line, line
    assert ("press in your name" in line) == ("press" in what), line
    if "press" in what:  # the press's readers were told of it, Alice too (her report lists it): no mail is missing
        assert not any(warned.values()), warned
        return
    if "three days" in what:  # told of the move: her mail shows where it went, so it warns of nothing
        assert not warned[victim], warned
    else:
        (warning,) = warned[victim]  # her own received mail alone: the notice pbem writes with it never came
        assert ("says you resigned" in warning) == (victim == "Bob"), warning
    assert not [x for p, xs in {**named, **warned}.items() if p != victim for x in xs], (named, warned)


def test_an_answer_written_between_a_hidden_input_and_a_later_moderator_event_is_not_rewound() -> None:
    """`arrived.rewound` names a mail dated after the next entry its reader may see, or after the input that entry is
    an event of.  It took any entry after an input as that input's event: a moderator event (an outage's, written
    hours later) after Alice's hidden DISCARD made Bob's honest answer to AWAY, written between them, "the record's
    clock set back" (found by fairness21's generator once Bob's mailbox held mail to his bare address: games 1 and
    37 of 40 on 90a53973).  An input's events are written with it, at its time; an entry of another time is not one."""
    from pbem.trust import arrived

    t0 = datetime(2026, 1, 5, 18, 30, tzinfo=UTC)
    rows = [
        {"kind": "draw", "at": t0.isoformat(), "text": "Bob drew 9 cards."},
        {"kind": "orders", "at": (t0 + timedelta(hours=6)).isoformat(), "lines": ["DISCARD x"], "player": "Alice"},
        {"kind": "moderator", "at": (t0 + timedelta(hours=26)).isoformat(), "text": "pbem did not run ..."},
        {"kind": "orders", "at": (t0 + timedelta(hours=30)).isoformat(), "lines": ["DISCARD y"], "player": "Bob"},
        {"kind": "discard", "at": (t0 + timedelta(hours=30)).isoformat(), "text": "Bob discarded 1 card(s)."},
    ]
    seen = [1, 3, 4, 5]  # Bob's: not Alice's input
    answer = (1, "the answer to AWAY", (t0 + timedelta(hours=15)).timestamp())
    assert arrived.rewound(rows, [answer], seen) == []
    # the attack fairness20 names still is: a mail dated after an input and the events written with it
    late = (3, "a report", (t0 + timedelta(hours=33)).timestamp())
    assert [r[3] for r in arrived.rewound(rows, [late], seen)] == [4]
