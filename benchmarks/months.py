"""A home run from cron for months: what grows, as a function of simulated time.

One process drives a real home (SQLite + Maildir by default, `--pg URL` for PostgreSQL) through `--days`
simulated days: `pbem poll` (`pbem.app.cron.run_poll`, the same entry point as the CLI, with the simulated
clock injected) every 5 to 60 simulated minutes; `--running` games kept going, a new one started whenever one
ends (by its rules, or abandoned by the moderator after `--abandon-after` days without an end); players who
answer within hours, late (past the deadline, so defaults apply), never, or whose address bounces; one game
whose players all vanish; a backup with `--keep 7` every simulated night; half-way, the schema taken back to
revision 0017 and upgraded to the newest (`pbem upgrade` on half a year of record). The bots answer the reports pbem writes to the
`sent` Maildir, as `pbem demo` does.

Every simulated week it prints one JSON line: the database's bytes (and its -wal), each Maildir folder's files
and bytes, `outbox-sent/` and its ledger, the `[log] file`, the backup folder, any other file of the home, the
machine's mark folder, the process's RSS, and the median wall time of that week's idle polls and of its polls
that read one mail. The last line (SQLite): the CPU of an idle poll of the home after those months against a
new home with as many games running, alternated (`--idle-only DIR` reads it again for a finished run's DIR).
Each poll is followed by its connections closed, as a cron run's process ends (SQLite folds its -wal back).
A run that does not end on a week's day prints one more line at its end.

Two runs of one `--seed` write the same record and the same figures but for the machine's times and memory
(months3; `tests/test_months_reproducible.py`): the bots read pbem's mail in the order pbem queued it, and the
players' codes, the bots' Message-IDs, the home's Message-ID key and each game's signing key are drawn from the
seed (the benchmark's home only: a real home draws them from the machine).  `same` leaves out what no seed gives.

    python benchmarks/months.py                      # 40-odd games over 182 days, SQLite (30 minutes)
    python benchmarks/months.py --days 7 --running 2 --rounds 3  # a quick look (a minute)
    python benchmarks/months.py --days 2 --every 240-480 --seed s1   # a poll every 4 to 8 hours, not 5 to 60 minutes
    python benchmarks/months.py --days 91 --prune 7    # `pbem prune --older-than 7d` every night (months2)
    python benchmarks/months.py --pg postgresql+psycopg://USER@HOST/DB   # the same on PostgreSQL (DB emptied!)
    python benchmarks/months.py --days 180 --restore-day 60 --restore-day 150   # two machines lost (months9; with
        # --pg each restore puts the backup's pg_dump back into DB by pg_restore, as README says)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import mailbox
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, parseaddr
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.common import MODERATOR, make_home  # noqa: E402
from pbem.engine.rng import Rng, init_state  # noqa: E402

KIND = "habsburg"
SEATS = ["Alice", "Bob", "Carol"]
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # `pbem.trust.codes.ALPHABET`
PROFILES = ["prompt"] * 12 + ["late"] * 5 + ["never"] * 2 + ["bounce"]  # per seat, drawn at the game's start


#: The moderator's mails counted by kind, by words of their subjects.
TOLD = {
    "silent_game": "no player has written for",
    "silent_seat": "has not written for",
    "bounced": "bounced",
    "upkeep": "the home needs looking after",  # months5
}


class SimClock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Seat:
    game: str
    name: str
    address: str
    profile: str
    code: str | None = None
    due: datetime | None = None  # when the reply to `answering` goes out
    answering: tuple[str, list[str]] | None = None  # (Message-ID, legal lines)


@dataclass
class Sim:
    cfg: object
    clock: SimClock
    rng: Rng
    seats: dict[str, Seat] = field(default_factory=dict)  # by address
    games: dict[str, datetime] = field(default_factory=dict)  # running game -> started
    started: int = 0
    ended: int = 0
    abandoned: int = 0
    bounces: int = 0
    replies: int = 0
    pruned_mails: int = 0  # `--prune`: the sent mails whose text was dropped so far, and its bytes
    pruned_bytes: int = 0
    told: dict[str, int] = field(default_factory=dict)  # the moderator's mails by kind (`TOLD`)
    seen: set[str] = field(default_factory=set)
    seed: str = "months"
    mails: int = 0  # the bots' mails so far: their Message-IDs are numbered, not drawn (`msgid`)

    def msgid(self) -> str:
        self.mails += 1
        return f"<{self.mails}.{self.seed}@players.test>"


def draw(rng: Rng, items: list[str]) -> str:
    return items[rng.below(len(items))]


def minutes(rng: Rng, low: int, high: int) -> timedelta:
    return timedelta(minutes=low + rng.below(high - low + 1))


def start_game(sim: Sim, vanished: bool = False) -> None:
    from pbem.app.games import create_game
    from pbem.home.app import Home

    sim.started += 1
    name = f"g{sim.started}"
    seats, codes = [], {}
    for player in SEATS:
        raw = "".join(CODE_ALPHABET[sim.rng.below(len(CODE_ALPHABET))] for _ in range(8))
        codes[player] = f"{raw[:4]}-{raw[4:]}"  # drawn from the run's seed, as the rest (`same`)
        address = f"{player.lower()}.{name}@players.test"
        profile = "never" if vanished else draw(sim.rng, PROFILES)
        sim.seats[address] = Seat(name, player, address, profile)
        seats.append((player, address))
    create_game(Home.of(sim.cfg, clock=sim.clock), KIND, name, seats, seed=f"months-{name}", codes=codes)
    sim.games[name] = sim.clock.now


def read_sent(sim: Sim) -> None:
    """Each seat reads the mail pbem sent it since the last poll: a bounce for a bouncing address, a reply
    scheduled to the newest report asking for orders."""
    from pbem.cli.demo import CODE_LINE, legal_lines, text_of

    sent = sim.cfg.maildir_path / "sent"
    fresh = {}
    for sub in ("cur", "new"):
        for name in os.listdir(sent / sub):
            key = name.split(":")[0]
            if key not in sim.seen:
                fresh[key] = sent / sub / name
    for key, raw in queued_order(sim, fresh):
        sim.seen.add(key)
        msg, text = text_of(raw)
        seat = sim.seats.get(parseaddr(str(msg["To"]))[1])
        if seat is None:
            if parseaddr(str(msg["To"]))[1] == MODERATOR:  # what the moderator is told (months2)
                subject = str(msg["Subject"])
                kind = next((k for k, words in TOLD.items() if words in subject), "other")
                sim.told[kind] = sim.told.get(kind, 0) + 1
            continue
        if seat.profile == "bounce":
            bounce(sim, seat, raw, str(msg["Message-ID"]))
            continue
        if m := CODE_LINE.search(text):
            seat.code = m.group(1)
        legal = legal_lines(text)
        if legal and seat.profile != "never":
            delay = minutes(sim.rng, 10, 180) if seat.profile == "prompt" else minutes(sim.rng, 12 * 60, 60 * 60)
            seat.due = sim.clock.now + delay
            seat.answering = (" ".join(str(msg["Message-ID"]).split()), legal)


def queued_order(sim: Sim, fresh: dict[str, Path]) -> list[tuple[str, bytes]]:
    """The mails of `fresh` (Maildir key -> file) in the order pbem queued them (their outbox rows' ids, by
    Message-ID), not in the order the files were written: the Maildir's names come from the machine's clock, and two
    runs of one seed must read (and draw their replies) alike (months3)."""
    from email.parser import BytesHeaderParser

    from sqlalchemy import text

    from pbem.record.db import session

    found = {k: (path.read_bytes(), " ".join(str(BytesHeaderParser().parsebytes(path.read_bytes())["Message-ID"]).split())) for k, path in fresh.items()}  # fmt: skip
    with session(sim.cfg.database_url) as s:
        rows = s.connection().execute(text("SELECT message_id, id FROM outbox WHERE status = 'sent'")).all()
    queued = {str(m): int(i) for m, i in rows}
    last = max(queued.values(), default=0) + 1
    ordered = sorted(found, key=lambda k: (queued.get(found[k][1], last), found[k][1], k))
    return [(k, found[k][0]) for k in ordered]


def bounce(sim: Sim, seat: Seat, raw: bytes, message_id: str) -> None:
    msg = EmailMessage()
    msg["From"] = "Mail Delivery System <MAILER-DAEMON@players.test>"
    msg["To"] = MODERATOR
    msg["Subject"] = "Undelivered Mail Returned to Sender"
    msg["Message-ID"] = sim.msgid()
    msg["Auto-Submitted"] = "auto-replied"
    msg["Date"] = format_datetime(sim.clock.now)
    msg.set_content(f"This is the mail system.\n\n<{seat.address}>: host players.test said: 550 no such user\n")
    msg.add_attachment(
        f"Reporting-MTA: dns; players.test\n\nFinal-Recipient: rfc822; {seat.address}\nAction: failed\nStatus: 5.1.1\n",
        subtype="delivery-status",
    )
    msg.add_attachment(raw[:2000].decode("ascii", "replace"), subtype="rfc822-headers")
    msg.set_boundary(f"bounce-{sim.mails}")  # (the email package draws one at random)
    deliver(sim, msg.as_bytes())
    sim.bounces += 1


def deliver(sim: Sim, raw: bytes) -> None:
    inbox = mailbox.Maildir(str(sim.cfg.maildir_path / "inbox"), factory=None, create=True)
    key = inbox.add(raw)
    when = sim.clock.now.timestamp()
    os.utime(sim.cfg.maildir_path / "inbox" / "new" / key, (when, when))


def due_replies(sim: Sim) -> int:
    n = 0
    for seat in sim.seats.values():
        if seat.due is None or seat.due > sim.clock.now or seat.answering is None:
            continue
        answered, legal = seat.answering
        seat.due = seat.answering = None
        if seat.game not in sim.games:
            continue
        msg = EmailMessage()
        msg["From"] = f"{seat.name} <{seat.address}>"
        msg["To"] = MODERATOR
        msg["Subject"] = f"Re: [pbem {seat.game}] orders"
        msg["Message-ID"] = sim.msgid()
        msg["Date"] = format_datetime(sim.clock.now)
        msg["In-Reply-To"] = answered
        msg.set_content(legal[sim.rng.below(len(legal))] + "\n\nthanks\n")
        deliver(sim, msg.as_bytes())
        n += 1
    sim.replies += n
    return n


def retire_games(sim: Sim, abandon_after: timedelta) -> None:
    from pbem.app.control import abandon
    from pbem.home.app import Home
    from pbem.record.db import session
    from pbem.record.store import game_by_name, is_over

    for name, began in list(sim.games.items()):
        with session(sim.cfg.database_url) as s:
            row = game_by_name(s, name)
            over = row is not None and row.id is not None and is_over(s, row.id)
        if over:
            sim.ended += 1
        elif sim.clock.now - began > abandon_after:
            abandon(Home.of(sim.cfg, clock=sim.clock), name, sim.clock.now)
            sim.abandoned += 1
        else:
            continue
        del sim.games[name]
        for seat in sim.seats.values():
            if seat.game == name:
                seat.due = seat.answering = None


def size(path: Path) -> tuple[int, int]:
    """Files and bytes under `path`."""
    if path.is_file():
        return 1, path.stat().st_size
    files = total = 0
    for root, _, names in os.walk(path):
        for n in names:
            try:
                total += os.stat(os.path.join(root, n)).st_size
                files += 1
            except FileNotFoundError:
                pass
    return files, total


def fresh_process() -> None:
    from pbem.record.db import engine_for

    for url in engines_seen:
        engine_for(url).dispose()
    engine_for.cache_clear()


engines_seen: list[str] = []


def rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def measure(sim: Sim, home: Path, backups: Path, state: Path, pg: str | None, week: dict) -> dict:
    out: dict[str, object] = {"day": (sim.clock.now - START).days, "running": len(sim.games)}
    if pg:
        from sqlalchemy import create_engine, text

        engine = create_engine(pg)
        with engine.connect() as c:
            out["db_bytes"] = c.execute(text("select pg_database_size(current_database())")).scalar()
        engine.dispose()
    else:
        out["db_bytes"] = size(home / "pbem.db")[1]
        out["wal_bytes"] = size(home / "pbem.db-wal")[1] if (home / "pbem.db-wal").exists() else 0
    for folder in ("inbox", "processed", "rejected", "sent"):
        out[f"maildir_{folder}_files"], out[f"maildir_{folder}_bytes"] = size(home / "mail" / folder)
    out["outbox_sent_files"], out["outbox_sent_bytes"] = size(home / "outbox-sent")
    ledger = home / "outbox-sent" / "sent-ids.ledger"
    out["ledger_bytes"] = ledger.stat().st_size if ledger.exists() else 0
    out["log_bytes"] = size(home / "pbem.log")[1] if (home / "pbem.log").exists() else 0
    out["backups_files"], out["backups_bytes"] = size(backups)
    known = {"pbem.db", "pbem.db-wal", "pbem.db-shm", "mail", "outbox-sent", "pbem.log"}
    other = [p for p in home.iterdir() if p.name not in known]
    out["other_home_files"] = sorted(p.name for p in other)
    out["other_home_bytes"] = sum(size(p)[1] for p in other)
    out["machine_marks_files"], out["machine_marks_bytes"] = size(state) if state.exists() else (0, 0)
    out["rss_kb"] = rss_kb()
    out["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for kind in ("idle", "one"):
        times = week.get(kind, [])
        out[f"{kind}_poll_ms"] = round(1000 * statistics.median(times), 1) if times else None
    out["games_started"], out["games_ended"], out["games_abandoned"] = sim.started, sim.ended, sim.abandoned
    out["pruned_mails"], out["pruned_bytes"] = sim.pruned_mails, sim.pruned_bytes
    out["mails_read"], out["bounces"] = sim.replies + sim.bounces, sim.bounces
    out["moderator_told"] = dict(sorted(sim.told.items()))
    return out


def idle_against_fresh(base: Path, rounds: int) -> dict[str, object]:
    """The idle poll of the home in `base` (a finished run's) against a fresh home with as many running games,
    alternated, CPU seconds of each (`time.process_time`: the machine's load does not count), each run a new
    process's connections.  What is constant must stay so after months of history."""
    from pbem.app.cron import run_poll
    from pbem.home import config as config_mod
    from pbem.record.db import session
    from pbem.record.listing import all_games
    from pbem.record.store import control_state, is_over

    old = config_mod.load(base / "home" / "pbem.toml")
    now = datetime.fromisoformat((base / "home" / ".pbem-last-run").read_text().strip()) + timedelta(minutes=15)
    with session(old.database_url) as s:
        games = all_games(s)
        running = sum(1 for g in games if not is_over(s, g.id) and control_state(s, g.id) == "running")
    fresh_dir = Path(tempfile.mkdtemp(prefix="pbem-months-fresh-"))
    os.environ["XDG_STATE_HOME"] = str(fresh_dir / "state")
    new = make_home(fresh_dir / "home")
    clock = SimClock(now - timedelta(hours=1))
    sim = Sim(new, clock, Rng(init_state("fresh")))
    while len(sim.games) < running:
        start_game(sim)
    clock.now = now - timedelta(minutes=30)
    run_poll(new, clock=clock)  # the first reports out
    clock.now = now
    times: dict[str, list[float]] = {"months": [], "fresh": []}
    for i in range(2 * rounds + 2):
        which, cfg = ("months", old) if i % 2 == 0 else ("fresh", new)
        os.environ["XDG_STATE_HOME"] = str((base if which == "months" else fresh_dir) / "state")
        engines_seen[:] = [cfg.database_url]
        t = time.process_time()
        run = run_poll(cfg, clock=SimClock(now + timedelta(seconds=i)))
        dt = time.process_time() - t
        fresh_process()
        if i >= 2 and run.summary is None:  # the first of each may have had work; only idle runs count
            times[which].append(dt)
    m, f = statistics.median(times["months"]), statistics.median(times["fresh"])
    return {
        "running": running,
        "games": len(games),
        "idle_cpu_ms_months": round(1000 * m, 1),
        "idle_cpu_ms_fresh": round(1000 * f, 1),
        "months_over_fresh": round(m / f, 2),
        "idle_runs": [len(times["months"]), len(times["fresh"])],
    }


def options(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--days", type=int, default=182)
    ap.add_argument("--running", type=int, default=8, help="games kept running")
    ap.add_argument("--abandon-after", type=int, default=45, help="days; then the moderator abandons a game")
    ap.add_argument("--keep", type=int, default=7, help="backups kept (pbem backup --keep)")
    ap.add_argument("--seed", default="months")
    ap.add_argument("--every", default="5-60", help="minutes between two polls, drawn from LOW-HIGH")
    ap.add_argument("--prune", type=int, default=None, help="days; each night `pbem prune --older-than DAYSd`")
    ap.add_argument("--pg", default=None, help="a PostgreSQL URL whose database is emptied and used")
    ap.add_argument("--home", default=None, help="folder for the home (default: a new temporary one)")
    ap.add_argument("--idle-only", default=None, help="a finished run's folder: its idle poll against a fresh home's")
    ap.add_argument("--rounds", type=int, default=15, help="idle polls of each home (--idle-only, and at the end)")
    ap.add_argument(
        "--restore-day",
        type=int,
        action="append",
        default=None,
        help="day; then the machine is lost: the newest backup restored on another one (months7; again: each)",
    )
    ap.add_argument("--figures", default=None, help="a finished --restore-day run's folder: its restore figures")
    return ap.parse_args(argv)


def restore_figures(base: Path) -> dict[str, object]:
    """After a `--restore-day` run (months8), over the Maildir `sent` folder both homes wrote: the Message-IDs sent
    twice with the same bytes (a mail sent again), those sent twice with other bytes (an id reused for another
    mail), and the moderator's mails saying the nightly backup stopped (every night has one here: each is false)."""
    import collections
    import re

    newest = max(base.glob("home-restored*"), key=lambda p: (len(p.name), p.name))  # the last restore's
    sent = mailbox.Maildir(str(newest / "mail" / "sent"), factory=None, create=False)
    by_id: dict[bytes, list[bytes]] = collections.defaultdict(list)
    stopped = 0
    for k in sent.iterkeys():
        raw = sent.get_bytes(k)
        if m := re.search(rb"^Message-ID: *(\S+)", raw, re.M | re.I):
            by_id[m.group(1)].append(raw)
        if b"nightly one stopped" in raw.replace(b"=\n", b"").replace(b"\n", b" "):
            stopped += 1
    twice = sum(1 for raws in by_id.values() if len(raws) > 1 and len(set(raws)) < len(raws))
    reused = sum(1 for raws in by_id.values() if len(set(raws)) > 1)
    stems: dict[bytes, set[bytes]] = collections.defaultdict(set)  # each id's forms: without an epoch, with each
    for mid in by_id:
        stems[re.sub(rb"\.[0-9a-f]{8}@", b"@", mid)].add(mid)
    from email.utils import parsedate_to_datetime

    def head(mid: bytes) -> bytes:
        return by_id[mid][0].split(b"\n\n", 1)[0].replace(b"\n ", b" ").replace(b"\n\t", b" ")

    def dated(mid: bytes) -> object:
        found = re.search(rb"^Date: *(.*)$", head(mid), re.M | re.I)
        return parsedate_to_datetime(found.group(1).decode()) if found else None

    again = apart = 0  # made again after a restore (a form of its id sent before it), not threaded with those
    for forms in stems.values():
        ordered = sorted(forms, key=lambda m: (dated(m), m))
        for i, mid in enumerate(ordered[1:], start=1):
            again += 1
            refs = re.search(rb"^References: *(.*)$", head(mid), re.M | re.I)
            apart += refs is None or not set(ordered[:i]) & set(refs.group(1).split())
    return {"restore_figures": str(base), "mails": sum(map(len, by_id.values())), "sent_twice": twice,
            "ids_reused": reused, "nightly_stopped_told": stopped, "made_again": again,
            "made_again_apart": apart}  # fmt: skip


def main() -> None:
    args = options()
    if args.idle_only:
        print(json.dumps(idle_against_fresh(Path(args.idle_only), args.rounds)))
        return
    if args.figures:
        print(json.dumps(restore_figures(Path(args.figures))))
        return
    base = simulate(args, lambda row: print(json.dumps(row), flush=True))
    fresh_process()
    if (base / "home-restored").is_dir():
        print(json.dumps(restore_figures(base)), flush=True)
    if not args.pg:
        print(json.dumps(idle_against_fresh(base, args.rounds)))


#: What `same` leaves out of the record: values drawn from the machine's randomness or read from its clock, which
#: no seed gives (each game's signing key, sealed with a fresh nonce; the home's own id; the code hashes, keyed by
#: the home's key file; the times a secret or mark was written).  Everything else two runs of a seed write alike.
UNSEEDED = {
    "games": ("signing_key",),
    "seats": ("code_hash",),
    "home_secrets": ("value", "created_at"),
    "poll_marks": ("value", "updated_at"),
}
#: The figures of a weekly line that measure the machine (times, memory), not the home.
TIMED = ("rss_kb", "maxrss_kb", "idle_poll_ms", "one_poll_ms", "seconds", "home")


def same(url: str) -> dict[str, list[tuple[object, ...]]]:
    """The record at `url`, table by table, each row in its columns' order less `UNSEEDED`: two runs of one seed
    give the same (`tests/test_months_reproducible.py`)."""
    from sqlalchemy import create_engine, inspect, text

    engine = create_engine(url)
    out: dict[str, list[tuple[object, ...]]] = {}
    with engine.connect() as c:
        for table in sorted(inspect(c).get_table_names()):
            cols = [x["name"] for x in inspect(c).get_columns(table) if x["name"] not in UNSEEDED.get(table, ())]
            order = ", ".join(f'"{x}"' for x in cols)
            rows = c.execute(text(f'SELECT {order} FROM "{table}" ORDER BY {order}'))
            out[table] = [tuple(r) for r in rows]
    engine.dispose()
    return out


@contextlib.contextmanager
def seeded_game_keys(seed: str) -> Iterator[None]:
    """Each new game's signing key drawn from the run's seed (a benchmark's only: a real game's key is drawn from
    the machine), so that two runs of a seed sign their mails alike; pbem's own drawing is put back after."""
    import hashlib

    from pbem.trust import signing

    made = 0

    def new_key() -> str:
        nonlocal made
        made += 1
        return hashlib.sha256(f"pbem months benchmark {seed} key {made}".encode()).hexdigest()

    drawn = signing.new_key
    signing.new_key = new_key
    try:
        yield
    finally:
        signing.new_key = drawn


def simulate(args: argparse.Namespace, report: Callable[[dict], None]) -> Path:
    """The run of `args` (`options`): its weekly lines given to `report`; returns the run's folder."""
    with seeded_game_keys(args.seed):
        return _simulate(args, report)


def _simulate(args: argparse.Namespace, report: Callable[[dict], None]) -> Path:
    from pbem.app.backup import dated, take
    from pbem.app.backup_clear import cleared
    from pbem.app.cron import run_poll
    from pbem.app.prune import prune
    from pbem.home.app import Home
    from pbem.home.logs import setup
    from pbem.record.db import migrate

    base = Path(args.home or tempfile.mkdtemp(prefix="pbem-months-"))
    base.mkdir(parents=True, exist_ok=True)
    home, backups, state = base / "home", base / "backups", base / "state"
    os.environ["XDG_STATE_HOME"] = str(state)
    if args.pg:
        from sqlalchemy import create_engine, text

        engine = create_engine(args.pg)
        with engine.begin() as c:
            c.execute(text("drop schema public cascade; create schema public"))
        engine.dispose()
    cfg = make_home(home, args.pg, extra='\n[log]\nfile = "pbem.log"\n')
    migrate(cfg.database_url)  # (`pbem init` made the schema in the SQLite file it first named)
    seeded_key(cfg.database_url, args.seed)
    from alembic import command

    from pbem.record.db import alembic_config

    setup("INFO", cfg.log_file, secrets=[], stderr=False)
    engines_seen.append(cfg.database_url)
    clock = SimClock(START)
    sim = Sim(cfg, clock, Rng(init_state(args.seed)), seed=args.seed)
    upgraded = False
    start_game(sim, vanished=True)  # every player of this one vanishes
    while len(sim.games) < args.running:
        start_game(sim)
    end = START + timedelta(days=args.days)
    next_week = START + timedelta(days=7)
    next_backup = START.replace(hour=3) + timedelta(days=1)
    week: dict[str, list[float]] = {}
    polls = 0
    t0 = time.perf_counter()
    report({"home": str(base), "days": args.days, "running": args.running, "pg": bool(args.pg)})
    low, high = (int(x) for x in args.every.split("-"))
    while clock.now < end:
        clock.now += minutes(sim.rng, low, high)
        replies = due_replies(sim)
        t = time.perf_counter()
        run = run_poll(cfg, clock=clock)
        dt = time.perf_counter() - t
        polls += 1
        s = run.summary
        if s is None or (s.read == 0 and s.sent == 0 and s.deadlines == 0 and s.reminders == 0):
            week.setdefault("idle", []).append(dt)
        elif s.read == 1 and replies == 1:
            week.setdefault("one", []).append(dt)
        read_sent(sim)
        retire_games(sim, timedelta(days=args.abandon_after))
        while len(sim.games) < args.running:
            start_game(sim)
        if not upgraded and clock.now >= START + timedelta(days=args.days // 2):
            upgraded = True
            try:
                command.downgrade(alembic_config(cfg.database_url), "0017")  # a home of before 0018 ...
            except RuntimeError as refused:  # 0021's, once `--prune` pruned a mail (months3)
                report({"day": (clock.now - START).days, "downgrade_refused": str(refused)})
            migrate(cfg.database_url)  # ... and `pbem upgrade`: 0018-0021 run on half a year's record
        if args.restore_day and clock.now >= START + timedelta(days=args.restore_day[0], hours=15):
            args.restore_day.pop(0)
            cfg = sim.cfg = restored_elsewhere(cfg, backups, base, clock, report)  # type: ignore[assignment]
            home, state = cfg.home, Path(os.environ["XDG_STATE_HOME"])  # type: ignore[attr-defined]
        if clock.now >= next_backup:
            taken = take(cfg, backups, dated(clock.now), clock.now, 900)
            cleared(taken, args.keep, 3600)
            next_backup += timedelta(days=1)
            if args.prune is not None:  # after the backup, as a moderator's nightly cron would
                done = prune(Home.of(cfg, clock=clock), timedelta(days=args.prune), clock.now)
                sim.pruned_mails, sim.pruned_bytes = sim.pruned_mails + done.mails, sim.pruned_bytes + done.freed
        fresh_process()  # each cron run is a new process: its connections closed (SQLite folds its -wal back)
        if clock.now >= next_week:
            row = measure(sim, home, backups, state, args.pg, week)
            row["polls"], row["seconds"] = polls, round(time.perf_counter() - t0, 1)
            report(row)
            week = {}
            next_week += timedelta(days=7)
    if clock.now - START < timedelta(days=7) or clock.now - next_week + timedelta(days=7) >= timedelta(days=1):
        row = measure(sim, home, backups, state, args.pg, week)  # the end, when it is not a week's
        row["polls"], row["seconds"] = polls, round(time.perf_counter() - t0, 1)
        report(row)
    fresh_process()
    return base


def restored_elsewhere(
    cfg: object, backups: Path, base: Path, clock: SimClock, report: Callable[[dict], None]
) -> object:
    """The machine lost (months7): the newest backup restored as README "Backups" says on another machine (its own
    state folder), into a new folder: the backup's files, its `sent-ids.ledger` (the old home's is lost with the
    machine) and the old Maildir, which stands for the mail server; polled, refused, then `--trust-clock`.  Reported:
    the Message-IDs the Maildir's `sent` holds twice after that run, and the run's notes."""
    import collections
    import re
    import shutil

    from pbem.app.cron import run_poll
    from pbem.home import config as config_mod
    from pbem.mail.transports.seam import TransportError
    from pbem.record.sentlog import DIRECTORY, LEDGER

    old: Path = cfg.home  # type: ignore[attr-defined]
    backup = max(p for p in backups.iterdir() if p.is_dir() and not p.name.startswith("."))
    done = len(list(base.glob("home-restored*")))
    new = base / ("home-restored" + (f"-{done + 1}" if done else ""))
    new.mkdir()
    shutil.copytree(old / "mail", new / "mail")
    for name in ("pbem.db", "game-keys.secret", "outbox.key", "pbem.toml"):
        if (backup / name).exists():
            shutil.copy2(backup / name, new / name)
    if (backup / "pbem.pgdump").exists():  # PostgreSQL (`--pg`): the dump put back as README says (months9)
        _pg_restore(cfg.database_url, backup / "pbem.pgdump")  # type: ignore[attr-defined]
    (new / DIRECTORY).mkdir()
    if (backup / LEDGER).exists():
        shutil.copy2(backup / LEDGER, new / DIRECTORY / LEDGER)
    fresh_process()
    os.environ["XDG_STATE_HOME"] = str(base / ("state-restored" + (f"-{done + 1}" if done else "")))
    restored = config_mod.load(new / "pbem.toml")
    engines_seen[:] = [restored.database_url]
    try:
        run = run_poll(restored, clock=clock)
        refused = ""
    except TransportError as exc:
        refused = str(exc)[:120]
        run = run_poll(restored, clock=clock, trust_clock=True)
    sent = mailbox.Maildir(str(new / "mail" / "sent"), factory=None, create=False)
    ids = collections.Counter(
        m.group(1) for k in sent.iterkeys() if (m := re.search(rb"^Message-ID: *(\S+)", sent.get_bytes(k), re.M | re.I))
    )
    report(
        {
            "day": (clock.now - START).days,
            "restored": backup.name,
            "refused": refused,
            "sent_twice": sum(1 for n in ids.values() if n > 1),
            "notes": run.summary.told if run.summary is not None else [],
        }
    )
    return restored


def _pg_restore(url: str, dump: Path) -> None:
    """`pg_restore --clean --if-exists --no-owner --single-transaction` of `dump` into the database at `url`."""
    import subprocess

    from sqlalchemy.engine import make_url

    fresh_process()  # the old machine's connections: gone with it
    made = make_url(url)
    env = dict(os.environ, **({"PGPASSWORD": str(made.password)} if made.password else {}))
    plain = made.set(drivername="postgresql", password=None).render_as_string(hide_password=False)
    command = ["pg_restore", "--clean", "--if-exists", "--no-owner", "--single-transaction", f"--dbname={plain}"]
    subprocess.run([*command, str(dump)], env=env, check=True, capture_output=True, timeout=600)


def seeded_key(url: str, seed: str) -> None:
    """The home's Message-ID key drawn from the run's seed, not from the machine (a benchmark's home only: a real
    home's key is its own secret), so that two runs of a seed write the same Message-IDs."""
    import hashlib

    from sqlalchemy import create_engine, text

    from pbem.record.home_secrets import MESSAGE_ID

    key = hashlib.sha256(f"pbem months benchmark {seed}".encode()).hexdigest()
    engine = create_engine(url)
    with engine.begin() as c:
        c.execute(text("UPDATE home_secrets SET value = :v WHERE name = :n"), {"v": key, "n": MESSAGE_ID})
    engine.dispose()


if __name__ == "__main__":
    main()
