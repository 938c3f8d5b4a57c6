"""Run `pbem poll` exactly as cron does, with test-only kill points and faults.

    python -m tests.reliability.killpoints --config HOME/pbem.toml poll

is `python -m pbem ...` with hooks installed from the environment first (so
the product code carries no test switches):

PBEM_TEST_KILL_AT="STAGE:N"   the process SIGKILLs itself at the N-th time
    (1-based, counted within this run) it reaches STAGE:
      fetch   a message was fetched; before it is handled
      txn     inside the message's transaction: everything recorded and
              queued (flushed), not yet committed
      commit  committed; before the message is moved out of the inbox
              (Maildir move, or the IMAP MOVE to the processed folder)
      send    the N-th outgoing mail was delivered (written to the sent
              Maildir, or accepted by the SMTP server); before it is marked sent
      presend before the N-th outgoing mail is delivered
      journal the N-th sent mail's line was written to the sender's journal
              (`pbem.record.sentlog`); before any fold into the outbox
    The stages hook the product's own seams (`pbem.app.poll.handle`,
    `pbem.app.poll.decide_and_apply`, `Inbox.settle`, `Sender.send`) on both transports:
    MaildirInbox/ImapInbox and MaildirSender/SmtpSender.
    Just before dying it appends "STAGE:N" to PBEM_TEST_KILL_LOG (if set),
    so the test knows which stage was really hit.
PBEM_TEST_NO_FLOCK=1          skip pbem's own poll lock, so concurrent runs
    really overlap on the database and the Maildir (tests the database-level
    safety, not just the lock).
PBEM_TEST_FAULT=NAME          make one dependency fail:
      smtp-down        real SmtpSender against a closed port, Maildir inbox
      send-enospc      the Maildir sender raises OSError(ENOSPC)
      settle-enospc    moving a message out of the inbox raises OSError(ENOSPC)
      dns-hang         the resolver never answers for a name ending in ".hang.test" (getaddrinfo, and
                       getfqdn when the machine's name does): a lookup waits as on a dead DNS server
PBEM_TEST_BUSY_MS=N           SQLite busy timeout (default 30 s) for lock tests.
PBEM_TEST_CLOCK_SHIFT=S       the run's clock is S seconds ahead (a later cron run,
    past the outbox's retry backoff).
"""

from __future__ import annotations

import errno
import os
import signal
import sys

from pbem.home.app import Home


