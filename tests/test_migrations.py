"""The schema is made only by Alembic, and the models never drift from it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlmodel import SQLModel

from pbem.record import models  # noqa: F401
from pbem.record.db import WAL_LIMIT, WAL_PAGES, engine_for, migrate


def test_upgrade_head_on_an_empty_database_matches_the_models(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    migrate(url)
    eng = create_engine(url)
    with eng.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        assert {
            "games",
            "seats",
            "inbound_messages",
            "orders",
            "events",
            "snapshots",
            "outbox",
            "deadlines",
            "control_actions",
            "alembic_version",
        } <= tables
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata)
    assert diff == [], f"models and migrations differ: {diff}"


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'wal.db'}"
    migrate(url)
    with engine_for(url).connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() >= 1000


def test_sqlite_copies_its_log_in_large_windows_and_cuts_it_back_after(tmp_path: Path) -> None:
    """A poll's log is copied into the database every 64 MiB, not every 4 MiB (each page once for many
    messages: benchmarks/wal_window.py), and the log file never stays larger than that after a copy."""
    url = f"sqlite:///{tmp_path / 'window.db'}"
    migrate(url)
    with engine_for(url).connect() as conn:
        assert conn.execute(text("PRAGMA wal_autocheckpoint")).scalar() == WAL_PAGES == 16_384
        assert conn.execute(text("PRAGMA journal_size_limit")).scalar() == WAL_LIMIT == 64 * 1024 * 1024


def _schema(url: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Every table, index and trigger with its SQL, and the revision(s) stamped in alembic_version."""
    with create_engine(url).connect() as conn:
        objects = conn.execute(text("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"))
        return [(n, s) for n, s in objects], sorted(
            conn.execute(text("SELECT version_num FROM alembic_version")).scalars()
        )


def test_upgrade_is_idempotent(tmp_path: Path) -> None:
    """A second upgrade at head changes neither the schema, the stamped revision nor the rows."""
    from alembic.script import ScriptDirectory

    from pbem.record.db import alembic_config

    url = f"sqlite:///{tmp_path / 'twice.db'}"
    migrate(url)
    before = _schema(url)
    heads = ScriptDirectory.from_config(alembic_config(url)).get_heads()
    assert before[1] == sorted(heads) and len(heads) == 1
    row = "INSERT INTO games (name, kind, seed, seed_commitment, insecure_seed, legacy_events, players_json, options_json, deadline_seconds, resolve, created_at) VALUES ('kept', 'hh', 's', 'c', 0, 0, '[]', '{}', 60, 'asap', '2026-01-05 12:00:00')"
    with create_engine(url).begin() as conn:
        conn.execute(text(row))
    migrate(url)
    assert _schema(url) == before
    with create_engine(url).connect() as conn:
        assert conn.execute(text("SELECT name, kind FROM games")).all() == [("kept", "hh")]


def readers_filled_by_0018(url: str) -> None:
    """A record at 0017 with events of every visibility (and more than a batch of the migration's): upgraded, each
    event has the `event_readers` rows `store.append_events` writes (`models.readers_of`), and no other."""
    import json

    from pbem.record.models import readers_of

    migrate(url, "0017_events_kind_index")
    kinds = ["public", "moderator", ["Alice"], ["Bob", "Alice", "Bob"], [], "Alice"]
    game = "INSERT INTO games (name, kind, seed, seed_commitment, insecure_seed, legacy_events, players_json, options_json, deadline_seconds, resolve, created_at) VALUES (:n, 'hh', 's', 'c', false, 0, '[]', '{}', 60, 'asap', '2026-01-05 12:00:00')"
    event = "INSERT INTO events (game_id, seq, input_seq, kind, text, visibility_json, data_json, created_at, hash) VALUES (:g, :s, 1, 'note', '', :v, '{}', '2026-01-05 12:00:00', '')"
    eng = create_engine(url)
    with eng.begin() as conn:
        for name in ("one", "two"):
            conn.execute(text(game), {"n": name})
        gids = list(conn.execute(text("SELECT id FROM games ORDER BY id")).scalars())
        made = [
            (g, q, kinds[q % len(kinds)])
            for g, events in zip(gids, (7, 5_003), strict=True)
            for q in range(1, events + 1)
        ]
        conn.execute(text(event), [{"g": g, "s": q, "v": json.dumps(v)} for g, q, v in made])
    migrate(url)
    with eng.connect() as conn:
        got = sorted(conn.execute(text("SELECT game_id, reader, seq FROM event_readers")).all())
    eng.dispose()
    assert got == sorted((g, r, q) for g, q, v in made for r in readers_of(v))


