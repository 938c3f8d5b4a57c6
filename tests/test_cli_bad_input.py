"""Bad input and a broken home, command by command: one line quoting what was given, why, and what would be
accepted, with the exit status README "Operations" documents (2 usage or configuration, 3 the database or
the home's files could not be used); never a traceback."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability import forkserver


def pbem(*args: str) -> subprocess.CompletedProcess:
    """`pbem ARGS` run in this process through the same entry as the installed command (`pbem.cli.main`): its
    exit status, stdout and stderr. A subprocess per case cost about two minutes of the suite; the cases that
    need a process of their own (a umask, a private mount) start one."""
    import contextlib
    import io
    import sys
    from unittest import mock

    from pbem.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with (
        mock.patch.object(sys, "argv", ["pbem", *args]),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return subprocess.CompletedProcess(["pbem", *args], code, out.getvalue(), err.getvalue())


PLAYERS = ["--player", "Ann <ann@example.test>", "--player", "Ben <ben@example.test>"]
PLAYERS3 = [*PLAYERS, "--player", "Cy <cy@example.test>"]


def make_home(tmp_path: Path, *games: str) -> str:
    """A home with one --no-join habsburg game per name; returns its pbem.toml."""
    home = tmp_path / "home"
    assert pbem("init", str(home), "--address", "games@example.test").returncode == 0
    cfg = str(home / "pbem.toml")
    for name in games:
        made = pbem("--config", cfg, "game", "new", "habsburg", "--name", name, "--no-join", *PLAYERS3)
        assert made.returncode == 0, made.stderr
    return cfg


LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ pbem ")


def one_line(res: subprocess.CompletedProcess, code: int, *fragments: str) -> None:
    """A refusal: the exit status, no traceback, one line on stderr (besides log lines) holding every fragment."""
    assert res.returncode == code, (res.returncode, res.stdout, res.stderr)
    assert "Traceback" not in res.stdout + res.stderr, res.stderr
    lines = [x for x in res.stderr.strip().splitlines() if not LOG_LINE.match(x)]
    assert len(lines) == 1, res.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


# ---------------------------------------------------------------- a database that cannot be written

WRITERS = [
    ["game", "extend", "g1", "1h"],
    ["game", "pause", "g1"],
    ["game", "abandon", "g1"],
    ["game", "replace", "g1", "Cy", "Dee <dee@example.test>"],
    ["game", "code", "g1", "Ann"],
    ["game", "away", "g1", "Ann", "3"],
    ["game", "mail", "g1", "digest"],
    ["game", "new", "habsburg", "--name", "g2", "--no-join", *PLAYERS3],
    ["moderator", "code"],
    ["poll"],
]


@pytest.fixture(scope="module")
def shared_home(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One home with game g1 for the tests that leave it as it was."""
    return make_home(tmp_path_factory.mktemp("shared"), "g1")


def _can_mount_read_only() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return probe.returncode == 0


@pytest.fixture(scope="module")
def read_only_db(shared_home: str) -> Iterator[forkserver.ForkServer]:
    """A fork server in a private mount namespace where the shared home's database file is bind-mounted read-only
    over itself: a write fails with EROFS even for root (tests run as root, who ignores chmod), while reads work.
    Its `pbem` runs are forked from one process that imported pbem once (a Python started per command, ten of
    them, had cost about 0.6 CPU s each)."""
    import shlex

    db = shlex.quote(str(Path(shared_home).parent / "pbem.db"))
    script = f'mount --bind {db} {db} && mount -o remount,ro,bind {db} && exec "$@"'
    server = forkserver.ForkServer(["unshare", "-m", "sh", "-c", script, "sh"])
    yield server
    server.close()


