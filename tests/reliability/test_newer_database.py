"""A home whose database a newer pbem wrote (pbem was downgraded, or a backup of a newer home restored): every
command stops in one line naming the fix, exit 2, and changes nothing; but `pbem backup`, which changes nothing
in the home either, saves it and says the schema is not one this pbem knows.

Every command but two said so; `pbem upgrade` and `pbem init --force`, the two a moderator runs to mend a home,
ended in Alembic's traceback ("Can't locate revision identified by ...", exit 1; found by this file).  Each command
of typer's list runs against such a home (the home's, all at once, forked).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from tests.reliability import forkserver
from tests.reliability.test_waits_every_command import ARGS, NO_DATABASE, PLAYER, commands

NEWER = "9999_newer"


def test_every_command_on_a_database_a_newer_pbem_wrote(tmp_path: Path) -> None:
    assert sorted([*ARGS, *NO_DATABASE]) == commands()
    assert forkserver.pbem(["init", str(tmp_path / "home"), "--address", "games@example.test"]).returncode == 0
    cfg = tmp_path / "home" / "pbem.toml"
    players = ["--player", PLAYER, "--player", "Ben <ben@example.test>"]
    made = forkserver.pbem(["--config", cfg, "game", "new", "italian-wars", "--name", "iw1", "--no-join", *players])
    assert made.returncode == 0, made.stderr
    db = tmp_path / "home" / "pbem.db"
    with sqlite3.connect(db) as c:
        c.execute("UPDATE alembic_version SET version_num = ?", (NEWER,))
    c.close()
    runs = {n: [*n.split(), "--config", str(cfg), *(a.format(tmp=tmp_path) for a in args)] for n, args in ARGS.items()}
    del runs["demo"]  # makes a home of its own
    runs["init"] = ["init", str(tmp_path / "home"), "--address", "games@example.test", "--force"]
    got = forkserver.pbem_many(list(runs.values()), env=dict(os.environ), cwd=tmp_path, timeout=60)
    said = (
        f"pbem: the database {db} has schema {NEWER}, which this pbem does not know (written by a newer pbem?); "
        "upgrade pbem (python3 -m pip install --upgrade pbem), then run pbem upgrade\n"
    )
    for name, r in zip(runs, got, strict=True):
        if name == "backup":  # it changes nothing, and is what to do first: the home saved, the schema told
            assert (r.returncode, r.stderr) == (0, ""), (name, r.returncode, r.stderr[-1500:])
            assert f"note: the database has schema {NEWER}, not one this pbem knows (written by a newer pbem?)" in (
                r.stdout
            ), r.stdout
            continue
        assert (r.returncode, r.stderr) == (2, said), (name, r.returncode, r.stderr[-1500:])
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT version_num FROM alembic_version").fetchall() == [(NEWER,)]  # nothing changed
    c.close()


def test_upgrade_run_twice_changes_nothing_the_second_time(tmp_path: Path) -> None:
    assert forkserver.pbem(["init", str(tmp_path / "home"), "--address", "games@example.test"]).returncode == 0
    cfg = tmp_path / "home" / "pbem.toml"
    for _ in range(2):
        r = forkserver.pbem(["--config", cfg, "upgrade"])
        assert (r.returncode, r.stdout, r.stderr) == (0, "database schema is up to date\n", ""), r
