"""A restored home makes anew the mail the old home made after the backup: never under the old mail's Message-ID.

The months7 walk found it (`benchmarks/months.py --restore-day 40`): the restored record applied again the deadlines
the old home applied after the backup, and each new report took the Message-ID of the old home's report of that
step, with another text (another body, another `X-Pbem-Record` head).  A player then holds two mails under one id:
a client may drop one, `pbem verify --mail` may read the wrong one, a reply to the old one is taken for the new.

The generator (`walk`, seeded): a Habsburg game, some deadlines passing (and some orders answered) before a
`pbem backup`, more after it in the old home, then the machine lost: the backup restored into a new folder with the
old Maildir (the mail server), refused, `pbem poll --trust-clock`, and the same deadlines passing again.  Counted:
the Message-IDs the `sent` folder holds for two mails of other bytes.  On ab18255d 8 of 12 walks reused ids (25 in
all, `PBEM_RESTORE_WALKS=12`); now each run that goes on with a restored database starts a restore epoch
(`pbem.record.home_secrets.new_epoch`) that every Message-ID made after it carries: 0.  A player's reply naming the
old mail, or the new one, still proves the seat without a code (`pbem.record.answered.sent_mails` looks an id up
under its other forms).  The default run walks one seed (the reply test's, seed 1: 3 ids reused on ab18255d) and
one nightly case; `PBEM_RESTORE_WALKS=N` walks N of each.

Months9: a mail the restored home makes again is a new mail beside the old home's of that step, under another id: a
client showed the two apart.  Each walk now also counts the mails made again (`apart`: the old home's id, the new
one without its epoch, both in `sent`) that do not name the old id in their References: on 36ff7173 25 of the 25
made again over 12 walks (8 walks), now 0 (`pbem.mail.outbound.compose.earlier_forms`).
"""

from __future__ import annotations

import collections
import mailbox
import os
import random
import re
import shutil
from pathlib import Path

import pytest
from sqlalchemy import text

from pbem.app import games
from pbem.app.backup import take
from pbem.app.cron import run_poll
from pbem.cli.demo import legal_lines, text_of
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.home.config import Config
from pbem.mail.transports.seam import TransportError
from pbem.record import sentlog
from pbem.record.db import engine_for, reading
from tests.conftest import CODES, Clock, deliver, order_mail
from tests.test_backup import PLAYERS

SAMPLE = 1
WALKS = int(os.environ.get("PBEM_RESTORE_WALKS", SAMPLE))
KEYS = ("game-keys.secret", "outbox.key", "pbem.toml")
ADDRESS = dict((a, p) for p, a in PLAYERS)


def _sent(at: Path) -> list[tuple[str, bytes]]:
    md = mailbox.Maildir(str(at / "mail" / "sent"), factory=None, create=False)
    out = []
    for k in md.iterkeys():
        raw = md.get_bytes(k)
        m = re.search(rb"^Message-ID: *(\S+)", raw, re.M | re.I)
        assert m is not None
        out.append((m.group(1).decode(), raw))
    return out


def reused(at: Path) -> int:
    """The Message-IDs the `sent` folder holds for mails of other bytes."""
    by_id: dict[str, set[bytes]] = collections.defaultdict(set)
    for mid, raw in _sent(at):
        by_id[mid].add(raw)
    return sum(1 for raws in by_id.values() if len(raws) > 1)


def apart(at: Path) -> tuple[int, int]:
    """The mails the restored home made again (an epoch in their Message-ID, the old home's mail under the same id
    without it in the `sent` folder), and of those the ones a mail client shows apart from the old one (their
    References do not name it, months9): (made again, apart)."""
    ids = {mid for mid, _ in _sent(at)}
    again = shown_apart = 0
    for mid, raw in _sent(at):
        old = re.sub(r"\.[0-9a-f]{8}@", "@", mid)
        if old == mid or old not in ids:
            continue
        again += 1
        head = raw.split(b"\n\n", 1)[0].replace(b"\n ", b" ").replace(b"\n\t", b" ")
        refs = re.search(rb"^References: *(.*)$", head, re.M | re.I)
        shown_apart += refs is None or old.encode() not in refs.group(1).split()
    return again, shown_apart