def test_0018_gives_every_older_event_its_readers(tmp_path: Path) -> None:
    readers_filled_by_0018(f"sqlite:///{tmp_path / 'readers.db'}")


#: The downgrade generator's sample (`PBEM_DOWNGRADE_CASES=N`: seeds 0 to N-1): seed 0 prunes a game (refused),
#: seed 1 prunes nothing (taken back and upgraded again).
DOWNGRADE_SEEDS = range(int(os.environ["PBEM_DOWNGRADE_CASES"])) if "PBEM_DOWNGRADE_CASES" in os.environ else [0, 1]


def downgrade_round_trip(url: str, seed: int) -> None:
    """A record at head with a drawn number of games and sent, queued or failed mails, some games pruned by
    `prune.prune_sent`: taken back to 0020, the downgrade refuses exactly when a row is pruned (saying how many
    and what to do), changing neither the schema nor a row; otherwise it drops `digest` and `pruned_at`, and an
    upgrade adds them again, every row as it was.

    Of 40 seeds (`PBEM_DOWNGRADE_CASES=40`), 22 prune a row: on c83d8ea7 all 22 fail (the downgrade drops the
    digests without a word), none now; the other 18 pass on both.  A refusal on SQLite first left its pooled
    connection with foreign keys off (`migrations/env.py` turned them on again only after a migration that
    succeeded): with the refusal and that `env.py`, the refused seeds failed this check, none now."""
    import random
    from datetime import UTC, datetime

    from alembic import command
    from sqlmodel import Session

    from pbem.record import prune
    from pbem.record.db import alembic_config

    rng = random.Random(seed)
    migrate(url)
    eng = create_engine(url)
    game = "INSERT INTO games (name, kind, seed, seed_commitment, insecure_seed, legacy_events, players_json, options_json, deadline_seconds, resolve, created_at) VALUES (:n, 'hh', 's', 'c', false, 0, '[]', '{}', 60, 'asap', '2026-01-05 12:00:00')"
    mail = "INSERT INTO outbox (message_id, game_id, player, purpose, upto_seq, to_addr, status, attempts, last_error, next_attempt_at, created_at) VALUES (:m, :g, 'Alice', 'report', 0, 'a@x.test', :st, 0, '', '2026-01-05 12:00:00', '2026-01-05 12:00:00')"
    body = "INSERT INTO outbox_mail (id, raw) SELECT id, :raw FROM outbox WHERE message_id = :m"  # its bytes (0022)
    with eng.begin() as conn:
        for g in range(rng.randint(1, 3)):
            conn.execute(text(game), {"n": f"g{g}"})
        gids = list(conn.execute(text("SELECT id FROM games ORDER BY id")).scalars())
        rows = [
            {"m": f"<{g}.{k}@x.test>", "g": g, "raw": rng.randbytes(rng.randint(0, 40)), "st": rng.choice(["sent", "sent", "queued", "failed"])}
            for g in gids for k in range(rng.randint(0, 4))
        ]  # fmt: skip
        if rows:
            conn.execute(text(mail), rows)
            conn.execute(text(body), rows)
    with Session(eng) as s:
        for g in gids:
            if rng.random() < 0.5:
                prune.prune_sent(s, g, datetime(2026, 3, 1, tzinfo=UTC))
        s.commit()
    outbox = "SELECT o.message_id, o.game_id, b.raw, o.status, o.digest, o.pruned_at FROM outbox o JOIN outbox_mail b ON b.id = o.id ORDER BY o.message_id"
    with eng.connect() as conn:
        before = [tuple(r) for r in conn.execute(text(outbox))]
        columns = sorted(c["name"] for c in inspect(conn).get_columns("outbox"))
        head = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    eng.dispose()
    pruned = sum(1 for r in before if r[5] is not None)
    if pruned:
        with pytest.raises(RuntimeError) as refused:
            command.downgrade(alembic_config(url), "0020_report_delivery_covered")
        said = str(refused.value)
        assert f"{pruned} sent mail(s) were pruned" in said and "changed nothing" in said, said
        assert "restore the backup made before the first `pbem prune`" in said, said
        if url.startswith("sqlite"):  # the refusal left no pooled connection without its foreign keys
            with engine_for(url).connect() as conn:
                assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
    else:
        command.downgrade(alembic_config(url), "0020_report_delivery_covered")
        with eng.connect() as conn:
            assert "digest" not in {c["name"] for c in inspect(conn).get_columns("outbox")}
        eng.dispose()
        migrate(url)
    with eng.connect() as conn:
        assert [tuple(r) for r in conn.execute(text(outbox))] == before
        assert sorted(c["name"] for c in inspect(conn).get_columns("outbox")) == columns
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head
    eng.dispose()


