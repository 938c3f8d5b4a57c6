"""PROCESS (`pbem game process`, `PROCESS` by mail): a step that asks only seats that resigned is applied now.

The Judge's PROCESS, bounded (`pbem.app.processing`): Bob resigned in a game of turns, so each of his turns waited
out its whole deadline for orders nobody would send.  The moderator moves it to now; the next poll applies Bob's
defaults as at any deadline.  Refused while a player who did not resign is asked (their deadline was published to
them), in a paused game and past the deadline.  `pbem verify` checks the event (`_processed`).  Played on the
embedded defaults (real SQLite, real Maildirs, the real poll), on the game `tests.test_resigned._resign_bob` makes.
"""

from __future__ import annotations

import copy
import json
import mailbox
import re
from collections.abc import Callable

import pytest

from pbem.app import control, games, moderating, processing, waiting
from pbem.app.decision import GameError
from pbem.history.export import build
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from pbem.trust.receipts import lines, verify_mail
from pbem.trust.verify import check
from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail, signed
from tests.test_export_verify import _rechain
from tests.test_moderator import PLAYERS, run_poll
from tests.test_resigned import BOB, _resign_bob, _to

ALICE = "Alice <alice@players.test>"
MOD = "Test Moderator <moderator@pbem.test>"


def _asked(cfg, name: str) -> list[str]:
    with session(cfg.database_url) as s:
        return processing.asked(store.load(s, store.game_by_name(s, name)))


def resigned_turn(cfg, name: str, poll: Callable[[], object], seen: set[str] | None = None, clock=None) -> None:
    """Game `name` (Habsburg: Alice, Bob, Carol at players.test) where Bob resigned by mail (RESIGN, then its word)
    and the others passed until the game asks Bob alone; `poll` runs one poll (on `clock`, or the real time).  The
    mails are read (into `seen`)."""
    seen = set() if seen is None else seen
    games.create_game(Home.of(cfg), "habsburg", name, PLAYERS, seed="moderator-test", codes=CODES, clock=clock)
    poll()
    sent_mail(cfg, seen)
    deliver(cfg, order_mail(BOB, name, signed("Bob", "RESIGN")))
    poll()
    (ask,) = sent_mail(cfg, seen)
    word = re.search(r"RESIGN (\d{6})", body_of(ask)).group(1)
    deliver(cfg, order_mail(BOB, name, f"RESIGN {word}", In_Reply_To=ask["Message-ID"]))
    poll()
    while (asked := _asked(cfg, name)) != ["Bob"]:
        (who,) = asked
        deliver(cfg, order_mail(f"{who} <{dict(PLAYERS)[who]}>", name, signed(who, "PASS")))
        poll()
    sent_mail(cfg, seen)


def test_a_step_that_asks_only_a_resigned_seat_is_applied_at_the_next_poll(home, clock) -> None:
    name, seen = _resign_bob(home, clock)
    with pytest.raises(GameError, match="waits for Alice, who did not resign"):  # Alice's turn: her deadline
        processing.process(Home.of(home), name, clock.now)
    deliver(home, order_mail(ALICE, name, signed("Alice", "PASS")))
    run_poll(home, clock)
    sent_mail(home, seen)
    control.pause(Home.of(home), name, clock.now)
    with pytest.raises(GameError, match="is paused"):
        processing.process(Home.of(home), name, clock.now)
    control.resume(Home.of(home), name, clock.now)
    run_poll(home, clock)
    sent_mail(home, seen)

    assert (
        f"pbem game process {name} applies it now"
        in waiting.listed(waiting.waiting(Home.of(home), clock.now), clock.now)[0]
    )
    assert processing.process(Home.of(home), name, clock.now) == ["Bob"]
    with pytest.raises(GameError, match="the next pbem poll applies it"):  # once: its deadline is now
        processing.process(Home.of(home), name, clock.now)
    run_poll(home, clock)  # the notice goes, and the deadline (now) is applied
    mails = sent_mail(home, seen)
    told = [m for m in mails if "The deadline is now: Bob resigned" in str(m["Subject"])]
    assert sorted(m["To"].addresses[0].addr_spec for m in told) == ["alice@players.test", "carol@players.test"]
    assert not _to(mails, "bob@players.test"), [str(m["Subject"]) for m in _to(mails, "bob@players.test")]
    assert any(
        "Bob sent no orders for this step by the deadline" in body_of(m) for m in _to(mails, "carol@players.test")
    )
    assert _asked(home, name) == ["Carol"], "the game moved on to the next player"
    with pytest.raises(GameError, match="waits for Carol, who did not resign"):
        processing.process(Home.of(home), name, clock.now)
    control.abandon(Home.of(home), name, clock.now)
    with session(home.database_url) as s:  # every player's mail verifies: the report that stated Bob's deadline
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, name))))  # is followed by the event moving it
    sent = mailbox.Maildir(str(home.maildir_path / "sent"), factory=None, create=False)
    raws = [sent.get_bytes(key) for key in sent.iterkeys()]
    for player, address in PLAYERS:
        mine = [raw for raw in raws if re.search(rb"^To: .*" + re.escape(address.encode()), raw, re.M)]
        c = verify_mail(doc, mine, player)
        assert c.ok, (player, lines(c))