def _die(stage: str, n: int) -> None:
    log = os.environ.get("PBEM_TEST_KILL_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"{stage}:{n}\n")
            f.flush()
            os.fsync(f.fileno())
    os.kill(os.getpid(), signal.SIGKILL)


def install() -> None:
    _install_knobs()
    spec = os.environ.get("PBEM_TEST_KILL_AT", "")
    if not spec:
        return
    _install_kill_point(spec)


def _install_knobs() -> None:
    """The environment's other test settings: a busy timeout, no flock, a fixed or shifted clock, a fault."""
    busy = os.environ.get("PBEM_TEST_BUSY_MS")
    if busy:
        from pbem.record import db

        db.BUSY_TIMEOUT_MS = int(busy)
    if os.environ.get("PBEM_TEST_NO_FLOCK"):
        import fcntl

        fcntl.flock = lambda *a, **k: None  # type: ignore[assignment]
    at = os.environ.get("PBEM_TEST_CLOCK_AT")
    if at:  # a fixed instant (ISO 8601), the clock a test's in-process reference run was given
        import dataclasses
        from datetime import datetime

        from pbem.app import poll as mod

        when = datetime.fromisoformat(at)
        fixed_poll = mod.poll

        def poll_at(home, dry_run=False):
            return fixed_poll(dataclasses.replace(home, clock=lambda: when), dry_run=dry_run)

        mod.poll = poll_at
    shift = os.environ.get("PBEM_TEST_CLOCK_SHIFT")
    if shift:
        import dataclasses
        from datetime import timedelta

        from pbem.app import poll as mod
        from pbem.record.store import now_utc

        orig_poll = mod.poll

        def poll(home, dry_run=False):
            shifted = dataclasses.replace(home, clock=lambda: now_utc() + timedelta(seconds=float(shift)))
            return orig_poll(shifted, dry_run=dry_run)

        mod.poll = poll
    fault = os.environ.get("PBEM_TEST_FAULT", "")
    if fault:
        _install_fault(fault)


def _install_kill_point(spec: str) -> None:
    """PBEM_TEST_KILL_AT=stage[:n]: the process dies at the n-th pass through that stage."""
    stage, _, n_text = spec.partition(":")
    target = int(n_text or "1")
    counts = {"n": 0}

    def hit() -> bool:
        counts["n"] += 1
        return counts["n"] == target

    from pbem.app import poll as moderator
    from pbem.mail.transports import imap, maildir, smtp

    inboxes = (maildir.MaildirInbox, imap.ImapInbox)
    senders = (maildir.MaildirSender, smtp.SmtpSender)

    if stage == "fetch":
        orig_handle = moderator.handle

        def handle(*a, **k):
            if hit():
                _die(stage, target)
            return orig_handle(*a, **k)

        moderator.handle = handle
    elif stage == "txn":
        orig_decide = moderator.decide_and_apply

        def decide(s, *a, **k):
            result = orig_decide(s, *a, **k)
            if hit():
                s.flush()  # rows written inside the open transaction, never committed
                _die(stage, target)
            return result

        moderator.decide_and_apply = decide
    elif stage == "commit":
        for cls in inboxes:
            cls.settle = _settle_hook(cls.settle, stage, target, hit)
    elif stage in ("send", "presend"):
        for cls in senders:
            cls.send = _send_hook(cls.send, stage, target, hit)
    elif stage == "journal":
        from pbem.record import sentlog

        orig_record = sentlog.SentLog.record

        def record(self, oid):
            orig_record(self, oid)
            if hit():
                _die(stage, target)

        sentlog.SentLog.record = record  # type: ignore[method-assign]
    else:
        raise SystemExit(f"unknown kill stage {stage!r}")


def _settle_hook(orig_settle, stage: str, target: int, hit):
    def settle(self, key, accepted):
        if hit():
            _die(stage, target)
        return orig_settle(self, key, accepted)

    return settle


def _send_hook(orig_send, stage: str, target: int, hit):
    def send(self, raw, sender, recipients):
        if stage == "presend" and hit():
            _die(stage, target)
        orig_send(self, raw, sender, recipients)
        if stage == "send" and hit():
            _die(stage, target)

    return send


def _install_fault(fault: str) -> None:
    from pbem.mail.transports import maildir
    from pbem.mail.transports import seam as transport

    if fault == "smtp-down":
        from pbem.mail.transports.smtp import SmtpSender

        port = int(os.environ.get("PBEM_TEST_SMTP_PORT", "9"))

        def transports(cfg):
            return maildir.MaildirInbox(cfg.maildir_path), SmtpSender("127.0.0.1", port, timeout=5)

        transport.open_transport = transports
    elif fault == "send-enospc":

        def send(self, raw, sender, recipients):
            raise OSError(errno.ENOSPC, "No space left on device")

        maildir.MaildirSender.send = send
    elif fault == "settle-enospc":

        def settle(self, key, accepted):
            raise OSError(errno.ENOSPC, "No space left on device")

        maildir.MaildirInbox.settle = settle
    elif fault == "dns-hang":
        import socket
        import threading

        never = threading.Event()
        real_getaddrinfo, real_getfqdn = socket.getaddrinfo, socket.getfqdn

        def getaddrinfo(host, *args, **kwargs):
            flags = args[4] if len(args) > 4 else kwargs.get("flags", 0)
            if isinstance(host, str) and host.endswith(".hang.test") and not flags & socket.AI_NUMERICHOST:
                never.wait()  # the process ends first
            return real_getaddrinfo(host, *args, **kwargs)

        def getfqdn(name=""):
            if (name or socket.gethostname()).endswith(".hang.test"):
                never.wait()
            return real_getfqdn(name)

        socket.getaddrinfo, socket.getfqdn = getaddrinfo, getfqdn
    else:
        raise SystemExit(f"unknown fault {fault!r}")


if __name__ == "__main__":
    install()
    from pbem.cli import app

    sys.argv[0] = "pbem"
    app(prog_name="pbem")


# --------------------------------------------------------------------------- scenario helpers for the tests

PYTHON = sys.executable
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]