@pytest.mark.skipif(not _can_mount_read_only(), reason="needs `unshare -m` (a private mount namespace) to bind")
@pytest.mark.parametrize("cmd", WRITERS, ids=[" ".join(c[:2]) for c in WRITERS])
def test_every_command_on_a_database_it_cannot_write_says_so_in_one_line_and_exits_3(
    shared_home: str, read_only_db: forkserver.ForkServer, cmd: list[str]
) -> None:
    """Each command gets past its checks and fails at its first write to the read-only database file, as on a
    read-only or full disk (`read_only_db`)."""
    import os

    res = read_only_db.run(["--config", shared_home, *cmd], dict(os.environ), os.getcwd(), False, 120)
    one_line(res, 3, "the database could not be used", "readonly database")


# ---------------------------------------------------------------- durations: too long, or no time at all

TOO_LONG = ["366d", "999999w", "99999999999999999999d", "9999999w"]


def _duration_commands(value: str) -> list[list[str]]:
    """Every command line that takes a duration, with `value` in it."""
    return [
        ["game", "new", "habsburg", "--name", "d1", "--no-join", "--deadline", value, *PLAYERS3],
        ["game", "extend", "g1", value],
    ]


@pytest.mark.parametrize("value", TOO_LONG)
@pytest.mark.parametrize("where", [0, 1], ids=["game new --deadline", "game extend"])
def test_a_duration_too_long_is_refused_naming_the_longest(shared_home: str, value: str, where: int) -> None:
    res = pbem("--config", shared_home, *_duration_commands(value)[where])
    one_line(res, 2, repr(value), "too long", "at most 365 days")


@pytest.mark.parametrize(
    "value, where, reason",
    [
        ("0m", 0, "is no time"),
        ("0h", 1, "changes nothing"),
        ("-1h", 0, "not a duration"),
        ("-1h", 1, "a deadline is never moved earlier"),  # it was click's "No such option: -1"
    ],
)
def test_a_deadline_or_extension_of_no_time_is_refused_with_the_reason(
    shared_home: str, value: str, where: int, reason: str
) -> None:
    res = pbem("--config", shared_home, *_duration_commands(value)[where])
    one_line(res, 2, repr(value), reason)
    assert "d1" not in pbem("--config", shared_home, "game", "list").stdout, "no game was made"


