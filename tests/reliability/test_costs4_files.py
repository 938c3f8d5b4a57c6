"""Files pbem reads whose size it does not choose: the configuration, an export to verify, a player's mail folder.

Each was read whole, however large, and opened as it came: `--config /dev/zero` or `pbem verify /dev/zero` read
until memory ran out (a MemoryError traceback), a FIFO given as either (or as one mail of a Maildir given to
`verify --mail`) waited without end for a writer, a pbem.toml of nested arrays ended in a RecursionError
traceback and one that is not UTF-8 in a UnicodeDecodeError (found by this file).  Now each is refused in one line
(exit 2), a folder's unreadable mail is set aside and named (`note: not read: ...`) while the rest is checked, and
each read stops at its cap: 1 MiB of configuration, the export's 64 MiB, 32 MiB a mail and 1 GiB a folder.
"""

from __future__ import annotations

import contextlib
import json
import mailbox
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pbem.home import config as config_mod
from pbem.trust import receipts
from tests.growth import Stopwatch, Window

WAIT = 20.0  # seconds: a read that is still waiting then never ends
MAX_CONFIG = getattr(config_mod, "MAX_CONFIG_BYTES", 1024 * 1024)  # (getattr: the file runs on the code before)


def _within(work: Callable[[], Any]) -> Any:
    """`work()`'s value or exception, from a thread; still running after WAIT: fail (it waits without end)."""
    out: list[Any] = [None, None]

    def run() -> None:
        try:
            out[0] = work()
        except BaseException as exc:
            out[1] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(WAIT)
    if worker.is_alive():
        pytest.fail(f"still waiting after {WAIT:.0f} s")
    return out[1] if out[1] is not None else out[0]


def _unblock(fifo: Path) -> None:
    """Let a reader still waiting on `fifo` go (a writer comes and leaves): no thread of this test lives on."""
    with contextlib.suppress(OSError):  # no reader: nothing waits
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    """A new home's pbem.toml."""
    from pbem.cli.support import init_home

    return init_home(tmp_path / "home", address="moderator@pbem.test", name="Test Moderator")