def _answer(cfg: Config, rng: random.Random, seen: set[str], clock: Clock) -> None:
    """Some of the players asked in the mail sent since `seen` answer it, by a reply (In-Reply-To, no code)."""
    for mid, raw in _sent(cfg.home):
        if mid in seen:
            continue
        seen.add(mid)
        msg, body = text_of(raw)
        player = ADDRESS.get(str(msg["To"]).split("<")[-1].strip(">").strip())
        legal = legal_lines(body)
        if player and legal and rng.random() < 0.5:
            reply = f"Re: {msg['Subject']}"
            deliver(
                cfg, order_mail(f"{player} <{dict(PLAYERS)[player]}>", "hh1", rng.choice(legal), reply, In_Reply_To=mid)
            )
    del clock


def _steps(cfg: Config, clock: Clock, rng: random.Random, n: int, seen: set[str], answer: bool = True) -> None:
    for i in range(n):
        clock.advance(hours=49 if i == 0 and not answer else rng.choice((3, 30, 49)))  # after the backup: a deadline
        run_poll(cfg, clock=clock)
        if answer:
            _answer(cfg, rng, seen, clock)


def copy_database(home: Config, backup: Path, at: Path) -> None:
    """The backup's SQLite database copied into the new folder `at`."""
    shutil.copy2(backup / "pbem.db", at / "pbem.db")


def restored(home: Config, backup: Path, at: Path, clock: Clock, database=copy_database) -> Config:
    """The machine lost: the backup restored into a new folder as README says, with the old Maildir (the mail
    server) and the backup's ledger alone; polled, refused, then `pbem poll --trust-clock`.  `database` puts the
    backup's database back (a SQLite file copied, or a pg_dump restored: tests/test_postgres_restore_epochs.py)."""
    engine_for(home.database_url).dispose()
    at.mkdir()
    shutil.copytree(home.home / "mail", at / "mail")
    for f in KEYS:
        shutil.copy2(backup / f, at / f)
    database(home, backup, at)
    (at / sentlog.DIRECTORY).mkdir()
    shutil.copy2(backup / sentlog.LEDGER, at / sentlog.DIRECTORY / sentlog.LEDGER)
    cfg = config_mod.load(at / "pbem.toml")
    with pytest.raises(TransportError, match=r"^the database is not this home's: "):
        run_poll(cfg, clock=clock)
    run_poll(cfg, clock=clock, trust_clock=True)
    return cfg


def walk(home: Config, tmp_path: Path, seed: int, database=copy_database) -> tuple[int, Config, Clock]:
    """One seeded walk (the module's docstring): the Message-IDs reused, the restored home and its clock."""
    rng = random.Random(seed)
    clock = Clock()
    toml = home.path.read_text()  # cron's polls are minutes apart: the walk's hours are no outage to shift deadlines
    home.path.write_text(re.sub(r'(?m)^outage_after = "6h"$', 'outage_after = "0h"', toml))
    assert 'outage_after = "0h"' in home.path.read_text()
    home = config_mod.load(home.path)
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed=f"hh{seed}", clock=clock, codes=CODES)
    run_poll(home, clock=clock)
    seen: set[str] = set()
    _steps(home, clock, rng, rng.randint(0, 2), seen)
    clock.advance(minutes=10)
    backup = take(home, tmp_path / f"backups-{seed}", "b", clock.now, 900).folder
    after = rng.randint(1, 3)
    again = random.Random(rng.random())  # the same clock steps after the backup, in both homes
    state = again.getstate()
    _steps(home, clock, again, after, seen, answer=False)
    clock.advance(minutes=10)
    cfg = restored(home, backup, tmp_path / f"restored-{seed}", Clock(clock.now), database)
    again.setstate(state)
    clock2 = Clock(clock.now)
    _steps(cfg, clock2, again, after + 1, set(), answer=False)
    made, shown_apart = apart(cfg.home)
    assert shown_apart == 0, f"{shown_apart} of {made} mails made again after the restore not threaded with the old"
    return reused(cfg.home), cfg, clock2


def _read_as(cfg: Config, mid: str) -> tuple[str, str, str]:
    """The inbound mail `mid` as recorded: its outcome, the seat it was read as (none: not proved), why."""
    with reading(cfg.database_url) as c:
        q = text("SELECT outcome, player, reason FROM inbound_messages WHERE message_id = :m")
        row = c.execute(q, {"m": mid}).first()
    assert row is not None, mid
    return str(row[0]), str(row[1]), str(row[2])


@pytest.mark.parametrize("seed", range(WALKS) if WALKS > SAMPLE else [])  # (the sample: the reply test's walk)
def test_a_restored_home_never_sends_a_mail_under_an_id_the_old_home_sent(home, tmp_path: Path, seed: int) -> None:
    if seed:  # each walk its own home (the fixture's is the first's)
        from pbem.cli.support import init_home

        home = config_mod.load(init_home(tmp_path / f"home-{seed}", address="moderator@pbem.test", name="M"))
    count, _, _ = walk(home, tmp_path, seed)
    assert count == 0, f"{count} Message-IDs reused"


