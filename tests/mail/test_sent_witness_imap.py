"""The machine lost with its ledger, over real IMAP and SMTP (`pbem.app.sent_witness`, months7).

A home's ledger of mails sent is a file of the home.  Its machine lost, the home is restored on another machine
from a backup (the whole home folder as it was then: its database, its `.pbem-home`, the ledger as of the backup):
the mails that were waiting in the backup and that the old home sent since were sent a second time, with or
without a `pbem poll --trust-clock` (a restore refused by the IMAP folders' witness, or one that nothing refused:
the old home read no mail after the backup).  The witness that survives the machine is the IMAP server: each run
that sends appends one message of digests to `pbem/sent-ids`, and a restored home looks each waiting mail up there.

The generator (`_walk`): a seeded run of steps on the old home (orders mailed, a new game made with its
invitations waiting, polls), a backup copied at a seeded step, more steps, then the machine lost and the backup
restored on another machine and polled (with `--trust-clock` when refused), then once more.  Counted: the
Message-IDs the SMTP server was given twice.  `PBEM_SENT_WITNESS_CASES=24 python3 -m pytest
tests/mail/test_sent_witness_imap.py -k generated`: on 4da2cbd6 14 of 24 walks sent mail twice (54 mails); 0 now.
The suite runs 2 walks.

Months8 added two ends to a walk: the old machine lost between the SMTP server taking its last run's mail and the
witness APPEND at that run's end, and the witness folder deleted by hand; a restored home that holds mail and says
so is answered as a moderator would once the players said what came (`_settle_held`).  On ab18255d 6 of 24 walks
sent 14 mails twice, silently; now each run that starts with mail waiting names it first as about to be sent
(`pbem.app.sent_witness.sending`), a folder this record wrote to and found gone counts as evidence (`witness._moved`),
and what can have gone is held and told: 0.
"""

from __future__ import annotations

import collections
import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from pbem.app import games, sent_witness
from pbem.app.cron import run_poll
from pbem.cli.demo import demo_code
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.mail.transports import smtp as smtp_mod
from pbem.mail.transports.seam import TransportError
from pbem.record import db
from tests.mail.conftest import MODERATOR
from tests.mail.test_e2e import World

pytestmark = pytest.mark.dovecot
CASES = int(os.environ.get("PBEM_SENT_WITNESS_CASES", "2"))


@pytest.fixture
def world(debian_servers, tmp_path, monkeypatch) -> Iterator[World]:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    w = World(debian_servers, tmp_path, monkeypatch)
    with w.readers:
        _, bots = w.new_game("italian-wars", 2)
        w.bots = bots  # type: ignore[attr-defined]
        yield w


