"""Shared fixtures: a fresh moderator home (real SQLite + Maildir) and a fixed clock."""

from __future__ import annotations

import gc
import logging
import mailbox
import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from hypothesis import settings

# No cyclic collection until the tests are collected (`pytest_collection` below says why).
gc.disable()
# The test processes keep the bytecode they make, PYTHONDONTWRITEBYTECODE or not (the development machine sets
# it): above all pytest's rewriting of the asserts of 2.6 MB of test modules, which each worker otherwise redid
# on every run (about 4 of the 6.5 to 6.8 CPU s a worker's collection takes; 2.4 s read from __pycache__).  The `pbem`
# processes the tests start keep the environment's setting; `pytest_configure` compiles pbem for them.
sys.dont_write_bytecode = False

from pbem.cli.support import init_home  # noqa: E402
from pbem.home import config as config_mod  # noqa: E402
from tests.browser import Browser  # noqa: E402

# Hypothesis: the suite (the README's test command, and so CI) draws the same examples on every run, so that
# it passes or fails with the code, never with the draw: a run that lands or not must not depend on luck.  New
# examples are looked for apart, with `make fuzz` (PBEM_HYPOTHESIS=explore: a fresh draw on each of several runs);
# what it finds is fixed, and its example added to the test's own cases.
settings.register_profile("suite", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("PBEM_HYPOTHESIS", "suite"))

#: Tests that take tens of seconds each (measured with --durations), by test-name prefix.  They are started
#: first, so that the two xdist workers fill the end of the run with short tests instead of one worker
#: running a long test alone while the other waits (the whole suite's time is bounded by that tail).
#: A module marked xdist_group is one unit of work, and xdist starts the units of several tests before any
#: single test (largest first, `--loadscope-reorder`): such modules need no line here.
LONG_FIRST = (
    # the longest single tests of the CI run of 2026-12-06 (quiet machine): the fuzzed poll 29 s, each crash case
    # 23 s, the hostile corpus 21 s (its Hypothesis part 15 s then, about 10 s since its strategies are made once)
    "tests/reliability/test_fuzz_mail.py",
    "tests/reliability/test_crash_safety.py",
    "tests/reliability/test_hostile_mail.py",
    "tests/reliability/test_secrecy_at_scale.py",
    # its random games carry the public site's and the mail's checks too (test_publish's and test_secrecy_mail's
    # games, 2026-12-06): its Sixteen Thirty case is now among the longest
    "tests/test_history_visibility.py",
    "tests/test_packaging.py",
    "tests/engine/test_refusals_hidden.py::test_a_refusal_naming_a_card_not_held_reads_the_same_wherever_that_card_lies_hidden[h1-sixteen-thirty]",
    "tests/engine/test_refusals_hidden.py::test_a_refusal_naming_a_card_not_held_reads_the_same_wherever_that_card_lies_hidden[h2-sixteen-thirty]",
    "tests/reliability/test_stage_costs.py",
    "tests/reliability/test_pattern_costs.py::test_every_pattern_costs_time_linear_in_its_text",
    # the first user of each seeded game plays it (tests/shared.py); its other users come well after it, so
    # that the other worker finds it played instead of waiting for it
    "tests/test_history_browser.py::test_the_history_page_renders_in_chromium_without_errors_or_network",
    "tests/mail/test_e2e.py",
    "tests/reliability/test_header_costs.py::test_no_header_costs_more_than_a_constant_times_a_plain_mail_of_the_same_size",
    # its Sixteen Thirty case (18 s on CI, the longest after those above) reads the seeded games the history page's
    # test plays: after two tests more, so that they are played when it starts
    "tests/test_verify_whose_mail.py::test_an_honest_game_verifies_against_each_players_mail_however_it_is_chosen",
    "tests/test_styled_games.py",
    "tests/mail/test_log_secrets.py",
    "tests/test_secrecy_mail.py",
    "tests/test_audit_script.py",
    "tests/test_history_browser.py",
    "tests/test_postgres.py",
    "tests/test_export_verify.py",
    "tests/test_verify_whose_mail.py",
    # the fairness files were one xdist_group until fairness22 (one unit, started first); those with no module fixture
    # now spread test by test, and their longest tests (37, 16 and 11 s at a load of 9) start here
    "tests/test_fairness12.py::test_no_honest_deadline_is_named_in_the_seeded_games",
    "tests/test_fairness4.py::test_every_forged_picture_and_prose_of_a_report_is_named_and_the_honest_report_passes",
    "tests/test_fairness5.py::test_no_text_makes_the_acknowledgements_reading_raise",
    # 5-25 s each, otherwise started late in collection order (a long test last on one worker is the tail); the
    # CLI cases whose commands are now forked after the first (2-3 s each, 2026-12-05 session 17) are not here
    "tests/mail/test_poll_lock.py",
    "tests/test_seeds.py::test_an_insecure_seed_is_said_in_every_report_and_in_the_export",
    "tests/test_cli.py::test_init_new_game_list_show_poll_export_from_another_directory",
    "tests/test_report_browser.py::test_the_reports_layout_matches_its_golden_measurements_at_360_and_1200_px",
    "tests/engine/test_habsburg_properties.py::test_cards_conserved_no_leaks_and_game_ends",
    "tests/engine/test_sixteen_thirty_properties.py::test_bot_games_keep_every_invariant_and_end",
    "tests/engine/test_sixteen_thirty_draft.py::test_draft_is_a_deep_copy_except_the_write_once_history_entries",
    "tests/test_history_schema.py::test_every_event_of_a_bot_game_matches_the_schema_of_its_kind",
    "tests/reliability/test_costs4_files.py::test_verify_mail_tells_the_files_it_set_aside",
    "tests/reliability/test_crash_moderating.py",
)


