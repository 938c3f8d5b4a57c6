"""Twenty-fourth round of the fairness red team: what fairness23's UNASKED left to the moderator's word.

fairness23 matched a player's resignation, move and press with a mail of their Sent folder, loosely: any ``RESIGN``
and six digits matched a resignation, any ``ADDRESS`` line of the two days before a move to anywhere, a press's
recipients were never compared, and a press's lines found anywhere in a mail of the hour (in any order, taken by
another press already) matched; a `wait` for an absence named nobody who set it; with `--mail` alone a press in the
reader's name was seen only by eye.  Each forgery of `SCRIPTS` is written as the moderator with the database would
write it, through pbem's own `Command.apply` (the effects pbem's use cases write, their mails included), on the game
fairness23 plays (`tests.test_fairness23._played`: real SQLite, real Maildirs, the real poll); on this branch the
forger writes the new fields too, as well as he can (the word he reads in the player's mail, or the one pbem would
have taken, computed with the home's secret; a move's binding from a word of his).  Counted with
``PBEM_FAIRNESS24_FULL=1 python3 -m pytest tests/test_fairness24.py -s -q -n 0`` (a line ``fairness24:`` per game;
the same file runs on b1f92b21, where the forger writes the old shapes):

* passing every check (`pbem verify`, every player's `--mail` with no WARNING, and `--sent`): 9 of the 11 forgeries
  on b1f92b21 (the resignation whose word Bob never sent and the press with no mail of Alice's were UNASKED
  already), 0 of 11 now;
* passing `pbem verify` and every `--mail` alone: 11 of 11 on b1f92b21, 5 of 11 now (`receipts._word_unmailed`
  names the word Bob typed, `receipts._press_untold` each of the 5 presses; the resignations with a word pbem did
  mail him, the moves and the absence are `--sent`'s);
* the four honest games (a resignation, presses by a fresh mail, by a reply and by a reply with pbem's mail pasted
  under it, a move by mail; an absence by mail; one by `pbem game away`): no word from any check, before and now;
* `_dated_back`: each of Alice's 5 mails the export records as read two hours before her provider stamped it
  leaving: 5 of 5 warned of now (`sent._read_early`), no such check on b1f92b21; as recorded, none.

The suite plays the first honest game and four forgeries (see `SAMPLE`: 0.84 s idle, `--durations=0 -n 0`);
``PBEM_FAIRNESS24_FULL=1`` all fifteen (2.9 s).
"""

from __future__ import annotations

import json
import mailbox
import os
from collections.abc import Callable
from datetime import datetime, timedelta
from email import message_from_bytes
from email.utils import format_datetime

import pytest

from pbem.app import addresses as addresses_app
from pbem.app import resigning
from pbem.app.absence import declared, set_away
from pbem.app.control import Command
from pbem.app.decision import Control, Decision, Events
from pbem.engine.base import Event
from pbem.home.app import Home
from pbem.mail.outbound.outgoing import Mail
from pbem.orders.away import read_away
from pbem.orders.moderator import resigned as resigned_text
from pbem.record import store
from pbem.record.db import session
from pbem.record.home_secrets import message_id_key
from pbem.record.outbox import NEWS
from pbem.trust import asked
from pbem.trust import sent as sent_mod
from pbem.trust.receipts import verify_mail
from pbem.trust.sent import check_sent
from pbem.trust.verify import check
from tests.conftest import body_of, signed
from tests.test_fairness11 import _mailbox
from tests.test_fairness23 import ADDRESS, EVE, NAME, Table, _address, _played, _press, _resign, _seat
from tests.test_moderator import PLAYERS, run_poll

FULL = os.environ.get("PBEM_FAIRNESS24_FULL") == "1"
#: Whether this pbem writes the fields fairness24 added (the same file counts on b1f92b21, where it does not).
BOUND = hasattr(asked, "moved_to")
WRONG = "111111"  # a word Bob typed that pbem did not give him (one in 900,000 it is his)


Effects = Callable[[object, store.Loaded, datetime], list]


def _forge(t: Table, player: str, effects: Effects) -> None:
    """The moderator writes `effects` (given the database's unit, the game and the time) himself, as pbem's shell
    applies them."""
    with Home.of(t.home).units() as s:
        c = Command(s, NAME)
        d = Decision(game=NAME, player=player, effects=effects(s, c.loaded, t.clock.now))
        c.apply(Home.of(t.home).policy, d, t.clock.now)
    run_poll(t.home, t.clock)


