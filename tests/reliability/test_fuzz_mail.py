"""Fuzzed mail through one real poll: nothing a mail holds stops the moderator (issue 12).

10,000 mutants of real mails (see `fuzz_mail.py`: every codec name Python
knows, broken transfer encodings and boundaries, deep nesting, NUL and 8-bit
bytes, truncation) are delivered to a real Maildir inbox between two valid
order mails, and ONE `python -m pbem poll` runs over them against a real
SQLite home.  The run must exit 0 without a traceback, empty the inbox,
record every message, and apply both valid orders: the one before the
fuzz and the one after it.  `benchmarks/fuzz_mail.py` runs the same at any size.

The README's test command polls the first 2,500 of the 10,000 mutants (`tests.sizes`: the 10,000 took 25 s of the
suite's 563 s on 2 cores); `.ci/run` polls all 10,000 in one run in its step after it (`PBEM_FULL_SIZE=1`).  The
mutants are seeded: the 2,500 are the first of the 10,000.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from pbem.home.app import Home
from pbem.mail.transports import maildir
from tests.reliability import killpoints as kp
from tests.reliability.fuzz_mail import codec_names, mutants
from tests.sizes import size

FUZZ_GAMES = [("dynasties", "fuzz-a"), ("dynasties", "fuzz-b")]
PLAYERS = ["Quinn", "Rhea"]
CODES = {"Quinn": "QQQQ-2345", "Rhea": "RRRR-3456"}


def addr(game: str, player: str) -> str:
    return f"{player.lower()}.{game}@fuzz-players.test"


# The game the seed mails name, with the players (addresses and codes) they are from: mutants of their orders go
# down the player's path (decoding, refusals, acknowledgements, reports), not only the stranger's.
SEED_GAME = ("habsburg", "hh", {"Alice": "ALCE-2345", "Bob": "BOBB-3456", "Carol": "CARL-4567"})


def fuzz_home(root: Path):
    """A home with the seeds' game and two fresh games whose players the fuzz seeds never name."""
    from pbem.app.games import create_game

    cfg = kp.make_home(root, replies_per_hour=30)  # the default cap, as a real home has it
    for kind, name in FUZZ_GAMES:
        create_game(Home.of(cfg), kind, name, [(p, addr(name, p)) for p in PLAYERS], seed=f"seed-{name}", codes=CODES)
    kind, name, codes = SEED_GAME
    players = [(p, f"{p.lower()}@players.test") for p in codes]
    create_game(Home.of(cfg), kind, name, players, seed="seed-hh", codes=codes)
    return cfg


def valid_order(cfg, game: str, n: int) -> tuple[bytes, str]:
    """A mail with the first legal order of whoever the game asks first, and its Message-ID."""
    from pbem import engine as registry
    from pbem.record import store
    from pbem.record.db import session

    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, game))
        req = next(r for r in registry.get(loaded.game.kind).requests(loaded.state) if not r.answered)
    mid = f"<valid-{n}@fuzz-players.test>"
    raw = (
        f"From: {req.player} <{addr(game, req.player)}>\nTo: moderator@pbem.test\nSubject: [pbem {game}] orders\n"
        f"Message-ID: {mid}\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n"
        f"CODE {CODES[req.player]}\n{req.legal[0]}\n"
    ).encode()
    return raw, mid


def run(root: Path, n: int, seed: int = 12) -> dict:
    """Deliver valid, n mutants, valid; poll once (a run reads at most `maildir.MOST_A_RUN`: the rest in as many
    runs more as it takes, each said to be needed); return the figures (and raise on any broken promise)."""
    cfg = fuzz_home(root)
    first, first_id = valid_order(cfg, "fuzz-a", 1)
    last, last_id = valid_order(cfg, "fuzz-b", 2)
    started = time.perf_counter()
    raws = [first, *mutants(n, seed), last]
    made = time.perf_counter() - started
    db = Path(cfg.database_url.removeprefix("sqlite:///"))
    db_before = _db_size(db)
    kp.deliver_in_order(cfg, raws)
    started = time.perf_counter()
    runs = -(-len(raws) // maildir.MOST_A_RUN)
    for run_no in range(1, runs + 1):
        r = kp.run_poll(cfg, wrapper=False, timeout=3600)
        assert r.returncode == 0, r.stderr[-3000:]
        assert "Traceback" not in r.stderr, r.stderr[-3000:]
        left = kp.inbox_count(cfg)
        assert left == max(0, len(raws) - run_no * maildir.MOST_A_RUN), (run_no, left)
    polled = time.perf_counter() - started
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    try:
        outcomes = dict(con.execute("SELECT outcome, count(*) FROM inbound_messages GROUP BY outcome").fetchall())
        applied = {
            mid
            for (mid,) in con.execute(
                "SELECT i.message_id FROM orders o JOIN inbound_messages i ON i.id = o.inbound_id "
                "WHERE i.message_id IN (?, ?)",
                (first_id, last_id),
            )
        }
        recorded = con.execute("SELECT count(*) FROM inbound_messages").fetchone()[0]
        internal = con.execute("SELECT count(*) FROM inbound_messages WHERE reason LIKE 'internal error%'").fetchone()[
            0
        ]
    finally:
        con.close()
    assert applied == {first_id, last_id}, f"valid orders applied: {applied}"
    distinct = len(set(raws))  # a mutant cut to nothing (or to the same bytes as another) is one message
    assert recorded == distinct, f"{recorded} of {distinct} distinct messages recorded"
    return {
        "mails": n,
        "made_s": made,
        "poll_s": polled,
        "recorded": recorded,
        "internal_errors": internal,
        "outcomes": outcomes,
        "mail_bytes": sum(len(r) for r in raws),
        "db_growth_bytes": _db_size(db) - db_before,
    }


def _db_size(db: Path) -> int:
    """The database file and its WAL (checkpointed or not), in bytes."""
    return db.stat().st_size + sum(p.stat().st_size for p in db.parent.glob(db.name + "-*"))


def test_codec_names_cover_aliases_and_the_encodings_package() -> None:
    import encodings.aliases

    names = codec_names()
    assert set(encodings.aliases.aliases) <= set(names)
    assert {"idna", "punycode", "undefined", "utf_8", "rot_13", "base64_codec"} <= set(names)


def test_fuzzed_mails_in_one_poll_stop_nothing(tmp_path: Path) -> None:
    got = run(tmp_path / "home", size(10_000, 2_500))
    assert got["internal_errors"] == 0, got  # wall clock: reported only
    print(f"\nfuzz: {got}")
