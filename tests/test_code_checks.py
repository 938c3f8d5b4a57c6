"""Players' codes: stored keyed with the home's key file (docs/security.md), checked once per (seat, code) per process.

A new code is stored as ``hmac_sha256$KEY-ID$SALT$HEX``, keyed with a key derived from `game-keys.secret`: the
record alone checks no guess.  Codes stored before with PBKDF2 (60,000 or 10,000 rounds) still check.  What the
poll controls is how often a check is paid: `pbem.trust.codes.derivations` counts them, either form, and
`pbkdf2_runs` the PBKDF2 ones among them.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import shutil
import sqlite3
from pathlib import Path

import pytest

from pbem.app import games
from pbem.app import poll as polling
from pbem.cli.support import init_home
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from pbem.record import sealing
from pbem.trust import codes
from tests.conftest import CODES, deliver, order_mail, signed

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]


def test_one_derivation_per_seat_and_code_however_often_it_is_checked() -> None:
    codes.forget_checks()
    stored = codes.hash_code("K7QX-2MPD", rounds=1000)
    before = codes.derivations
    assert codes.check_seat_code(41, "K7QX-2MPD", stored)
    assert codes.check_seat_code(41, "k7qx 2mpd", stored)  # the same code as a player may type it
    assert codes.derivations == before + 1
    assert not codes.check_seat_code(41, "AAAA-2222", stored)
    assert not codes.check_seat_code(41, "AAAA-2222", stored)
    assert codes.derivations == before + 2
    assert codes.check_seat_code(42, "K7QX-2MPD", stored)  # another seat row: its own derivation
    assert codes.derivations == before + 3


def test_a_poll_derives_once_per_registered_seat_and_code_and_never_for_mail_without_a_code(home, clock) -> None:
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="kdf-test", clock=clock, codes=CODES)
    mails = [order_mail("Alice <alice@players.test>", "hh1", signed("Alice", "NO EVENT")) for _ in range(3)]
    mails.append(order_mail("Bob <bob@players.test>", "hh1", "CODE ZZZZ-9999\nNO EVENT"))  # wrong code
    mails.append(order_mail("Carol <carol@players.test>", "hh1", "HELP"))  # needs no code
    mails.append(order_mail("Mallory <mallory@elsewhere.test>", "hh1", "NO EVENT"))  # a stranger, no code
    for raw in mails:
        deliver(home, raw)
    codes.forget_checks()
    before, stretched = codes.derivations, codes.pbkdf2_runs
    summary = polling.poll(_connected(home, clock))
    assert summary.read == 6
    # Alice's code once for three messages; Bob's wrong code once for his seat, then once against each other
    # seat (is it another player's code sent from his address? issue 12): 1 + 1 + 2
    assert codes.derivations - before == 4
    assert codes.pbkdf2_runs == stretched, "the games' codes are keyed: no check runs PBKDF2"


def test_games_store_codes_keyed_with_the_home_key_file_as_documented(home, clock) -> None:
    """The scheme docs/security.md argues, pinned: HMAC-SHA256 under a key of its own derived from the wrapping key
    in `game-keys.secret`, named by the wrapping key's KEY-ID as sealing names it.  Changing it means changing
    that page."""
    games.create_game(Home.of(home), "habsburg", "keyed", PLAYERS, seed="keyed-test", clock=clock, codes=CODES)
    wrapping = bytes.fromhex((home.home / sealing.FILE).read_text().strip())
    code_key = hmac.new(wrapping, b"pbem player codes v1", hashlib.sha256).digest()
    stored = _seat_hashes(home)
    assert len(stored) == 3
    for player, h in stored.items():
        form, key_id, salt, digest = h.split("$")
        assert (form, key_id, len(salt)) == ("hmac_sha256", hashlib.sha256(wrapping).hexdigest()[:16], 16), h
        normal = CODES[player].replace("-", "")
        assert digest == hmac.new(code_key, (salt + normal).encode(), hashlib.sha256).hexdigest(), h
        assert (
            hmac.new(wrapping, (salt + normal).encode(), hashlib.sha256).hexdigest() != digest
        )  # never the file's key
    assert codes.ROUNDS == 10_000  # where no home is known (the pure core's tests), PBKDF2 as before


def test_every_way_of_making_a_code_stores_it_keyed(home, clock, tmp_path) -> None:
    """Game creation, a new code and a replacement (by command and by mail), the moderator code (`pbem init`,
    `moderating.make_code`): each passes its home, so no production path makes a PBKDF2 hash any more."""
    from typer.testing import CliRunner

    from pbem.app import control, moderating
    from pbem.cli import app
    from pbem.record import moderator_code
    from pbem.record.db import session

    cfg = Home.of(home, clock=clock)
    games.create_game(cfg, "habsburg", "made", PLAYERS, seed="made-test", clock=clock, codes=CODES)
    control.new_player_code(cfg, "made", "Alice", clock.now, code="ZZZZ-7777")
    control.replace(cfg, "made", "Carol", ("Dora", "dora@players.test"), clock.now, code="DDDD-8888")
    mod = moderating.make_code(cfg, clock.now)
    assert mod is not None
    order = "\n".join([f"CODE {mod}", "NEW CODE Bob", "REPLACE Dora WITH Erin <erin@players.test>"])
    deliver(home, order_mail("Test Moderator <moderator@pbem.test>", "made", order, subject="[pbem made] commands"))
    assert polling.poll(_connected(home, clock)).accepted == 1
    con = sqlite3.connect(_db_path(home))
    rows = con.execute("SELECT player, code_hash FROM seats ORDER BY id").fetchall()
    con.close()
    assert [p for p, _ in rows] == ["Alice", "Bob", "Carol", "Alice", "Dora", "Bob", "Erin"], rows
    assert all(h.startswith("hmac_sha256$") for _, h in rows), rows
    assert codes.check_code("ZZZZ-7777", rows[3][1]) and codes.check_code("DDDD-8888", rows[4][1])
    with session(home.database_url) as s:
        stored = moderator_code.stored(s)
    assert stored is not None and stored[0].startswith("hmac_sha256$") and codes.check_code(mod, stored[0])

    r = CliRunner().invoke(app, ["init", str(tmp_path / "fresh"), "--address", "mod@pbem.test"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "fresh" / sealing.FILE).exists(), "pbem init makes the key file for the moderator code"
    fresh = config_mod.load(tmp_path / "fresh" / "pbem.toml")
    with session(fresh.database_url) as s:
        stored = moderator_code.stored(s)
    assert stored is not None and stored[0].startswith("hmac_sha256$"), stored


def test_the_right_code_checks_a_wrong_one_does_not_and_no_check_runs_pbkdf2(home, clock) -> None:
    games.create_game(Home.of(home), "habsburg", "right", PLAYERS, seed="right-test", clock=clock, codes=CODES)
    alice = _seat_hashes(home)["Alice"]
    codes.forget_checks()
    before, stretched = codes.derivations, codes.pbkdf2_runs
    assert codes.check_code("AAAA-2222", alice) and codes.check_code("aaaa 2222", alice)
    assert not codes.check_code("AAAA-2223", alice) and not codes.check_code("BBBB-3333", alice)  # Bob's code
    assert codes.check_seat_code(7, "AAAA-2222", alice) and codes.check_seat_code(7, "AAAA-2222", alice)
    assert codes.derivations - before == 5, "four checks without the cache, then one for the seat"
    assert codes.pbkdf2_runs == stretched, "a keyed check derives no PBKDF2 key"
    for broken in (alice.replace("hmac_sha256", "hmac_sha1"), alice + "$more", alice.rsplit("$", 1)[0], ""):
        assert not codes.check_code("AAAA-2222", broken)


def test_codes_stored_with_pbkdf2_before_still_check() -> None:
    """Homes made before the keyed hash hold PBKDF2 hashes: 60,000 rounds before 2026-12, then 10,000.  A stored
    hash names its form and rounds, so those codes keep working (nothing rewrites them), and a wrong code is
    still refused."""
    for rounds in (60_000, 10_000):
        old = codes.hash_code("K7QX-2MPD", salt="0123456789abcdef", rounds=rounds)
        assert old.split("$")[:2] == ["pbkdf2_sha256", str(rounds)]
        stretched = codes.pbkdf2_runs
        assert codes.check_code("k7qx-2mpd", old)
        assert not codes.check_code("K7QX-2MPE", old)
        assert codes.pbkdf2_runs == stretched + 2
    assert codes.hash_code("K7QX-2MPD", salt="0123456789abcdef").startswith("pbkdf2_sha256$10000$")  # no home


def test_without_its_key_file_a_keyed_code_is_refused_and_the_log_names_the_file_not_the_code(
    home, clock, monkeypatch, caplog
) -> None:
    """The key file lost (or another home's beside the record): the right code checks as a wrong one, never an
    error, and each poll's log says once which file to restore; the code itself is never logged."""
    games.create_game(Home.of(home), "habsburg", "lost", PLAYERS, seed="lost-test", clock=clock, codes=CODES)
    stored = _seat_hashes(home)
    key_id = stored["Alice"].split("$")[1]
    assert codes.check_code(CODES["Alice"], stored["Alice"])
    (home.home / sealing.FILE).unlink()
    _fresh_process(monkeypatch, home)  # the next `pbem poll` reads the home again: no key file
    caplog.set_level(logging.DEBUG)
    codes.new_poll()
    assert not codes.check_seat_code(1, CODES["Alice"], stored["Alice"])
    assert not codes.check_seat_code(2, CODES["Bob"], stored["Bob"])
    assert not codes.check_code(CODES["Carol"], stored["Carol"])
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings  # once per poll, not once per code
    assert key_id in warnings[0] and str(home.home / sealing.FILE) in warnings[0] and "restore" in warnings[0]
    codes.new_poll()
    assert not codes.check_seat_code(1, CODES["Alice"], stored["Alice"])
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 2, "the next poll says it again"

    (home.home / sealing.FILE).write_text(
        sealing.wrapping_key(Path(init_home(home.home.parent / "other")).parent).hex()
    )
    _fresh_process(monkeypatch, home)  # another home's key file put beside this record: named, not misread
    codes.new_poll()
    assert not codes.check_seat_code(1, CODES["Alice"], stored["Alice"])
    assert sealing.known(key_id) is None
    for code in CODES.values():
        assert code not in caplog.text and code.replace("-", "") not in caplog.text


def test_a_poll_without_the_key_file_refuses_the_right_code_and_goes_on(home, clock, monkeypatch, caplog) -> None:
    games.create_game(Home.of(home), "habsburg", "gone", PLAYERS, seed="gone-test", clock=clock, codes=CODES)
    seat_hashes = _seat_hashes(home)
    (home.home / sealing.FILE).unlink()
    _fresh_process(monkeypatch, home)
    for _ in range(2):
        deliver(home, order_mail("Alice <alice@players.test>", "gone", signed("Alice", "NO EVENT")))
    caplog.set_level(logging.WARNING)
    summary = polling.poll(_connected(home, clock))
    assert summary.read == 2 and summary.accepted == 0
    assert _seat_hashes(home) == seat_hashes, "nothing rewrites a stored hash"
    said = [r.getMessage() for r in caplog.records if "player codes hashed with the wrapping key" in r.getMessage()]
    assert len(said) == 1 and sealing.FILE in said[0], caplog.text
    assert CODES["Alice"] not in caplog.text and CODES["Alice"].replace("-", "") not in caplog.text


def test_a_poll_whose_games_keys_cannot_be_unsealed_stops_and_loses_no_mail(home, clock, monkeypatch) -> None:
    """Without the key file no mail of the game can be signed: the poll stops with one sentence naming the file
    (the CLI's exit 3), records nothing and files nothing, so the orders are applied once the file is back."""
    from pbem.record.db import DatabaseError
    from pbem.trust import signing

    games.create_game(Home.of(home), "habsburg", "lost", PLAYERS, seed="lost-test", clock=clock, codes=CODES)
    polling.poll(_connected(home, clock))  # the first reports out
    saved = (home.home / sealing.FILE).read_bytes()
    (home.home / sealing.FILE).unlink()
    _fresh_process(monkeypatch, home)
    signing._receipt_fields.cache_clear()  # a new process has unsealed no game key yet
    deliver(home, order_mail("Alice <alice@players.test>", "lost", signed("Alice", "NO EVENT")))
    with pytest.raises(DatabaseError, match=sealing.FILE):
        polling.poll(_connected(home, clock))
    inbox = list((home.maildir_path / "inbox" / "new").iterdir()) + list(
        (home.maildir_path / "inbox" / "cur").iterdir()
    )
    assert len(inbox) == 1, "the message stays in the inbox"
    con = sqlite3.connect(_db_path(home))
    try:
        assert con.execute("SELECT count(*) FROM inbound_messages").fetchone() == (0,), "nothing was recorded"
    finally:
        con.close()
    (home.home / sealing.FILE).write_bytes(saved)
    _fresh_process(monkeypatch, home)
    summary = polling.poll(_connected(home, clock))
    assert (summary.read, summary.failures) == (1, 0), summary.line()


def test_the_record_alone_checks_no_code(home, clock, monkeypatch, tmp_path) -> None:
    """A thief of the database (a backup, a copy of the hashes) cannot tell a right guess from a wrong one: the
    record copied into another home no longer checks its own players' codes.  With its key file it does."""
    games.create_game(Home.of(home), "habsburg", "stolen", PLAYERS, seed="stolen-test", clock=clock, codes=CODES)
    thief = config_mod.load(init_home(tmp_path / "thief", address="thief@pbem.test", name="Thief"))
    _copy_record(home, thief)
    sealing.wrapping_key(thief.home)  # the thief's own home has a key file of its own
    _fresh_process(monkeypatch, thief)
    stolen = _seat_hashes(thief)
    assert stolen == _seat_hashes(home)
    codes.forget_checks()
    for player, h in stolen.items():
        assert not codes.check_code(CODES[player], h), "the record alone checked a code"
    shutil.copyfile(home.home / sealing.FILE, thief.home / sealing.FILE)  # the whole home stolen: then it does
    _fresh_process(monkeypatch, thief)
    assert all(codes.check_code(CODES[player], h) for player, h in stolen.items())


def _connected(cfg, clock) -> Home:
    return Home.of(cfg, inbox=MaildirInbox(cfg.maildir_path), sender=MaildirSender(cfg.maildir_path), clock=clock)


def _db_path(cfg) -> str:
    return str(cfg.database_url.removeprefix("sqlite:///"))


def _copy_record(src, dst) -> None:
    """The whole record of `src` (its WAL included) over `dst`'s: what a copy of the database holds."""
    with sqlite3.connect(_db_path(src)) as a, sqlite3.connect(_db_path(dst)) as b:
        a.backup(b)
    a.close()
    b.close()


def _seat_hashes(cfg) -> dict[str, str]:
    con = sqlite3.connect(_db_path(cfg))
    try:
        return {p: h for (p, h) in con.execute("SELECT player, code_hash FROM seats ORDER BY id")}
    finally:
        con.close()


def _fresh_process(monkeypatch: pytest.MonkeyPatch, cfg) -> None:
    """What a new `pbem` process holds of the key files: only what loading `cfg`'s home reads (this test process
    registered every home its tests loaded)."""
    monkeypatch.setattr(sealing, "_KEYS", {})
    monkeypatch.setattr(sealing, "_FILES", {})
    codes.forget_checks()
    config_mod.load(cfg.path)