@pytest.mark.parametrize("seed", DOWNGRADE_SEEDS)
def test_a_downgrade_below_0021_refuses_while_a_mail_is_pruned(tmp_path: Path, seed: int) -> None:
    downgrade_round_trip(f"sqlite:///{tmp_path / 'back.db'}", seed)


def test_0023_plans_the_weekly_reminder_of_a_game_paused_before_it(tmp_path: Path) -> None:
    """A game paused before 0023 had no `paused` row of `due` (`pbem game pause` plans it since): 0023 gives one to
    each game whose newest pause, resume or abandon is a pause, a week after it, and to no other game; a downgrade
    closes them.  On 90a53973 no paused game was ever reminded (tests/test_paused_reminded.py)."""
    from alembic import command

    from pbem.record.db import alembic_config

    url = f"sqlite:///{tmp_path / 'paused.db'}"
    migrate(url, "0022_outbox_mail")
    eng = create_engine(url)
    game = "INSERT INTO games (name, kind, seed, seed_commitment, insecure_seed, legacy_events, players_json, options_json, deadline_seconds, resolve, created_at) VALUES (:n, 'hh', 's', 'c', false, 0, '[]', '{}', 60, 'asap', '2026-01-05 12:00:00')"
    act = "INSERT INTO control_actions (game_id, action, detail, created_at) VALUES ((SELECT id FROM games WHERE name = :n), :a, '', :at)"
    histories = {"p1": ["pause"], "p2": ["pause", "resume"], "p3": ["pause", "resume", "pause"], "p4": ["abandon"],
                 "p5": ["pause", "abandon"], "p6": ["extend"], "p7": []}  # fmt: skip
    with eng.begin() as conn:
        for name, actions in histories.items():
            conn.execute(text(game), {"n": name})
            for day, action in enumerate(actions, start=6):
                conn.execute(text(act), {"n": name, "a": action, "at": f"2026-01-{day:02d} 10:00:00"})
    eng.dispose()
    migrate(url)
    eng = create_engine(url)
    rows = "SELECT g.name, d.due_at, d.done FROM due d JOIN games g ON g.id = d.game_id WHERE d.kind = 'paused'"
    with eng.connect() as conn:
        got = sorted((n, str(at)[:16], bool(done)) for n, at, done in conn.execute(text(rows)))
    assert got == [("p1", "2026-01-13 10:00", False), ("p3", "2026-01-15 10:00", False)], got
    eng.dispose()
    command.downgrade(alembic_config(url), "0022_outbox_mail")
    eng = create_engine(url)
    with eng.connect() as conn:
        assert {bool(d) for _, _, d in conn.execute(text(rows))} == {True}
        assert "address_bounces" not in inspect(conn).get_table_names()
    eng.dispose()