@pytest.mark.parametrize(
    "line, reason",
    [
        ('default_deadline = "0h"', "is no time"),
        ('default_deadline = "400d"', "too long"),
        ('reminders = ["24h", "0m"]', "is the deadline itself"),
        ('reminders = ["99999999999999999999d"]', "too long"),
        ('outage_after = "53w"', "too long"),
        ('max_away = "9999999w"', "too long"),
    ],
)
@pytest.mark.parametrize("cmd", [["check"], ["poll"], ["game", "list"]])
def test_a_configured_duration_too_long_or_of_no_time_fails_every_command(
    tmp_path: Path, line: str, reason: str, cmd: list[str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "pbem.toml").write_text(f'[moderator]\naddress = "m@example.test"\n[games]\n{line}\n')
    res = pbem("--config", str(home / "pbem.toml"), *cmd)
    one_line(res, 2, f"[games] {line.split()[0]}", reason)


# ---------------------------------------------------------------- game options, for every kind


def _kinds() -> list[str]:
    from pbem import engine as registry

    return registry.available()


def _declared() -> list[tuple[str, str]]:
    from pbem import engine as registry

    return [(kind, o.key) for kind in _kinds() for o in registry.get(kind).declared_options]


def _new(cfg: str, kind: str, *options: str) -> subprocess.CompletedProcess:
    from pbem import engine as registry

    eng = registry.get(kind)
    people = [f"P{i} <p{i}@example.test>" for i in range(eng.min_players)]
    seats = [a for p in people for a in ("--player", p)]
    return pbem("--config", cfg, "game", "new", kind, "--name", "o1", *seats, *(f"--option={o}" for o in options))


@pytest.mark.parametrize("kind", _kinds())
def test_every_kind_refuses_an_option_it_does_not_take_listing_those_it_does(shared_home: str, kind: str) -> None:
    from pbem import engine as registry

    res = _new(shared_home, kind, "foo=bar")
    declared = registry.get(kind).declared_options
    one_line(res, 2, "option foo=bar", "has no option 'foo'", *(o.key for o in declared))
    if not declared:
        assert "takes no options" in res.stderr


@pytest.mark.parametrize("kind, key", _declared())
@pytest.mark.parametrize("bad", ["fixd", "-1", "abc", ""])
def test_every_declared_option_refuses_a_bad_value_saying_what_it_takes(
    shared_home: str, kind: str, key: str, bad: str
) -> None:
    from pbem import engine as registry

    option = next(o for o in registry.get(kind).declared_options if o.key == key)
    res = _new(shared_home, kind, f"{key}={bad}")
    one_line(res, 2, f"option {key}={bad}", f"{key} takes {option.accepts()}")


def test_a_good_option_is_taken_and_reaches_the_engine(tmp_path: Path) -> None:
    from pbem.app.games import check_options

    assert check_options("dynasties", {"legacy": "7"}) == {"legacy": 7}
    assert check_options("italian-wars", {"Sides": "FIXED"}) == {"sides": "fixed"}
    cfg = make_home(tmp_path)
    assert _new(cfg, "italian-wars", "sides=fixed").returncode == 0
    shown = pbem("--config", cfg, "export", "o1", "--format", "json")
    assert '"sides": "fixed"' in shown.stdout, shown.stdout[:2000]


# ---------------------------------------------------------------- [maildir] path


def _not_a_file(mail: Path) -> None:
    shutil.rmtree(mail)
    mail.write_text("not a folder\n")


def _inbox_a_file(mail: Path) -> None:
    shutil.rmtree(mail / "inbox")
    (mail / "inbox").write_text("x\n")


def _sent_a_file(mail: Path) -> None:
    shutil.rmtree(mail / "sent")
    (mail / "sent").write_text("x\n")


def _inbox_plain(mail: Path) -> None:
    shutil.rmtree(mail / "inbox")
    (mail / "inbox").mkdir()
    (mail / "inbox" / "order.eml").write_text("From: ann@example.test\n\nPASS\n")


BROKEN = {"path a file": _not_a_file, "inbox a file": _inbox_a_file, "sent a file": _sent_a_file}
BROKEN["inbox a plain folder holding mail"] = _inbox_plain


@pytest.mark.parametrize("queued", [False, True], ids=["idle", "mail queued"])
@pytest.mark.parametrize("breakage", list(BROKEN))
def test_a_maildir_path_that_cannot_be_one_fails_check_and_poll_in_one_line(
    tmp_path: Path, breakage: str, queued: bool
) -> None:
    cfg = make_home(tmp_path, *(["g1"] if queued else []))
    mail = Path(cfg).parent / "mail"
    BROKEN[breakage](mail)
    checked = pbem("--config", cfg, "check")
    assert checked.returncode == 1 and "Traceback" not in checked.stdout + checked.stderr
    assert checked.stdout.startswith("FAIL") and "[maildir] path" in checked.stdout, checked.stdout
    polled = pbem("--config", cfg, "poll")
    one_line(polled, 3, "[maildir] path", "set [maildir] path to a folder")


@pytest.mark.parametrize("missing", ["mail", "mail/inbox", "mail/inbox/new", "mail/sent/tmp"])
def test_missing_maildir_folders_pass_check_and_are_made_by_the_first_poll(tmp_path: Path, missing: str) -> None:
    cfg = make_home(tmp_path)
    home = Path(cfg).parent
    shutil.rmtree(home / missing)
    checked = pbem("--config", cfg, "check")
    assert checked.returncode == 0 and "made by the first poll" in checked.stdout, checked.stdout
    assert pbem("--config", cfg, "poll").returncode == 0
    for name in ("inbox", "sent", "processed", "rejected"):
        for leaf in ("cur", "new", "tmp"):
            assert (home / "mail" / name / leaf).is_dir(), (name, leaf)


# ---------------------------------------------------------------- an abandoned game

ON_ABANDONED = [
    ["game", "extend", "g1", "1h"],
    ["game", "pause", "g1"],
    ["game", "abandon", "g1"],
    ["game", "replace", "g1", "Cy", "Dee <dee@example.test>"],
    ["game", "code", "g1", "Ann"],
    ["game", "away", "g1", "Ann", "3"],
    ["game", "away", "g1", "Ann", "back"],
    ["game", "start", "g1"],
    ["game", "undo", "g1", "--to", "0", "--why", "test"],
]


@pytest.fixture(scope="module")
def abandoned_home(tmp_path_factory: pytest.TempPathFactory) -> str:
    cfg = make_home(tmp_path_factory.mktemp("abandoned"), "g1")
    assert pbem("--config", cfg, "game", "abandon", "g1").returncode == 0
    assert pbem("--config", cfg, "poll").returncode == 0
    return cfg


@pytest.mark.parametrize("cmd", ON_ABANDONED, ids=[" ".join(c[1:]) for c in ON_ABANDONED])
def test_every_moderator_command_on_an_abandoned_game_is_refused_and_mails_nobody(
    abandoned_home: str, cmd: list[str]
) -> None:
    res = pbem("--config", abandoned_home, *cmd)
    one_line(res, 2, "game g1 is abandoned")
    polled = pbem("--config", abandoned_home, "poll")
    assert "sent 0 mails" in polled.stdout or "nothing to do" in polled.stdout, polled.stdout


def test_the_abandon_notice_and_the_replaced_mail_ask_for_no_orders(tmp_path: Path) -> None:
    cfg = make_home(tmp_path, "g1", "g2")
    assert pbem("--config", cfg, "game", "replace", "g1", "Cy", "Dee <dee@example.test>").returncode == 0
    assert pbem("--config", cfg, "game", "abandon", "g2").returncode == 0
    assert pbem("--config", cfg, "poll").returncode == 0
    sent = [p.read_text(errors="replace") for p in (Path(cfg).parent / "mail" / "sent" / "new").iterdir()]
    told = [m for m in sent if "You no longer play" in m or "abandoned the game" in m]
    assert len(told) == 1 + 3, "Cy told, and the three players of g2"
    for mail in told:
        assert "Reply to this mail with your orders" not in mail, mail
    asked = [m for m in sent if "Dee" in m and "Private report" in m]
    # the newcomer's report asks for orders when the seat is asked something (players28: Cy's seat waits for Ben here,
    # and the report said "Reply to this mail with your orders" all the same)
    assert asked and all(
        ("Reply to this mail with your orders" in m) == ("Nothing is asked of you now" not in m) for m in asked
    ), "the newcomer is told to reply with orders exactly when asked"


# ---------------------------------------------------------------- seats: reserved names, a replacement that changes nothing


@pytest.mark.parametrize("reserved", ["ALL", "END", "end", "End Press"])
@pytest.mark.parametrize("where", ["game new", "game replace"])
def test_a_reserved_word_cannot_be_a_player_name_and_the_refusal_says_why(
    shared_home: str, reserved: str, where: str
) -> None:
    person = f"{reserved} <r@example.test>"
    if where == "game new":
        res = pbem("--config", shared_home, "game", "new", "habsburg", "--name", "r1", *PLAYERS, "--player", person)
    else:
        res = pbem("--config", shared_home, "game", "replace", "g1", "Cy", person)
    one_line(res, 2, f'"{reserved}" cannot be a player name', "is reserved (")


def test_replacing_a_player_by_the_same_person_at_the_same_address_is_refused_and_mails_nobody(tmp_path: Path) -> None:
    cfg = make_home(tmp_path, "g1")
    assert pbem("--config", cfg, "poll").returncode == 0
    for same in ["Cy <cy@example.test>", "Cy <CY@Example.test>"]:
        res = pbem("--config", cfg, "game", "replace", "g1", "cy", same)
        one_line(res, 2, same, "already plays the seat of Cy in g1: nothing to change")
    polled = pbem("--config", cfg, "poll")
    assert "nothing to do" in polled.stdout, polled.stdout
    moved = pbem("--config", cfg, "game", "replace", "g1", "Cy", "Cy <cy@elsewhere.test>")
    assert moved.returncode == 0, "the same name at a new address is a change"


# ---------------------------------------------------------------- files only the moderator may read


def _umask_022() -> None:
    import os

    os.umask(0o022)


def test_the_database_its_wal_and_moderator_exports_are_made_mode_0600_under_umask_022(tmp_path: Path) -> None:
    """The database holds every game's seed (so every hand) and a moderator export the whole record: under the
    usual umask 022 each would be readable by every local user; like the key files they are 0600."""
    import os
    import sqlite3
    import stat
    import sys

    def run(*args: str, cwd: Path | None = None, fresh: bool = False) -> subprocess.CompletedProcess:
        """`python -m pbem ARGS` under umask 022: the first started from scratch, the others forked from a process
        that imported pbem once (`tests.reliability.forkserver`, which sets the child's umask the same way)."""
        if not fresh:
            return forkserver.pbem(list(args), cwd=cwd, umask=0o022)
        cmd = [sys.executable, "-m", "pbem", *args]
        root = Path(__file__).resolve().parents[1]  # the worktree's pbem, from any cwd
        env = {**os.environ, "PYTHONPATH": str(root)}
        return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, preexec_fn=_umask_022)

    home = tmp_path / "home"
    assert run("init", str(home), "--address", "games@example.test", fresh=True).returncode == 0
    cfg = str(home / "pbem.toml")
    made = run("--config", cfg, "game", "new", "habsburg", "--name", "g1", "--no-join", *PLAYERS3)
    assert made.returncode == 0, made.stderr
    assert run("--config", cfg, "poll").returncode == 0
    out = tmp_path / "out"
    out.mkdir()
    assert run("--config", cfg, "export", "g1", "--moderator", cwd=out).returncode == 0
    assert (
        run("--config", cfg, "export", "g1", "--moderator", "--format", "text", "-o", str(out / "m.txt")).returncode
        == 0
    )
    assert run("--config", cfg, "export", "--all", str(out / "all"), "--moderator").returncode == 0
    assert run("--config", cfg, "export", "--all", str(out / "all")).returncode == 0
    with sqlite3.connect(home / "pbem.db") as conn:  # the -wal and -shm exist while a connection is open
        conn.execute("SELECT count(*) FROM games").fetchone()
        private = [home / "pbem.db", home / "pbem.db-wal", home / "pbem.db-shm", home / "game-keys.secret"]
        private += [out / "g1-moderator.json", out / "m.txt", *sorted((out / "all").glob("*-moderator.*"))]
        modes = {str(p.relative_to(tmp_path)): oct(stat.S_IMODE(p.stat().st_mode)) for p in private}
    assert len(modes) == 9, modes
    assert set(modes.values()) == {"0o600"}, modes
    public = out / "all" / "g1.json"
    assert stat.S_IMODE(public.stat().st_mode) == 0o644, "a public export stays readable: it is for anyone"