def code_for(game: str, player: str) -> str:
    import hashlib

    d = hashlib.sha256(f"{game}:{player}".encode()).hexdigest().upper()
    return f"{d[:4]}-{d[4:8]}"


def address(game: str, player: str) -> str:
    return f"{player.lower()}.{game}@players.test"


def make_home(path, replies_per_hour: int = 1_000_000):
    """A fresh moderator home (SQLite + Maildir) with the reply cap lifted (it is not under test here)."""
    from pathlib import Path

    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    cfg_path = init_home(Path(path), address="moderator@pbem.test", name="Test Moderator")
    text = cfg_path.read_text().replace("replies_per_hour = 30", f"replies_per_hour = {replies_per_hour}")
    cfg_path.write_text(text)
    cfg = config_mod.load(cfg_path)
    share_message_id_secret(cfg)
    return cfg


TEST_MESSAGE_ID_SECRET = "7e57" * 16


def share_message_id_secret(cfg) -> None:
    """Every home made here keys Message-IDs with one secret, so that two homes fed the same mail (a reference
    run and a crashed run) queue the same IDs and their records compare row for row."""
    from datetime import UTC, datetime

    from sqlalchemy import text

    from pbem.record.db import session

    with session(cfg.database_url) as s:
        conn = s.connection()
        conn.execute(text("DELETE FROM home_secrets WHERE name = 'message-id'"))
        conn.execute(
            text("INSERT INTO home_secrets (name, value, created_at) VALUES ('message-id', :v, :t)"),
            {"v": TEST_MESSAGE_ID_SECRET, "t": datetime.now(UTC).replace(tzinfo=None)},
        )
        s.commit()


GAMES = [
    ("habsburg", 3),
    ("dynasties", 3),
    ("italian-wars", 2),
    ("habsburg", 4),
    ("dynasties", 2),
    ("italian-wars", 2),
    ("habsburg", 3),
    ("dynasties", 4),
]


def plan_games(total: int, games=GAMES, seed: str = "crash"):
    """Bot-played inputs for several games, cut so that `total` order messages are needed in all.

    Returns [(kind, name, players, seed, [(player, lines), ...])].
    """
    from pbem import engine as registry
    from pbem.engine.bots import play

    plans = []
    for i, (kind, n) in enumerate(games):
        name = f"{kind[:2]}{i}"
        players = NAMES[:n]
        pt = play(registry.get(kind), players, f"{seed}-{i}", bot_seed=f"{seed}-bots-{i}")
        plans.append([kind, name, players, f"{seed}-{i}", list(pt.inputs)])
    full = [list(p[4]) for p in plans]
    want = [0] * len(plans)
    left = total
    while left > 0:  # deal the messages out one game at a time, as long as games have inputs
        progressed = False
        for j in range(len(plans)):
            if left and want[j] < len(full[j]):
                want[j] += 1
                left -= 1
                progressed = True
        if not progressed:
            raise ValueError(f"the games hold only {total - left} inputs, not {total}")
    out = []
    for j, p in enumerate(plans):
        p[4] = full[j][: want[j]]
        out.append(p)
    return out


def create_games(cfg, plans) -> None:
    """Create the planned games (their codes keyed with the home's key file, as in production)."""
    from pbem.app import games as moderator

    for kind, name, players, seed, _ in plans:
        moderator.create_game(
            Home.of(cfg),
            kind,
            name,
            [(p, address(name, p)) for p in players],
            seed=seed,
            codes={p: code_for(name, p) for p in players},
        )


