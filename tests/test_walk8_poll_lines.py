"""walk8's L9 and L11's first slip: what `pbem poll` prints when it refuses to run, and what --new-outbox-key did.

L9: every refusal of a poll (exit 3) went to stderr twice: once as the `pbem` logger's line ("... pbem ERROR pbem: poll
stopped: ...") and once as the command's own ("pbem: ..."), so cron/pbem-poll's cron.log held each twice.  Now the
logger's line goes to `[log] file` only (`pbem.home.logs.TOLD`): stderr has the refusal once.  The generator below
makes a home refuse its poll in each way a moderator meets without a mail server (`REFUSALS`); on c83d8ea7 3 of the
5 printed the refusal twice (those the poll raises; a missing database and a [log] file it cannot write were
once already), 0 now.

L11 (first slip): `pbem poll --new-outbox-key` printed "nothing to do: no new mail, nothing queued or due" whether it
forgot a lost key or found the key in place; the forgetting itself was a log line on stderr.  Now the run is never
idle and its `note:` line says what it did, once (3 of 3 states printed "nothing to do" on c83d8ea7, 0 now).
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.reliability import forkserver

PLAYERS = ["--player", "Alice <a@x.test>", "--player", "Bob <b@x.test>", "--player", "Carol <c@x.test>"]


def _pbem(home: Path, *args: str):
    return forkserver.pbem(["--config", str(home / "pbem.toml"), *args], cwd=home)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with a game whose invitations went out: its record keeps its outbox.key's check value."""
    home = tmp_path_factory.mktemp("walk8") / "home"
    assert forkserver.pbem(["init", str(home)]).returncode == 0
    assert _pbem(home, "game", "new", "habsburg", "--name", "hh1", *PLAYERS).returncode == 0
    assert _pbem(home, "poll").returncode == 0
    assert (home / "outbox.key").exists()
    return home


def _key_gone(home: Path) -> None:
    (home / "outbox.key").unlink()


def _key_of_another_home(home: Path) -> None:
    import base64
    import os

    (home / "outbox.key").write_bytes(base64.urlsafe_b64encode(os.urandom(32)) + b"\n")  # a key of its own


def _log_a_folder(home: Path) -> None:
    text = (home / "pbem.toml").read_text()
    (home / "pbem.toml").write_text(text.replace("[log]", f'[log]\nfile = "{home}"', 1))


def _lock_a_folder(home: Path) -> None:
    lock = next(home.glob("*.lock"), home / "poll.lock")
    if lock.exists():
        lock.unlink()
    lock.mkdir()


REFUSALS: dict[str, Callable[[Path], None]] = {
    "outbox.key gone": _key_gone,
    "another home's outbox.key": _key_of_another_home,
    "no database": lambda home: (home / "pbem.db").unlink(),
    "[log] file a folder": _log_a_folder,
    "the poll lock a folder": _lock_a_folder,
}


@pytest.mark.parametrize("way", list(REFUSALS))
def test_a_refused_poll_says_so_once_on_stderr(played: Path, tmp_path: Path, way: str) -> None:
    home = Path(shutil.copytree(played, tmp_path / "home"))
    REFUSALS[way](home)
    got = _pbem(home, "poll")
    assert got.returncode in (2, 3), (way, got.returncode, got.stderr)
    assert "Traceback" not in got.stderr, got.stderr
    said = [line.split(": ", 1)[-1] for line in got.stderr.splitlines() if line.strip()]
    twice = [line for line, n in Counter(said).items() if n > 1]
    assert not twice and len(said) == 1, (way, got.stderr)


def test_new_outbox_key_says_what_it_did(played: Path, tmp_path: Path) -> None:
    home = Path(shutil.copytree(played, tmp_path / "home"))
    kept = _pbem(home, "poll", "--new-outbox-key")
    assert kept.returncode == 0 and "nothing to do" not in kept.stdout, kept.stdout
    assert "note: --new-outbox-key: nothing was forgotten: the key file" in kept.stdout, kept.stdout
    assert (home / "outbox.key").exists()
    _key_gone(home)
    assert _pbem(home, "poll").returncode == 3
    forgot = _pbem(home, "poll", "--new-outbox-key")
    assert forgot.returncode == 0 and "nothing to do" not in forgot.stdout, forgot.stdout
    assert "note: --new-outbox-key: the key file " in forgot.stdout and "the record forgot" in forgot.stdout
    assert forgot.stderr == "", forgot.stderr  # told once: the note, not a log line besides
    again = _pbem(home, "poll", "--new-outbox-key")
    assert "note: --new-outbox-key: nothing was forgotten" in again.stdout, again.stdout
    assert _pbem(home, "poll").returncode == 0  # the home goes on
