"""What a player types twice outside the engine's orders is read once and told, and a press to a replaced name is
told who holds that seat (players25, from walk6's walk of the README over Maildir).

* **JOIN and SALT typed twice.**  The README: "The same order typed twice (`PASS` and `pass.`) is read once where
  the game could not take it twice, and the answer says so".  The join step's lines never went through that reading
  (`pbem.app.lines.once`): "JOIN / JOIN" was recorded as typed with no note, and a SALT line typed twice was refused
  as two salts.  The corpus `JOINS`: each join line of a message typed again (its order word in another case too);
  a case fails when the answer does not say "read once" or the record keeps the repeat.  On 18279215: 5 of 5 fail;
  on players25: 0.  Two salts that differ stay refused (`DIFFERENT`: a salt's text is the player's).
* **A press typed twice** was relayed twice: every recipient got two mails.  Now sent once, the answer noting it
  (`pbem.orders.extract._pressed`).  On 18279215 the case fails (two press mails to Bob); on players25 it passes.
* **A press to a replaced player's old name** was answered only '"dave" is not a player you can name here'.  Now
  "Dave's seat is Erin's now: write PRESS TO Erin" (the replacement is announced to every player), and nothing is
  relayed.  On 18279215 the case fails; on players25 it passes.  `pbem verify --mail` reads the reason again against
  the record's replacements (`pbem.trust.pressed.Held`; its forged forms: tests/trust/test_pressed_seats.py).
"""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from pbem.app import control, games
from pbem.app import poll as polling
from pbem.app.games import Table
from pbem.home.app import Home
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from pbem.record import store
from pbem.record.db import session
from pbem.record.models import OrderInput
from tests.conftest import CODES, Clock, body_of, deliver, order_mail, sent_mail, signed

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
ALICE = "Alice <alice@players.test>"
# (the message's join lines, the line told as a repeat, the lines recorded)
JOINS = [
    ("JOIN\nJOIN", "JOIN", ["JOIN"]),
    ("JOIN\njoin", "join", ["JOIN"]),
    ("join\nJOIN\nSALT x", "JOIN", ["join", "SALT x"]),
    ("JOIN\nSALT blue moon\nSALT blue moon", "SALT blue moon", ["JOIN", "SALT blue moon"]),
    ("JOIN\nSALT blue moon\nsalt blue moon", "salt blue moon", ["JOIN", "SALT blue moon"]),
]
DIFFERENT = "JOIN\nSALT blue moon\nSALT Blue moon"  # two salts: refused, as before


def _poll(cfg, clock: Clock) -> None:
    polling.poll(
        Home.of(cfg, inbox=MaildirInbox(cfg.maildir_path), sender=MaildirSender(cfg.maildir_path), clock=clock)
    )


def _inputs(cfg, name: str) -> list[list[str]]:
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, name)
        assert game is not None
        rows = s.exec(select(OrderInput).where(OrderInput.game_id == game.id).order_by(OrderInput.seq)).all()
        return [[str(x) for x in json.loads(o.lines_json)] for o in rows]


def test_join_and_salt_typed_twice_are_read_once_and_told(home, clock: Clock) -> None:
    for k, _ in enumerate([*JOINS, DIFFERENT]):
        games.create_game(Home.of(home), "habsburg", f"j{k}", PLAYERS, clock=clock, codes=CODES, table=Table(join=True))
    _poll(home, clock)
    seen: set = set()
    sent_mail(home, seen)
    for k, (body, _, _) in enumerate([*JOINS, (DIFFERENT, "", [])]):
        deliver(home, order_mail(ALICE, f"j{k}", signed("Alice", body)))
    _poll(home, clock)
    acks = {m["Subject"].split("]")[0].split()[-1]: body_of(m) for m in sent_mail(home, seen)}
    wrong = []
    for k, (body, repeat, recorded) in enumerate(JOINS):
        note = f'"{repeat}" repeats an order above it in the same message: read once'
        lines = [x for x in _inputs(home, f"j{k}") if x and x[0].upper() in ("JOIN", "SALT")]
        if note not in " ".join(acks[f"j{k}"].split()) or lines != [recorded]:
            wrong.append((body, lines, acks[f"j{k}"][:300]))
    assert wrong == [], wrong
    assert "send one SALT line only" in acks[f"j{len(JOINS)}"], acks[f"j{len(JOINS)}"]


@pytest.fixture
def running(home, clock: Clock):
    """Habsburg p1 dealt, Carol's seat given to Erin."""
    games.create_game(Home.of(home), "habsburg", "p1", PLAYERS, clock=clock, codes=CODES)
    _poll(home, clock)
    control.replace(Home.of(home), "p1", "Carol", ("Erin", "erin@players.test"), clock(), code="EEEE-6666")
    _poll(home, clock)
    return home


def test_a_press_typed_twice_is_sent_once_and_told(running, clock: Clock) -> None:
    seen: set = set()
    sent_mail(running, seen)
    line = "PRESS TO Bob: shall we share Bohemia?"
    deliver(running, order_mail(ALICE, "p1", signed("Alice", f"{line}\n{line}")))
    _poll(running, clock)
    mails = sent_mail(running, seen)
    to_bob = [m for m in mails if m["To"].addresses[0].addr_spec == "bob@players.test"]
    to_alice = " ".join(
        " ".join(body_of(m).split()) for m in mails if m["To"].addresses[0].addr_spec.startswith("alice")
    )
    assert len(to_bob) == 1, [m["Subject"] for m in to_bob]
    assert f'"{line}" repeats a press above it in the same message: sent once' in to_alice, to_alice


def test_a_press_to_a_replaced_name_says_who_holds_the_seat(running, clock: Clock) -> None:
    seen: set = set()
    sent_mail(running, seen)
    deliver(running, order_mail(ALICE, "p1", signed("Alice", "PRESS TO Carol: hi")))
    _poll(running, clock)
    mails = sent_mail(running, seen)
    assert not [m for m in mails if m["To"].addresses[0].addr_spec.startswith(("erin", "carol", "bob"))]
    told = " ".join(body_of(mails[-1]).split())
    assert "Press not sent: Carol's seat is Erin's now: write PRESS TO Erin." in told, told