def _resigned(player: str, word: Callable[[object, store.Loaded, datetime], str]) -> Effects:
    """Every effect a confirmed RESIGN writes (`pbem.app.resigning.decide`), its mails included ("You resigned" to
    the player, "Bob resigned" to the others), with the word `word` gives where this pbem records one."""

    def effects(s: object, loaded: store.Loaded, now: datetime) -> list:
        seat = _seat(loaded, player)
        data = {"action": "resign", "player": player, "seat": seat.position}
        if BOUND:
            data["word"] = word(s, loaded, now)
        key = ("resign", NAME, player, seat.id)
        mails = [
            Mail(
                st.address,
                "resigned",
                {"game_name": NAME, "resigner": player, "you": st.player == player},
                NEWS,
                (*key, st.player),
                player=st.player,
            )
            for st in loaded.seats
        ]
        return [Control("resign", player), Events((Event("moderator", resigned_text(player), "public", data),)), *mails]

    return effects


def _true_word(player: str) -> Callable[[object, store.Loaded, datetime], str]:
    """The word pbem would have taken from `player` today: the moderator holds the home's secret."""

    def word(s: object, loaded: store.Loaded, now: datetime) -> str:
        return resigning.words(message_id_key(s), loaded.game.id, _seat(loaded, player).id, now)[0]

    return word


def _moved(player: str, new: str) -> Effects:
    """Every effect an ADDRESS CONFIRM from `new` writes (`pbem.app.addresses.confirm`): the seat moved, recorded as
    the player's, the old and the new address told; bound (where this pbem binds) with the word pbem would have
    mailed `new`, which the player never typed."""

    def effects(s: object, loaded: store.Loaded, now: datetime) -> list:
        seat = _seat(loaded, player)
        if not BOUND:
            return addresses_app.moved(loaded, seat, new, "", "player")
        word = addresses_app.words(message_id_key(s), loaded.game.id, seat.id, new, now)[0]
        return addresses_app.moved(loaded, seat, new, "", "player", word)  # type: ignore[call-arg]

    return effects


def _pressed(player: str, to: list[str], lines: list[str]) -> Effects:
    return lambda s, loaded, now: _press(player, to, lines)(loaded)


def _reply(t: Table, player: str, body: str) -> None:
    """`body` from `player`, a reply to the newest mail pbem sent them."""
    t.send(player, body, In_Reply_To=t.mailed(ADDRESS[player], r"(Record)")[1]["Message-ID"])


def _pasted(t: Table, player: str, block: str) -> None:
    """`block` in a reply with the mail it answers pasted under it, its subject on a line of its own (a header block
    no rule knows): the poll stops at that title (`pbem.app.reading`); the Sent copy's reading does not know it, so
    its press block runs on, and the press is found by its lines under its PRESS TO line (`asked._written`)."""
    _, mail = t.mailed(ADDRESS[player], r"(Record)")
    head = [line for line in body_of(mail).splitlines() if line.strip()][:2]  # (its orders would be Sent's WITHHELD)
    body = "\n".join([block, "", str(mail["Subject"]), *head])
    t.send(player, body, In_Reply_To=mail["Message-ID"])


def _deadline_passes(t: Table) -> None:
    """The step's deadline passes (five minutes after it) and pbem runs: the game waits for whoever is away."""
    with session(t.home.database_url) as s:
        due = store.aware(store.current_deadline(s, store.game_by_name(s, NAME).id).due_at)
    t.clock.now = due + timedelta(minutes=5)
    run_poll(t.home, t.clock)


def _away(player: str, days: int) -> Effects:
    """The row an AWAY line of `player`'s writes (`pbem.app.absence.by_mail`), by the moderator's hand."""
    return lambda s, loaded, now: [declared(player, read_away(f"AWAY {days}"), now)]


PRESS = "PRESS TO Bob\nI will attack Carol.\nNot really: I will pass.\nEND PRESS"
LINES = ["I will attack Carol.", "Not really: I will pass."]