# ---------------------------------------------------------------- what init, upgrade, publish and away say


def test_upgrade_and_init_say_whether_they_created_the_database_or_kept_it(tmp_path: Path) -> None:
    cfg = tmp_path / "pbem.toml"
    cfg.write_text('[moderator]\naddress = "m@example.test"\n')
    first = pbem("--config", str(cfg), "upgrade")
    assert first.returncode == 0 and first.stdout.startswith("created the pbem schema in the database"), first.stdout
    again = pbem("--config", str(cfg), "upgrade")
    assert again.returncode == 0 and again.stdout.strip() == "database schema is up to date", again.stdout
    home = tmp_path / "home"
    made = pbem("init", str(home), "--address", "m@example.test")
    assert "and created the database" in made.stdout, made.stdout
    forced = pbem("init", str(home), "--address", "m@example.test", "--force")
    assert forced.returncode == 0 and "and kept the database" in forced.stdout, forced.stdout


def test_upgrade_makes_an_older_homes_readable_database_and_keys_private(tmp_path: Path) -> None:
    """An older pbem created the database (and SQLite its -wal and -shm) with the umask's mode, 0644 under the
    usual umask: any local user could read every seed, so every hand.  `pbem upgrade` narrows each such file
    and names it; a second upgrade has nothing to change and says nothing of it."""
    import sqlite3
    import stat

    home = tmp_path / "home"
    assert pbem("init", str(home), "--address", "m@example.test").returncode == 0
    db, keys = home / "pbem.db", home / "game-keys.secret"
    keys.write_text("00" * 32 + "\n")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("SELECT count(*) FROM games").fetchone()
        widened = [db, home / "pbem.db-wal", home / "pbem.db-shm"]
        for p in [*widened, keys]:
            p.chmod(0o644)
        res = pbem("--config", str(home / "pbem.toml"), "upgrade")
        modes = {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in [*widened, keys]}
    assert res.returncode == 0, res.stderr
    assert set(modes.values()) == {"0o600"}, modes
    told = res.stdout.splitlines()[-1]
    assert told.startswith("made private (mode 0600"), res.stdout
    assert all(str(p) in told for p in widened), told  # the key file is closed as soon as any command reads it
    again = pbem("--config", str(home / "pbem.toml"), "upgrade")
    assert again.stdout.strip() == "database schema is up to date", again.stdout
    db.chmod(0o640)  # group-readable is readable by others too
    assert str(db) in pbem("--config", str(home / "pbem.toml"), "upgrade").stdout
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