def pytest_configure(config: pytest.Config) -> None:
    """pbem's modules byte-compiled once per run, in the process that starts the workers (or the only one).

    This machine sets PYTHONDONTWRITEBYTECODE (and a clean clone has no bytecode): every fresh Python the
    tests start (each `pbem` run not forked, each forkserver, the scripts of `test_concurrency` ...) and each
    worker compiled the pbem modules it imported, about 0.45 of the 1.5 CPU s it takes to import the poll's.
    An installed pbem has its bytecode (pip compiles a wheel's modules), as `benchmarks/common.py` does for
    its timed runs.  Compiling all 267 modules takes 0.75 CPU s, and 0.13 s when they are up to date."""
    if hasattr(config, "workerinput"):  # an xdist worker: the controller did it before starting it
        return
    import compileall

    import pbem

    compileall.compile_dir(str(Path(pbem.__file__).parent), quiet=2)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    """Collect with the cyclic collector off, then freeze what collection made (`gc.freeze`).

    Each worker holds about 240,000 objects once it has imported and collected the tests (modules, their
    rewritten code, 4,000 test items): a full collection walked them all, 31 times during collection (3.8 of
    its 12.8 CPU s) and again whenever the heap grew by a quarter while the tests ran (a Sixteen Thirty part of
    `test_secrecy_at_scale` spent 11% of its time there).  Frozen, they are never walked again; they live until
    the run ends anyway.  Objects the tests make are collected as before."""
    gc.disable()
    try:
        yield
    finally:
        gc.collect()  # once: the garbage collection made (cycles) is freed, not frozen
        gc.freeze()
        gc.enable()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A measuring window (`tests.growth.Window`, `Stopwatch`) the test opened and did not close, because it failed
    inside it, is closed after its call: left open, it would keep the collector off and `Thread.start` wrapped for
    every later test of the worker."""
    growth = sys.modules.get("tests.growth")
    before = len(growth.OPEN) if growth is not None else 0
    yield
    growth = sys.modules.get("tests.growth")
    if growth is not None:
        growth.close_left(before)


_GLOBALS_AT_START: dict[str, object] = {}
_STATE_REPORT: list[object] = []
_THREADS_AT_START: dict[Path, dict] = {}  # the threads alive when each test file's first test started


def pytest_runtest_setup(item: pytest.Item) -> None:
    """The process-wide settings as the worker's first test found them, and the threads alive as each test file
    starts (`tests.leftovers`)."""
    if item.path not in _THREADS_AT_START:
        from tests import leftovers

        _THREADS_AT_START.clear()
        _THREADS_AT_START[item.path] = leftovers.threads()
    if not _GLOBALS_AT_START:
        from tests import leftovers

        _GLOBALS_AT_START.update(leftovers.read())
        if os.environ.get("PBEM_WORKER_STATE"):
            _STATE_REPORT.append(
                leftovers.Report(os.environ["PBEM_WORKER_STATE"], os.environ.get("PYTEST_XDIST_WORKER", "gw"))
            )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a test file's module fixtures are torn down (the next test is another file's, or none): what it left set
    for the files after it (`tests.leftovers`: a tracer, `tracemalloc`, the collector off, a switch interval, a
    deadline armed) fails its last test, and is set back so that the next files run as they would alone (costs27)."""
    yield
    if nextitem is not None and nextitem.path == item.path:
        return
    from tests import leftovers

    now = leftovers.read()
    found = leftovers.left(_GLOBALS_AT_START, now)
    for report in _STATE_REPORT:  # (its canary read before anything is set back: what the leftover costs)
        assert isinstance(report, leftovers.Report)
        report.write(str(item.path), found)
    leftovers.restore(_GLOBALS_AT_START, now)
    # a thread it started that is still alive (not a session fixture's, nor pbem's by design): costs28
    # (a file none of whose tests reached the setup - each skipped by its marker - took no list: nothing to compare)
    if item.path in _THREADS_AT_START:
        found += leftovers.threads_left(_THREADS_AT_START[item.path])
    if found:
        pytest.fail(f"{item.path.name} left set for the files after it: {'; '.join(found)}", pytrace=False)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Long tests first (`LONG_FIRST`, in that order), every other test after them in its usual order."""

    def rank(item: pytest.Item) -> int:
        return next((i for i, prefix in enumerate(LONG_FIRST) if item.nodeid.startswith(prefix)), len(LONG_FIRST))

    items.sort(key=rank)  # stable: the order inside each rank is the collection order


@pytest.fixture(autouse=True)
def _pbem_logs_reach_caplog() -> None:
    """Each test starts with the "pbem" logger as the library leaves it: no handler, propagating to the root
    (where `caplog` listens).  A test that runs a command in this process calls `pbem.home.logs.setup`, which
    stops propagation and gives the logger its own handler; without this reset, whether a later test's caplog
    saw pbem's log depended on which tests its worker had run before (two test_code_checks tests failed so
    in CI, and passed alone)."""
    log = logging.getLogger("pbem")
    for handler in list(log.handlers):
        log.removeHandler(handler)
        handler.close()  # a `[log] file` a command opened (every moderator command now logs): its file closed
    log.propagate = True
    log.setLevel(logging.NOTSET)


@pytest.fixture(autouse=True)
def _noisy_neighbour() -> Iterator[None]:
    """With PBEM_NOISY_NEIGHBOUR=1, every test runs beside a thread that reads, computes, allocates and starts
    threads (`tests.noisy`): what an earlier test's servers do in the same worker.  A count that changes under it
    counts more than its test means to; `tests/test_noisy_neighbour.py` checks the shared measurements always."""
    if os.environ.get("PBEM_NOISY_NEIGHBOUR", "0") == "0":
        yield
        return
    from tests.noisy import neighbour

    with neighbour():
        yield


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless Chromium for each test process (`tests.browser.Browser`), started by the first test that asks.

    The browser tests' modules each had their own, and a module's fixture is torn down whenever the next test
    its worker runs is another module's: `LONG_FIRST` and xdist's spreading made each worker start Chromium four
    to eight times (0.3-0.7 s each to start, 0.2-0.7 s to stop).  Every test opens pages of its own."""
    with Browser() as b:
        yield b


