"""The witness restores over real IMAP and SMTP with the record on PostgreSQL (months9).

tests/mail/test_sent_witness_imap.py's generated walks (orders, new games, polls, a backup at a seeded step, the
old machine lost, died between the SMTP server and the witness APPEND, or its witness folder deleted) with the
home's record on a PostgreSQL server: the backup is the home folder and a pg_dump taken with it, put back by README's
`pg_restore` command when the machine is lost.  Counted: Message-IDs the SMTP server was given twice: 0 in 8 walks
(`PBEM_SENT_WITNESS_CASES=8`, or `PBEM_FULL_SIZE=1`; the months8 `held` status and the epoch rows on a server).
The suite walks none: tests/test_postgres_restore_epochs.py's reply walk keeps the epochs on PostgreSQL there.
"""

from __future__ import annotations

import collections
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.home import config as config_mod
from tests import pg
from tests.mail import test_sent_witness_imap as imap_walks
from tests.mail.test_e2e import World
from tests.sizes import FULL

pytestmark = [pytest.mark.dovecot, pytest.mark.postgres, pytest.mark.xdist_group("postgres")]
CASES = int(os.environ.get("PBEM_SENT_WITNESS_CASES", "8" if FULL else "0"))  # (a walk: some 2 CPU s)
given = imap_walks.given


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    yield from pg.own_database()


@pytest.mark.parametrize("seed", range(CASES))
def test_generated_restores_on_postgres_send_nothing_twice(
    debian_servers,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    given: collections.Counter[str],
    pg_url: str,
    seed: int,
) -> None:
    from pbem.record.backup import dump_postgres
    from tests.test_postgres_restore_epochs import pg_restore

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    pg.truncate(pg_url)
    w = World(debian_servers, tmp_path, monkeypatch)
    pg.use_postgres(w.cfg.path, pg_url)
    (w.cfg.home / "pbem.db").unlink(missing_ok=True)
    w.cfg = config_mod.load(w.cfg.path)

    def dump(backup: Path):
        dump_postgres(pg_url, backup / "pbem.pgdump", time.monotonic() + 120)
        return lambda: pg_restore(w.cfg, backup, backup)

    with w.readers:
        _, w.bots = w.new_game("italian-wars", 2)  # type: ignore[attr-defined]
        twice = imap_walks._walk(w, seed, tmp_path, monkeypatch, given, dump)
        assert twice == 0, f"SENT-TWICE={twice} {given}"
