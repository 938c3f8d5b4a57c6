"""When a player last wrote or was last sent a report is read without reading the mails themselves (costs15).

`inbound_messages.received_at` and `outbox.created_at` are stored after each mail's `raw` bytes, and SQLite follows
a row's overflow pages to reach a column stored after them: a statement that reads those times for many rows reads
every one of those mails.  On f76a375:

* `listing.last_heard` (`pbem game waiting`, WAITING by mail: each game's players' last mail) read every mail the
  game ever received;
* `modes.last_reports` (every mail of a game with a DIGEST player, and each digest) read every report the game sent
  those players: 95.8 MB in 23,389 reads for the reports of a 951-input Sixteen Thirty of 6 players; now 82 KB in 22;
* `chatter.recent_count` (each mail of chatter only, `pbem.app.loops`) read the newest 500 mails of anyone.

Migration 0019 adds the indexes that hold the times (the statements of the first two are unchanged: their answers
too); the third reads the newest rows' sender and reason, and the time only of the sender's own.  The generator:
the same rows with mails of `SMALL` and 4 `SMALL` bytes; counted, not timed: the read calls the process makes
(`/proc/self/io`'s syscr, a fresh connection each: SQLite reads a page a call), which grew 4x on f76a375 (each
case failed) and now stay.
"""

from __future__ import annotations

import random
import sqlite3
import threading
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.pool import NullPool
from sqlmodel import Session

from pbem.record import chatter, listing, modes
from pbem.record.models import InboundMessage
from tests.growth import Window

IO = Path("/proc/self/io")
pytestmark = pytest.mark.skipif(not IO.exists(), reason="counts the read calls of /proc/self/io (Linux)")

PLAYERS = ["Alice", "Bob", "Carol"]
MAILS = 20  # a player's mails in, and reports out
OTHERS = 40  # the newest mails, of other senders, chatter's look-back reads
SMALL = 16 * 1024  # a mail's bytes at n
T0 = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
SENDER = "robot@away.test"


def _at(minutes: int) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%d %H:%M:%S.%f")


def _write(path: str, size: int) -> None:
    """Game 1: each player's `MAILS` mails in and reports out, then three of `SENDER`'s chatter and `OTHERS` mails
    of others, each of `size` bytes."""
    with closing(sqlite3.connect(path)) as con, con:
        con.execute(
            "INSERT INTO games (id, name, kind, seed, seed_commitment, players_json, options_json, deadline_seconds, "
            "resolve, created_at, insecure_seed, legacy_events) "
            "VALUES (1, 'g1', 'habsburg', 's', 'c', '[]', '{}', 3600, 'asap', ?, 0, 0)",
            (_at(0),),
        )
        inbound = "INSERT INTO inbound_messages (message_id, body_hash, sender, subject, game_id, player, outcome, "
        inbound += "reason, raw, received_at) VALUES (?, 'h', ?, 's', ?, ?, ?, ?, zeroblob(?), ?)"
        rows: list[tuple[Any, ...]] = []
        for i in range(MAILS):
            for p in PLAYERS:
                rows.append((f"<{p}{i}@t>", f"{p}@t", 1, p, "accepted", "", size, _at(len(rows))))
        rows += [(f"<r{i}@t>", SENDER, None, "", "ignored", chatter_reason(), 100, _at(len(rows))) for i in range(3)]
        rows += [(f"<o{i}@t>", f"o{i}@t", None, "", "ignored", "", size, _at(len(rows))) for i in range(OTHERS)]
        con.executemany(inbound, rows)
        con.executemany(
            "INSERT INTO outbox (message_id, game_id, player, purpose, upto_seq, to_addr, status, attempts, "
            "last_error, next_attempt_at, created_at) VALUES (?, 1, ?, 'report', ?, ?, 'sent', 1, '', ?, ?)",
            [(f"<out{p}{i}@t>", p, i, f"{p}@t", _at(i), _at(i)) for i in range(MAILS) for p in PLAYERS],
        )
        con.execute(  # each mail's bytes (migration 0022)
            "INSERT INTO outbox_mail (id, raw) SELECT id, zeroblob(?) FROM outbox WHERE id NOT IN "
            "(SELECT id FROM outbox_mail)",
            (size,),
        )


