"""An event's overflow page overwritten on disk is found and told (walk12, walk10's leftover).

SQLite's checks read no overflow page's content (`quick_check` follows each one's number of the next page), and
until walk12 nothing read a record's hash chains but an export: walk10's generator found page 55 of walk9's home
(`tests/test_walk9_damage.py`: its House of Habsburg game's shuffle event, whose row runs past its first page)
overwritten and seen by nothing: `pbem backup` said "backup made" (exit 0), `pbem backup --check` "intact", `pbem
check` ok, and `pbem export` ended in a traceback (a text no UTF-8: "the database could not be used", exit 3 from
the real CLI; ASCII over a stored time: a ValueError).  Now `pbem backup` and `--check` read each game's chain in
the copy (`pbem.app.chains`) and `pbem check` in the record: a changed or unreadable entry is damage (exit 4;
"damaged", exit 1; a FAIL line, exit 4), and a read of a text or time that is not what pbem wrote ends exit 4 with
the damaged line.

The generator: every overflow page of the chained tables (events, orders) of that home, each overwritten in three
ways (bytes 0-255 after the next-page number, ASCII 'x' there, one byte of the middle flipped).  On 4da2cbd6 3 of 3
failed (the backup exit 0, its check intact, `pbem check` exit 0, the export a traceback or exit 3), and at the
whole size a longer game's one such page too (3 of 3, `PBEM_FULL_SIZE=1`); on walk12 0 of 3 and 0 of 3.  The home
has one such page: all three run in the suite (about 3 s).  Events rarely run past a page (a deal's deck order);
a snapshot's state often does: the last test.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import _unusable, app
from pbem.record.db import DatabaseDamaged, damage_of
from tests.sizes import FULL
from tests.test_walk9_damage import PAGE, _pages, made  # noqa: F401  (the fixture)

WAYS = ("bytes", "ascii", "flip")


def _damaged(made: Path, to: Path, page: int, way: str) -> Path:  # noqa: F811
    shutil.copytree(made, to)
    file = to / "pbem.db"
    data = bytearray(file.read_bytes())
    start, end = (page - 1) * PAGE + 4, page * PAGE  # (the next page's number kept: quick_check passes)
    if way == "flip":
        data[(start + end) // 2] ^= 0x20
    else:
        data[start:end] = ((bytes(range(256)) * 16) if way == "bytes" else b"x" * PAGE)[: end - start]
    file.write_bytes(bytes(data))
    return to


def _run(home: Path, *args: str) -> tuple[int, str]:
    got = CliRunner().invoke(app, ["--config", str(home / "pbem.toml"), *args])
    said, exc = got.output, got.exception
    if exc is None or isinstance(exc, SystemExit):
        return got.exit_code, said
    if isinstance(exc, Exception) and _unusable(exc) is not None:  # as `pbem.cli.main` ends it (one line, exit 4/3)
        return (4 if isinstance(exc, DatabaseDamaged) or damage_of(exc) else 3), f"{said}pbem: {_unusable(exc)}"
    return got.exit_code, f"{said}\nTraceback: {type(exc).__name__}: {exc}"


def failures(made: Path, tmp: Path, cases: list[tuple[int, str]], game: str) -> list[str]:  # noqa: F811
    wrong = []
    for page, way in cases:
        home = _damaged(made, tmp / f"{way}{page}", page, way)
        why = []
        code, said = _run(home, "backup", str(tmp / f"b-{way}{page}"))
        if code != 4 or "the database is damaged (" not in said:
            why.append(f"backup exit {code}: {said.strip()[-200:]}")
        folders = list((tmp / f"b-{way}{page}").iterdir()) if (tmp / f"b-{way}{page}").exists() else []
        if folders:
            code, said = _run(home, "backup", "--check", str(folders[0]))
            if code != 1 or "pbem.db: damaged, " not in said:
                why.append(f"backup --check exit {code}: {said.strip()[-200:]}")
        code, said = _run(home, "check")
        if code != 4 or f"FAIL  the record: 1 game(s)' hash chain does not check: {game} (" not in said:
            why.append(f"check exit {code}: {said.strip()[-200:]}")
        code, said = _run(home, "export", game, "-o", str(tmp / f"{way}{page}.json"))
        if "Traceback" in said or code not in (0, 4):
            why.append(f"export exit {code}: {said.strip()[-200:]}")
        if why:
            wrong.append(f"page {page} {way}: " + "; ".join(why))
    return wrong


def _chained_overflow(home: Path) -> list[int]:
    held, overflow = _pages(home)
    return sorted((set(held.get("events", [])) | set(held.get("orders", []))) & overflow)


def test_an_event_page_overwritten_is_found_by_the_backup_and_its_check(made: Path, tmp_path: Path) -> None:  # noqa: F811
    pages = _chained_overflow(made)
    assert pages, "the home has an overflow page in its events"
    cases = [(p, w) for p in pages for w in WAYS]
    wrong = failures(made, tmp_path, cases, "hh1")
    assert wrong == [], f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong)


@pytest.mark.skipif(not FULL, reason="the whole size only (PBEM_FULL_SIZE=1): a game its bots played for 12 polls")
def test_every_event_page_of_a_longer_game_overwritten_is_found(tmp_path: Path) -> None:
    """The same over a House of Habsburg its bots played for 12 polls (`tests/reliability/sweep24.played`): every
    overflow page of its events and orders, three ways each."""
    from tests.reliability.sweep24 import PLAYED, played

    home = played(tmp_path / "made", 12).parent
    with contextlib.closing(sqlite3.connect(home / "pbem.db")) as conn:  # every page in the file itself
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = _chained_overflow(home)
    assert pages, "the game's record has overflow pages in its events or orders"
    cases = [(p, w) for p in pages for w in WAYS]
    wrong = failures(home, tmp_path, cases, PLAYED)
    assert wrong == [], f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong)


# ---- a snapshot's overflow page: the state a poll plays on from ---------------------------------------------------

SNAPSHOT_SAMPLE = 3  # the suite's: the last snapshot overflow pages (the newest states); the whole size every one


@pytest.fixture(scope="module")
def sixteen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Sixteen Thirty its bots played for 12 polls: its states run past their rows' first pages."""
    from pbem.cli.demo import run

    home = tmp_path_factory.mktemp("walk12-sixteen") / "home"
    run("sixteen-thirty", 3, "5eed" * 16, home, bot_seed="w12", max_polls=12)
    with contextlib.closing(sqlite3.connect(home / "pbem.db")) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return home