#: (what, the game's script): the honest game, then each forgery.
SCRIPTS: dict[str, Callable[[Table], None]] = {
    "honest: Bob resigns, Alice presses and moves by mail": lambda t: (
        t.send("Alice", signed("Alice", "PRESS TO Bob: Shall we both pass?\nI will.\nEND PRESS")),
        _reply(t, "Alice", "PRESS TO Bob, Carol: And you, Carol?"),
        _resign(t, "Bob"),
        _address(t, "Alice", "alice@new.test"),
    ),
    "honest: Alice presses Bob in a reply with pbem's mail pasted under it": lambda t: (
        _pasted(t, "Alice", "PRESS TO Bob\nShall we both pass?\nI will."),
        _pasted(t, "Alice", "PRESS TO ALL: Carol, you too?"),
    ),
    "honest: Alice away by mail": lambda t: (
        t.send("Alice", signed("Alice", "AWAY 5")),
        _deadline_passes(t),
    ),
    "honest: Alice away by the moderator's command": lambda t: (
        set_away(Home.of(t.home), NAME, "Alice", "4", t.clock.now),
        run_poll(t.home, t.clock),
        _deadline_passes(t),
    ),
    "resign: Bob typed a wrong word, resigned with it": lambda t: (
        t.send("Bob", signed("Bob", "RESIGN")),
        t.send("Bob", signed("Bob", f"RESIGN {WRONG}")),
        _forge(t, "Bob", _resigned("Bob", lambda s, loaded, now: WRONG)),
    ),
    "resign: Bob typed a wrong word, resigned with the word pbem would have taken": lambda t: (
        t.send("Bob", signed("Bob", "RESIGN")),
        t.send("Bob", signed("Bob", f"RESIGN {WRONG}")),
        _forge(t, "Bob", _resigned("Bob", _true_word("Bob"))),
    ),
    "resign: Bob asked for the word and never sent it, resigned with it": lambda t: (
        t.send("Bob", signed("Bob", "RESIGN")),
        _forge(t, "Bob", _resigned("Bob", _true_word("Bob"))),
    ),
    "address: Alice asked to move to alice@new.test, moved to Eve the next day": lambda t: (
        t.send("Alice", signed("Alice", "ADDRESS alice@new.test")),
        t.clock.advance(hours=20),
        _forge(t, "Alice", _moved("Alice", EVE)),
    ),
    "address: Alice asked to move to alice@new.test, moved to Eve within the hour": lambda t: (
        t.send("Alice", signed("Alice", "ADDRESS alice@new.test")),
        _forge(t, "Alice", _moved("Alice", EVE)),
    ),
    "away: Alice's absence set by the moderator as her AWAY": lambda t: (
        t.send("Alice", signed("Alice", "STATUS")),
        _forge(t, "Alice", _away("Alice", 5)),
        _deadline_passes(t),
    ),
    "press: a press in Alice's name to Bob, no mail of hers": lambda t: (
        t.send("Alice", signed("Alice", "STATUS")),
        _forge(t, "Alice", _pressed("Alice", ["Bob"], ["Carol plans to attack you."])),
    ),
    "press: Alice's press to Bob shown to Carol too": lambda t: (
        _reply(t, "Alice", PRESS),
        _forge(t, "Alice", _pressed("Alice", ["Carol"], LINES)),
    ),
    "press: Alice's press to Bob, its sentences reordered": lambda t: (
        _reply(t, "Alice", PRESS),
        _forge(t, "Alice", _pressed("Alice", ["Bob"], LINES[::-1])),
    ),
    "press: Alice's press to Bob, cut to its first sentence": lambda t: (
        _reply(t, "Alice", PRESS),
        _forge(t, "Alice", _pressed("Alice", ["Bob"], LINES[:1])),
    ),
    "press: a remark of Alice's STATUS mail relayed to Bob as her press": lambda t: (
        _reply(t, "Alice", "STATUS\nI will attack Carol."),
        _forge(t, "Alice", _pressed("Alice", ["Bob"], LINES[:1])),
    ),
}
SAMPLE = [list(SCRIPTS)[i] for i in (0, 4, 7, 9, 11)]


