"""Twenty-first round of the fairness checks: no false alarm from the twentieth round's warnings on honest games.

fairness20 added `arrived.late`, `arrived.ahead`, `arrived.rewound` and `due.unasked` to `pbem verify --mail`,
checked on the seeded games and on defaults in each title's first step.  A warning that fires on an honest game
teaches players to ignore warnings.  `honest_game` plays a game of a random title (random seed, 3-6 players; Italian
Wars 2) through real polls (`cron.run_poll` on the Maildir transport) with what honest games have: players who
answer late or never (defaults in later steps), a seat replaced partway through a step, a player resigned (RESIGN,
confirmed), one away (`AWAY`), a pause and resume, an extension, an undo by the moderator, reminders, an SMTP outage
during which the outbox retries for hours (the mail's Date older than its arrival for an honest reason), each mail
stamped by the player's provider with a `Received` field seconds to 50 minutes after it was sent (greylisting), and
a player whose mailbox got the mails out of order.  Every player's mailbox (a replaced or resigned player's too) is
verified and each WARNING or mismatch counted.

Counts over the 40 games of `PBEM_FAIRNESS21_FULL=1` (about 4 minutes; the suite plays game 25, six polls, 1.7 s):

* MISMATCH (the same code on e5c877a): 22 in 9 games on 2c60d0f, 0 now.  An HTML report whose opening section ends
  with orders on file ends in "</pre></section>" on one line; `shown.html_sections` and `prose.html_lines` read the
  section on to the next "</section>" line, taking the board's figure as part of the opening lines.  Such reports
  go out after an undo or a seat replaced in a simultaneous step.  Game 25 (an undo at its third poll) fails on
  2c60d0f.
* `rewound`, `ahead`, `unasked`: 0 on 2c60d0f and now.
* `late`: 24 in 11 games, before and now, each a mail written during an SMTP outage and sent when the server came
  back: true (the player got it hours late) and worded with that cause; the export held no trace of a failed send.
  Since fairness22 the outage is chained (an `unsent` event) and each such mail is a note citing it, not a WARNING:
  0 `late` warnings now (`tests/test_fairness22.py`).
* fairness23: a player's mailbox held only the mails whose To reads "Name <address>", so every mail pbem writes to a
  bare address ("You resigned", "Bob resigned", the answer to AWAY, the notices of a move) was never verified here.
  With them (`box`): 2 `rewound` in games 1 and 37 on 90a53973, each an answer to Bob's AWAY written after Alice's
  hidden input and before a moderator event (an outage's) dated hours later, which `arrived.rewound` took as that
  input's event and so dated by it; 0 now.  And 0 `untold` (fairness23's "none of your mails tells you so"): 2 in
  games 2 and 3 before the mailbox held "You resigned".
* fairness24: `word` (a resignation's word no mail of the player's gave) and `press` (a press of theirs no answer of
  pbem's noted): 0 in the 40 games (no game here holds a press: see docs/security.md for the games that do).
"""

from __future__ import annotations

import mailbox
import os
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email import message_from_bytes
from email.utils import getaddresses

import pytest

from pbem.app import control, cron, games
from pbem.app.decision import GameError
from pbem.app.undo import undo
from pbem.cli.demo import LEGAL_HEADER, Bot, text_of
from pbem.home.app import Home
from pbem.mail.transports import maildir as maildir_transport
from pbem.mail.transports.seam import ServerUnreachable, TransportError
from pbem.trust.receipts import lines, verify_mail
from pbem.trust.verify import check
from tests.conftest import CODES, deliver
from tests.test_fairness16 import _export

KINDS = ["habsburg", "italian-wars", "sixteen-thirty", "dynasties"]
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]
NEWCOMER = ("Ann", "ann@players.test")
FULL = os.environ.get("PBEM_FAIRNESS21_FULL") == "1"
#: The warnings of the twentieth round, by the words each prints.
WORDS = {
    "late": "after its Date (",
    "ahead": "before its Date (",
    "rewound": "the record's clock was set back",
    "unasked": "none of your mails before it",
    "untold": "none of your mails tells you so",  # fairness23: a resignation or move no mail of the player's told
    "word": "gives that word",  # fairness24: a resignation's word no mail of the player's gave
    "press": "is a press of yours to",  # fairness24: a press of the player's no answer of pbem's noted
}


def _address(name: str) -> str:
    return f"{name.lower()}@players.test"