def order_messages(plans) -> list[bytes]:
    """One order email per input, games interleaved round-robin (each game's inputs in order)."""
    from email.message import EmailMessage

    queues = [(name, list(inputs)) for _, name, _, _, inputs in plans]
    out: list[bytes] = []
    n = 0
    while any(q for _, q in queues):
        for name, q in queues:
            if not q:
                continue
            player, lines = q.pop(0)
            n += 1
            msg = EmailMessage()
            msg["From"] = f"{player} <{address(name, player)}>"
            msg["To"] = "moderator@pbem.test"
            msg["Subject"] = f"Re: [pbem {name}] orders"
            msg["Date"] = "Mon, 05 Jan 2026 12:00:00 +0000"
            msg["Message-ID"] = f"<order-{n:05d}.{name}@players.test>"
            msg.set_content("\n".join([f"CODE {code_for(name, player)}", *lines]) + "\n")
            out.append(msg.as_bytes())
    return out


_SEQ = {"n": 0}


def deliver_in_order(cfg, raws: list[bytes]) -> None:
    """Drop messages into the Maildir inbox so that pbem fetches them in this order (by mtime)."""
    import time
    from pathlib import Path

    new = Path(cfg.maildir_path) / "inbox" / "new"
    new.mkdir(parents=True, exist_ok=True)
    for d in ("cur", "tmp"):
        (new.parent / d).mkdir(exist_ok=True)
    base = time.time_ns()
    for raw in raws:
        _SEQ["n"] += 1
        name = f"{base // 10**9}.M{_SEQ['n']:07d}P{os.getpid()}.test"
        path = new / name
        path.write_bytes(raw)
        ns = base + _SEQ["n"] * 1000
        os.utime(path, ns=(ns, ns))


def inbox_count(cfg, folder: str = "inbox") -> int:
    """Messages in one of the home's Maildirs: inbox (default), processed, rejected or sent."""
    from pathlib import Path

    root = Path(cfg.maildir_path) / folder
    return sum(
        1 for d in ("new", "cur") if (root / d).is_dir() for p in (root / d).iterdir() if not p.name.startswith(".")
    )