@pytest.fixture(scope="session", autouse=True)
def _no_fsync() -> Iterator[None]:
    """No test waits for the disk to sync a file (`tests.reliability.forkserver.no_fsync`, which says why)."""
    from tests.reliability.forkserver import no_fsync

    real = os.fsync
    os.fsync = no_fsync
    yield
    os.fsync = real


@pytest.fixture(scope="session", autouse=True)
def _machine_marks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """This machine's marks of its homes (`pbem.app.clock.machine_mark_file`, in the user's XDG state folder) kept
    in this run's own folder, for the commands run here and the `pbem` processes they start: never in the
    developer's ~/.local/state.  Every test's home has a folder of its own, so no two share a mark."""
    before = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("xdg-state"))
    yield
    if before is None:
        os.environ.pop("XDG_STATE_HOME", None)
    else:
        os.environ["XDG_STATE_HOME"] = before


@pytest.fixture(scope="session", autouse=True)
def _shared_once(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The folder the xdist workers of this run share for `tests.shared.once`."""
    from tests import shared

    shared.set_root(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session", autouse=True)
def _migrated_once(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A new SQLite home's schema copied from one migrated once per test process, instead of every test's home
    running the dozen Alembic migrations again (about 0.3 s a home, and most tests make one).

    Only a new, empty SQLite file migrated to head takes the copy; every other call (a revision, an existing
    record, PostgreSQL, `pbem` run as a subprocess) runs the migrations as before, and the template itself is
    made by them.  What a migration writes that differs per home (the Message-ID secret of 0005) is drawn
    afresh for each copy, as the migration would."""
    import secrets
    import shutil
    import sqlite3
    from contextlib import closing

    from pbem.record import db

    real = db.migrate
    template = tmp_path_factory.mktemp("schema") / "head.db"

    def migrate(url: str, revision: str = "head") -> None:
        path = Path(url.removeprefix("sqlite:///")) if url.startswith("sqlite:///") else None
        if revision != "head" or path is None or (path.exists() and path.stat().st_size > 0):
            return real(url, revision)
        if not template.exists():
            real(f"sqlite:///{template}", "head")
            with closing(sqlite3.connect(template)) as con:  # the whole schema in the one file
                con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copyfile(template, path)
        with closing(sqlite3.connect(path)) as con, con:
            con.execute(
                "UPDATE home_secrets SET value = ?, created_at = ? WHERE name = 'message-id'",
                (secrets.token_hex(32), datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")),
            )
        return None

    db.migrate = migrate
    yield
    db.migrate = real


class Clock:
    """An injected clock: starts at a fixed instant, moved by tests."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 1, 5, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kw) -> None:
        self.now += timedelta(**kw)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def home(tmp_path: Path):
    path = init_home(tmp_path / "home", address="moderator@pbem.test", name="Test Moderator")
    return config_mod.load(path)


CODES = {
    "Alice": "AAAA-2222",
    "Bob": "BBBB-3333",
    "Carol": "CCCC-4444",
    "Dave": "DDDD-5555",
    "Erin": "EEEE-6666",
    "Frank": "FFFF-7777",
    "Ann": "ANNN-8888",
    "Ben": "BENN-9999",
}


def signed(player: str, body: str) -> str:
    """An order body carrying the player's code, as a player would write it."""
    return f"CODE {CODES[player]}\n{body}"


def order_mail(sender: str, game: str, body: str, subject: str | None = None, **headers: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "moderator@pbem.test"
    msg["Subject"] = subject if subject is not None else f"[pbem {game}] orders"
    msg["Message-ID"] = headers.pop("message_id", None) or make_msgid(domain="players.test")
    for k, v in headers.items():
        msg[k.replace("_", "-")] = v
    msg.set_content(body)
    return msg.as_bytes()


def deliver(cfg, raw: bytes) -> None:
    mailbox.Maildir(str(cfg.maildir_path / "inbox"), factory=None, create=True).add(raw)


def in_delivered_order(paths) -> list[Path]:
    """Maildir message files in the order they were delivered: their names start with the seconds and microseconds
    of delivery, and sorted as strings "M99" came after "M100" within one second (mails of one poll changed places
    from run to run: tests/test_secrecy_mail_sizes.py failed on it)."""
    from pbem.trust.receipts import delivered

    return sorted(paths, key=lambda p: delivered(Path(p).name.split(":")[0]))


def sent_mail(cfg, seen: set | None = None) -> list:
    """Mail in the `sent` Maildir, oldest first; with `seen`, only keys not in it (and they are added)."""
    from email import policy
    from email.parser import BytesParser

    from pbem.trust.receipts import delivered

    md = mailbox.Maildir(str(cfg.maildir_path / "sent"), factory=None, create=True)
    keys = sorted(md.keys(), key=delivered)
    if seen is not None:
        keys = [k for k in keys if k not in seen]
        seen.update(keys)
    return [BytesParser(policy=policy.default).parsebytes(md.get_bytes(k)) for k in keys]


def body_of(msg) -> str:
    part = msg.get_body(preferencelist=("plain",))
    return part.get_content() if part else ""
