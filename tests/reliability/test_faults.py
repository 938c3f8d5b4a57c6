"""Faults: each `pbem poll` that cannot go on exits 3 with one line saying why, loses
nothing, and the next run recovers without help.

Mail servers: the real pymap + aiosmtpd pair (stopped, or given a wrong
password).  Database locked: another connection holds SQLite's write lock.
Disk full: the Maildir sender or the inbox move raises ENOSPC (a tiny tmpfs
is not available in CI).  Corrupted snapshot: the newest snapshot's JSON is
overwritten with garbage; the state must be rebuilt by replay.
"""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path

import pytest

from tests.reliability import killpoints as kp

PASSWORD_ENV = "PBEM_REL_MAIL_PASSWORD"
MODERATOR = "moderator@pbem.test"
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ pbem (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")


def assert_one_line_failure(r, *, secret: str | None = None) -> str:
    """Exit 3; besides pbem's own log lines, stderr holds exactly one line: the reason."""
    assert r.returncode == 3, f"exit {r.returncode}, expected 3:\n{r.stdout}\n{r.stderr[-4000:]}"
    assert "Traceback" not in r.stderr, r.stderr[-4000:]
    other = [ln for ln in r.stderr.splitlines() if ln.strip() and not LOG_LINE.match(ln)]
    assert len(other) == 1 and other[0].startswith("pbem: "), f"expected one reason line, got:\n{r.stderr}"
    if secret:
        assert secret not in r.stderr + r.stdout
    return other[0]


def assert_ok(r) -> None:
    assert r.returncode == 0, f"exit {r.returncode}:\n{r.stderr[-4000:]}"
    assert "Traceback" not in r.stderr, r.stderr[-4000:]


def _db(cfg) -> sqlite3.Connection:
    return sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"), timeout=30)


def _count(cfg, sql: str) -> int:
    con = _db(cfg)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def _setup(tmp_path: Path, n_orders: int = 6):
    """A home with two games and `n_orders` legal order mails (and a reference home run without faults)."""
    plans = kp.plan_games(n_orders, games=[("habsburg", 3), ("dynasties", 3)], seed="faults")
    msgs = kp.order_messages(plans)
    cfg = kp.make_home(tmp_path / "home")
    kp.create_games(cfg, plans)
    ref = kp.make_home(tmp_path / "reference")
    kp.create_games(ref, plans)
    kp.deliver_in_order(ref, msgs)
    assert_ok(kp.run_poll(ref))
    return cfg, ref, msgs


def _same_record(cfg, ref) -> None:
    a, b = kp.record_digest(cfg), kp.record_digest(ref)
    for table in b:
        assert a[table] == b[table], f"table {table} differs from a run without faults"


# --------------------------------------------------------------------------- database and disk


def test_database_locked_exits_3_loses_nothing_and_the_next_run_recovers(tmp_path: Path) -> None:
    cfg, ref, msgs = _setup(tmp_path)
    kp.deliver_in_order(cfg, msgs)
    holder = _db(cfg)
    holder.execute("BEGIN EXCLUSIVE")  # another program holds the record
    try:
        r = kp.run_poll(cfg, {"PBEM_TEST_BUSY_MS": "300"})
    finally:
        holder.rollback()
        holder.close()
    line = assert_one_line_failure(r)
    assert "database" in line.lower() and "locked" in line.lower(), line
    assert kp.inbox_count(cfg) == len(msgs), "a message left the inbox without being recorded"
    assert _count(cfg, "SELECT count(*) FROM inbound_messages") == 0
    assert_ok(kp.run_poll(cfg))
    assert kp.inbox_count(cfg) == 0
    _same_record(cfg, ref)


def test_database_locked_with_an_empty_inbox_exits_3_too(tmp_path: Path) -> None:
    """The deadline pass and the outbox are the first to touch the database when no mail came."""
    cfg = kp.make_home(tmp_path / "home")
    kp.create_games(cfg, kp.plan_games(2, games=[("habsburg", 3)], seed="locked"))
    holder = _db(cfg)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        r = kp.run_poll(cfg, {"PBEM_TEST_BUSY_MS": "300"})
    finally:
        holder.rollback()
        holder.close()
    assert_one_line_failure(r)
    assert_ok(kp.run_poll(cfg))
    assert _count(cfg, "SELECT count(*) FROM outbox WHERE status = 'queued'") == 0


def test_disk_full_while_sending_exits_3_and_the_next_run_sends_everything(tmp_path: Path) -> None:
    cfg, ref, msgs = _setup(tmp_path)
    kp.deliver_in_order(cfg, msgs)
    r = kp.run_poll(cfg, {"PBEM_TEST_FAULT": "send-enospc"})
    line = assert_one_line_failure(r)
    assert "space" in line.lower(), line
    assert kp.inbox_count(cfg) == 0, "messages are recorded before anything is sent"
    assert _count(cfg, "SELECT count(*) FROM outbox WHERE status = 'queued'") > 0
    assert _count(cfg, "SELECT count(*) FROM outbox WHERE status = 'failed'") == 0
    assert_ok(kp.run_poll(cfg, {"PBEM_TEST_CLOCK_SHIFT": "300"}))  # the next cron run, past the retry backoff
    assert _count(cfg, "SELECT count(*) FROM outbox WHERE status != 'sent'") == 0
    sent = kp.delivered(cfg)
    assert all(n == 1 for n in sent.values())
    _same_record(cfg, ref)


def test_disk_full_while_moving_a_message_out_of_the_inbox_exits_3_and_recovers(tmp_path: Path) -> None:
    cfg, ref, msgs = _setup(tmp_path)
    kp.deliver_in_order(cfg, msgs)
    r = kp.run_poll(cfg, {"PBEM_TEST_FAULT": "settle-enospc"})
    assert_one_line_failure(r)
    assert _count(cfg, "SELECT count(*) FROM inbound_messages") == 1, (
        "the first message was recorded, then the run stopped"
    )
    assert kp.inbox_count(cfg) == len(msgs)
    assert_ok(kp.run_poll(cfg, {"PBEM_TEST_CLOCK_SHIFT": "300"}))
    assert kp.inbox_count(cfg) == 0
    _same_record(cfg, ref)


def test_disk_full_simulated_with_rlimit_fsize_exits_3(tmp_path: Path) -> None:
    """A real write failure (EFBIG from RLIMIT_FSIZE) while writing sent mail, not a mock."""
    import resource
    import signal
    import subprocess

    cfg, ref, msgs = _setup(tmp_path, n_orders=2)
    kp.deliver_in_order(cfg, msgs)
    env = dict(__import__("os").environ, PYTHONPATH=kp.REPO)

    def limit() -> None:  # the DB (already larger) can still be written within its pages; new mail files cannot
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))

    r = subprocess.run(
        [kp.PYTHON, "-m", "pbem", "--config", str(cfg.path), "poll"],
        cwd=kp.REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )
    assert r.returncode != 0, "writing past the file size limit must fail"
    assert_one_line_failure(r)
    assert_ok(kp.run_poll(cfg, {"PBEM_TEST_CLOCK_SHIFT": "300"}))
    assert kp.inbox_count(cfg) == 0
    assert _count(cfg, "SELECT count(*) FROM outbox WHERE status != 'sent'") == 0
    _same_record(cfg, ref)