def chatter_reason() -> str:
    from pbem.app.loops import NO_ORDERS

    return NO_ORDERS


def _reads(url: str, answer: Callable[[Session], object]) -> tuple[int, object]:
    """The read calls `answer` makes on a fresh connection (nothing cached), and its answer."""
    engine = create_engine(url, poolclass=NullPool)
    with Session(engine) as s:
        s.connection().execute(text("SELECT count(*) FROM games")).all()  # the schema read
        before = _syscr()
        try:
            got = answer(s)
        finally:
            calls = _since(before)  # (the collector on again, whatever `answer` did)
        return calls, got


def _syscr() -> Window:
    """A window on the read calls of this thread and of the threads it starts (`tests.growth.Window`): counting
    `/proc/self/io` less the other threads' own counts was not enough: a thread alive at the first reading that ended
    inside the window (a server or pool thread of an earlier test on the same worker) left its calls in the
    process's count and out of the threads' (a CI run read 84 then 2,151 calls for the same export).  Nor was that:
    a collection inside the window closed the SQLite connections of engines `db.engine_for` had dropped, in this
    thread, and each last one copied its home's write-ahead log (suite7: 693 read calls in one collection during
    this file's moderator's day in a whole run of the suite at 90a53973).  No garbage is collected inside the
    window (`quiet_gc`), and `engine_for` now closes what it drops."""
    return Window(quiet_gc=True)


def _since(before: Window) -> int:
    return before.close().reads


ANSWERS: dict[str, Callable[[Session], object]] = {
    "last heard": lambda s: listing.last_heard(s, 1),
    "last reports": lambda s: modes.last_reports(s, 1, PLAYERS),
    "chatter": lambda s: chatter.recent_count(s, SENDER, chatter_reason(), T0, OTHERS + 10),
    "export's messages": lambda s: listing.received(s, 1),
}


@pytest.fixture(scope="module")
def reads(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[int, object]]]:
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    out: dict[str, list[tuple[int, object]]] = {}
    for size in (SMALL, 4 * SMALL):
        home = init_home(tmp_path_factory.mktemp(f"bytes{size}") / "home", address="m@pbem.test", name="M")
        url = config_mod.load(home).database_url
        _write(url.removeprefix("sqlite:///"), size)
        for name, answer in ANSWERS.items():
            out.setdefault(name, []).append(_reads(url, answer))
    return out


@pytest.mark.parametrize("name", list(ANSWERS))
def test_the_times_are_read_without_the_mails_bytes(reads: dict[str, list[tuple[int, object]]], name: str) -> None:
    (n, at_n), (four, at_four) = reads[name]
    assert at_n == at_four, f"{name}: the answer depends on the mails' size"
    assert four <= n * 1.25 + 4, f"{name}: {n} and {four} read calls for mails of {SMALL} and 4x bytes"


def test_the_answers_are_those_the_mails_give(reads: dict[str, list[tuple[int, object]]]) -> None:
    (_, heard), _ = reads["last heard"]
    assert heard == {p: T0 + timedelta(minutes=3 * (MAILS - 1) + i) for i, p in enumerate(PLAYERS)}
    (_, last), _ = reads["last reports"]
    assert {p: at.replace(tzinfo=UTC) for p, at in last.items()} == dict.fromkeys(
        PLAYERS, T0 + timedelta(minutes=MAILS - 1)
    )  # type: ignore[attr-defined]
    (_, count), _ = reads["chatter"]
    assert count == 3
    (_, listed), _ = reads["export's messages"]
    assert [(m.message_id, m.player, m.received_at) for m in listed] == [  # type: ignore[attr-defined]
        (f"<{p}{i}@t>", p, T0 + timedelta(minutes=3 * i + k)) for i in range(MAILS) for k, p in enumerate(PLAYERS)
    ]