def _flipped(home: Path, to: Path, page: int, at: int) -> Path:
    """`home` with the case of the first letter from byte `at` of `page` flipped (the JSON stays JSON)."""
    shutil.copytree(home, to)
    file = to / "pbem.db"
    data = bytearray(file.read_bytes())
    first = next(i for i in range((page - 1) * PAGE + at, page * PAGE) if chr(data[i]).isalpha())
    data[first] ^= 0x20
    file.write_bytes(bytes(data))
    return to


def _state(home: Path, game: str, replayed: bool = False) -> dict[str, object]:
    """The game's state as a poll loads it (`store.load`: its newest snapshot, or replayed), or replayed from its
    chained inputs."""
    from pbem.home import config as config_mod
    from pbem.record import store
    from pbem.record.db import session

    with session(config_mod.load(home / "pbem.toml").database_url) as s:
        g = store.game_by_name(s, game)
        assert g is not None and g.id is not None
        if replayed:
            return store.replay(g, store.inputs(s, g.id), join=store.join_opened(s, g.id))[0]
        return store.load(s, g).state


def test_a_snapshot_changed_on_disk_is_never_the_state_played_on(sixteen: Path, tmp_path: Path) -> None:
    """A letter's case flipped in a snapshot's overflow page (valid JSON, another state): the state a poll loads is
    the one the chained inputs give (the snapshot read as no snapshot: rebuilt), or the load ends with the damaged
    line.  On 4da2cbd6, over every snapshot overflow page of that home at four places each (after the page's start
    and each quarter, `PBEM_FULL_SIZE=1`: 15 pages, 60 cases) 3 of 60 loaded another state than the chain's (the
    newest snapshot's page: the state a poll would have played on; `pbem game show` of one ended in a KeyError),
    and in the suite's sample (the last 3 pages, after their start) 1 of 3; on walk12 0 of each."""
    from pbem.record.db import DatabaseDamaged

    held, overflow = _pages(sixteen)
    pages = sorted(set(held["snapshots"]) & overflow)
    pages = pages if FULL else pages[-SNAPSHOT_SAMPLE:]
    ats = (8, PAGE // 4, PAGE // 2, 3 * PAGE // 4) if FULL else (8,)
    with contextlib.closing(sqlite3.connect(sixteen / "pbem.db")) as conn:
        (game,) = conn.execute("SELECT name FROM games").fetchone()
    chained = _state(sixteen, game, replayed=True)
    assert _state(sixteen, game) == chained
    wrong = []
    for page in pages:
        for at in ats:
            home = _flipped(sixteen, tmp_path / f"s{page}-{at}", page, at)
            try:
                if (got := _state(home, game)) != chained:
                    wrong.append(f"page {page} at {at}: another state ({sorted(got)[:5]} ...)")
            except DatabaseDamaged:
                pass
            except Exception as exc:
                wrong.append(f"page {page} at {at}: {type(exc).__name__}: {exc}"[:200])
    assert wrong == [], f"{len(wrong)} of {len(pages) * len(ats)}:\n" + "\n".join(wrong)