def test_a_corrupted_snapshot_is_rebuilt_by_replay(tmp_path: Path) -> None:
    cfg, ref, msgs = _setup(tmp_path, n_orders=8)
    kp.deliver_in_order(cfg, msgs[:4])
    kp.deliver_in_order(ref, [])
    assert_ok(kp.run_poll(cfg))
    con = _db(cfg)
    # The newest snapshot of every game becomes garbage (invalid JSON, and truncated JSON).
    rows = con.execute("SELECT game_id, max(seq) FROM snapshots GROUP BY game_id").fetchall()
    for i, (gid, seq) in enumerate(rows):
        con.execute(
            "UPDATE snapshots SET state_json = ? WHERE game_id = ? AND seq = ?",
            ("\x00garbage{{" if i % 2 == 0 else '{"players": ["Al', gid, seq),
        )
    con.commit()
    con.close()
    kp.deliver_in_order(cfg, msgs[4:])
    assert_ok(kp.run_poll(cfg))
    assert kp.inbox_count(cfg) == 0
    got, want = kp.record_digest(cfg), kp.record_digest(ref)
    assert got["orders"] == want["orders"] and got["events"] == want["events"]
    assert got["outbox"] == want["outbox"] and got["inbound"] == want["inbound"]
    # Only the corrupted cache rows differ; the snapshots written after them are right.
    bad = {(g, s) for g, s in [(r[0], r[1]) for r in want["snapshots"]]}
    diff = [(a[0], a[1]) for a, b in zip(got["snapshots"], want["snapshots"]) if a != b]
    assert len(diff) == len(rows) and set(diff) <= bad


# --------------------------------------------------------------------------- real mail servers


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    from tests.servers.testservers import Unavailable, pip_mail_servers

    users = {MODERATOR: "Mod-Rel-pw-4411"}
    users.update({kp.address(g, p): "pw" for g in ("ha0", "dy1") for p in kp.NAMES[:3]})
    try:
        with pip_mail_servers(tmp_path_factory.mktemp("rel-mail"), users) as s:
            s.users = users
            yield s
    except Unavailable as exc:
        pytest.skip(f"pymap/aiosmtpd servers unavailable: {exc}")