def test_the_export_lists_the_messages_as_the_whole_rows_gave_them(tmp_path: Path) -> None:
    """The seeded game's export lists the same messages as f76a375's reading of the whole rows gives."""
    from pbem.history.export import build
    from pbem.record import store
    from pbem.record.db import session
    from pbem.trust import chain
    from tests.test_history_golden import seeded_home

    home = seeded_home("italian-wars")  # its key file registered (`seeded_home` says why)
    url = f"sqlite:///{home / 'pbem.db'}"
    with session(url) as s:
        game = store.game_by_name(s, "italian-wars-demo")
        assert game is not None and game.id is not None
        whole = select(InboundMessage).where(InboundMessage.game_id == game.id).order_by(InboundMessage.id)  # type: ignore[arg-type]
        rows = [row[0] for row in s.execute(whole)]
        listed = build(s, game)["messages"]
    want = [(m.message_id, m.player, chain.iso(m.received_at), m.outcome, m.reason) for m in rows]
    assert [(m["message_id"], m["player"], m["received"], m["outcome"], m["reason"]) for m in listed] == want


def _f76a375_count(s: Session, sender: str, reason: str, since: datetime, look_back: int) -> int:
    """`chatter.recent_count` as f76a375 made it: the reference for its answers."""
    c = InboundMessage.__table__.c  # type: ignore[attr-defined]
    recent = select(c.sender, c.reason, c.received_at).order_by(c.id.desc()).limit(look_back).subquery()
    q = select(func.count()).where(
        func.lower(recent.c.sender) == sender.lower(), recent.c.reason == reason, recent.c.received_at > since
    )
    return int(s.connection().execute(q).scalar() or 0)


def test_the_chatter_count_is_f76a375s_on_random_mail(tmp_path: Path) -> None:
    rng = random.Random(15)
    path = tmp_path / "chatter.db"
    with closing(sqlite3.connect(path)) as con, con:
        con.execute(
            "CREATE TABLE inbound_messages (id INTEGER PRIMARY KEY, sender TEXT, reason TEXT, raw BLOB, received_at TEXT)"
        )
        con.executemany(
            "INSERT INTO inbound_messages (sender, reason, raw, received_at) VALUES (?, ?, x'00', ?)",
            [
                (rng.choice(["A@x.test", "a@X.test", "b@x.test"]), rng.choice(["r", "s"]), _at(rng.randint(0, 99)))
                for _ in range(300)
            ],
        )
    with Session(create_engine(f"sqlite:///{path}")) as s:
        for _ in range(60):
            args = (
                rng.choice(["a@x.test", "B@x.test"]),
                rng.choice(["r", "s"]),
                T0 + timedelta(minutes=rng.randint(0, 99)),
            )
            look_back = rng.choice([1, 10, 100, 400])
            assert chatter.recent_count(s, *args, look_back) == _f76a375_count(s, *args, look_back), (args, look_back)


#: The commands of a moderator's day that read a running game's mails, run on homes whose stored mails are of
#: `SMALL` and 4 `SMALL` bytes.  On f76a375 each read every mail the game received: read calls 340 and 1,033
#: (`game waiting`), 371 and 1,032 (`export`), 350 and 1,038 (`publish`), 805 and 2,190 (`poll`); now 93 and 65, 134
#: and 74, 113 and 77, 413 and 228 (the small home's first commands read what they import).
DAY = [["game", "waiting"], ["export", "hh1", "-o", "{root}/e.json"], ["publish", "{root}/site"], ["poll"]]


