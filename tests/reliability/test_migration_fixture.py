"""A record made by the first schema revision (0001) upgrades to head with every game intact.

`tests/fixtures/first_revision.db.gz` was made once by
`tests/fixtures/make_first_revision_db.py` with the migrations up to 0001 and
the pbem of that revision: finished and unfinished games of every kind, a
deadline default, a paused game.  `first_revision.expected.json` holds what
each game looked like then.  After `pbem upgrade` each game must still have
the same orders, events and state (also when rebuilt by replay), export, and
a finished game must verify; and the upgraded record must keep working.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sqlite3
import subprocess
import sys
from datetime import UTC
from pathlib import Path

from pbem.home.app import Home
from tests.fixtures.make_first_revision_db import code, game_digest, mail

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _upgraded(tmp_path: Path) -> tuple[Path, Path]:
    db = tmp_path / "pbem.db"
    db.write_bytes(gzip.decompress((FIXTURES / "first_revision.db.gz").read_bytes()))
    con = sqlite3.connect(db)
    assert con.execute("SELECT version_num FROM alembic_version").fetchone()[0] == "0001"
    con.close()
    toml = tmp_path / "pbem.toml"
    toml.write_text(
        '[moderator]\naddress = "moderator@fixture.test"\n\n[database]\nurl = "sqlite:///pbem.db"\n\n'
        "[games]\nreplies_per_hour = 100000\n"
    )
    r = subprocess.run(
        [sys.executable, "-m", "pbem", "--config", str(toml), "upgrade"], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    return db, toml


def test_first_revision_record_upgrades_to_head_with_every_game_intact(tmp_path: Path) -> None:
    from alembic.script import ScriptDirectory
    from sqlmodel import select

    from pbem.history.export import build, verify
    from pbem.home import config as config_mod
    from pbem.record import store
    from pbem.record.db import alembic_config, session
    from pbem.record.models import Game

    db, toml = _upgraded(tmp_path)
    head = ScriptDirectory.from_config(alembic_config(f"sqlite:///{db}")).get_current_head()
    con = sqlite3.connect(db)
    assert con.execute("SELECT version_num FROM alembic_version").fetchone()[0] == head
    due = con.execute(
        "SELECT g.name, d.kind FROM due d JOIN games g ON g.id = d.game_id WHERE d.done = 0 ORDER BY g.name, d.kind"
    ).fetchall()
    paused = {r[0] for r in con.execute("SELECT g.name FROM games g JOIN control_actions c ON c.game_id = g.id")}
    con.close()
    expected_games = json.loads((FIXTURES / "first_revision.expected.json").read_text())
    running = sorted(n for n, g in expected_games.items() if not g["over"] and n not in paused)
    assert paused and running, "the fixture has a paused game and running ones"
    want = [(n, k) for n in running for k in ("deadline", "reminder")] + [(n, "paused") for n in paused]
    assert due == sorted(want), "0007 backfills what is due; 0023 the paused game's weekly reminder to the moderator"

    expected = json.loads((FIXTURES / "first_revision.expected.json").read_text())
    got = game_digest(db)
    assert got == expected, "a game's orders, events, state or mail changed in the upgrade"

    cfg = config_mod.load(toml)
    finished = 0
    with session(cfg.database_url) as s:
        for game in s.exec(select(Game).order_by(Game.id)).all():
            loaded = store.load(s, game)
            orders = store.inputs(s, game.id)
            replayed, _ = store.replay(game, orders)
            assert replayed == loaded.state, f"{game.name}: the snapshot differs from a replay of its orders"
            assert (
                hashlib.sha256(json.dumps(loaded.state, sort_keys=True).encode()).hexdigest()
                == expected[game.name]["state_sha256"]
            )
            doc = build(s, game)
            assert len(doc["orders"]) == expected[game.name]["orders"]
            for fmt in ("json", "text", "html"):
                from pbem.history.export import render

                assert render(doc, fmt)
            if expected[game.name]["over"]:
                v = verify(doc, legacy=doc["chain"].get("legacy_events", 0) > 0)  # recorded before the chain
                assert v.ok, f"{game.name}: {v.problem}"
                finished += 1
    assert finished >= 2


def test_an_upgraded_record_keeps_playing(tmp_path: Path) -> None:
    """Orders for an unfinished game from the old record are applied after the upgrade."""
    from datetime import datetime

    from pbem.app import poll as polling
    from pbem.home import config as config_mod
    from pbem.record import store
    from pbem.record.db import session

    _db, toml = _upgraded(tmp_path)
    cfg = config_mod.load(toml)
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "hh-mid"))
        req = next(r for r in loaded.engine.requests(loaded.state) if not r.answered)
        before = loaded.seq
    res = polling.handle(
        Home.of(cfg), mail("hh-mid", req.player, [req.legal[0]], 999_001), datetime(2026, 2, 1, tzinfo=UTC)
    )
    assert res.kind == "accepted", res
    with session(cfg.database_url) as s:
        assert store.load(s, store.game_by_name(s, "hh-mid")).seq == before + 1
    assert code("hh-mid", req.player)  # codes of the fixture are derived, never stored in clear
