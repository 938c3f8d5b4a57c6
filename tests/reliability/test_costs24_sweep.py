"""Every command's every input at x1, x4 and x16, and every wait each command makes with the test that hangs it (costs24).

The sweep is `tests.reliability.sweep24` (its docstring says what is measured and what is flagged); the suite runs
`SAMPLE`, `PBEM_COSTS24_FULL=1` every pair, `python3 -m tests.reliability.sweep24` prints the table.

Flagged pairs (`python3 -m tests.reliability.sweep24`: x16 over 20 times x1, the growth steeper than linear at x16
and x64, a capped input costing more past its cap, a traceback or a case's own check failed): 1 of the 56 pairs on
b1f92b21, "poll / N strangers' mails in the Maildir inbox, a run reading 64" (the Maildir inbox had no budget of
messages a run: every one of 160 and 640 mails read in one run), 0 of 56 on costs24 (docs/development.md).
The waits' own generator (`test_no_file_of_the_ledgers_folder_that_is_no_regular_file_holds_a_run`): 7 of 24
cases on b1f92b21, 0 now.
"""

from __future__ import annotations

import ast
import mailbox
import os
import socket
from pathlib import Path

import pytest

from tests.commands import cli_commands
from tests.reliability import sweep24

FULL = bool(os.environ.get("PBEM_COSTS24_FULL"))
ROOT = Path(__file__).resolve().parents[2]


def _every_but(*but: str) -> frozenset[str]:
    return frozenset(cli_commands()) - set(but)


#: Every wait a command makes on something outside it, the commands that make it, and the test that makes it hang
#: and sees its deadline hit (file, test).  Each command's whole run is bounded too: `[limits] command_deadline`,
#: `[mail] poll_deadline` for `pbem poll` (test_waits_every_command).
WAITS: dict[str, tuple[frozenset[str], str, str]] = {
    "the home's database file does not answer (SQLite on a hung file system)": (
        _every_but("init", "rules", "verify"),
        "tests/reliability/test_waits_every_command.py",
        "test_every_command_ends_at_its_deadline_when_the_database_does_not_answer",
    ),
    "a record lock another run holds (SQLite's busy timeout, PostgreSQL's lock timeout)": (
        _every_but("init", "rules", "verify", "demo"),
        "tests/reliability/test_waits_database.py",
        "test_a_record_lock_held_by_another_run_ends_at_the_busy_timeout",
    ),
    "a PostgreSQL server that accepts and never answers": (
        _every_but("init", "rules", "verify", "demo"),
        "tests/reliability/test_waits_database.py",
        "test_a_silent_postgresql_server_ends_at_the_connect_timeout",
    ),
    "a PostgreSQL server's name the resolver never answers": (
        _every_but("init", "rules", "verify", "demo"),
        "tests/reliability/test_waits_database.py",
        "test_a_server_name_the_resolver_never_answers_ends_at_the_connect_timeout",
    ),
    "a PostgreSQL server that stops answering mid-statement": (
        _every_but("init", "rules", "verify", "demo"),
        "tests/reliability/test_waits_statements.py",
        "test_every_command_ends_at_the_deadline_with_one_line",
    ),
    "the poll lock's file whose open waits": (
        frozenset({"poll"}),
        "tests/reliability/test_costs4_files.py",
        "test_a_poll_lock_whose_open_waits_ends_at_the_polls_deadline",
    ),
    "the poll lock another poll holds and never gives up": (
        frozenset({"poll"}),
        "tests/mail/test_poll_lock.py",
        "test_a_stuck_poll_is_ended_and_its_lock_taken_over",
    ),
    "an IMAP server that accepts and never answers": (
        frozenset({"poll", "check"}),
        "tests/reliability/test_waits_servers.py",
        "test_a_silent_imap_server_cannot_hold_the_poll",
    ),
    "an SMTP server that accepts and never answers": (
        frozenset({"poll", "check"}),
        "tests/reliability/test_waits_servers.py",
        "test_a_silent_smtp_server_ends_a_send_at_the_poll_deadline",
    ),
    "a mail server's name the resolver never answers": (
        frozenset({"poll", "check"}),
        "tests/reliability/test_waits_resolver.py",
        "test_a_poll_whose_imap_host_name_does_not_resolve_ends_at_its_deadline",
    ),
    "a DNS server that never answers a DKIM key's lookup": (
        frozenset({"poll"}),
        "tests/reliability/test_waits_dns.py",
        "test_lookups_that_never_answer_end_at_their_timeout_and_within_the_budget",
    ),
    "a password_command or token_command that never ends": (
        frozenset({"poll", "check"}),
        "tests/reliability/test_waits_commands.py",
        "test_a_command_that_never_finishes_ends_at_its_timeout_with_all_it_started",
    ),
    "the log file another process holds a lease on": (
        _every_but(),
        "tests/reliability/test_log_file.py",
        "test_every_command_with_its_log_file_leased",
    ),
    "a log write that blocks (a FIFO whose reader stopped)": (
        _every_but(),
        "tests/reliability/test_log_file.py",
        "test_a_log_write_that_blocks_has_its_own_deadline_and_the_moderator_is_told",
    ),
    "a file of the sent mails' ledger folder that is a FIFO or a device": (
        frozenset({"poll", "backup"}),
        "tests/reliability/test_costs24_sweep.py",
        "test_no_file_of_the_ledgers_folder_that_is_no_regular_file_holds_a_run",
    ),
    "the sent mails' ledger lock another run holds": (
        frozenset({"poll"}),
        "tests/reliability/test_costs24_sweep.py",
        "test_the_sent_ledgers_lock_held_by_another_process_is_waited_for_at_most_its_bound",
    ),
    "a database copy that does not finish (backup)": (
        frozenset({"backup"}),
        "tests/test_backup.py",
        "test_a_copy_past_its_deadline_stops_and_the_command_leaves_nothing",
    ),
    "an IMAP, SMTP, PostgreSQL or DNS server that drips, floods, lies about a length, resets or stalls TLS at any step": (
        _every_but("init", "rules", "verify", "demo"),
        "tests/mail/test_costs25_hostile_servers.py",
        "test_a_hostile_server_ends_the_run_by_its_deadline_and_loses_nothing",
    ),
    "a TLS session whose IMAP or SMTP server, after its goodbye, never closes nor sends close_notify (costs26)": (
        frozenset({"poll", "check"}),
        "tests/mail/test_costs25_hostile_servers.py",
        "test_a_hostile_server_ends_the_run_by_its_deadline_and_loses_nothing",
    ),
    "the PostgreSQL server `backup --check --restore-into` names, silent mid-statement (costs27)": (
        frozenset({"backup"}),
        "tests/reliability/test_costs27_waits.py",
        "test_a_server_silent_mid_statement_ends_the_restored_check_by_its_within",
    ),
    "a FIFO among the inbox's messages": (
        frozenset({"poll"}),
        "tests/reliability/test_costs4_maildir.py",
        "test_a_fifo_among_the_messages_is_set_aside_and_the_rest_read",
    ),
    "a log file that is a FIFO no process reads": (
        frozenset({"poll"}),
        "tests/reliability/test_costs4_files.py",
        "test_a_log_file_that_is_a_fifo_no_process_reads_stops_the_poll_in_one_line",
    ),
}


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def test_every_command_has_a_case() -> None:
    """A command added later fails here until the sweep gives it a case."""
    cased = {c.command for c in sweep24.CASES}
    assert not set(cli_commands()) - cased, f"commands without a case: {sorted(set(cli_commands()) - cased)}"
    assert not cased - set(cli_commands()), f"cases of no command: {sorted(cased - set(cli_commands()))}"


