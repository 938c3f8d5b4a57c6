"""Another home's `outbox.key` is named with no sealed mail waiting (pbem.record.outbox_key, pbem.app.outbox_key).

Before, `pbem backup --check` could tell whose `outbox.key` a backup held only by the sealed mails waiting to be
sent (their codes): once a poll had sent them, any valid key passed, and a restored home ran with another home's
key, sealing the next codes under it.  Now the record keeps a check value of its key (a MAC of a fixed label under
it, `home_secrets` row `outbox-key-check`), written the first time a run finds a key and no value (a home made
before: its next poll), and `--check`, `pbem poll` and every command that changes the home compare the key with it.

The generator `wrong_keys` (another home's key, one character changed at six places: each still a key): on
e5c877a `--check` passed 7 of 7 backups with no sealed mail waiting, and the poll and `pbem game pause` ran
with 7 of 7 such keys in the home; on this branch 0 of 7 each.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from pbem.app import games
from pbem.app.backup import MANIFEST, digest, take
from pbem.app.backup_check import check
from pbem.app.cron import run_poll
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.mail.outbound import sealed
from pbem.mail.transports.seam import TransportError
from pbem.record import outbox_key
from pbem.record.db import engine_for
from pbem.record.store import now_utc
from tests.conftest import CODES
from tests.test_backup import PLAYERS, _cli

ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def wrong_keys(key: bytes) -> dict[str, bytes]:
    """Keys that are not `key`: another home's, and `key` with one character changed at six places."""
    swapped = {
        f"char{at}": key[:at] + bytes([ALPHABET[(ALPHABET.index(key[at]) + 1) % 64]]) + key[at + 1 :]
        for at in range(0, 42, 7)
    }
    return {"other-home": Fernet.generate_key(), **swapped}


def _stored(db: Path) -> str | None:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        row = c.execute("SELECT value FROM home_secrets WHERE name = ?", (outbox_key.NAME,)).fetchone()
    c.close()
    return str(row[0]) if row else None


def _sealed_waiting(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        n = int(
            c.execute(
                "SELECT count(*) FROM outbox JOIN outbox_mail USING (id) WHERE substr(raw, 1, 14) = ?", (sealed.MARK,)
            ).fetchone()[0]
        )
    c.close()
    return n


@pytest.fixture
def sent(home, clock):
    """A home whose game's invitations (sealed: they carry the codes) were all sent: no sealed mail waits."""
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="keys", clock=clock, codes=CODES)
    run_poll(home, clock=clock)
    db = home.home / "pbem.db"
    assert _sealed_waiting(db) == 0
    return home


def test_a_backups_outbox_key_of_another_home_is_named_with_no_sealed_mail_waiting(sent, tmp_path: Path) -> None:
    key = (sent.home / sealed.KEY_FILE).read_bytes().strip()
    assert _stored(sent.home / "pbem.db") == outbox_key.check_value(key)  # the poll that made the key kept it
    one = take(sent, tmp_path / "b", "one", now_utc(), 30).folder
    assert check(one).ok and any("outbox.key: is this database's" in line for line in check(one).lines)
    missed = []
    for how, new in wrong_keys(key).items():
        bad = Path(shutil.copytree(one, tmp_path / how))
        (bad / sealed.KEY_FILE).write_bytes(new + b"\n")
        manifest = json.loads((bad / MANIFEST).read_text())
        manifest["files"][sealed.KEY_FILE] = digest(bad / sealed.KEY_FILE)
        (bad / MANIFEST).write_text(json.dumps(manifest))
        got = check(bad)
        if got.ok or [line for line in got.wrong if not line.startswith("outbox.key: is not this database's")]:
            missed.append((how, got.lines))
    assert missed == [], missed
    (sent.home / sealed.KEY_FILE).write_bytes(Fernet.generate_key() + b"\n")  # a backup of such a home says so
    code, said = _cli("backup", str(tmp_path / "b"), "--name", "two", "--config", str(sent.path))
    assert code == 0 and f"note: {sent.home / sealed.KEY_FILE} is not this database's (saved all the same)" in said


def test_the_poll_and_every_changing_command_refuse_another_homes_outbox_key(sent, clock) -> None:
    path = sent.home / sealed.KEY_FILE
    key = path.read_bytes().strip()
    ran = []
    for how, new in wrong_keys(key).items():
        path.write_bytes(new + b"\n")
        clock.advance(minutes=6)
        try:
            run_poll(sent, clock=clock)
            ran.append((how, "poll"))
        except TransportError as exc:
            assert str(exc).startswith(f"the key file {path} is not this database's: "), exc
        code, said = _cli("game", "pause", "hh1", "--config", str(sent.path))
        if code != 3 or "is not this database's" not in said:
            ran.append((how, said))
    assert ran == [], ran
    code, said = _cli("game", "pause", "hh1", "--config", str(sent.path))
    assert "put back the outbox.key saved with this database (`pbem backup` saves them together)" in said, said
    assert said.rstrip().endswith("; nothing was changed"), said
    path.write_bytes(key + b"\n")  # the right one put back: the home runs again
    clock.advance(minutes=6)
    run_poll(sent, clock=clock)
    assert _cli("game", "pause", "hh1", "--config", str(sent.path)) == (
        0,
        "hh1 paused; the players are told (run pbem poll to send)\n",
    )