@dataclass
class Table:
    """The players' side of one honest game: their bots, their providers' stamps, what each was mailed."""

    rng: random.Random
    bots: dict[str, Bot] = field(default_factory=dict)  # by address
    stamped: dict[str, tuple[datetime, bytes]] = field(default_factory=dict)  # sent key -> (arrival, raw)
    newest: dict[str, tuple[object, str]] = field(default_factory=dict)  # address -> newest report asking it
    resign: dict[str, str] = field(default_factory=dict)  # address -> RESIGN confirmation number

    def arrive(self, home, now: datetime) -> None:
        """Each mail the home sent since the last call reaches its reader's provider seconds to 50 minutes later
        (greylisting: a retry after 15 to 50 minutes), stamped so on top."""
        sent = mailbox.Maildir(str(home.maildir_path / "sent"), factory=None, create=False)
        for key in sorted(sent.iterkeys()):
            if key in self.stamped:
                continue
            raw = sent.get_bytes(key)
            grey = self.rng.random() < 0.15
            delay = timedelta(seconds=self.rng.uniform(900, 3000) if grey else self.rng.uniform(2, 120))
            self.stamped[key] = (now + delay, raw)
            msg, text = text_of(raw)
            to = re.search(r"<([^>]+)>", str(msg["To"]))
            addr = to[1] if to else str(msg["To"])
            if (bot := self.bots.get(addr)) is None:
                continue
            bot.learn(text)
            if LEGAL_HEADER in text:
                self.newest[addr] = (msg, text)
            if m := re.search(r"RESIGN (\d{6})", text):
                self.resign[addr] = m[1]

    def box(self, address: str, shuffled: bool) -> list[bytes]:
        """The mail `address` holds as their provider keeps it (its `Received` field on top), in arrival order or
        (`shuffled`) some neighbours swapped, as a mailbox that got them out of order."""
        out = []
        for when, raw in sorted(self.stamped.values(), key=lambda x: x[0]):
            to = getaddresses([message_from_bytes(raw)["To"] or ""])  # "Alice <a@x>", or a bare a@x ("You resigned")
            if any(addr.lower() == address for _, addr in to):
                stamp = f"Received: from pbem.test by mx.players.test; {when:%a, %d %b %Y %H:%M:%S +0000}\r\n"
                out.append(stamp.encode() + raw)
        if shuffled:
            for i in range(0, len(out) - 1, 3):
                out[i], out[i + 1] = out[i + 1], out[i]
        return out


class Draws:
    """The bots' choices drawn from the game's own `random.Random` (`Bot` asks `below(k)`)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def below(self, k: int) -> int:
        return self.rng.randrange(k)


def _mail(bot: Bot, body: str, game: str) -> bytes:
    return bot.order_mail([body], game, "moderator@pbem.test", None)


def _down(self, raw, sender, recipients):  # the SMTP server unreachable
    raise ServerUnreachable("connection refused")


REAL_SEND = maildir_transport.MaildirSender.send


@dataclass
class Game:
    """One honest game under way: the home, its clock, the players' side and the moderator's plan."""

    home: object
    clock: object
    name: str
    t: Table
    names: list[str]
    mailed: dict[str, str]  # every player's address, a replaced one's too
    at: dict[str, int]  # what the moderator does, at which poll
    shuffled: str
    monkeypatch: object
    done: list[str] = field(default_factory=list)
    outage_until: datetime | None = None

    def act(self, what: str, i: int) -> None:
        """The moderator's command `what` before poll `i` (or a player's RESIGN, AWAY; the SMTP server going down)."""
        home, clock, name, t, rng, mp = self.home, self.clock, self.name, self.t, self.t.rng, self.monkeypatch
        active = [p for p in self.names if self.mailed.get(p) in t.bots]
        if what == "replace" and len(active) > 2 and active[-1] != self.shuffled:
            old = active[-1]
            code = control.replace(Home.of(home), name, old, NEWCOMER, clock.now, code=CODES["Ann"])
            t.bots[NEWCOMER[1]] = Bot("Ann", NEWCOMER[1], t.bots[self.mailed[old]].rng)
            t.bots[NEWCOMER[1]].code = code
            del t.bots[self.mailed[old]]
            self.mailed["Ann"] = NEWCOMER[1]
            self.done.append(f"poll {i}: {old} replaced by Ann")
        elif what == "resign" and len(active) > 2:
            deliver(home, _mail(t.bots[self.mailed[active[0]]], "RESIGN", name))
            self.at["resign-confirm"] = i + 1
            self.done.append(f"poll {i}: {active[0]} resigns")
        elif what == "away":
            who = rng.choice(active)
            deliver(home, _mail(t.bots[self.mailed[who]], "AWAY 2", name))
            self.done.append(f"poll {i}: {who} away 2 days")
        elif what == "pause":
            control.pause(Home.of(home), name, clock.now)
            self.at["resume"] = i + rng.randint(1, 4)
            self.done.append(f"poll {i}: paused")
        elif what == "resume":
            control.resume(Home.of(home), name, clock.now)
            self.done.append(f"poll {i}: resumed")
        elif what == "extend":
            control.extend(Home.of(home), name, timedelta(hours=rng.choice([6, 24, 72])), clock.now)
            self.done.append(f"poll {i}: extended")
        elif what == "undo":
            inputs = [o["seq"] for o in _export(home, name)["orders"]]
            try:
                undo(Home.of(home), name, inputs[-2], "a misread order", False, clock.now)
                self.done.append(f"poll {i}: undone to {inputs[-2]}")
            except (GameError, IndexError):  # (nothing to undo, or a seat given since: refused)
                pass
        elif what == "outage":
            self.outage_until = clock.now + timedelta(hours=rng.uniform(2, 9))
            mp.setattr(maildir_transport.MaildirSender, "send", _down)
            self.done.append(f"poll {i}: SMTP down until {self.outage_until:%H:%M}")
        elif what == "resign-confirm":
            for addr, number in list(t.resign.items()):
                deliver(home, _mail(t.bots[addr], f"RESIGN {number}", name))
                del t.resign[addr]

    def poll(self) -> bool:
        """Cron's run (the SMTP server back up once its outage is over); whether the game is over."""
        if self.outage_until is not None and self.clock.now >= self.outage_until:
            self.monkeypatch.setattr(maildir_transport.MaildirSender, "send", REAL_SEND)
            self.outage_until = None
        try:
            run = cron.run_poll(self.home, clock=self.clock)
        except TransportError:
            run = None
        self.t.arrive(self.home, self.clock.now)
        return run is not None and _export(self.home, self.name)["game"]["over"]


