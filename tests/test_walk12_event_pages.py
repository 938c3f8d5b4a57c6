"""An event's overflow page overwritten on disk is found and told (walk12, walk10's leftover).

SQLite's checks read no overflow page's content (`quick_check` follows each one's number of the next page), and
until walk12 nothing read a record's hash chains but an export: walk10's generator found page 55 of walk9's home
(`tests/test_walk9_damage.py`: its House of Habsburg game's shuffle event, whose row runs past its first page)
overwritten and seen by nothing: `pbem backup` said "backup made" (exit 0), `pbem backup --check` "intact", `pbem
check` ok, and `pbem export` ended in a traceback (a text no UTF-8: "the database could not be used", exit 3 from
the real CLI; ASCII over a stored time: a ValueError).  Now `pbem backup` and `--check` read each game's chain in
the copy (`pbem.app.chains`): a changed or unreadable entry is damage (exit 4; "damaged", exit 1), and a read of a
text or time that is not what pbem wrote ends exit 4 with the damaged line.

The generator: every overflow page of the chained tables (events, orders) of that home, each overwritten in three
ways (bytes 0-255 after the next-page number, ASCII 'x' there, one byte of the middle flipped).  On 4da2cbd6 3 of 3
failed (the backup exit 0, its check intact, the export a traceback or exit 3); on walk12 0 of 3.  The home has one
such page: all three run in the suite (about 3 s).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from pbem.cli import _unusable, app
from pbem.record.db import DatabaseDamaged, damage_of
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


def failures(made: Path, tmp: Path, cases: list[tuple[int, str]]) -> list[str]:  # noqa: F811
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
        code, said = _run(home, "export", "hh1", "-o", str(tmp / f"{way}{page}.json"))
        if "Traceback" in said or code not in (0, 4):
            why.append(f"export exit {code}: {said.strip()[-200:]}")
        if why:
            wrong.append(f"page {page} {way}: " + "; ".join(why))
    return wrong


def test_an_event_page_overwritten_is_found_by_the_backup_and_its_check(made: Path, tmp_path: Path) -> None:  # noqa: F811
    held, overflow = _pages(made)
    pages = sorted((set(held.get("events", [])) | set(held.get("orders", []))) & overflow)
    assert pages, "the home has an overflow page in its events"
    cases = [(p, w) for p in pages for w in WAYS]
    wrong = failures(made, tmp_path, cases)
    assert wrong == [], f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong)