def test_process_by_mail_and_verify_checks_its_event(home, clock) -> None:
    """PROCESS from the moderator's address (with the moderator code) as the command does it; the export verifies,
    counts it with the moderator's actions, and names each forgery of its event, re-chained as a forger would."""
    name, seen = "hh1", set()
    resigned_turn(home, name, lambda: run_poll(home, clock), seen, clock)
    code = moderating.make_code(Home.of(home), clock.now)
    deliver(home, order_mail(MOD, name, f"CODE {code}\nPROCESS", subject=f"[pbem {name}] commands"))
    run_poll(home, clock)
    run_poll(home, clock)  # the deadline of now, applied by the next run
    mails = sent_mail(home, seen)
    ack = next(m for m in _to(mails, "moderator@pbem.test") if "defaults of Bob" in body_of(m))
    assert "the deadline is now" in body_of(ack), body_of(ack)
    assert _asked(home, name) == ["Carol"]
    control.abandon(Home.of(home), name, clock.now)
    with session(home.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, name))))
    (at,) = [n for n, e in enumerate(doc["events"]) if (e.get("data") or {}).get("action") == "process"]
    honest = check(_rechain(copy.deepcopy(doc)))
    assert honest.ok and any("process 1" in line for line in honest.checked), honest.problem or honest.checked
    forged = {  # what a forger changes in the event -> what verify says
        "another player": ({"players": ["Carol"]}, "it waited only for Carol"),
        "no seat": ({"players": ["Mallory"]}, "who held no seat then"),
        "twice": ({"players": ["Bob", "Bob"]}, "each once"),
        "none": ({"players": []}, "each once"),
        "more data": ({"why": "Bob is slow"}, "its action, deadline, players and step only"),
        "text": ({"text": "The moderator applied the deadline now."}, "where its text is"),
        "visibility": ({"visibility": ["Alice"]}, "is not public"),
    }
    for what, (change, said) in forged.items():
        bad = copy.deepcopy(doc)
        event = bad["events"][at]
        for key, value in change.items():
            (event if key in ("text", "visibility") else event["data"])[key] = value
        v = check(_rechain(bad))
        assert not v.ok and "deadline applied now" in v.problem and said in v.problem, (what, v.problem)


def _chain(*extra: dict, process: list[str] | None = None) -> list[dict]:
    """A chain as `pbem verify --mail` reads it: an input, a process event naming `process` (None: none), the
    deadline's input a day before the deadline a report stated, and Bob's default, then `extra` events."""
    rows: list[dict] = [{"kind": "orders", "seq": 1, "lines": ["PASS"], "at": "2026-01-05T12:00:00+00:00"}]
    if process is not None:
        data = {"action": "process", "step": "t2", "deadline": "2026-01-06T12:00:00+00:00", "players": process}
        rows.append({"kind": "moderator", "visibility": "public", "data": data, "text": ""})
    rows.append({"kind": "deadline", "seq": 2, "lines": [], "at": "2026-01-06T12:00:00+00:00"})
    for player in ("Bob", *(e["player"] for e in extra)):
        rows.append({"kind": "default-orders", "visibility": [player], "data": {"player": player, "lines": []}})
    return rows


#: (the chain, what `due.early` says of it: "" nothing): the honest PROCESS, and what a forger could make of it.
DUE = {
    "process names the player defaulted": (_chain(process=["Bob"]), ""),
    "no process: defaults a day early": (_chain(), "before the deadline"),
    "process names Bob, Carol defaulted too": (_chain({"player": "Carol"}, process=["Bob"]), "applied for Carol,"),
    "process names nobody": (_chain(process=[]), "applied for Bob,"),
}


@pytest.mark.parametrize("what", sorted(DUE))
def test_verify_mail_takes_a_deadline_moved_by_process_only_for_the_players_it_names(what: str) -> None:
    from datetime import UTC, datetime

    from pbem.trust.due import early

    rows, said = DUE[what]
    stated = [(1, "the report of Turn 2", datetime(2026, 1, 7, 12, 0, tzinfo=UTC))]
    problems = [how for _, how in early(rows, stated)]
    assert (problems == []) if not said else (len(problems) == 1 and said in problems[0]), problems