def honest_game(home, clock, n: int, monkeypatch) -> tuple[dict, dict[str, list[bytes]], list[str]]:
    """Game `n`: (its export, each player's mailbox by name, what was done in it)."""
    rng = random.Random(f"fairness21-{n}")
    kind = KINDS[n % len(KINDS)]
    count = 2 if kind == "italian-wars" else rng.randint(3, 6)
    names = NAMES[:count]
    players = [(p, _address(p)) for p in names]
    name = f"g{n}"
    games.create_game(Home.of(home), kind, name, players, seed=f"fairness21-{n}-{rng.random()}", clock=clock,
                      codes=CODES)  # fmt: skip
    t = Table(rng)
    for p, a in players:
        t.bots[a] = Bot(p, a, Draws(rng))  # type: ignore[arg-type]
        t.bots[a].code = CODES[p]
    sleepy = {a for _, a in players if rng.random() < 0.3}  # answer rarely: defaults in later steps
    shuffled = rng.choice(names)
    plan = rng.sample(["replace", "resign", "away", "pause", "extend", "undo", "outage"], k=rng.randint(3, 6))
    at = {what: rng.randint(3, 25) for what in plan}
    g = Game(home, clock, name, t, names, dict(players), at, shuffled, monkeypatch)
    g.done.append(f"{kind} {count} players, {shuffled}'s mailbox out of order")
    clock.advance(minutes=rng.randint(1, 5))  # the first reports, queued by `pbem game new`, sent by cron's next run
    g.poll()
    for i in range(40 if FULL else 6):
        clock.advance(hours=rng.choice([1, 2, 3, 4, 6, 6, 8]), minutes=rng.randint(0, 59))
        for what in [w for w, k in at.items() if k == i]:  # a moderator's command, then cron's next run minutes later
            g.act(what, i)
        for addr, (msg, text) in list(t.newest.items()):
            if addr in t.bots and rng.random() < (0.25 if addr in sleepy else 0.85):
                raw = t.bots[addr].answer(msg, text, name, "moderator@pbem.test")  # type: ignore[arg-type]
                if raw:
                    deliver(home, raw)
                del t.newest[addr]
        clock.advance(minutes=rng.randint(1, 5))
        if g.poll():
            break
    monkeypatch.setattr(maildir_transport.MaildirSender, "send", REAL_SEND)
    clock.advance(hours=1)
    g.poll()
    doc = _export(home, name)
    if not doc["game"]["over"]:
        control.abandon(Home.of(home), name, clock.now)
        doc = _export(home, name)
    v = check(doc)
    assert v.ok, v.problem
    return doc, {p: t.box(a, p == shuffled) for p, a in g.mailed.items()}, g.done


def alarms(doc: dict, boxes: dict[str, list[bytes]]) -> Counter[str]:
    """Each kind of warning (and mismatch) verify --mail gives over the players' mailboxes."""
    found: Counter[str] = Counter()
    for player, box in boxes.items():
        if not box:
            continue
        c = verify_mail(doc, box, player)
        if not c.ok:
            found["mismatch"] += 1
            if FULL:
                print(player, [p for p in lines(c) if not p.startswith(("ok", "note", "WARNING"))][:3])
        for note in c.notes:
            for what, words in WORDS.items():
                if note.startswith("WARNING") and words in note:
                    found[what] += 1
    return found


SAMPLE = [25]


@pytest.mark.parametrize(
    "n", [int(k) for k in os.environ.get("PBEM_FAIRNESS21_GAMES", "").split()] or (range(40) if FULL else SAMPLE)
)
def test_an_honest_game_gives_no_false_alarm(home, clock, monkeypatch, n: int) -> None:
    """No mismatch, no `rewound`, `ahead` or `unasked`, and `late` only for mail sent after an SMTP outage (true:
    the player got it hours after it was written, and the wording names the outbox; the export holds no trace of
    the outage, so pbem cannot say more).  Counts in the module's docstring."""
    doc, boxes, done = honest_game(home, clock, n, monkeypatch)
    found = alarms(doc, boxes)
    if FULL:
        print(n, dict(found), done)
    outage = any("SMTP down" in what for what in done)
    said = {
        p: [x[:600] for x in verify_mail(doc, b, p).notes if x.startswith("WARNING")] for p, b in boxes.items() if b
    }
    assert not (found - Counter(late=found["late"] if outage else 0)), (found, done, said)