@pytest.fixture
def given(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    """The Message-IDs the SMTP server accepted (the real send, observed)."""
    import re

    seen: collections.Counter[str] = collections.Counter()
    real = smtp_mod.SmtpSender.send

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:  # type: ignore[no-untyped-def]
        real(self, raw, sender, recipients)
        found = re.search(rb"^Message-ID: *(\S+)", raw, re.M | re.I)
        seen[found.group(1).decode() if found else "?"] += 1

    monkeypatch.setattr(smtp_mod.SmtpSender, "send", send)
    return seen


def _poll(cfg: config_mod.Config, trust: bool = False) -> object:
    from datetime import UTC, datetime

    return run_poll(cfg, clock=lambda: datetime.now(UTC), trust_clock=trust)


def _orders(w: World) -> None:
    for bot in w.bots:  # type: ignore[attr-defined]
        w.servers.deliver(MODERATOR, bot.order_mail(["STATUS"], "g1", MODERATOR, None))


def _new_game(w: World, n: int) -> None:
    bots = w.bots  # type: ignore[attr-defined]
    games.create_game(
        Home.of(w.cfg),
        "italian-wars",
        f"n{n}",
        [(b.name, b.address) for b in bots],
        seed=f"n{n}",
        clock=w.clock,
        codes={b.name: demo_code("e2e", b.name) for b in bots},
    )


def _statuses(url: str) -> collections.Counter[str]:
    with db.reading(url) as c:
        return collections.Counter(str(s) for (s,) in c.execute(text("SELECT status FROM outbox")))


def _held(url: str) -> list[str]:
    with db.reading(url) as c:
        return [str(m) for (m,) in c.execute(text("SELECT message_id FROM outbox WHERE status = 'held' ORDER BY id"))]


def _restore_elsewhere(backup: Path, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> config_mod.Config:
    """The old machine gone: the backup's home on another machine (its own state folder)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp / "another-machine"))
    db.engine_for.cache_clear()
    return config_mod.load(backup / "pbem.toml")


def _poll_restored(cfg: config_mod.Config) -> list[str]:
    """The restored home's first poll (refused: then `--trust-clock`, as the refusal says) and its notes."""
    try:
        run = _poll(cfg)
    except TransportError:
        run = _poll(cfg, trust=True)
    summary = getattr(run, "summary", None)
    return list(summary.told) if summary is not None else []


def test_a_home_restored_on_another_machine_sends_no_waiting_mail_twice(
    world: World, given: collections.Counter[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole home folder restored on another machine (its `.pbem-home` and marks as of the backup), refused
    for the mail the old home filed since, then gone on with (`--trust-clock`): on 4da2cbd6 the new game's 2
    invitations, waiting in the backup and sent by the old home, went out again; now the witness names them."""
    assert _poll(world.cfg) is not None  # the first game's invitations; the witness folder made
    _new_game(world, 1)
    backup = Path(shutil.copytree(world.cfg.home, tmp_path / "backup"))
    _poll(world.cfg)  # the old home sends them, then its machine is lost
    cfg = _restore_elsewhere(backup, tmp_path, monkeypatch)
    told = _poll_restored(cfg)
    _poll(cfg)
    assert [m for m, n in given.items() if n > 1] == [] and not [n for n in told if "held" in n], (given, told)
    assert set(_statuses(cfg.database_url)) == {"sent"}  # (the old home answered one mail after the backup)


def test_a_backup_made_before_the_first_poll_sends_nothing_twice(
    world: World, given: collections.Counter[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backup made before the home's first poll: the database never wrote to the witness folder (it keeps no
    mark of it), yet the folder holds what the old home sent: the 2 invitations it names are marked sent, not sent
    again (on 4da2cbd6 both went out twice), and nothing is held (nothing says the home was restored)."""
    backup = Path(shutil.copytree(world.cfg.home, tmp_path / "backup"))  # before any poll: nothing sent yet
    _poll(world.cfg)
    cfg = _restore_elsewhere(backup, tmp_path, monkeypatch)
    told = _poll_restored(cfg)
    assert [m for m, n in given.items() if n > 1] == [], given
    assert told == [] and set(_statuses(cfg.database_url)) == {"sent"}, (told, _statuses(cfg.database_url))


def test_what_the_witness_cannot_prove_unsent_is_held_and_told(
    world: World, given: collections.Counter[str], tmp_path: Path
) -> None:  # (the database restored alone: the backup's, beside the home's newer `.pbem-last-run`)
    """The database restored in place (refused: older than this home) while the witness folder was lost (deleted
    on the server): the 2 invitations waiting in it, which the old home sent, cannot be proved unsent.  On
    4da2cbd6 the `--trust-clock` run sent them again; now they are held, told in one line with the commands, and
    `pbem outbox drop --all` marks them sent: neither is sent twice.  (Not counted: mail the restored record
    makes anew with the Message-ID of one the old home sent, here a notice of the clock's gap; README "Backups":
    such mail goes out again, as the reports to mail read again do.)"""
    from datetime import UTC, datetime, timedelta

    from typer.testing import CliRunner

    from pbem.cli import app

    start = datetime.now(UTC) - timedelta(hours=3)  # (the commands read the machine's clock)
    run_poll(world.cfg, clock=lambda: start)
    _new_game(world, 1)
    backup = Path(shutil.copytree(world.cfg.home, tmp_path / "backup"))  # the database as the backup holds it
    run_poll(world.cfg, clock=lambda: start + timedelta(hours=1))  # the old home sends them
    with world.servers.imap(MODERATOR) as client:
        client.delete_folder(next(f[2] for f in client.list_folders() if f[2].endswith("sent-ids")))
    shutil.copy2(world.cfg.home / ".pbem-last-run", backup / ".pbem-last-run")  # the home's files are newer
    cfg = config_mod.load(backup / "pbem.toml")
    with pytest.raises(TransportError, match="the database is older than this home"):
        run_poll(cfg, clock=lambda: start + timedelta(hours=2))
    run = run_poll(cfg, clock=lambda: start + timedelta(hours=2), trust_clock=True)
    (note,) = [n for n in run.summary.told if "are held" in n]  # type: ignore[union-attr]
    assert note == (
        "2 mail(s) waiting in this database when it was saved may have gone out since (the mail server's "
        "pbem/sent-ids folder is missing); they are held: pbem outbox release --all sends them, pbem outbox drop "
        "--all marks them sent (the old home sent them)"
    )
    held = _held(cfg.database_url)
    assert len(held) == 2 and [given[m] for m in held] == [1, 1], (held, given)  # sent once, by the old home
    got = CliRunner().invoke(app, ["outbox", "drop", "--all", "--config", str(cfg.path)])
    assert got.exit_code == 0 and "marked sent" in got.output, got.output
    run_poll(cfg, clock=lambda: start + timedelta(hours=3))
    assert _held(cfg.database_url) == [] and [given[m] for m in held] == [1, 1], given
    assert set(_statuses(cfg.database_url)) == {"sent"}


def _walk(
    w: World, seed: int, tmp: Path, monkeypatch: pytest.MonkeyPatch, given: collections.Counter[str], dump=None
) -> int:
    """One generated walk (see the module docstring): the Message-IDs given to the SMTP server twice.  `dump`
    (PostgreSQL: tests/mail/test_sent_witness_imap_postgres.py) saves the database beside the home's copy and
    returns what puts it back; SQLite's is in the copy."""
    put_back = None
    rng = random.Random(seed)
    steps = [rng.choice(["orders", "game", "game", "poll", "poll"]) for _ in range(rng.randint(3, 7))]
    at = rng.randrange(1, len(steps) + 1)
    _poll(w.cfg)
    backup: Path | None = None
    for i, step in enumerate(steps, start=1):
        if step == "orders":
            _orders(w)
        elif step == "game":
            _new_game(w, seed * 100 + i)
        else:
            _poll(w.cfg)
        if i == at:
            backup = Path(shutil.copytree(w.cfg.home, tmp / f"backup-{seed}"))
            put_back = dump(backup) if dump is not None else None
    end = rng.choice(["lost", "died", "deleted"])  # months8: how the old machine's life ends
    if end == "died":  # between the SMTP server taking the last run's mail and the witness APPEND at its end
        _new_game(w, seed * 100 + 99)  # (mail waiting at that run's start)
        monkeypatch.setattr(sent_witness, "flush", lambda *a, **k: None)
    _poll(w.cfg)
    monkeypatch.setattr(sent_witness, "flush", _FLUSH)
    if end == "deleted":  # the witness folder deleted by hand on the server
        with w.servers.imap(MODERATOR) as client:
            client.delete_folder(next(f[2] for f in client.list_folders() if f[2].endswith("sent-ids")))
    assert backup is not None
    if put_back is not None:
        db.engine_for(w.cfg.database_url).dispose()  # (the old machine's connections: gone with it)
        put_back()
    cfg = _restore_elsewhere(backup, tmp / f"m{seed}", monkeypatch)
    for note in _poll_restored(cfg):
        if "are held" in note:  # the moderator asks the players what came: the oracle here is the SMTP server
            _settle_held(cfg, given)
    _poll(cfg)
    return sum(n - 1 for n in given.values() if n > 1)


_FLUSH = sent_witness.flush


def _settle_held(cfg: config_mod.Config, given: collections.Counter[str]) -> None:
    """What a moderator does with held mail once the players said what came: drops what came, releases the rest."""
    from typer.testing import CliRunner

    from pbem.cli import app

    with db.reading(cfg.database_url) as c:
        rows = c.execute(text("SELECT id, message_id FROM outbox WHERE status = 'held' ORDER BY id")).all()
    came = [str(i) for i, m in rows if given[str(m)]]
    for verb, ids in (("drop", came), ("release", [str(i) for i, m in rows if not given[str(m)]])):
        if ids:
            got = CliRunner().invoke(app, ["outbox", verb, *ids, "--config", str(cfg.path)])
            assert got.exit_code == 0, got.output


@pytest.mark.parametrize("seed", range(CASES))
def test_generated_restores_send_nothing_twice(
    debian_servers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: collections.Counter[str], seed: int
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    w = World(debian_servers, tmp_path, monkeypatch)
    with w.readers:
        _, w.bots = w.new_game("italian-wars", 2)  # type: ignore[attr-defined]
        twice = _walk(w, seed, tmp_path, monkeypatch, given)
        assert twice == 0, f"SENT-TWICE={twice} {given}"


def test_the_witness_folder_keeps_its_last_40_days(world: World) -> None:
    """Once a day the run's first connection deletes the witness messages older than `KEEP` (40 days): the folder
    holds a message a sending run, bounded by what a backup restored may need."""
    from datetime import UTC, datetime, timedelta

    _poll(world.cfg)  # the first game's invitations: the folder made, two messages (about to be sent, sent)
    with world.servers.imap(MODERATOR) as client:
        folder = next(f[2] for f in client.list_folders() if f[2].endswith("sent-ids"))
        client.append(
            folder,
            b"Subject: pbem sent-ids\r\n\r\npbem sent-ids 1\r\n0123456789abcdef\r\n",
            msg_time=datetime.now(UTC) - timedelta(days=41),
        )
        client.select_folder(folder, readonly=True)
        assert len(client.search(["ALL"])) == 3
    _orders(world)
    _poll(world.cfg)  # (its start: the old message deleted; its end: the answers' digests appended)
    with world.servers.imap(MODERATOR) as client:
        client.select_folder(folder, readonly=True)
        dates = [v[b"INTERNALDATE"] for v in client.fetch(client.search(["ALL"]), ["INTERNALDATE"]).values()]
    assert len(dates) == 3 and all(
        d.replace(tzinfo=d.tzinfo or UTC) > datetime.now(UTC) - timedelta(days=2) for d in dates
    )


def test_a_backup_made_before_the_witness_existed_holds_its_waiting_mail_and_says_what_to_run(
    world: World, given: collections.Counter[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A home whose pbem kept no witness of the mails sent (before months7: no pbem/sent-ids folder, no mark),
    backed up while a new game's invitations waited, sent them, then lost.  Restored on another machine with this
    pbem, refused (the server's processed folder holds mail read since), gone on with: nothing can prove the
    invitations unsent, so every mail waiting is held, and one `note:` line says why and exactly what to run."""
    from typer.testing import CliRunner

    from pbem.cli import app

    with monkeypatch.context() as before:
        for name in ("flush", "sending"):
            before.setattr(sent_witness, name, lambda *a, **k: None)
        _poll(world.cfg)
        _new_game(world, 1)
        backup = Path(shutil.copytree(world.cfg.home, tmp_path / "backup"))
        _orders(world)
        _poll(world.cfg)  # the old home sends them, answers the orders, then its machine is lost
    cfg = _restore_elsewhere(backup, tmp_path, monkeypatch)
    told = _poll_restored(cfg)
    held = _held(cfg.database_url)
    assert len(held) == 2 and [given[m] for m in held] == [1, 1], (held, given)  # sent once, by the old home
    assert [n for n in told if "held" in n] == [
        "2 mail(s) waiting in this database when it was saved may have gone out since (the mail server's "
        "pbem/sent-ids folder is missing and this database never wrote to one (saved before its pbem kept it)); "
        "they are held: pbem outbox release --all sends them, pbem outbox drop --all marks them sent (the old home "
        "sent them)"
    ], told
    got = CliRunner().invoke(app, ["outbox", "drop", "--all", "--config", str(cfg.path)])  # what the note says
    assert got.exit_code == 0 and "marked sent" in got.output, got.output
    _poll(cfg)
    assert _held(cfg.database_url) == [] and [given[m] for m in held] == [1, 1], given