@pytest.mark.parametrize("cmd", [["init"], ["publish"], ["export", "--all"]])
def test_a_command_given_a_file_where_it_needs_a_folder_says_so_in_one_line(
    shared_home: str, tmp_path: Path, cmd: list[str]
) -> None:
    file = tmp_path / "plain-file"
    file.write_text("x\n")
    res = pbem("--config", shared_home, *cmd, str(file))
    one_line(res, 2, str(file), "is a file, not a folder")
    assert "Errno" not in res.stderr


@pytest.mark.parametrize("until", ["0", "99999", "367", "soon"])
def test_game_away_refuses_a_day_count_out_of_range_naming_the_range(shared_home: str, until: str) -> None:
    res = pbem("--config", shared_home, "game", "away", "g1", "Ann", until)
    one_line(res, 2, repr(until), "a number of days from 1 to 366")


@pytest.mark.parametrize(
    "cmd", [["game", "new", "habsburg", "--name", "p1", *PLAYERS], ["game", "replace", "g1", "Cy"]]
)
def test_a_person_without_an_address_is_the_same_usage_error_in_game_new_and_game_replace(
    shared_home: str, cmd: list[str]
) -> None:
    res = pbem("--config", shared_home, *cmd, *(["--player"] if cmd[1] == "new" else []), "Dee")
    one_line(res, 2, '"Dee" is not a player; write "Name <address@example.org>"')


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("postgresql+pg8000://pbem:pw@127.0.0.1/pbem", "pbem[postgres]"),  # a driver pbem does not install
        ("mysql://pbem:pw@127.0.0.1/pbem", "MySQLdb"),
        ("no-such-db://x", "not a database URL"),
    ],
)
def test_a_database_url_whose_driver_is_missing_says_what_to_install(tmp_path: Path, url: str, says: str) -> None:
    """Found by the operations testers: a PostgreSQL URL after a plain `pip install .` (the driver comes with
    the `postgres` extra) gave every command a 40-line ImportError traceback and exit 1."""
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(f'[moderator]\naddress = "m@example.test"\n[database]\nurl = "{url}"\n')
    for cmd in (["game", "list"], ["upgrade"], ["poll"]):
        res = pbem("--config", str(cfg), *cmd)
        one_line(res, 2, "[database] url", says)
        assert "pw@" not in res.stderr, "the URL's password is never printed"