def test_every_wait_names_a_test_that_hangs_it_and_every_command_is_bounded() -> None:
    commands = set(cli_commands())
    for what, (who, file, test) in WAITS.items():
        assert test in _tests_in(ROOT / file), f"{what}: no {test} in {file}"
        assert who <= commands, f"{what}: no command {sorted(who - commands)}"
    every = {c for who, _, _ in WAITS.values() for c in who}
    assert every == commands, f"commands no wait names: {sorted(commands - every)}"


@pytest.mark.parametrize("name", [c.name for c in sweep24.CASES] if FULL else list(sweep24.SAMPLE))
def test_no_input_costs_more_than_linearly(name: str, tmp_path: Path) -> None:
    got = sweep24.measure(sweep24.by_name(name), tmp_path)
    assert not got.flags, str(got)


def test_the_sent_ledgers_lock_held_by_another_process_is_waited_for_at_most_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lock on `sent-ids.ledger.lock` another writer never gives up (stuck): the ids are appended after
    `LOCK_SECONDS`, the trim left to the next writer.  The holder is another open file description of the lock
    (`flock` is per open file: another process's, as far as the lock is concerned)."""
    import fcntl

    from pbem.record import sentlog
    from tests.growth import Stopwatch

    monkeypatch.setattr(sentlog, "LOCK_SECONDS", 0.3)
    holder = os.open(tmp_path / sentlog.LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        watch = Stopwatch()  # the wait for the lock, bounded by LOCK_SECONDS
        sentlog.kept(tmp_path, b"7\n8\n")
        waited = watch.stop()
    finally:
        os.close(holder)
    assert (tmp_path / sentlog.LEDGER).read_bytes() == b"7\n8\n"
    assert watch.wall >= 0.3, f"waited {watch.wall:.2f} s: the lock was not waited for"  # wall clock: deadline
    assert waited < 5.0, f"waited {waited:.2f} s for a lock bounded by 0.3 s"  # wall clock: deadline


def test_a_maildir_inbox_of_more_than_a_runs_mail_is_read_over_runs_oldest_first(tmp_path: Path, monkeypatch) -> None:
    """Seven strangers' mails, a run reading three: the first two runs say so, the third reads the last, and each
    mail is read once, oldest first.  On b1f92b21 the Maildir inbox had no such budget: one run listed and read
    every message, whatever their number (the sweep's pair "poll / N strangers' mails in the Maildir inbox")."""
    from pbem.mail.transports import maildir as maildir_mod

    monkeypatch.setattr(maildir_mod, "MOST_A_RUN", 3)
    cfg = sweep24.home(tmp_path, games=0)
    box = sweep24.maildir(cfg)
    sent = []
    for i in range(7):
        msg = sweep24.mail(f"Stranger {i} <s{i}@strangers.test>", "hello")
        sent.append(msg["Message-ID"])
        key = box.add(msg.as_bytes())
        os.utime(Path(box._path) / "new" / key, ns=(i * 10**9, i * 10**9))  # delivered in this order
    told, left = [], []
    for _ in range(3):
        res = sweep24._cli(cfg, "poll")
        assert res.exit_code == 0, res.output[-800:]
        told.append("more mail than one run reads (3 messages)" in res.output)
        left.append(sorted(m["Message-ID"] for m in sweep24.maildir(cfg)))
    assert [len(x) for x in left] == [4, 1, 0] and told == [True, True, False], (left, told)
    assert left[:2] == [sorted(sent[3:]), sent[6:]], "the oldest first"
    filed = mailbox.Maildir(str(cfg.parent / "mail" / "rejected"), factory=None)
    assert sorted(m["Message-ID"] for m in filed) == sorted(sent)


#: What reads or writes the files of the ledger's folder (`outbox-sent`), each given the home and the folder
LEDGER_USERS = {
    "the poll's append to the ledger": lambda home, folder: _sentlog().kept(folder, b"7\n"),
    "the poll's recovery of a stopped run's journal": lambda home, folder: [
        _sentlog().read_ids(p) for p, alive in _sentlog().others(folder) if not alive
    ],
    "pbem backup's copy of the ledger": lambda home, folder: _sentlog().as_of_now(home),
    "pbem poll --trust-clock's replay": lambda home, folder: _sentlog().replay(home, "sqlite://", None),
}
#: the ledger, its lock, and the journal of a run of this host that stopped (its process id one no process has)
LEDGER_FILES = ("sent-ids.ledger", "sent-ids.ledger.lock", f"{socket.gethostname()}-4194303-1.sent")
LEDGER_SHAPES = ("a FIFO", "a link to /dev/zero")
LEDGER_WAIT = 5.0  # seconds (wall clock: a deadline) a forked child has to answer


def _sentlog():  # type: ignore[no-untyped-def]
    from pbem.record import sentlog

    return sentlog


def _ledger_setup(tmp: Path, name: str, shape: str) -> tuple[Path, Path]:
    home = tmp / "home"
    folder = home / "outbox-sent"
    folder.mkdir(parents=True)
    if shape == "a FIFO":
        os.mkfifo(folder / name)
    else:
        os.symlink("/dev/zero", folder / name)
    return home, folder


def _ledger_cases(tmp: Path, cases: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], str]:
    """The cases (user, file, shape) that did not end in time, or raised, each with what happened: all of them run
    in one forked child that has `LEDGER_WAIT` seconds, and only if it fails each in a child of its own."""
    import resource

    from tests.growth import _in_child

    made = [(case, *_ledger_setup(tmp / str(i), case[1], case[2])) for i, case in enumerate(cases)]

    def run(todo: list[tuple[tuple[str, str, str], Path, Path]]) -> str:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31))  # /dev/zero read whole: a MemoryError, not 64 GB
        for (user, _, _), home, folder in todo:
            LEDGER_USERS[user](home, folder)
        return "ok"

    def failed(todo: list[tuple[tuple[str, str, str], Path, Path]]) -> str | None:
        got = _in_child(lambda: run(todo), LEDGER_WAIT)
        if got is None:
            return f"no answer within {LEDGER_WAIT:g} s"
        return None if got[0] else str(got[1]).strip().splitlines()[-1][:200]

    if failed(made) is None:
        return {}
    return {one[0]: why for one in made if (why := failed([one])) is not None}


LEDGER_CASES = [(u, f, s) for u in LEDGER_USERS for f in LEDGER_FILES for s in LEDGER_SHAPES]


def test_no_file_of_the_ledgers_folder_that_is_no_regular_file_holds_a_run(tmp_path: Path) -> None:
    """The generator: each of `LEDGER_FILES` made a FIFO or a link to /dev/zero, under each of `LEDGER_USERS`
    (`LEDGER_CASES`, 24), in forked children that have `LEDGER_WAIT` seconds.  On b1f92b21 7 of the 24 failed, none
    answering in time: the ledger a FIFO held the poll's append, the backup's copy and the replay (a `pbem poll`
    that sent a mail ran to its deadline's backstop and exited 3, at every run: with `poll_deadline = 3`, 66 s; by
    default 16 minutes), a stopped run's journal a FIFO or a link to /dev/zero held the poll's recovery and the
    backup's copy (the link read without end).  Now 0 of 24: `sentlog._open_regular` refuses what is no regular
    file before anything waits on it, and the log says so.  Cost: one child for the 24 (0.3 s quiet)."""
    failed = _ledger_cases(tmp_path, LEDGER_CASES)
    assert not failed, f"{len(failed)} of {len(LEDGER_CASES)}: {failed}"
