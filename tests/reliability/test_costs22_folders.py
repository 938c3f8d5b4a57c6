"""`pbem verify --mail` of a folder of very many mails: refused before a mail is read, in one sentence (costs22).

A folder was bounded in bytes only (1 GiB, `MAX_FOLDER_BYTES`): an mbox of a million tiny mails (140 MB) took
some 110 s and 750 MB to read and parse (20,000: 2.2 s; 80,000: 7.1 s and 137 MB at its peak), and 1 GiB of them
minutes and gigabytes.  A folder of more than `MAX_FOLDER_MAILS` mails (100,000; a player's mail of a long game is a
few thousand) is now refused with exit 2, saying to give a folder of the game's mail only: an mbox's mails counted
by their "From " lines in C, a megabyte at a time, a Maildir's or a folder's of .eml by their names.

The generator: each form (mbox, Maildir, .eml) of tiny mails at 2 and 8 times the cap (set to 30 here), read as
`verify --mail` reads a folder (`read_folder`, then `parse_folder`), counted in lines of Python
(`tests.growth.step_growth`).  On c83d8ea7 3 of 3 forms read every mail (4.0 times the lines at 4x), now 0 of 3:
each is refused at the same count of lines whatever its size; a folder of exactly the cap is read whole.
`PBEM_COSTS22_FULL=1` runs the cap at 300 (the suite 30).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.trust import receipts
from tests.growth import held_growth, step_growth

CAP = 300 if os.environ.get("PBEM_COSTS22_FULL") else 30


def _tiny(k: int) -> bytes:
    return f"From: x{k}@example.test\nTo: alice@players.example\nSubject: hi {k}\nMessage-ID: <{k}@x>\n\nhi\n".encode()


def _mbox(where: Path, n: int) -> Path:
    where.mkdir(parents=True)
    path = where / "box.mbox"
    path.write_bytes(b"".join(b"From MAILER-DAEMON Thu Jan  1 00:00:00 2026\n" + _tiny(k) + b"\n" for k in range(n)))
    return path


def _maildir(where: Path, n: int) -> Path:
    for sub in ("cur", "new", "tmp"):
        (where / sub).mkdir(parents=True)
    for k in range(n):
        (where / "new" / f"{1700000000 + k}.M{k}P1.host").write_bytes(_tiny(k))
    return where


def _eml(where: Path, n: int) -> Path:
    where.mkdir(parents=True)
    for k in range(n):
        (where / f"{k:06}.eml").write_bytes(_tiny(k))
    return where


FORMS: dict[str, Callable[[Path, int], Path]] = {"mbox": _mbox, "Maildir": _maildir, ".eml": _eml}


def _read(path: Path) -> object:
    try:
        return receipts.parse_folder(receipts.read_folder(path))
    except receipts.NoMail as exc:
        return exc


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_folder_of_too_many_mails_is_refused_at_a_cost_that_does_not_grow(
    form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(receipts, "MAX_FOLDER_MAILS", CAP, raising=False)
    (tmp_path / form).mkdir()
    folder = FORMS[form](tmp_path / form / "at the cap", CAP)
    read = _read(folder)
    assert isinstance(read, receipts.Folder) and len(read.mails) == CAP, read

    def work(n: int) -> Callable[[], object]:
        path = FORMS[form](tmp_path / form / str(n), n)
        return lambda: _read(path)

    g = step_growth(work, 2 * CAP)
    assert g.ratio <= 1.5, f"{form}: {g}"
    refused = _read(tmp_path / form / str(8 * CAP) / ("box.mbox" if form == "mbox" else ""))
    assert isinstance(refused, receipts.NoMail) and f"more than {CAP:,} mails" in str(refused), str(refused)[:200]


def test_verify_says_what_to_give_instead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(receipts, "MAX_FOLDER_MAILS", CAP, raising=False)
    export = tmp_path / "export.json"
    export.write_text('{"format": 1}')
    box = _mbox(tmp_path / "mail", CAP + 1)
    res = CliRunner().invoke(app, ["verify", str(export), "--mail", str(box)])
    assert res.exit_code == 2, res.output
    assert (
        f"holds more than {CAP:,} mails, more than pbem reads: give --mail a folder of this game's mail" in res.output
    )


def test_an_mbox_mail_over_the_cap_is_set_aside_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An mbox's mail was read whole (`get_bytes`) before it was set aside for its size: a mail of 200 MB held
    422 MB at the peak (a folder's 1 GiB, 2 GB).  Its size is now read from the mbox's table first, and only a mail
    within the cap is read: 43 MB.  Here the cap at 1 MiB, one mail of 8 and 32 MiB beside a small one, the bytes
    held at the peak (`tests.growth.held_growth`; reading the mbox's table holds some 3 MB of its own): 4.0 at 4x
    on c83d8ea7 (twice the mail held), now 1.0; the same sentence told."""
    cap = 1024 * 1024
    monkeypatch.setattr(receipts, "MAX_MAIL_BYTES", cap)

    def work(n: int) -> Callable[[], object]:
        path = tmp_path / f"{n}.mbox"
        line = b"y" * 9_999 + b"\n"  # long lines: the mbox's table is read a line at a time
        head = b"From MAILER-DAEMON Thu Jan  1 00:00:00 2026\n"
        path.write_bytes(head + b"From: a@b.test\nSubject: big\n\n" + line * (n // len(line)) + head + _tiny(1))
        return lambda: receipts.read_folder(path, [])

    g = held_growth(work, 8 * cap)  # each size read in a child of its own (`tests.growth.held`): what it tells here
    told: list[str] = []
    receipts.read_folder(tmp_path / f"{4 * 8 * cap}.mbox", told)
    assert len(told) == 1 and "message 1 of" in told[0] and f"more than the {cap:,} read" in told[0], told
    assert g.ratio <= 1.5, g
