"""Pairs of game states that differ only in what one reader may not know, and every byte of that reader's mail.

Used by the third secrecy red team's generator tests (tests/test_secrecy_*.py).  `pairs` plays a bot game and,
at states spread over it, changes one hidden fact: another player's secrets (`engine.scramble`: their hand
swapped with deck cards, their orders on file, votes, counters and offers changed), one card of a face-down
pile (Italian Wars' discard, Dynasties' grave) changed places with a deck card, one of a Sixteen Thirty player's
victory counters changed places with one never drawn, or the deck's order (every kind).  `mails`
sends one inbound message through the whole pure pipeline the poll runs (`pbem.app.intake.decide`, then
`pbem.app.finish.finish`, then `pbem.mail.outbound.outgoing.outbox_row`), so what is compared is the composed
MIME message as a player's mailbox gets it: headers (Subject, Message-ID, References, X-Pbem-*), the boundaries,
the text part, the HTML part (attributes, alt texts, the pictures' Content-IDs) and the pictures' bytes.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from pbem import engine as registry
from pbem.app import views
from pbem.app.deadlines import Held, decide_deadline, decide_reminders
from pbem.app.decision import Decision, Input, ReportMail
from pbem.app.finish import finish
from pbem.app.intake import Facts, decide
from pbem.app.reporting import Look
from pbem.engine.base import Engine, clone
from pbem.engine.bots import play
from pbem.mail.inbound.message import Inbound, parse
from pbem.mail.outbound.outgoing import Mail, Receipt, outbox_row
from pbem.orders.extract import extract
from pbem.record.store import Loaded, Recent
from tests.app.plain import MODERATOR, address, deadline, loaded
from tests.conftest import CODES, order_mail

NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank")
WHEN = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
SECRET = b"secrecy-red-team-message-id-key!"
#: Face-down piles no player sees the cards of, besides the deck (whose order is hidden too).
FACE_DOWN = {"italian-wars": ("discard",), "dynasties": ("grave",)}


@dataclass(frozen=True)
class Head:
    """The letterhead the mails are composed with (`pbem.mail.outbound.outgoing.Letterhead`)."""

    domain: str = "pbem.test"
    moderator_address: str = MODERATOR
    moderator_name: str = "Test Moderator"
    home: Path | None = None


HEAD = Head()
LOOK = Look(SECRET, HEAD.domain, HEAD.moderator_name, WHEN)
RECEIPT = Receipt(214, "4f1a9c2e" * 8)


@dataclass(frozen=True)
class Pair:
    """A state `s` and the same state `t` with one hidden fact changed; `q` whose secret it is (None: a
    face-down pile's or the deck's); `readers`: who may not tell the two apart."""

    s: dict[str, Any]
    t: dict[str, Any]
    q: str | None
    readers: tuple[str, ...]
    what: str


def players(kind: str) -> tuple[str, ...]:
    eng = registry.get(kind)
    return NAMES[: max(eng.min_players, min(eng.max_players, 4))]


def states(kind: str, seed: str, count: int) -> list[dict[str, Any]]:
    """`count` states spread over a bot game of `kind` (first and last included)."""
    eng = registry.get(kind)
    seen: list[dict[str, Any]] = []
    first, _ = eng.setup(list(players(kind)), seed, {})
    play(eng, list(players(kind)), seed, bot_seed=f"{seed}-bots", on_input=lambda pt, out: seen.append(out.state))
    seen = [first, *seen]
    if eng.result(seen[-1]) is not None:
        seen = seen[:-1]  # the game over: every secret is revealed
    step = max(1, len(seen) // count)
    return seen[::step][:count]


def _swapped(state: dict[str, Any], pile: str, rng: random.Random) -> dict[str, Any] | None:
    """`state` with one card of `pile` changed places with one of the deck (None when either is empty)."""
    if not state.get(pile) or not state.get("deck") or not isinstance(state[pile], list):
        return None
    t = clone(state)
    i, j = rng.randrange(len(t[pile])), rng.randrange(len(t["deck"]))
    if t[pile][i] == t["deck"][j]:
        return None
    t[pile][i], t["deck"][j] = t["deck"][j], t[pile][i]
    return t


def _deck_reordered(state: dict[str, Any]) -> dict[str, Any] | None:
    deck = state.get("deck")
    if not isinstance(deck, list) or len(set(map(str, deck))) < 2:
        return None
    t = clone(state)
    t["deck"] = t["deck"][1:] + t["deck"][:1]
    return t


def _counter_swapped(state: dict[str, Any], q: str) -> dict[str, Any] | None:
    """Sixteen Thirty: `state` with one of `q`'s hidden victory counters changed places with one never drawn
    (hidden from everyone until the end), the scores as they were."""
    unused, mine = state.get("unused_counters"), (state.get("counters") or {}).get(q)
    if not unused or not mine or state.get("over"):
        return None
    j = next((j for j, c in enumerate(unused) if c != mine[0]), None)
    if j is None:
        return None
    t = clone(state)
    t["counters"][q][0], t["unused_counters"][j] = t["unused_counters"][j], t["counters"][q][0]
    return t


def pairs(kind: str, seed: str, count: int) -> list[Pair]:
    """At `count` states of a bot game: each player's secrets scrambled (one player a state, in turn), a
    face-down card swapped with a deck card, one of that player's victory counters swapped with a counter never
    drawn (Sixteen Thirty), and the deck's order changed."""
    eng = registry.get(kind)
    _MAILS.clear()
    rng = random.Random(f"{kind}-{seed}")
    ps = players(kind)
    out: list[Pair] = []
    for i, s in enumerate(states(kind, seed, count)):
        q = ps[i % len(ps)]
        out.append(Pair(s, eng.scramble(s, q), q, tuple(p for p in ps if p != q), f"{q}'s secrets"))
        for pile in FACE_DOWN.get(kind, ()):
            t = _swapped(s, pile, rng)
            if t is not None:
                out.append(Pair(s, t, None, ps, f"a card of the face-down {pile}"))
        t = _counter_swapped(s, q)
        if t is not None:
            out.append(Pair(s, t, q, tuple(p for p in ps if p != q), f"{q}'s victory counter and a never drawn one"))
        t = _deck_reordered(s)
        if t is not None:
            out.append(Pair(s, t, None, ps, "the deck's order"))
    return out


