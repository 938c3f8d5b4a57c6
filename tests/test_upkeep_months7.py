"""Months7: a key file that holds no key, the held mail told, `pbem prune --vacuum` on PostgreSQL.

`damaged`: the home at the 3 points of `tests.test_backup_keys.lost_points` whose record had an `outbox.key` (its
check value, or sealed mail waiting), copied with the key file damaged in one of 7 ways (`DAMAGES`: empty, cut short,
a character no key holds, its last two cut, bytes of no text, a folder, a FIFO), then polled.  On 4da2cbd6 a missing
key stopped the run, but a damaged one did not: the run went on and every sealed mail waiting went out with its
player's code redacted (`PBEM_DAMAGED_KEYS=1 python3 -m pytest tests/test_upkeep_months7.py -k damaged`: all 21
runs went on, 14 of them sending 42 invitations redacted, the codes lost; the other 7 had no sealed mail waiting,
and the next mail sealed would have gone the same way).  Now each of the 21 stops in one line, exit 3, nothing sent, and with the key
put back the next run sends every invitation with its code.  The suite runs 2 damages.
"""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbem.app import upkeep
from pbem.app.cron import run_poll
from pbem.home import config as config_mod
from pbem.mail.outbound import sealed
from pbem.mail.outbound.outgoing import REDACTED
from pbem.mail.transports.seam import TransportError
from pbem.record.db import engine_for
from tests.conftest import CODES, sent_mail
from tests.test_backup_keys import lost_points


def _cut(key: bytes) -> bytes:
    return key[:20]


DAMAGES = {
    "empty": lambda key: b"",
    "cut-short": _cut,
    "not-base64": lambda key: key[:10] + b"!" + key[11:],
    "one-short": lambda key: key.strip()[:-2],
    "binary": lambda key: bytes(range(256)),
    "folder": None,
    "fifo": None,
}
SAMPLE = ["cut-short", "folder"]
CASES = list(DAMAGES) if os.environ.get("PBEM_DAMAGED_KEYS") else SAMPLE


def _damage(path: Path, how: str) -> None:
    key = path.read_bytes()
    path.unlink()
    if how == "folder":
        path.mkdir()
    elif how == "fifo":
        os.mkfifo(path)
    else:
        path.write_bytes(DAMAGES[how](key))  # type: ignore[misc]


@pytest.mark.parametrize("how", CASES)
def test_a_damaged_outbox_key_stops_the_run_and_loses_no_code(home, clock, how: str) -> None:
    points = lost_points(home, clock)  # (copies with the key removed: the home's own key put back, then damaged)
    key = (home.home / sealed.KEY_FILE).read_bytes()
    wrong = []
    for name, had in points.items():
        if not had:
            continue
        copy = home.home.parent / f"lost-{name}"
        cfg = config_mod.load(copy / "pbem.toml")
        (copy / sealed.KEY_FILE).write_bytes(key)
        _damage(copy / sealed.KEY_FILE, how)
        sealed._KEYS.clear()  # (a new process reads the file)
        clock.advance(minutes=6)
        before = len(sent_mail(cfg))
        try:
            run_poll(cfg, clock=clock)
            wrong.append((name, "ran"))
        except TransportError as exc:
            line = str(exc)
            said = any(w in line for w in ("holds no key", "not a regular file", "is no key file"))
            if not said or "run once: pbem poll --new-outbox-key" not in line or "\n" in line:
                wrong.append((name, line))
        redacted = [m for m in sent_mail(cfg)[before:] if REDACTED in m.as_string()]
        if redacted:
            wrong.append((name, f"{len(redacted)} sent redacted"))
        p = copy / sealed.KEY_FILE
        shutil.rmtree(p) if p.is_dir() else p.unlink()
        p.write_bytes(key)  # put back: the next run sends what waits, codes and all
        sealed._KEYS.clear()
        clock.advance(minutes=6)
        run_poll(cfg, clock=clock)
        got = [m.as_string() for m in sent_mail(cfg)[before:]]
        if any(REDACTED in m for m in got) or (
            name != "invitations-sent" and not any(CODES["Alice"] in m for m in got)
        ):
            wrong.append((name, "codes lost"))
        engine_for(cfg.database_url).dispose()
    assert wrong == [], wrong


def test_held_mail_is_told_every_day_with_the_commands() -> None:
    now = datetime(2026, 12, 7, tzinfo=UTC)
    (c,) = upkeep.conditions(upkeep.Facts(now=now, held=2))
    assert c.kind == "held_mail" and c.text.startswith("2 mail(s) waiting when this home's database was restored")
    assert "pbem outbox release --all" in c.act and "pbem outbox drop --all" in c.act
    assert upkeep.conditions(upkeep.Facts(now=now)) == []
    told, kept = upkeep.due([c], {}, now)
    assert told == [c]
    assert upkeep.due([c], kept, now.replace(hour=12))[0] == []  # not again the same day


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres")
def test_prune_vacuum_on_postgres_vacuums_the_mail_tables(tmp_path: Path, clock) -> None:
    """`pbem prune --vacuum` on PostgreSQL printed "nothing to vacuum here" and did nothing on 4da2cbd6 (1 of 1); now
    it runs a plain VACUUM (ANALYZE) of outbox_mail and outbox (no lock a poll waits on: SHARE UPDATE EXCLUSIVE),
    counted by the server's statistics, and says what it did in one line."""
    from sqlalchemy import text
    from typer.testing import CliRunner

    from pbem.app import games
    from pbem.cli import app
    from pbem.home.app import Home
    from pbem.record.db import reading
    from tests import pg
    from tests.test_backup import PLAYERS

    def vacuums(url: str) -> int:
        with reading(url) as c:
            got = c.execute(text("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'outbox_mail'")).scalar()
        return int(got or 0)

    for url in pg.own_database():
        pg.truncate(url)
        cfg = pg.pg_home(tmp_path / "home", url)
        games.create_game(Home.of(cfg), "habsburg", "hh1", PLAYERS, seed="vacuum", clock=clock, codes=CODES)
        before = vacuums(url)
        got = CliRunner().invoke(app, ["prune", "--vacuum", "--config", str(cfg.path)])
        assert got.exit_code == 0, got.output
        (line,) = [ln for ln in got.output.splitlines() if ln.startswith("VACUUM")]
        assert line.startswith("VACUUM (ANALYZE) outbox_mail, outbox: ") and "VACUUM FULL outbox_mail" in line, line
        assert vacuums(url) == before + 1
        engine_for(url).dispose()