def _config_cases(cfg: Path, tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """{case: (the file given as the configuration, what its one line says)}."""
    text = cfg.read_text()
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    nested = tmp_path / "nested.toml"
    nested.write_text(text + "\nzz = " + "[" * 50_000 + "]" * 50_000 + "\n")
    large = tmp_path / "large.toml"
    large.write_text(text + ("# a comment\n" * (MAX_CONFIG // 12 + 1)))
    latin = tmp_path / "latin.toml"
    latin.write_bytes(text.encode() + b"\n# caf\xe9\n")
    return {
        "/dev/zero": (Path("/dev/zero"), "not a regular file"),
        "a FIFO": (fifo, "not a regular file"),
        "nested arrays": (nested, "nested too deep"),
        "over the cap": (large, f"more than the {MAX_CONFIG:,}"),
        "not UTF-8": (latin, "not UTF-8"),
    }


def test_a_configuration_pbem_cannot_read_is_refused_in_one_line(home: Path, tmp_path: Path) -> None:
    for case, (path, said) in _config_cases(home, tmp_path).items():
        got = _within(lambda path=path: config_mod.load(path))
        if case == "a FIFO":
            _unblock(path)
        assert isinstance(got, config_mod.ConfigError), (case, repr(got)[:300])
        assert said in str(got) and "\n" not in str(got), (case, str(got))
    assert config_mod.load(home).path == home  # the real one still reads


def test_pbem_says_it_in_one_line_and_exit_2(home: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for args in (["--config", str(fifo), "game", "list"], ["--config", str(home), "verify", "/dev/zero"]):
        got = _within(lambda args=args: CliRunner().invoke(app, args))
        _unblock(fifo)
        assert got.exit_code == 2, (args, got.exit_code, got.output[-1500:])
        assert got.output.count("\n") == 1 and "not a regular file" in got.output, (args, got.output[-1500:])


def test_an_export_that_is_no_regular_file_or_too_large_is_refused(home: Path, tmp_path: Path, monkeypatch) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app
    from pbem.trust import canonical

    fifo = tmp_path / "export.json"
    os.mkfifo(fifo)
    got = _within(lambda: CliRunner().invoke(app, ["verify", str(fifo)]))
    _unblock(fifo)
    assert got.exit_code == 2 and "the export is not a regular file" in got.output, got.output
    monkeypatch.setattr(canonical, "MAX_BYTES", 1000)
    big = tmp_path / "big.json"
    big.write_text("[" + "1," * 600 + "1]")
    got = CliRunner().invoke(app, ["verify", str(big)])
    assert got.exit_code == 2 and "1,203 bytes, more than the 1,000" in got.output, got.output


def _maildir(path: Path, mails: list[bytes]) -> Path:
    box = mailbox.Maildir(str(path), create=True)
    for raw in mails:
        box.add(raw)
    return path


MAIL = b"From: a@x.test\nTo: b@x.test\nSubject: %d\nMessage-ID: <%d@x.test>\n\nhello\n"


def test_a_mail_folder_sets_aside_what_it_cannot_read_and_reads_the_rest(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(receipts, "MAX_MAIL_BYTES", 2_000, raising=False)
    folder = _maildir(tmp_path / "box", [MAIL % (i, i) for i in range(5)])
    os.mkfifo(folder / "cur" / "0000.fifo:2,S")
    (folder / "cur" / "0001.big:2,S").write_bytes(MAIL % (9, 9) + b"x" * 2_000)
    told: list[str] = []
    got = _within(lambda: receipts.read_folder(folder, told))
    _unblock(folder / "cur" / "0000.fifo:2,S")
    assert sorted(got) == sorted(MAIL % (i, i) for i in range(5)), got
    assert len(told) == 2 and "0000.fifo:2,S in" in told[0] and "not a regular file" in told[0], told
    assert "0001.big:2,S in" in told[1] and "more than the 2,000" in told[1], told
    # the same folder, as .eml files
    eml = tmp_path / "eml"
    eml.mkdir()
    for i in range(3):
        (eml / f"{i}.eml").write_bytes(MAIL % (i, i))
    os.mkfifo(eml / "3.eml")
    told = []
    got = _within(lambda: receipts.read_folder(eml, told))
    _unblock(eml / "3.eml")
    assert len(got) == 3 and len(told) == 1, (got, told)


def test_a_folder_larger_than_its_cap_is_refused_before_it_is_held(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(receipts, "MAX_FOLDER_BYTES", 1_000, raising=False)
    folder = _maildir(tmp_path / "box", [MAIL % (i, i) for i in range(20)])
    with pytest.raises(receipts.NoMail, match="more than the 1,000 bytes"):
        receipts.read_folder(folder)
    mbox = tmp_path / "mbox"
    box = mailbox.mbox(str(mbox))
    for i in range(20):
        box.add(MAIL % (i, i))
    box.close()
    with pytest.raises(receipts.NoMail, match="more than the 1,000 pbem reads"):
        receipts.read_folder(mbox)


def test_verify_mail_tells_the_files_it_set_aside(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app
    from tests.test_history_golden import seeded_export, seeded_home

    doc_path = tmp_path / "g.json"
    doc_path.write_text(json.dumps(seeded_export("habsburg")))
    sent = receipts.read_folder(config_mod.load(seeded_home("habsburg") / "pbem.toml").maildir_path / "sent")
    alice = [raw for raw in sent if b"alice@players.example" in raw.split(b"\n\n", 1)[0]]
    folder = _maildir(tmp_path / "alice", alice)
    for k in range(12):
        os.mkfifo(folder / "new" / f"fifo{k:02d}")
    started = Window()
    got = _within(lambda: CliRunner().invoke(app, ["verify", str(doc_path), "--mail", str(folder)]))
    for k in range(12):
        _unblock(folder / "new" / f"fifo{k:02d}")
    assert got.exit_code == 0, got.output[-2000:]
    notes = [line for line in got.output.splitlines() if line.startswith("note: not read: ")]
    assert len(notes) == 11 and notes[-1] == f"note: not read: 2 more files in {folder}", notes
    assert "verification passed" in got.output and started.close().cpu < WAIT


@pytest.mark.parametrize("kind", ["a folder", "a FIFO"])
def test_a_poll_lock_that_is_no_file_stops_the_poll_in_one_line(home: Path, kind: str) -> None:
    """`.pbem-poll.lock` made a folder or a FIFO (a restore gone wrong, a mount): the poll said it in a traceback."""
    from pbem.app.cron import run_poll
    from pbem.mail.transports.seam import TransportError

    lock = home.parent / ".pbem-poll.lock"
    if kind == "a folder":
        lock.mkdir()
    else:
        os.mkfifo(lock)
    got = _within(lambda: run_poll(config_mod.load(home)))
    _unblock(lock)
    assert isinstance(got, TransportError), repr(got)
    assert str(got).startswith(f"the poll lock {lock} cannot be used: "), str(got)


@pytest.mark.parametrize("kind", ["nested arrays", "a FIFO", "/dev/zero"])
def test_a_site_manifest_pbem_cannot_read_is_read_as_none(home: Path, tmp_path: Path, kind: str) -> None:
    """The public site's `.pbem-site.json` (what the last publish wrote) made unreadable: the site is written
    whole again; it ended in a RecursionError, waited for a writer, or read until memory ran out."""
    from typer.testing import CliRunner

    from pbem.app.publish import MANIFEST
    from pbem.cli import app

    site = tmp_path / "site"
    site.mkdir()
    manifest = site / MANIFEST
    if kind == "nested arrays":
        manifest.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "a FIFO":
        os.mkfifo(manifest)
    else:
        manifest.symlink_to("/dev/zero")
    got = _within(lambda: CliRunner().invoke(app, ["--config", str(home), "publish", str(site)]))
    _unblock(manifest)
    assert getattr(got, "exit_code", None) == 0 and "published 0 game(s)" in got.output, repr(got)[:500]
    assert manifest.is_file() and not manifest.is_symlink() and json.loads(manifest.read_text())["games"] == {}


def test_a_poll_lock_whose_open_waits_ends_at_the_polls_deadline(home: Path) -> None:
    """Opening the lock file waits as long as the home's file system does (a hung NFS mount): here a write lease
    this test holds, which makes the kernel hold every other open of the file (45 s on Linux, then the lease is
    broken).  The poll armed its watchdog only after it had the lock: it waited the whole 45 s; now its backstop
    ends it at the deadline and the grace after it, exit 3 with one line."""
    import subprocess
    import sys

    from tests.reliability.test_waits_every_command import held

    toml = home.read_text().replace("[mail]", "[mail]\npoll_deadline = 1", 1)
    home.write_text(toml)
    lock = home.parent / ".pbem-poll.lock"
    lock.touch()
    with held(lock):
        code = (
            "import sys; from pbem.mail.transports import deadline; deadline.GRACE = 0.1; from pbem.cli import main; "
            f"sys.argv = ['pbem', '--config', {str(home)!r}, 'poll']; main()"
        )
        watch = Stopwatch()
        try:
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=WAIT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the poll still waited for its lock file after {WAIT:.0f} s")
        spent = watch.stop()
    assert r.returncode == 3, (r.returncode, r.stderr[-1500:])
    assert "passed its deadline of 1 s" in r.stderr and "Traceback" not in r.stderr, r.stderr[-1500:]
    assert spent < 1 + 0.1 + 8, spent  # wall clock: deadline


@pytest.mark.parametrize("kind", ["damaged", "a FIFO", "/dev/zero"])
def test_a_key_file_that_holds_no_key_ends_a_command_in_one_line(home: Path, kind: str, monkeypatch, capsys) -> None:
    """The home's `game-keys.secret` damaged, a FIFO or a link to a device: a ValueError traceback, an endless
    wait, a read until memory ran out.  Now one line naming the file and the fix, exit 3, as a missing key does
    (`pbem.cli.main`, in this process)."""
    import sys

    from pbem.cli import main
    from pbem.record import sealing

    path = home.parent / sealing.FILE
    assert not path.exists()  # made on first use; every command reads it once it is there
    if kind == "damaged":
        path.write_text("not a key\n")
    elif kind == "a FIFO":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    sealing._KEYS.clear()
    sealing._FILES.clear()
    monkeypatch.setattr(sys, "argv", ["pbem", "--config", str(home), "game", "list"])
    got = _within(main)
    _unblock(path)
    err = capsys.readouterr().err
    assert isinstance(got, SystemExit) and got.code == 3, (repr(got)[:500], err[-800:])
    assert err.startswith(f"pbem: the key file {path} ") and err.count("\n") == 1, err[-800:]
    assert err.rstrip().endswith("restore it from the backup of this home"), err


def test_a_damaged_outbox_key_sends_the_redacted_copy(home: Path) -> None:
    """`outbox.key` damaged: a queued mail's code cannot be opened, so its redacted copy goes, with a warning (a
    ValueError traceback in the sender before); sealing a new one stops in one line."""
    from pbem.mail.outbound import sealed
    from pbem.record.sealing import Unsealable

    raw = sealed.seal(home.parent, b"Subject: x\n\nCODE secret\n")
    (home.parent / sealed.KEY_FILE).write_text("damaged\n")
    sealed._KEYS.clear()
    assert sealed.opened(home.parent, raw, b"Subject: x\n\nCODE [redacted]\n") == b"Subject: x\n\nCODE [redacted]\n"
    with pytest.raises(Unsealable, match="holds no key"):
        sealed.seal(home.parent, b"Subject: y\n\n")


def test_a_log_file_that_is_a_fifo_no_process_reads_stops_the_poll_in_one_line(home: Path, tmp_path: Path) -> None:
    """`[log] file` a FIFO whose reader is gone: logging's open waited for a reader without end, before the poll's
    deadline was armed, one more run at every cron tick.  Now one line, exit 2; a regular file still logs."""
    from typer.testing import CliRunner

    from pbem.cli import app

    fifo = tmp_path / "pbem.log"
    os.mkfifo(fifo)
    text = home.read_text()
    assert '#[log]\n#file = "pbem.log"' in text
    home.write_text(text.replace('#[log]\n#file = "pbem.log"', f'[log]\nfile = "{fifo}"'))
    got = _within(lambda: CliRunner().invoke(app, ["--config", str(home), "poll"]))
    _unblock(fifo)
    assert getattr(got, "exit_code", None) == 2, repr(got)[:500]
    assert got.output == f"pbem: [log] file {fifo} cannot be written: it is a FIFO that no process reads (in {home})\n"
    fifo.unlink()
    got = CliRunner().invoke(app, ["--config", str(home), "poll"])
    assert got.exit_code == 0 and fifo.is_file(), got.output


def test_a_configuration_with_thousands_of_reminders_is_refused(home: Path) -> None:
    """`[games] reminders` of 200,000 offsets was accepted: a reminder mail to every player asked, for each,
    at every step (reminders are outside the answers budget)."""
    text = home.read_text()
    many = ", ".join(f'"{i + 1}m"' for i in range(5_000))
    import re

    home.write_text(re.sub(r"(?m)^#?reminders = .*$", f"reminders = [{many}]", text, count=1))
    with pytest.raises(config_mod.ConfigError, match=r"\[games\] reminders: 5,000 reminders; at most \d+"):
        config_mod.load(home)