def game(kind: str, state: dict[str, Any], resolve: str = "asap") -> Loaded:
    """The game as the load step hands it to `decide`, at `state`, with what the reports read."""
    g = dataclasses.replace(_base(kind, resolve), state=state, seq=40, event_seq=90)
    g.seats = list(g.seats)
    g.recent = Recent({p: 90 for p in players(kind)}, None, [], 90, {}, None)
    return g


@cache
def _base(kind: str, resolve: str) -> Loaded:
    return loaded(kind, players(kind), resolve=resolve)


@cache
def message(player: str, body: str, subject: str | None = None) -> Inbound:
    """`body` from `player` with their code.  Its Message-ID is the same whatever the body (the mails it causes
    derive theirs from it): two messages that differ only in their orders are told apart by nothing else."""
    raw = order_mail(
        f"{player} <{address(player)}>",
        "g1",
        f"CODE {CODES[player]}\n{body}",
        subject=subject,
        message_id=f"<{player.lower()}-secrecy@players.test>",
    )
    return parse(raw, MODERATOR)


def decided(kind: str, state: dict[str, Any], msg: Inbound, resolve: str = "asap") -> tuple[Loaded, Decision]:
    g = game(kind, state, resolve)
    ex = extract(msg.text, msg.subject, views.engine(g).order_words)
    d = decide(msg, Facts(g, "running", {}, [], extracted=ex, registered=True, now=WHEN, when=WHEN), 10_000)
    return g, finish(d, g, LOOK)


def composed(mail: Mail) -> bytes:
    """The message's bytes as queued (the outbox row's `raw`)."""
    row = outbox_row(HEAD, mail, WHEN, SECRET, game_id=1, receipt=RECEIPT)
    raw: bytes = row["raw"]
    return raw


def mails(kind: str, state: dict[str, Any], msg: Inbound, resolve: str = "asap") -> dict[str, Any]:
    """What `msg` sent at `state` gives each address: its mails' bytes in order, and the decision's outcome
    (what the poll logs; it is not mailed)."""
    key = (kind, id(state), msg, resolve)
    if key in _MAILS and _MAILS[key][0] is state:
        return _MAILS[key][1]
    _, d = decided(kind, state, msg, resolve)
    out: dict[str, Any] = {"outcome": (d.outcome, d.reason), **_bytes_by_address(d)}
    _MAILS[key] = (state, out)
    return out


#: The mails of the states of the latest `pairs` (each state is the first of several pairs): (state, mails).
_MAILS: dict[tuple[object, ...], tuple[dict[str, Any], dict[str, Any]]] = {}


def accepted_input(kind: str, state: dict[str, Any], msg: Inbound) -> Input | None:
    _, d = decided(kind, state, msg)
    return next((e for e in d.effects if isinstance(e, Input)), None)


def engine(kind: str) -> Engine:
    return registry.get(kind)


def _bytes_by_address(d: Decision) -> dict[str, list[bytes]]:
    out: dict[str, list[bytes]] = {}
    for e in d.effects:
        mail = e.mail if isinstance(e, ReportMail) else e if isinstance(e, Mail) else None
        if mail is not None:
            out.setdefault(mail.to, []).append(composed(mail))
    return out


def at_deadline(kind: str, state: dict[str, Any], held: list[Held]) -> tuple[dict[str, list[bytes]], list[Input]]:
    """The mails the deadline of the current step sends (held orders in arrival order, then the defaults), by
    address, and the inputs it records."""
    key = (kind, id(state), "deadline", tuple(held))
    if key in _MAILS and _MAILS[key][0] is state:
        return _MAILS[key][1]["done"]  # type: ignore[no-any-return]
    g = game(kind, state, "deadline")
    d = decide_deadline(g, views.current_step(engine(kind), state), held, due=WHEN)
    inputs = [e for e in d.effects if isinstance(e, Input)]
    done = _bytes_by_address(finish(d, g, LOOK)), inputs
    _MAILS[key] = (state, {"done": done})
    return done


def reminders(kind: str, state: dict[str, Any]) -> dict[str, list[bytes]]:
    """The reminders an hour before the deadline of the current step, by address."""
    g = game(kind, state, "deadline")
    step = views.current_step(engine(kind), state)
    dl = deadline(step, WHEN + timedelta(days=2))
    mails = decide_reminders(
        g, dl, WHEN + timedelta(days=2) - timedelta(hours=1), (timedelta(hours=3),), set(), set(), HEAD.domain, SECRET
    )
    return _bytes_by_address(Decision(effects=list(mails)))
