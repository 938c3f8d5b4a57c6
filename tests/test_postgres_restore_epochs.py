"""The restore epochs on PostgreSQL (months9): tests/test_restore_epochs.py's walks with the record on a server.

Months8's epochs (`pbem.record.home_secrets.new_epoch`, a row of `home_secrets` per restore gone on with) were run
on SQLite alone.  Here the same walks run on PostgreSQL: the old home's `pbem backup` is a pg_dump, the machine lost,
and the dump restored as README's Backups says (`pg_restore --clean --if-exists --no-owner --single-transaction`)
into the record's database under a new home folder; refused, `pbem poll --trust-clock`, the same deadlines again.
Counted as there: Message-IDs the `sent` folder holds for mails of other bytes, replies to the old and the new
mail proving the seat, and the nightly backup judged from the restore; and tests/test_backup_restore.py's machine
lost with its ledger (the Maildir's `sent` folder the witness).  What differed: nothing in pbem; tests/pg.py's
`truncate` kept a test's restore epoch and poll marks for the next test's new home (a home restored before it was
made: its backups judged from a restore that never happened, "the nightly one stopped" never said).  On 12 walks
and 12 nightly cases (`PBEM_RESTORE_WALKS=12`) and the 4 points (`PBEM_FULL_SIZE=1`): 0 ids reused, 0 sent twice,
12 of 12 told a day later; and `pbem poll --restored` after a restore nothing shows (tests/test_restored_unseen.py,
the dump restored with the home folder): 0 sent twice in 4 walks.  The suite runs the reply walk alone (1 s).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.home.config import Config
from pbem.record.db import engine_for
from tests import pg
from tests import test_restore_epochs as tre
from tests.sizes import FULL

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]
WALKS = int(os.environ.get("PBEM_RESTORE_WALKS", 12 if FULL else 0))


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    yield from pg.own_database()


@pytest.fixture
def home(tmp_path: Path, pg_url: str) -> Config:
    pg.truncate(pg_url)
    return pg.pg_home(tmp_path / "home", pg_url)


def pg_restore(home: Config, backup: Path, at: Path) -> None:
    """The backup's pg_dump restored into the record's database, as README's Backups says (the old home's
    connections gone: its machine is lost)."""
    del at
    engine_for(home.database_url).dispose()
    dump = backup / "pbem.pgdump"
    assert dump.exists(), sorted(p.name for p in backup.iterdir())
    done = subprocess.run(
        [
            "pg_restore",
            "--clean",
            "--if-exists",
            "--no-owner",
            "--single-transaction",
            "--exit-on-error",
            f"--dbname={pg.plain_url(home.database_url)}",
            str(dump),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_a_restored_postgres_home_answers_replies_to_the_old_mail_and_the_new(home: Config, tmp_path: Path) -> None:
    tre.replies_case(home, tmp_path, pg_restore)


@pytest.mark.parametrize("case", range(WALKS))
def test_a_restored_postgres_home_does_not_say_the_nightly_backup_stopped(
    home: Config, tmp_path: Path, case: int
) -> None:
    tre.nightly_case(home, tmp_path, case, pg_restore)


@pytest.mark.parametrize("seed", range(WALKS))
def test_a_restored_postgres_home_never_sends_a_mail_under_an_id_the_old_home_sent(
    home: Config, tmp_path: Path, seed: int
) -> None:
    count, _, _ = tre.walk(home, tmp_path, seed, pg_restore)
    assert count == 0, f"{count} Message-IDs reused"


@pytest.mark.skipif(not FULL, reason="PBEM_FULL_SIZE=1 runs it (4 CPU s)")
def test_a_pg_dump_restored_on_another_machine_without_the_old_ledger_sends_nothing_twice(
    home: Config, tmp_path: Path
) -> None:
    """tests/test_backup_restore.py's machine lost with its ledger (the Maildir's `sent` folder the witness) on
    PostgreSQL: each point's dump restored into a new folder with the backup's ledger alone; 0 Message-IDs sent
    twice, none lost (PBEM_FULL_SIZE=1: the 4 points; the suite runs none, at 4 CPU s)."""
    from tests.test_backup_restore import game_day, restored_from_each

    clock, taken = game_day(home, tmp_path)

    def dumped(backup: Path, copy: Path) -> None:
        pg_restore(home, backup, copy)

    twice, lost = restored_from_each(home, clock, taken, tmp_path, dumped, elsewhere=True, old_ledger=False)
    assert (twice, lost) == (dict.fromkeys(twice, 0), dict.fromkeys(lost, 0)), (twice, lost)


@pytest.mark.skipif(not FULL, reason="PBEM_FULL_SIZE=1 runs it")
@pytest.mark.parametrize("seed", range(4))
def test_an_unseen_restore_of_a_postgres_home_held_by_poll_restored_sends_nothing_twice(
    home: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """tests/test_restored_unseen.py on PostgreSQL: the whole home folder and a pg_dump of its database saved, the
    dump restored with the folder; `pbem poll --restored`, `outbox held`, `outbox drop --all`: nothing sent twice."""
    from pbem.record.backup import dump_postgres
    from tests import test_restored_unseen as tru

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))

    def dump(saved: Path):
        import time

        dump_postgres(home.database_url, saved / "pbem.pgdump", time.monotonic() + 120)
        return lambda: pg_restore(home, saved, saved)

    sent_twice, held = tru.walk(home, tmp_path, seed, said=True, dump=dump)
    assert sent_twice == 0 and held > 0, (sent_twice, held)