def test_a_home_made_before_keeps_its_keys_check_value_at_its_next_poll(sent, clock, tmp_path: Path) -> None:
    """The record of a home made before this pbem has no check value: its next poll (or `pbem upgrade`) writes it;
    a backup taken between says whose key it holds is not known (the old all-clear, said as such)."""
    db = sent.home / "pbem.db"
    engine_for(sent.database_url).dispose()
    with sqlite3.connect(db) as c:
        c.execute("DELETE FROM home_secrets WHERE name = ?", (outbox_key.NAME,))
    c.close()
    before = take(sent, tmp_path / "b", "before", now_utc(), 30).folder
    assert "outbox.key: holds a key; whose is not known (the database keeps no check value of its key yet)" in (
        check(before).lines
    )
    clock.advance(minutes=6)
    run_poll(sent, clock=clock)
    assert _stored(db) == outbox_key.check_value((sent.home / sealed.KEY_FILE).read_bytes())
    with sqlite3.connect(db) as c:  # `pbem upgrade`, run after installing this pbem, writes it too
        c.execute("DELETE FROM home_secrets WHERE name = ?", (outbox_key.NAME,))
    c.close()
    assert _cli("upgrade", "--config", str(sent.path))[0] == 0
    assert _stored(db) == outbox_key.check_value((sent.home / sealed.KEY_FILE).read_bytes())


def lost_points(home, clock) -> dict[str, bool]:
    """The home at points of its life, each copied with its `outbox.key` removed: whether the record shows it had a
    key (its check value, or sealed mail waiting).  A first run has neither: the key is made with the first sealed
    mail."""
    h = Home.of(home)
    points: dict[str, bool] = {}

    def point(name: str) -> None:
        engine_for(home.database_url).dispose()
        copy = Path(shutil.copytree(home.home, home.home.parent / f"lost-{name}"))
        (copy / sealed.KEY_FILE).unlink(missing_ok=True)
        (copy / "pbem.toml").write_text((home.home / "pbem.toml").read_text().replace(str(home.home), str(copy)))
        points[name] = _stored(home.home / "pbem.db") is not None or _sealed_waiting(home.home / "pbem.db") > 0

    point("new-home")
    run_poll(home, clock=clock)
    point("polled-no-game")
    games.create_game(h, "habsburg", "hh1", PLAYERS, seed="lost1", clock=clock, codes=CODES)
    point("invitations-sealed-waiting")
    clock.advance(minutes=6)
    run_poll(home, clock=clock)
    point("invitations-sent")
    games.create_game(h, "habsburg", "hh2", PLAYERS, seed="lost2", clock=clock, codes=CODES)
    point("more-sealed-waiting")
    return points


def test_a_missing_outbox_key_stops_a_home_whose_record_had_one(home, clock) -> None:
    """`lost_points`: the home copied at 5 points with its `outbox.key` removed, polled and `pbem game pause`d (where
    a game is).  On 8080c21 the poll ran at 3 of the 3 points whose record held the key's check value or sealed mail
    (making a new key, sending the sealed mail redacted, a warning in the log only), and `game pause` at 3 of 3; on
    this branch 0 of 3 and 0 of 3, each stopped in one line, exit 3; the 2 points with neither (a first run) run."""
    points = lost_points(home, clock)
    assert list(points.values()) == [False, False, True, True, True], points
    wrong = []
    for name, had in points.items():
        cfg = config_mod.load(home.home.parent / f"lost-{name}" / "pbem.toml")
        sealed._KEYS.clear()  # (this process kept the old key: a new process reads the file)
        clock.advance(minutes=6)
        try:
            run_poll(cfg, clock=clock)
            ran = True
        except TransportError as exc:
            ran = False
            line = str(exc)
            if not (
                line.startswith(f"the key file {cfg.home / sealed.KEY_FILE} is missing, and this database ")
                and "run once: pbem poll --new-outbox-key" in line
            ):
                wrong.append((name, line))
        if ran == had:
            wrong.append((name, "ran" if ran else "refused"))
        if had:
            code, said = _cli("game", "pause", "hh1", "--config", str(cfg.path))
            if code != 3 or "is missing" not in said or "\n" in said.rstrip("\n"):
                wrong.append((name, said))
        engine_for(cfg.database_url).dispose()
    assert wrong == [], wrong


def test_a_lost_outbox_key_is_let_go_once_and_the_lost_one_is_then_refused(sent, clock) -> None:
    """A home whose key file is gone is refused (above) until `pbem poll --new-outbox-key`: the record forgets the
    lost key's value, the key the home makes next is its own, and the old one put back later is refused."""
    path = sent.home / sealed.KEY_FILE
    old = path.read_bytes()
    path.unlink()
    sealed._KEYS.clear()  # (this process kept the old key: a new process reads the file)
    clock.advance(minutes=6)
    with pytest.raises(TransportError, match=r"is missing, and this database keeps the check value of its outbox\.key"):
        run_poll(sent, clock=clock)
    run_poll(sent, clock=clock, new_key=True)  # `pbem poll --new-outbox-key`
    assert _stored(sent.home / "pbem.db") is None
    games.create_game(Home.of(sent), "habsburg", "hh2", PLAYERS, seed="keys2", clock=clock, codes=CODES)
    clock.advance(minutes=6)
    run_poll(sent, clock=clock)
    assert path.read_bytes() != old and _stored(sent.home / "pbem.db") == outbox_key.check_value(path.read_bytes())
    path.write_bytes(old)
    clock.advance(minutes=6)
    with pytest.raises(TransportError, match="is not this database's"):
        run_poll(sent, clock=clock)
