"""Does a poll cost the same with 10,000 games as with 10, and with a long history as with a fresh game?

    python benchmarks/scale.py [--games 10000] [--few 10] [--messages 100] [--window 2000]
                               [--actions 10000] [--reports 50000] [--history-messages 100] [--runs 5]
                               [--idle-runs 15] [--imap]

Builds four pairs of moderator homes (SQLite + Maildir) and times `pbem poll`
processes on each pair, interleaved, in the same run:

* idle_ratio: an idle poll with `--games` running games against one with `--few`
  (every deadline days away, nothing in the inbox);
* poll_ratio: a poll of `--messages` order mails to the same `--few` games, on a
  record that also holds `--games` running games against one that does not;
* reminder_ratio: `--window` games inside their reminder window (their step opened
  11 h ago with a 20 h deadline, so past its middle; the reminders already sent by
  an earlier poll): the next idle poll against the idle poll of `--few` games;
* history_ratio: per message, a poll of order mails to one game that has
  `--actions` control actions and `--reports` reports behind it, against the
  same poll to a fresh game.

* with `--imap`, idle_imap_ratio: the idle poll ratio again with the same two
  records reading an IMAP inbox (a pymap server started here): the idle check is
  then one STATUS against what the last poll saw.

Building is fast: `--few` games are created the normal way (codes hashed with
the real key derivation), the rest are copies of their rows made with one
INSERT ... SELECT per table (every table with a `game_id`, the `due` table of
what is due when included).  The last line printed is
`{"idle_ratio": ..., "poll_ratio": ..., "reminder_ratio": ..., "history_ratio": ...}`
(with `"idle_imap_ratio"` too under `--imap`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import common
from sqlalchemy import create_engine, inspect, text

from pbem.home.app import Home

FAR = timedelta(days=7)  # deadlines far away: nothing due, no reminder window
NEAR = timedelta(hours=20)  # inside the 24 h reminder window ...
OPENED = timedelta(hours=11)  # ... and past the middle of the step, when no reminder is due yet


def build(
    home: Path, few: int, deadline: timedelta, prefix: str = "g", ago: timedelta = timedelta(0)
) -> tuple[object, list[str]]:
    """`few` games whose first step opened `ago` before now; one poll sends the first reports."""
    from pbem.app.games import Table, create_game

    cfg = common.make_home(home)
    when = datetime.now(UTC) - ago
    names = []
    codes = {p: common.code(p) for p in common.PLAYERS}
    for g in range(few):
        name = f"{prefix}{g}"
        create_game(
            Home.of(cfg),
            common.KIND,
            name,
            [(p, common.player_address(p)) for p in common.PLAYERS],
            seed=f"bench-{name}",
            table=Table(deadline=deadline),
            clock=lambda: when,
            codes=codes,
        )
        names.append(name)
    env = dict(os.environ, PBEM_CONFIG=str(cfg.path))
    common.run_timed(common.pbem_cmd("poll"), env)  # the first reports go out and are marked sent
    return cfg, names


def _db(cfg) -> object:
    return create_engine(cfg.database_url)


def clone_games(cfg, template: str, copies: int, prefix: str) -> None:
    """`copies` more games, each a copy of every row of game `template` (one statement per table)."""
    eng = _db(cfg)
    insp = inspect(eng)
    with eng.begin() as c:
        tid = c.execute(text("SELECT id FROM games WHERE name = :n"), {"n": template}).scalar_one()
        c.execute(text("CREATE TEMP TABLE nums (k INTEGER PRIMARY KEY)"))
        c.execute(
            text(
                "WITH RECURSIVE r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r WHERE k + 1 < :n) "
                "INSERT INTO nums SELECT k FROM r"
            ),
            {"n": copies},
        )
        gcols = [col["name"] for col in insp.get_columns("games") if col["name"] != "id"]
        sel = ", ".join(f"'{prefix}' || nums.k" if col == "name" else f"g.{col}" for col in gcols)
        c.execute(
            text(f"INSERT INTO games ({', '.join(gcols)}) SELECT {sel} FROM games g, nums WHERE g.id = :t"),
            {"t": tid},
        )
        for table in insp.get_table_names():
            cols = [col["name"] for col in insp.get_columns(table)]
            if table == "games" or "game_id" not in cols:
                continue
            pk = insp.get_pk_constraint(table)["constrained_columns"]
            keep = [col for col in cols if not (pk == ["id"] and col == "id")]
            exprs = []
            for col in keep:
                if col == "game_id":
                    exprs.append("n.id")
                elif col == "message_id" and table == "outbox":
                    exprs.append("t.message_id || '.' || n.id")
                else:
                    exprs.append(f"t.{col}")
            c.execute(
                text(
                    f"INSERT INTO {table} ({', '.join(keep)}) SELECT {', '.join(exprs)} FROM {table} t "
                    f"JOIN games n ON n.name LIKE :p WHERE t.game_id = :t"
                ),
                {"t": tid, "p": f"{prefix}%"},
            )
    eng.dispose()


def grow_history(cfg, game: str, actions: int, reports: int) -> None:
    """Give `game` a long past: control actions (pause/resume pairs, ending running) and sent reports."""
    eng = _db(cfg)
    with eng.begin() as c:
        gid = c.execute(text("SELECT id FROM games WHERE name = :n"), {"n": game}).scalar_one()
        now = datetime.now(UTC).replace(tzinfo=None)
        c.execute(
            text("INSERT INTO control_actions (game_id, action, detail, created_at) VALUES (:g, :a, '', :w)"),
            [{"g": gid, "a": "pause" if i % 2 == 0 else "resume", "w": now} for i in range(actions - actions % 2)],
        )
        row = c.execute(
            text("SELECT id FROM outbox WHERE game_id = :g AND purpose = 'report' ORDER BY id LIMIT 1"), {"g": gid}
        ).scalar_one()
        cols = [col["name"] for col in inspect(c).get_columns("outbox") if col["name"] != "id"]
        exprs = ["t.message_id || '.h' || nums.k" if col == "message_id" else f"t.{col}" for col in cols]
        c.execute(
            text(
                "WITH RECURSIVE nums(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM nums WHERE k + 1 < :n) "
                f"INSERT INTO outbox ({', '.join(cols)}) SELECT {', '.join(exprs)} FROM outbox t, nums WHERE t.id = :r"
            ),
            {"n": reports, "r": row},
        )
        if "outbox_mail" in inspect(c).get_table_names():  # each copy's bytes: the first report's (migration 0022)
            c.execute(
                text(
                    "INSERT INTO outbox_mail (id, keep_raw, raw) SELECT o.id, m.keep_raw, m.raw FROM outbox o "
                    "JOIN outbox_mail m ON m.id = :r WHERE o.id NOT IN (SELECT id FROM outbox_mail)"
                ),
                {"r": row},
            )
    eng.dispose()


def count_reminders(cfg) -> int:
    eng = _db(cfg)
    with eng.connect() as c:
        n = c.execute(text("SELECT count(*) FROM outbox WHERE purpose = 'reminder' AND status = 'sent'")).scalar_one()
    eng.dispose()
    return int(n)


def env_for(cfg) -> dict:
    return dict(os.environ, PBEM_CONFIG=str(cfg.path))


def idle_times(homes: list, runs: int) -> list[float]:
    """Median seconds of an idle `pbem poll` per home, runs interleaved across homes."""
    times: list[list[float]] = [[] for _ in homes]
    for _ in range(runs):
        for i, cfg in enumerate(homes):
            dt, line = common.run_timed(common.pbem_cmd("poll"), env_for(cfg))
            assert "read 0 messages" in line or line.startswith("nothing to do"), line
            assert "sent 0 mails" in line or line.startswith("nothing to do"), line
            times[i].append(dt)
    return [common.median(t) for t in times]


def poll_times(pairs: list, mails: list[bytes], runs: int) -> list[float]:
    """Median seconds of `pbem poll` handling `mails` in each home, its database restored from its backup before
    each run; runs interleaved across homes (a noisy machine drifts alike)."""
    times: list[list[float]] = [[] for _ in pairs]
    for _ in range(runs):
        for i, (cfg, backup) in enumerate(pairs):
            db = Path(cfg.database_url.removeprefix("sqlite:///"))
            shutil.copyfile(backup, db)
            for extra in (db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
                extra.unlink(missing_ok=True)
            inbox = cfg.maildir_path / "inbox"
            for sub in ("new", "cur"):
                for p in (inbox / sub).glob("*"):
                    p.unlink()
            common.fill_maildir(cfg, mails)
            # The restored copy is still dirty in the page cache (300 MB for 10,000 games): flush it now, or the
            # poll's first WAL checkpoint (an fsync of the database file) would write the whole copy inside the
            # timed run and the large home would be timed for the benchmark's own copying.
            os.sync()
            dt, line = common.run_timed(common.pbem_cmd("poll"), env_for(cfg))
            assert f"read {len(mails)} messages: {len(mails)} accepted" in line, line
            times[i].append(dt)
    return [common.median(t) for t in times]


def backup_db(cfg, where: Path) -> Path:
    db = Path(cfg.database_url.removeprefix("sqlite:///"))
    eng = _db(cfg)
    with eng.connect() as c:
        c.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    eng.dispose()
    shutil.copyfile(db, where)
    return where


def imap_idle(homes: list, root: Path, runs: int) -> list[float]:
    """`idle_times` again with `homes` reading one (empty) IMAP inbox on a pymap server started here."""
    from tests.servers.testservers import pip_mail_servers

    users = {common.MODERATOR: common.PASSWORD, **{common.player_address(p): common.PASSWORD for p in common.PLAYERS}}
    os.environ["PBEM_BENCH_PASSWORD"] = common.PASSWORD
    with pip_mail_servers(root / "imap-servers", users) as servers:
        for cfg in homes:
            servers.wire_home(cfg.path, common.MODERATOR, "PBEM_BENCH_PASSWORD")
            common.run_timed(common.pbem_cmd("poll"), env_for(cfg))  # a complete poll: what it saw is kept
        return idle_times(homes, runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--few", type=int, default=10)
    ap.add_argument("--messages", type=int, default=100)
    ap.add_argument("--window", type=int, default=2000)
    ap.add_argument("--actions", type=int, default=10000)
    ap.add_argument("--reports", type=int, default=50000)
    # per message over enough messages that the start of the process does not decide it
    ap.add_argument("--history-messages", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    # an idle poll is half a second, mostly the start of the process and the login: its median needs more runs
    # than the polls of mail to settle within a few percent (5 runs gave 0.87-1.12 for the same two homes)
    ap.add_argument("--idle-runs", type=int, default=15)
    ap.add_argument("--imap", action="store_true", help="also measure the idle ratio over IMAP (pymap)")
    args = ap.parse_args()
    doc: dict = {"benchmark": "scale", **{k: v for k, v in vars(args).items()}}
    with tempfile.TemporaryDirectory(prefix="pbem-scale-") as tmp:
        root = Path(tmp)
        small, names = build(root / "small", args.few, FAR)
        large, _ = build(root / "large", args.few, FAR)
        clone_games(large, names[0], args.games - args.few, "c")
        window, _ = build(root / "window", 1, NEAR, prefix="w", ago=OPENED)  # its first poll sends its reminders
        clone_games(window, "w0", args.window - 1, "wc")
        common.run_timed(common.pbem_cmd("poll"), env_for(window))  # sends any reminder still due
        doc["window_reminders_sent"] = count_reminders(window)
        assert doc["window_reminders_sent"] >= args.window, "the window games' reminders were not sent"
        fresh, _ = build(root / "fresh", 1, FAR, prefix="h")
        old, _ = build(root / "old", 1, FAR, prefix="h")
        grow_history(old, "h0", args.actions, args.reports)

        idle_small, idle_large, idle_window = idle_times([small, large, window], args.idle_runs)
        doc["idle_s"] = {"few": idle_small, "many": idle_large, "reminder_window": idle_window}

        mails = common.order_mails(names, args.messages)
        b_small = backup_db(small, root / "small.bak")
        b_large = backup_db(large, root / "large.bak")
        poll_small, poll_large = poll_times([(small, b_small), (large, b_large)], mails, args.runs)
        doc["poll_s"] = {"few": poll_small, "many": poll_large}

        hmails = common.order_mails(["h0"], args.history_messages)
        b_fresh = backup_db(fresh, root / "fresh.bak")
        b_old = backup_db(old, root / "old.bak")
        h_fresh, h_old = poll_times([(fresh, b_fresh), (old, b_old)], hmails, args.runs)
        doc["history_s_per_message"] = {
            "fresh": h_fresh / args.history_messages,
            "long": h_old / args.history_messages,
        }
        if args.imap:
            imap_small, imap_large = imap_idle([small, large], root, args.idle_runs)
            doc["idle_imap_s"] = {"few": imap_small, "many": imap_large}
    ratios = {
        "idle_ratio": common.ratio(idle_large, idle_small),
        "poll_ratio": common.ratio(poll_large, poll_small),
        "reminder_ratio": common.ratio(idle_window, idle_small),
        "history_ratio": common.ratio(h_old, h_fresh),
    }
    if args.imap:
        ratios["idle_imap_ratio"] = common.ratio(imap_large, imap_small)
    doc.update(ratios)
    common.emit(doc)
    print(json.dumps(ratios))


if __name__ == "__main__":
    main()