def run_poll(cfg, env: dict | None = None, timeout: float = 300, wrapper: bool = True):
    """One `pbem poll` in its own process; returns CompletedProcess.

    The process is forked from a server that has imported pbem once (`tests.reliability.forkserver`: a
    real process, killed for real, without paying Python's and pbem's start-up on every run);
    PBEM_TEST_FORKSERVER=0 starts `python -m ...` from scratch instead."""
    import subprocess

    full = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_TEST_")}
    full.update(env or {})
    full["PYTHONPATH"] = REPO + os.pathsep + full.get("PYTHONPATH", "")
    if os.environ.get("PBEM_TEST_FORKSERVER", "1") != "0":
        from tests.reliability import forkserver

        return forkserver.server().run(["--config", str(cfg.path), "poll"], full, REPO, wrapper, timeout)
    mod = "tests.reliability.killpoints" if wrapper else "pbem"
    return subprocess.run(
        [PYTHON, "-m", mod, "--config", str(cfg.path), "poll"],
        cwd=REPO,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def polls_together(cfg, n: int, env: dict | None = None, wrapper: bool = True, timeout: float = 300) -> list:
    """`n` `pbem poll` processes on `cfg` started at the same time: (exit status, stdout, stderr) of each.

    Forked together from the fork server (`run_poll` says why): each is a process of its own, with its own flock,
    and they start within milliseconds of each other, so they overlap at least as much as `n` Pythons started one
    after another (about 0.95 CPU s each to start, imports and all, which the polls did not test).
    PBEM_TEST_FORKSERVER=0 starts `python -m ...` for each as before (`start_poll`)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_TEST_")}
    full.update(env or {})
    full["PYTHONPATH"] = REPO + os.pathsep + full.get("PYTHONPATH", "")
    if os.environ.get("PBEM_TEST_FORKSERVER", "1") != "0":
        from tests.reliability import forkserver

        runs = [["--config", str(cfg.path), "poll"]] * n
        done = forkserver.server().run_many(runs, full, REPO, timeout, wrapper=wrapper)
        for r in done:
            if isinstance(r, BaseException):
                raise r
        return [(r.returncode, r.stdout, r.stderr) for r in done]
    procs = [start_poll(cfg, env, wrapper=wrapper) for _ in range(n)]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=timeout)
        out.append((p.returncode, stdout, stderr))
    return out


def start_poll(cfg, env: dict | None = None, wrapper: bool = True):
    import subprocess

    full = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_TEST_")}
    full.update(env or {})
    full["PYTHONPATH"] = REPO + os.pathsep + full.get("PYTHONPATH", "")
    mod = "tests.reliability.killpoints" if wrapper else "pbem"
    return subprocess.Popen(
        [PYTHON, "-m", mod, "--config", str(cfg.path), "poll"],
        cwd=REPO,
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def record_digest(cfg) -> dict:
    """The record without ids, clocks or raw bytes: what must be equal between two runs on the same mail."""
    import sqlite3

    path = cfg.database_url.removeprefix("sqlite:///")
    con = sqlite3.connect(path)
    try:
        q = lambda sql: [tuple(r) for r in con.execute(sql).fetchall()]  # noqa: E731
        return {
            "games": q("SELECT name, kind, seed, players_json FROM games ORDER BY name"),
            "inbound": q(
                "SELECT message_id, body_hash, sender, g.name, player, outcome, reason FROM inbound_messages i "
                "LEFT JOIN games g ON g.id = i.game_id ORDER BY i.id"
            ),
            "orders": q(
                "SELECT g.name, o.seq, o.kind, o.player, o.lines_json, i.message_id FROM orders o "
                "JOIN games g ON g.id = o.game_id LEFT JOIN inbound_messages i ON i.id = o.inbound_id "
                "ORDER BY g.name, o.seq"
            ),
            "events": q(
                "SELECT g.name, e.seq, e.input_seq, e.kind, e.text, e.visibility_json, e.data_json FROM events e "
                "JOIN games g ON g.id = e.game_id ORDER BY g.name, e.seq"
            ),
            "snapshots": q(
                "SELECT g.name, s.seq, s.step, s.over, s.state_json FROM snapshots s "
                "JOIN games g ON g.id = s.game_id ORDER BY g.name, s.seq"
            ),
            "deadlines": q(
                "SELECT g.name, d.step, d.reason FROM deadlines d JOIN games g ON g.id = d.game_id "
                "ORDER BY g.name, d.id"
            ),
            "outbox": q(
                "SELECT message_id, g.name, player, purpose, upto_seq, to_addr, status FROM outbox o "
                "LEFT JOIN games g ON g.id = o.game_id ORDER BY o.id"
            ),
        }
    finally:
        con.close()


def delivered(cfg) -> dict[str, int]:
    """Message-ID -> how many times it was written to the `sent` Maildir."""
    from pathlib import Path

    counts: dict[str, int] = {}
    root = Path(cfg.maildir_path) / "sent"
    for d in ("new", "cur"):
        if not (root / d).is_dir():
            continue
        for p in (root / d).iterdir():
            count_message_id(counts, p.read_bytes().split(b"\n\n", 1)[0], f"?{p.name}")
    return counts


def count_message_id(counts: dict[str, int], head: bytes, fallback: str) -> None:
    """Count the Message-ID found in a message's headers (`fallback` where it has none)."""
    import re

    m = re.search(r"(?im)^Message-ID:\s*(<[^>]+>)", head.decode("utf-8", "replace"))
    key = m.group(1) if m else fallback
    counts[key] = counts.get(key, 0) + 1


# --------------------------------------------------------------------------- the two transports under the crash test


class MaildirMail:
    """The embedded transport: orders dropped into the home's Maildir inbox, sent mail read from its `sent`."""

    name = "maildir"

    def __init__(self) -> None:
        self.env: dict[str, str] = {}

    def wire(self, cfg) -> None:
        pass

    def as_fetched(self, raw: bytes) -> bytes:
        return raw

    def deliver(self, cfg, raws: list[bytes]) -> None:
        deliver_in_order(cfg, raws)

    def inbox_count(self, cfg) -> int:
        return inbox_count(cfg)

    def filed(self, cfg) -> int:
        """Messages moved out of the inbox (processed or rejected)."""
        return inbox_count(cfg, "processed") + inbox_count(cfg, "rejected")

    def delivered(self, cfg) -> dict[str, int]:
        return delivered(cfg)


MODERATOR = "moderator@pbem.test"  # make_home's address, also the moderator's IMAP/SMTP login
MAIL_PASSWORD_ENV = "PBEM_TEST_MAIL_PASSWORD"


def mail_users(plans, password: str) -> dict[str, str]:
    """The moderator and every seat's address as mail server users (address -> password)."""
    users = {MODERATOR: password}
    for _, name, players, _, _ in plans:
        users.update({address(name, p): password for p in players})
    return users


class ImapMail:
    """Real servers (`tests.servers.testservers.debian_mail_servers`): orders APPENDed in order to the
    moderator's Dovecot INBOX, pbem configured for IMAP + SMTP, its mail sent to Postfix, which
    delivers it over LMTP to each player's Dovecot INBOX, where it is counted by Message-ID."""

    name = "imap"

    def __init__(self, servers, password: str) -> None:
        self.servers = servers
        self.env = {MAIL_PASSWORD_ENV: password}

    def wire(self, cfg) -> None:
        self.servers.wire_home(cfg.path, MODERATOR, MAIL_PASSWORD_ENV)

    def as_fetched(self, raw: bytes) -> bytes:
        """The bytes IMAP hands back for `raw` (APPEND stores CRLF line ends): what pbem hashes."""
        import re

        return re.sub(rb"\r?\n", b"\r\n", raw)

    def deliver(self, cfg, raws: list[bytes]) -> None:
        from tests.servers.testservers import _nodelay

        with self.servers.imap(MODERATOR) as client:
            _nodelay(client)
            for raw in raws:  # one APPEND each: UIDs, and so pbem's fetch order, follow the list
                client.append("INBOX", raw)

    def inbox_count(self, cfg, folders: tuple[str, ...] = ("INBOX",)) -> int:
        with self.servers.imap(MODERATOR) as client:
            count = 0
            for folder in folders:
                if client.folder_exists(folder):
                    client.select_folder(folder, readonly=True)
                    count += len(client.search(["NOT", "DELETED"]))
            return count

    def filed(self, cfg) -> int:
        """Messages moved out of the INBOX (pbem's default processed and rejected folders)."""
        return self.inbox_count(cfg, ("pbem/processed", "pbem/rejected"))

    def _wait_for_postfix(self, timeout: float = 60) -> None:
        """Until Postfix's queue is empty: every accepted message delivered (or bounced)."""
        import time
        from pathlib import Path

        queue = Path(self.servers.root) / "postfix" / "queue"
        deadline = time.monotonic() + timeout
        while True:
            waiting = [
                p
                for d in ("maildrop", "incoming", "active", "deferred", "hold")
                if (queue / d).is_dir()
                for p in (queue / d).rglob("*")
                if p.is_file()
            ]
            if not waiting:
                return
            if time.monotonic() > deadline:
                log = (Path(self.servers.root) / "log" / "postfix.log").read_text(errors="replace")
                raise AssertionError(
                    f"{len(waiting)} messages still in Postfix's queue after {timeout:.0f} s:\n{log[-3000:]}"
                )
            time.sleep(0.1)

    def delivered(self, cfg) -> dict[str, int]:
        """Message-ID -> how many times it reached a player's INBOX (once Postfix's queue is empty)."""
        self._wait_for_postfix()
        counts: dict[str, int] = {}
        for user in self.servers.users:
            if user == MODERATOR:
                continue
            with self.servers.imap(user) as client:
                client.select_folder("INBOX", readonly=True)
                uids = client.search(["ALL"])
                if not uids:
                    continue
                data = client.fetch(uids, [b"BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)]"])
                for uid in uids:
                    count_message_id(counts, bytes(data[uid][b"BODY[HEADER.FIELDS (MESSAGE-ID)]"]), f"?{user}:{uid}")
        return counts
