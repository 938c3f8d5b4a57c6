"""`pbem prune`: the text of the mail sent in games ended long ago leaves the database, and nothing breaks (months2).

`benchmarks/months.py` found the database growing 28 MB a month for 8 running games, 89% of it the text of the
mails sent, kept for ever.  `pbem prune --older-than D` empties `outbox.raw` of every mail sent in a game over or
abandoned at least D ago, keeping its Message-ID, recipient and the SHA-256 of what it dropped
(`pbem.record.prune`, migration 0021).

The generator (`home_of`): seeded homes of Habsburg games started on drawn days, some abandoned on later drawn days,
some still running, a drawn D.  The oracle: after the prune, each game's sent mails hold no bytes if it was
abandoned at least D before, each with the SHA-256 of its bytes before; every other mail keeps its bytes exactly;
a second prune drops nothing.  Of 20 homes (`PBEM_PRUNE_CASES=20`), 14 hold a game abandoned long enough ago and
keep its text on efd12b07 (all 20 fail there: there is no `pbem prune`), and none fails now.  The suite runs `CASES` (1).

What still works after a prune, on a game played to its end (its export, `pbem verify`, `pbem verify --mail`, a
reply to a mail whose text is gone): tests/test_verify_mail.py, which plays that game once.  Cost: 0.7 s at a load
of 13 (2.0 s at 14 with a months run beside it; `python3 -m pytest tests/test_prune.py --durations=5 -n 0`).
"""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import Clock

CASES = int(os.environ.get("PBEM_PRUNE_CASES", "1"))
SEATS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
START = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def _rows(db: Path) -> dict[str, tuple[str, int | None, bytes, str | None]]:
    """Every outbox row by Message-ID: (status, game, bytes, digest)."""
    con = sqlite3.connect(db)
    try:
        q = "SELECT message_id, status, game_id, raw, digest FROM outbox JOIN outbox_mail USING (id)"
        return {m: (st, g, bytes(r), d) for m, st, g, r, d in con.execute(q)}
    finally:
        con.close()


def home_of(seed: int, tmp_path: Path) -> tuple[object, datetime, int, dict[int, datetime | None]]:
    """A home of drawn games: (its config, now, D in days, each game's id -> when it was abandoned or None)."""
    from pbem.app import games
    from pbem.app.control import abandon
    from pbem.app.cron import run_poll
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.home.app import Home

    rng = random.Random(seed)
    cfg = config_mod.load(init_home(tmp_path / "home", address="moderator@pbem.test", name="Test Moderator"))
    text = cfg.path.read_text().replace('outage_after = "6h"', 'outage_after = "0m"')
    cfg.path.write_text(text)
    cfg = config_mod.load(cfg.path)
    plan = sorted((rng.randint(0, 40), rng.choice([None, rng.randint(1, 40)])) for _ in range(rng.randint(2, 4)))
    ended: dict[int, datetime | None] = {}
    events = sorted(
        [(d, "start", i) for i, (d, _) in enumerate(plan)] + [(d + e, "end", i) for i, (d, e) in enumerate(plan) if e]
    )
    clock = Clock(START)
    for day, what, i in events:
        clock.now = START + timedelta(days=day, minutes=len(ended))
        name = f"g{i}"
        if what == "start":
            seats = [(p, a.replace("@", f".{name}@")) for p, a in SEATS]
            games.create_game(Home.of(cfg, clock=clock), "habsburg", name, seats, seed=f"prune-{seed}-{i}")
            run_poll(cfg, clock=clock)
            ended[i + 1] = None
        else:
            abandon(Home.of(cfg, clock=clock), name, clock.now)
            run_poll(cfg, clock=clock)
            ended[i + 1] = clock.now
    return cfg, START + timedelta(days=90), rng.choice([0, 7, 30, 60]), ended


@pytest.mark.parametrize("seed", range(CASES))
def test_prune_drops_the_text_of_the_games_ended_long_enough_ago_and_only_that(tmp_path: Path, seed: int) -> None:
    from pbem.app.prune import prune
    from pbem.home.app import Home

    cfg, now, days, ended = home_of(seed, tmp_path)
    db = tmp_path / "home" / "pbem.db"
    before = _rows(db)
    done = prune(Home.of(cfg), timedelta(days=days), now)
    after = _rows(db)
    assert set(after) == set(before)  # every row kept: its Message-ID, status, game
    gone = {gid for gid, at in ended.items() if at is not None and at <= now - timedelta(days=days)}
    for mid, (status, game, raw, digest) in before.items():
        if status == "sent" and game in gone:
            assert after[mid][2] == b"" and after[mid][3] == hashlib.sha256(raw).hexdigest(), mid
        else:
            assert after[mid] == (status, game, raw, digest), mid
    dropped = [r for m, r in before.items() if r[0] == "sent" and r[1] in gone]
    assert (done.mails, done.freed) == (len(dropped), sum(len(r[2]) for r in dropped))
    assert prune(Home.of(cfg), timedelta(days=days), now).mails == 0  # nothing twice