def test_replies_to_the_old_mail_and_to_the_new_one_both_prove_the_seat(home, tmp_path: Path) -> None:
    """After the restore, the player asked holds the old home's mail of that step and the restored home's (now
    under two ids): a reply to either, without a code, is read as the seat's."""
    replies_case(home, tmp_path)


def replies_case(home: Config, tmp_path: Path, database=copy_database) -> None:
    """The reply test's walk (seed 1) and its three replies, the database put back by `database`."""
    count, cfg, clock = walk(home, tmp_path, 1, database)  # (a walk that reused 3 ids on ab18255d)
    assert count == 0, f"{count} Message-IDs reused"
    newest: dict[str, tuple[str, list[str]]] = {}
    for mid, raw in _sent(cfg.home):
        msg, body = text_of(raw)
        if (legal := legal_lines(body)) and "." in mid.split("@")[0][len("<pbem.") :]:  # the restored home's
            newest[str(msg["To"])] = (mid, legal)
    assert newest, "the restored home asked someone"
    to, (mid, legal) = next(iter(newest.items()))
    old = re.sub(r"\.[0-9a-f]{8}@", "@", mid)
    assert old != mid
    player = ADDRESS[to.split("<")[-1].strip(">").strip()]
    address = dict(PLAYERS)[player]
    for i, named in enumerate((old, mid, "<pbem.0123456789abcdef0123456789abcdef@pbem.test>")):
        ours = f"<{i}.reply@players.test>"
        mail = order_mail(f"{player} <{address}>", "hh1", legal[0], "Re: orders", In_Reply_To=named, message_id=ours)
        deliver(cfg, mail)
        clock.advance(minutes=5)
        run_poll(cfg, clock=clock)
        outcome, seat, why = _read_as(cfg, ours)
        if named.startswith("<pbem.0123"):  # an id pbem never sent: no proof (the check can fail)
            assert seat != player, (outcome, seat, why)
        else:
            assert seat == player and "code" not in why.lower(), (named, outcome, seat, why)


def nightly_told(at: Path) -> int:
    """The moderator's mails in the `sent` folder saying a backup is missing or the nightly one stopped."""
    words = (b"the nightly one stopped", b"no backup of this home was ever made")
    flat = [raw.replace(b"=\n", b"").replace(b"\n", b" ") for _, raw in _sent(at)]
    return sum(1 for raw in flat if any(w in raw for w in words))


@pytest.mark.parametrize("case", range(WALKS))
def test_a_restored_home_does_not_say_the_nightly_backup_stopped(home, tmp_path: Path, case: int) -> None:
    """A backup's copy of the database holds the mark of the backup before it (`pbem backup` keeps its mark after
    the copy), and a backup made the first night holds none: on ab18255d the restored home told at once "the newest
    backup is 39 hours old: the nightly one stopped", 7 of 12 cases (`PBEM_RESTORE_WALKS=12`); the other 5, restored
    from the first night's backup, said nothing even a day later.  Now a restored database's backups are judged from
    its restore (its newest restore epoch's time): nothing is told until a day without a backup has passed, and then
    it is: 0 of 12 told at once, 12 of 12 a day later."""
    nightly_case(home, tmp_path, case)


def nightly_case(home: Config, tmp_path: Path, case: int, database=copy_database) -> None:
    """The nightly-backup case `case` (the test above), its database put back by `database`."""
    rng = random.Random(case)
    clock = Clock()
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="hh1", clock=clock, codes=CODES)
    run_poll(home, clock=clock)
    backup = None
    for _ in range(rng.randint(1, 3)):  # nights, each with its backup
        clock.advance(hours=24)
        run_poll(home, clock=clock)
        backup = take(home, tmp_path / "backups", clock.now.strftime("%d"), clock.now, 900).folder
    assert backup is not None
    clock.advance(hours=rng.randint(1, 20))
    cfg = restored(home, backup, tmp_path / "restored", clock, database)
    for _ in range(4):  # upkeep looks every 6 hours
        clock.advance(hours=5)
        run_poll(cfg, clock=clock, trust_clock=False)
    assert nightly_told(cfg.home) - nightly_told(home.home) == 0
    clock.advance(hours=30)  # and no backup on the new machine: told
    run_poll(cfg, clock=clock)
    assert nightly_told(cfg.home) > nightly_told(home.home)
