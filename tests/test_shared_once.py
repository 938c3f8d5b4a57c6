"""`tests.shared.once` hands other workers a folder whose databases are closed (`tests.shared.closed`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.record import db
from tests import shared


def _make_open_database(folder: Path) -> None:
    folder.mkdir()
    eng = db.engine_for(f"sqlite:///{folder / 'pbem.db'}")
    with eng.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (a INTEGER)")
        conn.exec_driver_sql("INSERT INTO t VALUES (1)")
    assert (folder / "pbem.db-wal").exists(), "the engine keeps the database open, its log beside it"


def test_a_folder_made_once_holds_no_open_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared, "ROOT", [tmp_path])
    folder = shared.once("home", _make_open_database)
    assert folder is not None
    assert sorted(p.name for p in folder.iterdir()) == ["pbem.db"], "closed: the log copied in and removed"


def test_a_database_still_open_elsewhere_fails_the_maker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    monkeypatch.setattr(shared, "ROOT", [tmp_path])
    held: list[sqlite3.Connection] = []

    def make(folder: Path) -> None:
        _make_open_database(folder)
        held.append(sqlite3.connect(folder / "pbem.db"))  # a connection no engine knows of
        held[0].execute("SELECT * FROM t").fetchall()

    try:
        with pytest.raises(AssertionError, match="still open"):
            shared.once("home", make)
    finally:
        held[0].close()
    assert not (tmp_path / "home.done").exists(), "not marked done: the next worker makes it again"
