"""perf36 (issue 27): what a reply's turn renders, appends and loads, counted through whole polls.

Generated: seeded House of Habsburg games of 3 to 6 players (real SQLite, the Maildir transport, a poll for each
round); each round the player to move answers the newest mail pbem sent them (In-Reply-To, no CODE line, the mail
quoted under a legal order), as `poll_throughput.py`'s replies do, and the poll of that reply is counted:

* JSON decoded while a report's context is made (`reporting.report_context`): each report decoded both texts of
  every event since its reader's last report (`store.event_of`: who may see it, and its data, which no report
  line reads), about 40 decodes a reply of `poll_throughput.py`'s.  Now who may see it is read once a distinct
  text a process (`store.event_seen`), the data never: a game fails when its reports decoded more texts than its
  events have distinct sets of readers.

Every count is of calls, never of time.  `PYTHONPATH=CHECKOUT:. python3 tests/test_perf36.py GAMES ROUNDS` prints a
checkout's failing games (36ff7173: 12 of 12 at `12 3`, this branch 0); the suite runs `SAMPLE` game of `ROUNDS`
rounds, `PBEM_PERF36_FULL=1` 12 games.
"""

from __future__ import annotations

import os
import random
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from pathlib import Path
from typing import Any

FULL = os.environ.get("PBEM_PERF36_FULL") == "1"
SAMPLE = 1
ROUNDS = 2
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]


@contextmanager
def counting(counts: Counter[str]) -> Iterator[None]:
    """Each counted thing added to `counts` while inside: "report decodes", the JSON texts decoded while a report's
    context is made (`reporting.report_context`); "reports"."""
    import json

    from pbem.app import reporting

    inside = [0]
    real_loads, real_context = json.loads, reporting.report_context

    def loads(*a: Any, **k: Any) -> Any:
        counts["report decodes"] += inside[0]
        return real_loads(*a, **k)

    def context(*a: Any, **k: Any) -> Any:
        counts["reports"] += 1
        inside[0] += 1
        try:
            return real_context(*a, **k)
        finally:
            inside[0] -= 1

    json.loads, reporting.report_context = loads, context  # type: ignore[assignment]
    try:
        yield
    finally:
        json.loads, reporting.report_context = real_loads, real_context  # type: ignore[assignment]


def _newest_to(cfg: Any, address: str) -> tuple[str, str, str]:
    """(Message-ID, Subject, text) of the newest mail pbem sent to `address`."""
    from tests.conftest import body_of, sent_mail

    mine = [m for m in sent_mail(cfg) if m["To"].addresses[0].addr_spec == address]
    m = mine[-1]
    return str(m["Message-ID"]), str(m["Subject"]), body_of(m)


def _to_play(cfg: Any, name: str) -> tuple[str, list[str]]:
    """The player to move in game `name` and their legal orders, from the record."""
    from sqlmodel import select

    from pbem.record import store
    from pbem.record.db import session
    from pbem.record.models import Game

    with session(cfg.database_url) as s:
        game = s.exec(select(Game).where(Game.name == name)).one()
        loaded = store.load(s, game)
        req = next(r for r in loaded.engine.requests(loaded.state) if not r.answered)
        return req.player, list(req.legal or req.default)


def reply(cfg: Any, name: str, rng: random.Random) -> bytes:
    """The player to move's reply to the newest mail they got: a legal order, the mail quoted under it."""
    player, legal = _to_play(cfg, name)
    address = f"{player.lower()}@players.test"
    mid, subject, text = _newest_to(cfg, address)
    msg = EmailMessage()
    msg["From"] = f"{player} <{address}>"
    msg["To"] = "moderator@pbem.test"
    msg["Subject"] = "Re: " + subject
    msg["In-Reply-To"] = mid
    msg["References"] = mid
    quoted = "\n".join(f"> {x}".rstrip() for x in text.splitlines())
    msg.set_content(f"{rng.choice(legal)}\n\nOn Mon, Moderator wrote:\n{quoted}\n")
    return msg.as_bytes()


def game_counts(tmp: Path, seed: int, rounds: int) -> tuple[list[Counter[str]], int]:
    """One game of seed `seed`: the counts of each round's poll of one reply, and how many distinct sets of readers
    the game's events have (`visibility_json`)."""
    import sqlite3

    from pbem.app import games
    from pbem.app import poll as polling
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.home.app import Home
    from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
    from tests.conftest import CODES, Clock, deliver

    rng = random.Random(seed)
    cfg = config_mod.load(init_home(tmp / f"home{seed}", address="moderator@pbem.test", name="Moderator"))
    clock = Clock()
    n = rng.randrange(3, 7)
    players = [(p, f"{p.lower()}@players.test") for p in NAMES[:n]]
    codes = {p: CODES[p] for p, _ in players}
    name = f"g{seed}"

    def run() -> Any:
        home = Home.of(cfg, inbox=MaildirInbox(cfg.maildir_path), sender=MaildirSender(cfg.maildir_path), clock=clock)
        return polling.poll(home)

    games.create_game(Home.of(cfg), "habsburg", name, players, seed=f"perf36-{seed}", clock=clock, codes=codes)
    run()
    out = []
    for _ in range(rounds):
        clock.advance(minutes=rng.randrange(1, 90))
        deliver(cfg, reply(cfg, name, rng))
        counts: Counter[str] = Counter()
        with counting(counts):
            summary = run()
        assert summary.accepted == 1, summary
        out.append(counts)
    with sqlite3.connect(cfg.database_url.removeprefix("sqlite:///")) as con:
        [(seen,)] = con.execute("SELECT COUNT(DISTINCT visibility_json) FROM events").fetchall()
    return out, int(seen)


def failures(tmp: Path, games: int, rounds: int) -> list[tuple[int, dict[str, int]]]:
    """The games (seed, their counts) whose reports decoded more JSON texts than there are distinct sets of readers
    of the game's events (each decoded once a process, if at all)."""
    bad = []
    for seed in range(games):
        each, seen = game_counts(tmp, seed, rounds)
        total = sum(each, Counter())
        if total["report decodes"] > seen:
            bad.append((seed, {**total, "readers' sets": seen}))
    return bad


def test_a_report_decodes_no_event_data_and_each_set_of_readers_once(tmp_path: Path) -> None:
    """36ff7173 decoded each event's two JSON texts for each report (about 40 a reply); now at most once each
    distinct `visibility_json` a process, and never the data, which no report reads."""
    bad = failures(tmp_path, 12 if FULL else SAMPLE, ROUNDS)
    assert not bad, bad


if __name__ == "__main__":
    import tempfile

    g, r = (int(x) for x in sys.argv[1:3]) if len(sys.argv) > 2 else (12, 3)
    with tempfile.TemporaryDirectory() as d:
        found = failures(Path(d), g, r)
    print(f"{len(found)} of {g} games fail: {found[:3]}")
