"""A poll on a home one of whose overflow pages is overwritten (walk10, walk9's leftover).

An overflow page holds the part of a long row past its first page (a mail's bytes, an event's): SQLite does not
check its content (its `quick_check` follows the page's first 4 bytes, the number of the next page, and nothing
else).  The home is walk9's (`tests/test_walk9_damage.py`: a House of
Habsburg game just made, its Turn 1 mails queued, some sealed with a player's code, and a player's signed PASS in
the inbox); each case overwrites one overflow page, whole (walk9's damage) or all but its pointer to the next page
(content only), and runs `pbem poll` once.  Required of every case: no
traceback; exit 0 with the intact run's own summary, or exit 4 with the one line "the database is damaged (...)";
every mail queued before the poll that it sent byte for byte the mail the intact home sends under that Message-ID
(never a damaged mail, never a sealed mail's redacted copy); the player's mail never filed as rejected.  (The
mails the poll itself makes carry its time, so they are not compared.)

Each queued mail's bytes carry their SHA-256 (`outbox_mail.checksum`, migration 0024), which the sender compares
before handing the mail over.  On b1f92b21, over every overflow page of this home (`PBEM_FULL_SIZE=1`): whole
pages 3 of 29 failed (a sealed mail sent as its redacted copy, the run ending exit 0: the last page of a chain,
whose next-page number SQLite does not read; the others it finds damaged itself, exit 4), content only 16 of 29;
0 now.  The README's command runs one page each: the last overflow page of the outbox's mails whole, the middle
one content only (1 of 1 each failed on b1f92b21, 0 now).
"""

from __future__ import annotations

import contextlib
import sqlite3
from email import policy
from pathlib import Path

import pytest

from pbem.home import config as config_mod
from tests.conftest import sent_mail
from tests.sizes import FULL
from tests.test_walk9_damage import PAGE, _copy, _files, _pages, _poll, made  # noqa: F401  (the fixture)


def _copy_content(made: Path, to: Path, page: int) -> Path:  # noqa: F811
    """The home with `page`'s content overwritten and its first 4 bytes kept: an overflow page's pointer to the
    next one, which SQLite's quick_check follows; what it never reads is the content."""
    home = _copy(made, to, None)
    file = home / "pbem.db"
    data = bytearray(file.read_bytes())
    start = (page - 1) * PAGE + 4
    data[start : page * PAGE] = (bytes(range(256)) * 16)[: page * PAGE - start]
    file.write_bytes(bytes(data))
    return home


def _mails(home: Path) -> dict[str, bytes]:
    """Each sent mail's bytes by its Message-ID."""
    cfg = config_mod.load(home / "pbem.toml")
    return {str(m["Message-ID"]): m.as_bytes(policy=policy.SMTP) for m in sent_mail(cfg)}


def failures(made: Path, tmp: Path, pages: list[int], content: bool = False) -> list[str]:  # noqa: F811
    intact = _copy(made, tmp / "intact", None)
    code, summary = _poll(intact)
    assert code == 0 and "1 accepted" in summary, summary
    backed = _mails(intact)
    with contextlib.closing(sqlite3.connect(made / "pbem.db")) as conn:  # the mails queued before the poll
        queued = {str(m) for (m,) in conn.execute("SELECT message_id FROM outbox")}
    wrong: list[str] = []
    for page in pages:
        home = _copy_content(made, tmp / f"c{page}", page) if content else _copy(made, tmp / f"p{page}", page)
        code, said = _poll(home)
        why = []
        if "Traceback" in said:
            why.append("a traceback")
        if code == 0 and said.strip() != summary.strip():
            why.append("exit 0 with another summary")
        elif code == 4 and "pbem: the database is damaged (" not in said:
            why.append("exit 4 without the line")
        elif code not in (0, 4):
            why.append(f"exit {code}")
        if _files(home, "rejected"):
            why.append("the order filed as rejected")
        other = [mid for mid, raw in _mails(home).items() if mid in queued and backed.get(mid) != raw]
        if other:
            why.append(f"{len(other)} mail(s) sent other than the intact home's")
        if why:
            wrong.append(f"page {page}: {', '.join(why)}: {said.strip()[-300:]}")
    return wrong


@pytest.mark.parametrize("content", [False, True], ids=["whole-page", "content-only"])
def test_a_poll_never_sends_a_mail_whose_overflow_page_was_overwritten(
    made: Path,  # noqa: F811
    tmp_path: Path,
    content: bool,
) -> None:
    held, overflow = _pages(made)
    mails = sorted(set(held["outbox_mail"]) & overflow)
    pages = sorted(overflow) if FULL else ([mails[len(mails) // 2]] if content else [mails[-1]])
    assert pages, "the home has overflow pages in its outbox's mails"
    wrong = failures(made, tmp_path, pages, content)
    assert wrong == [], f"{len(wrong)} of {len(pages)} overflow pages:\n" + "\n".join(wrong)


def test_0024_gives_the_mails_still_to_send_their_checksum_and_no_other(made: Path, tmp_path: Path) -> None:  # noqa: F811
    """A home queued before 0024 (its mails downgraded away from their checksums): the upgrade gives each queued
    or failed mail the checksum of the bytes it holds, the sender's (`outbox.mail_checksum`), and a sent one none."""
    from alembic import command

    from pbem.record.db import alembic_config, migrate
    from pbem.record.outbox import mail_checksum

    db = tmp_path / "pbem.db"
    db.write_bytes((made / "pbem.db").read_bytes())
    url = f"sqlite:///{db}"
    command.downgrade(alembic_config(url), "0023_address_bounces")
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        assert "checksum" not in {str(r[1]) for r in conn.execute("PRAGMA table_info(outbox_mail)")}
        ids = [int(i) for (i,) in conn.execute("SELECT id FROM outbox ORDER BY id")]
        conn.execute("UPDATE outbox SET status = 'sent' WHERE id = ?", (ids[0],))
        conn.execute("UPDATE outbox SET status = 'failed' WHERE id = ?", (ids[1],))
    migrate(url)
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("SELECT o.id, m.raw, m.keep_raw, m.checksum FROM outbox o JOIN outbox_mail m USING (id)")
        got = {int(i): (bytes(c) if c is not None else None, mail_checksum(r, k)) for i, r, k, c in rows}
    assert got[ids[0]][0] is None and len(got) == len(ids) >= 3
    assert all(have == want for oid, (have, want) in got.items() if oid != ids[0]), got


def test_backup_and_its_check_say_a_queued_mail_is_damaged(made: Path, tmp_path: Path) -> None:  # noqa: F811
    """The nightly `pbem backup` and `pbem backup --check` compare the checksums of the mails still to send: a mail
    whose overflow page's content was overwritten (its pointer to the next page kept, so SQLite's quick_check finds
    nothing) ends the backup exit 4 and the check exit 1, each naming the mail (on b1f92b21 both said intact)."""
    from typer.testing import CliRunner

    from pbem.cli import app

    held, overflow = _pages(made)
    home = _copy_content(made, tmp_path / "home", max(set(held["outbox_mail"]) & overflow))
    made_it = CliRunner().invoke(app, ["--config", str(home / "pbem.toml"), "backup", str(tmp_path / "b")])
    assert made_it.exit_code == 4 and "1 queued mail(s) (" in made_it.output, made_it.output
    (folder,) = (tmp_path / "b").iterdir()
    checked = CliRunner().invoke(app, ["--config", str(home / "pbem.toml"), "backup", "--check", str(folder)])
    assert checked.exit_code == 1 and "damaged, 1 queued mail(s) (" in checked.output, checked.output
