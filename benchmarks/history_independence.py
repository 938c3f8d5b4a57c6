"""History independence: a poll of new mail on a large record vs the same poll on a small record.

    python benchmarks/history_independence.py [--messages 100] [--games 5] [--scale 100] [--repeat 3]

Both homes (SQLite) hold the same --games running games and the same --messages
order emails in the Maildir inbox.  The large home also holds --scale times as
many finished games, each a copy (new ids, names and Message-IDs) of one whole
game played by mail through the moderator, with its messages, orders, events,
snapshots and sent mail.  The time of `pbem.app.poll.poll` (in a fresh process,
interpreter start excluded) is compared, median of --repeat runs on fresh
copies of each home (goal: large/small <= 1.1).  With PBEM_BENCH_PROFILE=PREFIX
each timed poll also writes a cProfile dump to PREFIX.run-LABEL-N.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import common

TIME_POLL = r"""
import sys, time
from pbem.home import config
from pbem.app import poll as polling
from pbem.mail.transports.seam import open_transport
cfg = config.load(sys.argv[1])
inbox, sender = open_transport(cfg)
import os, cProfile
prof = cProfile.Profile() if os.environ.get("PBEM_BENCH_PROFILE") else None
t0 = time.perf_counter()
if prof: prof.enable()
s = polling.poll(cfg, inbox, sender)
if prof:
    prof.disable()
    prof.dump_stats(os.environ["PBEM_BENCH_PROFILE"] + "." + sys.argv[2])
print(time.perf_counter() - t0)
print(s.line())
"""

STRIDE = 1_000_000  # id offset between copies


def finished_template(tmp: Path) -> Path:
    """A SQLite record holding one whole game played by the demo's bots through the moderator."""
    from pbem.cli.demo import run

    r = run("italian-wars", 2, "history-template", tmp / "template")
    assert r.verified
    return tmp / "template" / "pbem.db"


def add_history(target_url: str, template_db: Path, copies: int) -> dict:
    """Insert `copies` copies of the template's game (and its rows) into the target record."""
    from sqlalchemy import create_engine, insert, select
    from sqlmodel import SQLModel

    from pbem.record import models  # noqa: F401

    src = create_engine(f"sqlite:///{template_db}")
    dst = create_engine(target_url)
    t = SQLModel.metadata.tables
    with src.connect() as c:
        rows = {
            name: [dict(r._mapping) for r in c.execute(select(t[name]))]
            for name in (
                "games",
                "seats",
                "inbound_messages",
                "orders",
                "events",
                "event_readers",
                "snapshots",
                "deadlines",
                "control_actions",
                "outbox",
            )
        }
    counts = {name: len(v) * copies for name, v in rows.items()}
    with dst.begin() as c:
        for k in range(1, copies + 1):
            off = k * STRIDE

            def shift(row: dict, off: int = off, **changes) -> dict:
                row = dict(row, **changes)
                if "id" in row and row["id"] is not None:
                    row["id"] += off
                if row.get("game_id") is not None:
                    row["game_id"] += off
                return row

            batch = {
                "games": [shift(r, name=f"old{k}-{r['name']}") for r in rows["games"]],
                "seats": [shift(r) for r in rows["seats"]],
                "inbound_messages": [
                    shift(r, message_id=f"<old{k}.{r['message_id'].strip('<>')}>") for r in rows["inbound_messages"]
                ],
                "orders": [
                    shift(r, inbound_id=(r["inbound_id"] + off) if r["inbound_id"] else None) for r in rows["orders"]
                ],
                "events": [shift(r) for r in rows["events"]],
                "event_readers": [shift(r) for r in rows["event_readers"]],
                "snapshots": [shift(r) for r in rows["snapshots"]],
                "deadlines": [shift(r) for r in rows["deadlines"]],
                "control_actions": [shift(r) for r in rows["control_actions"]],
                "outbox": [shift(r, message_id=f"<old{k}.{r['message_id'].strip('<>')}>") for r in rows["outbox"]],
            }
            for name, values in batch.items():
                if values:
                    c.execute(insert(t[name]), values)
    src.dispose()
    dst.dispose()
    return counts


def settle_wal(url: str) -> None:
    """Checkpoint and truncate the write-ahead log, as on a home that has been running for a while.

    Building the large record is one huge transaction; its log would otherwise
    be copied with the home and charged to the first polls on it."""
    import sqlite3

    con = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()


def timed_poll(home: Path) -> tuple[float, str]:
    res = subprocess.run(
        [sys.executable, "-c", TIME_POLL, str(home / "pbem.toml"), home.name],
        capture_output=True,
        text=True,
        cwd=common.ROOT,
    )
    if res.returncode != 0:
        raise SystemExit(res.stderr[-2000:])
    seconds, line = res.stdout.strip().splitlines()[-2:]
    return float(seconds), line


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=100)
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--scale", type=int, default=100, help="finished games in the large record, per running game")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pbem-hist-") as tmp_s:
        tmp = Path(tmp_s)
        template = finished_template(tmp)
        homes = {}
        for label in ("small", "large"):
            cfg = common.make_home(tmp / label)
            names = common.create_games(cfg, args.games)
            inbox, sender = __import__("pbem.mail.transports.seam", fromlist=["open_transport"]).open_transport(cfg)
            __import__("pbem.app.poll", fromlist=["poll"]).poll(cfg, inbox, sender)  # first reports sent
            history = add_history(cfg.database_url, template, args.games * args.scale) if label == "large" else {}
            settle_wal(cfg.database_url)
            common.fill_maildir(cfg, common.order_mails(names, args.messages))
            homes[label] = (cfg.path.parent, history)
        times: dict[str, list[float]] = {"small": [], "large": []}
        line = {}
        for r in range(args.repeat):
            for label, (home, _) in homes.items():
                run_dir = tmp / f"run-{label}-{r}"
                shutil.copytree(home, run_dir)
                seconds, line[label] = timed_poll(run_dir)
                assert f"read {args.messages} messages: {args.messages} accepted" in line[label], line[label]
                times[label].append(seconds)
                shutil.rmtree(run_dir)
        size = {label: sum(p.stat().st_size for p in home.glob("pbem.db*")) for label, (home, _) in homes.items()}
        doc = {
            "benchmark": "history_independence",
            "messages": args.messages,
            "running_games": args.games,
            "finished_games_in_large_record": args.games * args.scale,
            "large_record_rows": homes["large"][1],
            "database_mib": {k: round(v / 2**20, 1) for k, v in size.items()},
            "small_poll_s": round(common.median(times["small"]), 3),
            "large_poll_s": round(common.median(times["large"]), 3),
            "all_runs_s": {k: [round(x, 3) for x in v] for k, v in times.items()},
            "ratio": common.ratio(common.median(times["large"]), common.median(times["small"])),
            "goal": 1.1,
            "summary": line["large"],
        }
        common.emit(doc)


if __name__ == "__main__":
    main()