@pytest.fixture
def mail_home(servers, tmp_path):
    servers.smtp_up()
    servers.imap_up()
    servers.reset()
    plans = kp.plan_games(6, games=[("habsburg", 3), ("dynasties", 3)], seed="faults")
    cfg = kp.make_home(tmp_path / "home")
    servers.wire_home(cfg.path, MODERATOR, PASSWORD_ENV, smtp_extra="max_attempts = 5\n")
    from pbem.home import config as config_mod

    cfg = config_mod.load(cfg.path)
    kp.create_games(cfg, plans)
    msgs = kp.order_messages(plans)
    for raw in msgs:
        servers.deliver(MODERATOR, raw)
    ref = kp.make_home(tmp_path / "reference")
    kp.create_games(ref, plans)
    kp.deliver_in_order(ref, msgs)
    assert_ok(kp.run_poll(ref))
    return cfg, ref, msgs, {PASSWORD_ENV: servers.users[MODERATOR]}


def _players_received(servers, cfg) -> int:
    return sum(len(servers.mailbox(a)) for a in servers.users if a != MODERATOR)


def test_imap_down_exits_3_and_the_next_run_reads_everything(servers, mail_home) -> None:
    cfg, ref, msgs, env = mail_home
    servers.imap_down()
    try:
        r = kp.run_poll(cfg, env)
    finally:
        servers.imap_up()
    line = assert_one_line_failure(r, secret=env[PASSWORD_ENV])
    assert "imap" in line.lower(), line
    assert _count(cfg, "SELECT count(*) FROM inbound_messages") == 0
    assert len(servers.mailbox(MODERATOR)) == len(msgs)
    assert_ok(kp.run_poll(cfg, env))
    assert len(servers.mailbox(MODERATOR)) == 0
    _same_record(cfg, ref)


def test_smtp_down_exits_3_keeps_the_mail_queued_and_the_next_run_sends_it(servers, mail_home) -> None:
    cfg, ref, msgs, env = mail_home
    servers.smtp_down()
    try:
        r = kp.run_poll(cfg, env)
    finally:
        servers.smtp_up()
    line = assert_one_line_failure(r, secret=env[PASSWORD_ENV])
    assert "smtp" in line.lower() or "sending" in line.lower(), line
    assert _count(cfg, "SELECT count(*) FROM inbound_messages") == len(msgs), "orders are recorded even if SMTP is down"
    queued = _count(cfg, "SELECT count(*) FROM outbox WHERE status = 'queued'")
    assert queued == _count(cfg, "SELECT count(*) FROM outbox")
    assert_ok(kp.run_poll(cfg, {**env, "PBEM_TEST_CLOCK_SHIFT": "300"}))
    assert _count(cfg, "SELECT count(*) FROM outbox WHERE status != 'sent'") == 0
    deadline = time.time() + 15
    while _players_received(servers, cfg) < queued and time.time() < deadline:
        time.sleep(0.2)
    assert _players_received(servers, cfg) == queued
    _same_record(cfg, ref)


@pytest.mark.parametrize("which", ["imap", "smtp"])
def test_authentication_refused_exits_3_without_the_password_and_recovers(servers, mail_home, which) -> None:
    cfg, ref, msgs, env = mail_home
    wrong = "Wrong-pw-93710"
    if which == "smtp":  # IMAP logs in, SMTP refuses: give SMTP its own (wrong) password variable
        text = cfg.path.read_text()
        head, _, smtp = text.rpartition("[smtp]")
        cfg.path.write_text(head + "[smtp]" + smtp.replace(PASSWORD_ENV, PASSWORD_ENV + "_SMTP"))
        bad_env = {**env, PASSWORD_ENV + "_SMTP": wrong}
        good_env = {**env, PASSWORD_ENV + "_SMTP": env[PASSWORD_ENV]}
    else:
        bad_env = {PASSWORD_ENV: wrong}
        good_env = env
    r = kp.run_poll(cfg, bad_env)
    line = assert_one_line_failure(r, secret=wrong)
    assert env[PASSWORD_ENV] not in r.stderr
    assert "login" in line.lower() or "auth" in line.lower(), line
    if which == "imap":
        assert _count(cfg, "SELECT count(*) FROM inbound_messages") == 0
    else:
        assert _count(cfg, "SELECT count(*) FROM inbound_messages") == len(msgs)
    assert_ok(kp.run_poll(cfg, {**good_env, "PBEM_TEST_CLOCK_SHIFT": "300"}))
    assert len(servers.mailbox(MODERATOR)) == 0
    assert _count(cfg, "SELECT count(*) FROM outbox WHERE status != 'sent'") == 0
    _same_record(cfg, ref)
    assert line