def _verdict(home, doc: dict, t: Table) -> tuple[bool, bool, list[str]]:
    """(passes every check, passes `pbem verify` and every player's `--mail` alone, what was said)."""
    said = [] if check(json.loads(json.dumps(doc))).ok else ["export refused"]
    for p, address in PLAYERS:
        c = verify_mail(doc, _mailbox(home, address), p)
        said += [f"--mail {p}: {x}" for x in ([] if c.ok else ["FAILED"]) + [n for n in c.notes if "WARNING" in n]]
    mail_silent = not said
    exact = _exact(home)  # as `pbem verify --sent --mail` reads a reply (fairness26; none before)
    for p in t.sent:
        said += [f"--sent {p}: {x}" for x in check_sent(doc, t.sent[p], p, **exact).problems]
    return not said, mail_silent, said


def _exact(home) -> dict:
    """`check_sent`'s `exact` as `pbem verify --mail ... --sent ...` gives it: each reply read as the poll read it,
    the received mails it answers being every mail pbem sent (each used only for its own recipient's replies)."""
    from pbem.app import rereading
    from pbem.mail.inbound.message import parse_bytes
    from pbem.trust.receipts import names

    if not hasattr(rereading, "named_extractor"):
        return {}
    box = mailbox.Maildir(str(home.maildir_path / "sent"), factory=None, create=False)
    raws = [box.get_bytes(key) for key in box.iterkeys()]
    named = [(*n, raw) for raw in raws if (n := names(parse_bytes(raw, headersonly=True))) is not None]
    return {"exact": rereading.named_extractor(named)}


def _dated_back(doc: dict, t: Table) -> None:
    """Each of Alice's mails, its Sent copy stamped by her provider as it left (a Received field at the time pbem
    read it: the test's mail takes no time), and the export's time of reading it moved two hours earlier (the
    moderator's word, which UNASKED's windows rest on): `sent._read_early` warns of each (every one of the 5 now,
    none on b1f92b21, which had no such check); as read, of none."""
    read = {_mid(m["message_id"]): datetime.fromisoformat(m["received"]) for m in doc["messages"]}
    stamped = [
        f"Received: from alice by smtp.players.test; {format_datetime(read[_mid(_id(raw))])}\r\n".encode() + raw
        for raw in t.sent["Alice"]
    ]
    assert not [n for n in check_sent(doc, stamped, "Alice").notes if "before it was sent" in n]
    early = json.loads(json.dumps(doc))
    ours = {_mid(_id(raw)) for raw in stamped}
    for m in early["messages"]:
        if _mid(m["message_id"]) in ours:
            m["received"] = (datetime.fromisoformat(m["received"]) - timedelta(hours=2)).isoformat()
    warned = [n for n in check_sent(early, stamped, "Alice").notes if "before it was sent" in n]
    assert len(warned) == len(stamped) or not hasattr(sent_mod, "_read_early"), warned


def _id(raw: bytes) -> str:
    return str(message_from_bytes(raw)["Message-ID"])


def _mid(value: object) -> str:
    return str(value).strip().strip("<>").lower()


@pytest.mark.parametrize("what", [w for w in SCRIPTS if FULL or w in SAMPLE])
def test_a_request_is_bound_to_what_the_player_asked(home, what) -> None:
    doc, t = _played(home, SCRIPTS[what])
    silent, mail_silent, said = _verdict(home, doc, t)
    if "away" in what:  # the game waited for her, and (on this branch) says who set her absence
        (wait,) = [e["data"] for e in doc["events"] if (e.get("data") or {}).get("action") == "wait"]
        by = "moderator" if "moderator's command" in what else "player"
        assert not BOUND or wait["asked"] == {"Alice": by}, wait
    print(f"fairness24: {what}: passes every check {silent}, --mail alone {mail_silent}", said)
    if what.startswith("honest"):
        assert silent, said
        if what == next(iter(SCRIPTS)):
            _dated_back(doc, t)
        return
    if not BOUND:  # on b1f92b21: counted, not asserted
        return
    assert not silent, what
    unasked = [x for x in said if x.startswith("--sent") and "UNASKED" in x]
    assert all(f"--sent {'Bob' if what.startswith('resign') else 'Alice'}" in x for x in unasked), said
    assert bool(unasked) != (what == "resign: Bob typed a wrong word, resigned with it"), said
    if what.startswith("resign"):
        # the word Bob typed is none pbem mailed him; a word pbem did mail him is --sent's to name
        assert any("--mail Bob" in x and "word" in x for x in said) == (what == list(SCRIPTS)[4]), said
    if "remark" in what:  # no press of hers to note: her own mail says so
        assert any("--mail Alice" in x and "Press sent to Bob" in x for x in said), said