def _running(root: Path, size: int) -> Path:
    """A home with a running game hh1 whose players each sent `MAILS` mails of `size` bytes and were sent as many
    reports; Carol reads a digest and has just written chatter and STATUS."""
    from pbem.app import games
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.home.app import Home
    from tests.conftest import CODES, Clock, deliver, order_mail, signed

    path = init_home(root / "home", address="moderator@pbem.test", name="M")
    cfg = config_mod.load(path)
    now = datetime.now(UTC) - timedelta(hours=1)
    seats = [(p, f"{p.lower()}@players.test") for p in PLAYERS]
    games.create_game(Home.of(cfg), "habsburg", "hh1", seats, seed="s", clock=Clock(now), codes=CODES)
    at = [(now + timedelta(seconds=i)).strftime("%Y-%m-%d %H:%M:%S.%f") for i in range(MAILS)]
    with closing(sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))) as con, con:
        con.executemany(
            "INSERT INTO inbound_messages (message_id, body_hash, sender, subject, game_id, player, outcome, reason, "
            "raw, received_at) VALUES (?, 'h', ?, 's', 1, ?, 'accepted', '', zeroblob(?), ?)",
            [(f"<{p}{i}@t>", f"{p.lower()}@players.test", p, size, at[i]) for i in range(MAILS) for p in PLAYERS],
        )
        con.executemany(
            "INSERT INTO outbox (message_id, game_id, player, purpose, upto_seq, to_addr, status, attempts, "
            "last_error, next_attempt_at, created_at, sent_at) "
            "VALUES (?, 1, ?, 'report', 0, ?, 'sent', 1, '', ?, ?, ?)",
            [(f"<o{p}{i}@t>", p, f"{p}@t", at[i], at[i], at[i]) for i in range(MAILS) for p in PLAYERS],
        )
        con.execute(  # each mail's bytes (migration 0022)
            "INSERT INTO outbox_mail (id, raw) SELECT id, zeroblob(?) FROM outbox WHERE id NOT IN "
            "(SELECT id FROM outbox_mail)",
            (size,),
        )
        con.execute(
            "INSERT INTO mail_modes (game_id, player, mode, created_at) VALUES (1, 'Carol', 'digest', ?)", at[:1]
        )
    deliver(cfg, order_mail("carol@players.test", "hh1", "Thanks, see you next turn!"))
    deliver(cfg, order_mail("carol@players.test", "hh1", signed("Carol", "STATUS")))
    return path


def test_a_moderators_day_reads_no_more_when_the_mails_are_larger(tmp_path: Path, monkeypatch: Any) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app
    from pbem.home import config as config_mod
    from pbem.record import db

    counted: dict[str, list[int]] = {}
    for size in (SMALL, 4 * SMALL):  # the small home first: what a command imports is read then
        root = tmp_path / str(size)
        path = _running(root, size)
        monkeypatch.setenv("PBEM_CONFIG", str(path))
        url = config_mod.load(path).database_url
        for words in DAY:
            calls = 0
            # the small home's commands run twice and the second is counted (the first reads what they import); the
            # large home's once: nothing it reads once is left out (90a53973 kept the fewer of two runs of each, for
            # a collection inside the window, `_syscr`), and a poll's second run has no mail to read
            for _ in range(2 if size == SMALL and words[0] != "poll" else 1):
                db.engine_for(url).dispose()  # nothing cached: each command reads what it needs
                before = _syscr()
                try:
                    res = CliRunner().invoke(app, [w.format(root=root) for w in words])
                finally:
                    calls = _since(before)
                assert res.exit_code == 0, res.output
            counted.setdefault(words[0], []).append(calls)
    grew = {name: (n, four) for name, (n, four) in counted.items() if four > n * 1.25 + 50}
    assert not grew, f"read calls for mails of {SMALL} and 4x bytes: {grew}"


def test_a_window_counts_its_thread_and_the_threads_it_starts_but_no_other(tmp_path: Path) -> None:
    """The check of the count: a thread alive before the window that reads and ends inside it (the CI run's 2,151
    calls for one export) is not counted; the window's own reads and a thread started and ended inside it are."""
    small = tmp_path / "f"
    small.write_bytes(b"x" * 64)

    def read(times: int) -> None:
        for _ in range(times):
            with small.open("rb", buffering=0) as f:
                f.read(1)

    go = threading.Event()
    outsider = threading.Thread(target=lambda: (go.wait(5), read(2000)))
    outsider.start()
    window = _syscr()
    go.set()
    outsider.join()
    quiet = _since(window)
    window = _syscr()
    read(100)
    inside = threading.Thread(target=read, args=(300,))
    inside.start()
    inside.join()
    busy = _since(window)
    assert quiet < 50, quiet
    assert 400 <= busy < 450, busy
