"""Every `pbem` command's every input, at x1, x4 and x16: the lines of Python it runs and the bytes it holds (costs24).

Each case is one (command, input) pair: `make(folder, k)` builds a fresh moderator home in `folder` whose input is
`k` units large (k mails in the inbox, a body of k KiB, a record of k moderator messages, ...) and returns the run:
the command as typed, through typer's app in this process (`CliRunner`), so that `tests.growth.steps` counts every
line it runs and `tests.growth.held` the bytes it holds at its peak (each read once: exact, whatever the load).
A pair is *flagged* when x16 costs more than `OVER` times x1 (a linear cost with a fixed part reads under 16), or
when the part that grows does more than linearly in two windows running (what one size to the next adds is more than
`STEEP` times what the size before added: linear 4, a square 16; the sizes read on to x64 and x256 while the last
window is steep), or when a run ends in a traceback (an exception out of the command, not its refusal).  A growth is
read from `NOISE_LINES` lines or `NOISE_BYTES` bytes up, over no floor (costs25: costs24 read none under a quarter of
x1, whose 1.07 MB of a command's fixed part hid a square of 1 KB at x1); each line shows the input's own bytes
(`own_floor`), and the full sweep reads a pair still `SMALL` at x16 at x64 and x256 too.

`CASES` covers every command of typer's list (`tests.commands.cli_commands`): a command added later fails
`test_every_command_has_a_case` until it is given one.  Each case names its input's cap: where the input is past
its cap at x16 the run must refuse or set it aside (exit 0 to 3 and no traceback), and the cost stays bounded.

The suite runs `SAMPLE` (a few cheap pairs); `PBEM_COSTS24_FULL=1` runs every pair, and
`python3 -m tests.reliability.sweep24 [--quick] [CASE...]` prints the table (each pair's lines and bytes at x1, x4 and
x16, and the larger sizes read; flagged pairs marked) and the number flagged, and as costs24 read them.
"""

from __future__ import annotations

import functools
import mailbox
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

OVER = 20.0  # x16 against x1, lines or bytes (the brief's "more than about 20x")
STEEP = 8.0  # what x4 to x16 adds against what x1 to x4 added (linear 4, square 16)
SIZES = (1, 4, 16)
FLAT = 1.5  # x16 against x4 where both are past the input's cap
NOISE = (
    0.25  # costs24's gate: a growth from x1 to x16 of less than this part of x1 is too little to read its shape from
)
#: costs25's gates, over no floor: a growth of fewer lines or bytes than these from x1 to the largest size read is too
#: little to read a shape from (costs24's quarter of x1 took in the run's fixed part, about 1.07 MB and 40,000 lines
#: for a command that opens a home: a square input of 1 KB at x1, 16 KB at x4 and 256 KB at x16 read as no growth)
NOISE_LINES = 2_000
#: (a run's peak bytes read up to some 300 KB apart from one run to the next of the same input: "poll / one mail of 8N
#: Received headers" read 1,485,042 and 1,195,170 at x64; a window's baseline is at least a quarter of this)
NOISE_BYTES = 256 * 1024
SIZE_NAMES = ("x1", "x4", "x16", "x64", "x256")
LARGEST = 256  # the largest size read (x256)
#: (lines, own bytes): a pair under both at x16 (then at x64) is read at the next size too in the full sweep
#: (`measure(larger=True)`): a steep curve whose linear part is larger at x16 shows past it
#: (the second bound stays at 1,000,000 lines: a pair read at x256 from 1,000,000 at x64 costs some 3 minutes)
SMALL = ((1_000_000, 4 * 1024 * 1024), (1_000_000, 16 * 1024 * 1024))

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
CODES = {"Alice": "AAAA-2222", "Bob": "BBBB-3333", "Carol": "CCCC-4444"}
GAME = "hh1"

Run = Callable[[], object]


@dataclass(frozen=True)
class Case:
    command: str  # as typed: "game show"
    input: str  # what grows
    unit: int  # units at x1
    make: Callable[[Path, int], Run]  # (a fresh folder, units) -> the run
    cap: str  # the documented cap that bounds the input, or why none is needed
    capped: bool = False  # x4 and x16 are past the cap: x16 may cost at most `FLAT` times x4 (what is past it waits)

    @property
    def name(self) -> str:
        return f"{self.command} / {self.input}"


# ---- homes ----------------------------------------------------------------------------------------------------


def _now() -> datetime:
    return datetime.now(UTC)


def home(folder: Path, *, games: int = 1, says: int = 0, toml_pad: int = 0) -> Path:
    """A moderator home in `folder` (its pbem.toml returned) with `games` House of Habsburg games dealt (hh1,
    hh2, ...), `says` moderator messages in hh1's record, and `toml_pad` comment lines added to its pbem.toml."""
    from pbem.app import games as games_mod
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from pbem.home.app import Home

    cfg_path = init_home(folder / "home", address="moderator@pbem.test", name="Test Moderator")
    cfg = config_mod.load(cfg_path)
    for g in range(games):
        games_mod.create_game(
            Home.of(cfg), "habsburg", f"hh{g + 1}", PLAYERS, seed="sweep24-seed", clock=_now, codes=CODES
        )
    for i in range(says):
        _cli(cfg_path, "game", "say", GAME, f"Moderator's note number {i}: play on.")
    if toml_pad:  # (last: from x256 the file is past the 1 MiB pbem reads, and the home is made before; costs26)
        with cfg_path.open("a", encoding="utf-8") as out:
            out.writelines(
                f"# padding line {i} of a moderator's long notes in the configuration file\n" for i in range(toml_pad)
            )
    return cfg_path


@functools.cache
def command() -> Any:
    """pbem's click command, built from typer's app once: typer's `CliRunner` builds it again at every run (80,000
    lines and 400 KB of the run's cost, the same at every size)."""
    import typer.main

    from pbem.cli import app

    return typer.main.get_command(app)


def invoke(args: list[str]) -> Any:
    from click.testing import CliRunner

    return CliRunner().invoke(command(), args)


#: Homes of a House of Habsburg game its bots played for k polls (`pbem.cli.demo.run`), by k: made once, copied
_PLAYED: dict[int, Path] = {}
PLAYED = "habsburg-demo"
BOT = "Alice <alice@players.example>"


def played(folder: Path, k: int) -> Path:
    """A copy in `folder` of a home whose game `PLAYED` its three bots played for `k` polls (the seat names are
    Alice, Bob and Carol, at players.example); its pbem.toml returned."""
    import atexit
    import shutil

    from pbem.cli.demo import run

    if k not in _PLAYED:
        made = Path(tempfile.mkdtemp(prefix=f"sweep24-played{k}-"))
        atexit.register(shutil.rmtree, made, True)
        run("habsburg", 3, "5eed" * 16, made / "home", bot_seed="sweep24", max_polls=k)
        _PLAYED[k] = made / "home"
    shutil.copytree(_PLAYED[k], folder / "home")
    return folder / "home" / "pbem.toml"


def _cli(cfg_path: Path, *args: str) -> Any:
    res = invoke(["--config", str(cfg_path), *args])
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise AssertionError(f"pbem {' '.join(args)[:200]}: a traceback: {res.exception!r}\n{res.output[-800:]}")
    return res


def cli(cfg_path: Path, *args: str, codes: tuple[int, ...] = (0, 1, 2, 3)) -> Run:
    """The run: `pbem --config CFG ARGS`; it must end with one of `codes`, never a traceback."""

    def run() -> None:
        res = _cli(cfg_path, *args)
        assert res.exit_code in codes, f"pbem {' '.join(args)[:200]}: exit {res.exit_code}\n{res.output[-800:]}"

    return run


def maildir(cfg_path: Path, box: str = "inbox") -> mailbox.Maildir:
    return mailbox.Maildir(str(cfg_path.parent / "mail" / box), factory=None, create=True)


def mail(sender: str = "Alice <alice@players.test>", body: str = "STATUS", **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "moderator@pbem.test"
    msg["Subject"] = headers.pop("subject", f"[pbem {GAME}] orders")
    msg["Message-ID"] = make_msgid(domain="players.test")
    for k, v in headers.items():
        msg[k.replace("_", "-")] = v
    msg.set_content(body)
    return msg


def signed(body: str, player: str = "Alice") -> str:
    return f"CODE {CODES[player]}\n{body}"


def polled(cfg_path: Path, *raws: bytes, told: str | tuple[str, ...] = "") -> Run:
    """The run: `pbem poll` of `raws` delivered to the inbox; with `told` (the input is past its cap), the mail must be
    set aside (filed as rejected) and the newest mail queued say `told` (or one of them) to its sender."""
    box = maildir(cfg_path)
    for raw in raws:
        box.add(raw)
    run = cli(cfg_path, "poll")
    if not told:
        return run

    def checked() -> None:
        import sqlite3
        from contextlib import closing
        from email import policy
        from email.parser import BytesParser

        run()
        rejected = cfg_path.parent / "mail" / "rejected" / "new"
        assert rejected.is_dir() and any(rejected.iterdir()), "the mail past its cap was not set aside"
        with closing(sqlite3.connect(cfg_path.parent / "pbem.db")) as con:
            row = con.execute("SELECT raw FROM outbox_mail ORDER BY id DESC LIMIT 1").fetchone()
        body = BytesParser(policy=policy.default).parsebytes(row[0]).get_body(("plain",))
        text = body.get_content() if body is not None else ""
        assert any(t in text for t in ((told,) if isinstance(told, str) else told)), (
            f"the sender was not told {told!r}: {text[:300]!r}"
        )

    return checked


# ---- the inputs ------------------------------------------------------------------------------------------------


def inbox_count(folder: Path, k: int) -> Run:
    cfg = home(folder)
    who = [f"{p} <{a}>" for p, a in PLAYERS]
    raws = [mail(who[i % 3], signed("HELP", PLAYERS[i % 3][0])).as_bytes() for i in range(k)]
    raws += [mail(f"Stranger {i} <s{i}@strangers.test>", "hello").as_bytes() for i in range(k)]
    return polled(cfg, *raws)


def inbox_size(folder: Path, k: int) -> Run:
    cfg = home(folder)
    lines = "\n".join(f"a line of a long letter, number {i}, that says nothing pbem reads" for i in range(k * 16))
    return polled(cfg, mail(body=signed("STATUS\n\n" + lines)).as_bytes())


def inbox_headers(folder: Path, k: int) -> Run:
    cfg = home(folder)
    msg = mail(body=signed("STATUS"))
    for i in range(k * 8):
        msg["Received"] = (
            f"from relay{i}.example.test by relay{i + 1}.example.test; Mon, 7 Dec 2026 10:00:{i % 60:02} +0000"
        )
    return polled(cfg, msg.as_bytes())


def inbox_depth(folder: Path, k: int) -> Run:
    """A mail forwarded 5k deep (5, 20, 80: past the cap of 64 at x16), written as text: Python's generator writes
    a part a level of its own recursion, and 1,280 levels (x256) ended in its RecursionError."""
    cfg = home(folder)
    raw = mail(body=signed("STATUS")).as_bytes()
    head = mail(body="forwarded").as_bytes().split(b"\n\n", 1)[0]
    head = b"\n".join(line for line in head.split(b"\n") if not line.lower().startswith((b"content-", b"mime-")))
    parts = []
    for i in range(k * 5):
        parts.append(
            head + b'\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n'
            b"Content-Type: message/rfc822\n\n" % (i, i)
        )
    tails = [b"\n--b%d--\n" % i for i in reversed(range(k * 5))]
    nested = b"".join(parts) + raw + b"".join(tails)
    return polled(cfg, nested, told="nests more than 64" if k * 5 > 64 else "")


def inbox_attachments(folder: Path, k: int) -> Run:
    cfg = home(folder)
    msg = mail(body=signed("STATUS"))
    for i in range(k * 80):  # 80, 320, 1,280: past the cap of 1,000 parts at x16
        msg.add_attachment(
            f"attachment {i}".encode(), maintype="application", subtype="octet-stream", filename=f"a{i}.bin"
        )
    # (past the player's 4 MiB, from x256, the mail's size is what its sender is told first)
    told = ("has more than 1000 parts", "pbem accepts at most") if k * 80 > 1000 else ""
    return polled(cfg, msg.as_bytes(), told=told)


def order_lines(folder: Path, k: int) -> Run:
    cfg = home(folder)
    body = "\n".join(f"PLAY card{i}" for i in range(k * 8))  # 8, 32, 128: past 100
    return polled(cfg, mail(body=signed(body)).as_bytes(), told="at most 100 in one mail" if k * 8 > 100 else "")


def order_line_length(folder: Path, k: int) -> Run:
    cfg = home(folder)
    line = "PLAY " + ", ".join(f"card{i}" for i in range(k * 5))  # about 37, 150, 600 characters: past 400
    return polled(cfg, mail(body=signed(line)).as_bytes(), told="; at most 400." if len(line) > 400 else "")


def from_length(folder: Path, k: int) -> Run:
    cfg = home(folder)
    name = "Alice " + "x" * (k * 160)  # 166, 646, 2,566 characters: past 2,000
    return polled(cfg, mail(f'"{name}" <alice@players.test>', signed("STATUS")).as_bytes())


def subject_length(folder: Path, k: int) -> Run:
    """A Subject of 200k words, folded at 78 characters as mail clients fold it, written as bytes here: built by
    `EmailMessage` (the other cases' `mail`), its folding cost the sweep 2.7 s at x256 and 35.7 s at x1024 (the build
    is outside the measured window, `measure`, but it was most of the pair's time; costs26)."""
    cfg = home(folder)
    words = [f"[pbem {GAME}]", *(f"word{i}" for i in range(k * 200))]
    lines, line = [], "Subject:"
    for w in words:
        if len(line) + 1 + len(w) > 78:
            lines.append(line)
            line = ""
        line += " " + w
    head = bytes(mail(body=signed("STATUS"))).split(b"\n\n", 1)
    raw = b"\n".join(x for x in head[0].split(b"\n") if not x.startswith(b"Subject:"))
    return polled(cfg, raw + ("\n" + "\n".join([*lines, line]) + "\n\n").encode() + head[1])


#: messages a run reads from the Maildir inbox in `maildir_backlog` (the README's 10,000, made small)
BACKLOG_MOST = 64


def maildir_backlog(folder: Path, k: int) -> Run:
    """k strangers' mails in the Maildir inbox, a run reading `BACKLOG_MOST`: past it the run reads no more, and
    says so."""
    from pbem.mail.transports import maildir as maildir_mod

    cfg = home(folder)
    box = maildir(cfg)
    for i in range(k):
        box.add(mail(f"Stranger {i} <s{i}@strangers.test>", "hello").as_bytes())

    def run() -> None:
        maildir_mod.MOST_A_RUN = BACKLOG_MOST  # (in a child of its own under `held`: nothing else sees it)
        try:
            res = _cli(cfg, "poll")
        finally:
            maildir_mod.MOST_A_RUN = 10_000
        assert res.exit_code == 0, res.output[-800:]
        left = sum(1 for _ in (cfg.parent / "mail" / "inbox" / "new").iterdir())
        assert left == max(0, k - BACKLOG_MOST), f"{left} of {k} mails left in the inbox, a run reading {BACKLOG_MOST}"
        if k > BACKLOG_MOST:
            assert "more mail than one run reads" in res.output, res.output[-800:]

    return run


def queued(folder: Path, k: int) -> Run:
    cfg = home(folder, says=k)  # each say queues one mail a player
    return cli(cfg, "poll")


def poll_games(folder: Path, k: int) -> Run:
    return cli(home(folder, games=k), "poll")


def toml_size(command: tuple[str, ...]) -> Callable[[Path, int], Run]:
    def make(folder: Path, k: int) -> Run:
        return cli(home(folder, toml_pad=k * 200), *command)

    return make


def record(
    command: tuple[str, ...], *, before: tuple[str, ...] = (), codes: tuple[int, ...] = (0, 1, 2, 3)
) -> Callable[[Path, int], Run]:
    """`command` (its arguments, `{tmp}` a fresh folder) on a game its bots played for k polls (`before` run
    first, unmeasured)."""

    def make(folder: Path, k: int) -> Run:
        cfg = played(folder, k)
        if before:
            _cli(cfg, *before)
        return cli(cfg, *(a.replace("{tmp}", str(folder)) for a in command), codes=codes)

    return make


def games_count(command: tuple[str, ...]) -> Callable[[Path, int], Run]:
    def make(folder: Path, k: int) -> Run:
        cfg = home(folder, games=k)
        return cli(cfg, *(a.replace("{tmp}", str(folder)) for a in command))

    return make


def export_of(folder: Path, k: int, fmt: str = "json") -> tuple[Path, Path]:
    cfg = played(folder, k)
    out = folder / f"export.{fmt}"
    _cli(cfg, "export", PLAYED, "--format", fmt, "--output", str(out))
    return cfg, out


def verify_length(folder: Path, k: int) -> Run:
    cfg, out = export_of(folder, k)
    return cli(cfg, "verify", str(out), "--partial")


def verify_mail(folder: Path, k: int) -> Run:
    cfg = home(folder, says=k)
    _cli(cfg, "poll")  # the says' mails sent: Alice's are her mailbox
    out = folder / "export.json"
    _cli(cfg, "export", GAME, "--format", "json", "--output", str(out))
    return cli(cfg, "verify", str(out), "--partial", "--mail", str(cfg.parent / "mail" / "sent"), "--as", "Alice")


def verify_sent(folder: Path, k: int) -> Run:
    cfg = home(folder)
    sent = mailbox.Maildir(str(folder / "alice-sent"), factory=None, create=True)
    box = maildir(cfg)
    for i in range(k):
        raw = mail(body=signed(f"STATUS\n\n(my {i}th question)")).as_bytes()
        box.add(raw)
        sent.add(raw)
    _cli(cfg, "poll")
    out = folder / "export.json"
    _cli(cfg, "export", GAME, "--format", "json", "--output", str(out))
    return cli(cfg, "verify", str(out), "--partial", "--sent", str(folder / "alice-sent"), "--as", "Alice")


def verify_earlier(folder: Path, k: int) -> Run:
    cfg = played(folder, k)
    early = folder / "early.json"
    _cli(cfg, "export", PLAYED, "--format", "json", "--output", str(early))
    _cli(cfg, "game", "say", PLAYED, "One more note.")
    out = folder / "export.json"  # the moderator's: the whole record, as --earlier needs before the game's end
    _cli(cfg, "export", PLAYED, "--moderator", "--format", "json", "--output", str(out))
    return cli(cfg, "verify", str(out), "--partial", "--earlier", str(early))


def backup_keep(folder: Path, k: int) -> Run:
    cfg = home(folder)
    dest = folder / "backups"
    for i in range(k):
        _cli(cfg, "backup", str(dest), "--name", f"pbem-2026-01-{1 + i // 24:02}-{i % 24:02}0000")
    return cli(cfg, "backup", str(dest), "--keep", "1")


def backup_check(folder: Path, k: int) -> Run:
    cfg = played(folder, k)
    dest = folder / "backups"
    _cli(cfg, "backup", str(dest), "--name", "b1")
    return cli(cfg, "backup", "--check", str(dest / "b1"))


def outbox_failed(command: tuple[str, ...], status: str = "failed") -> Callable[[Path, int], Run]:
    """`command` with k queued mails marked failed (each say queues one a player), or `status` (months7: held)."""

    def make(folder: Path, k: int) -> Run:
        import sqlite3
        from contextlib import closing

        cfg = home(folder, says=k)
        with closing(sqlite3.connect(cfg.parent / "pbem.db")) as con, con:
            con.execute("UPDATE outbox SET status = ?, last_error = 'refused by the server'", (status,))
        return cli(cfg, *command)

    return make


def new_players(folder: Path, k: int) -> Run:
    cfg = home(folder, games=0)
    players = [x for i in range(k * 2) for x in ("--player", f"P{i} <p{i}@players.test>")]  # 2, 8, 32: past 6
    return cli(cfg, "game", "new", "habsburg", "--name", "hh9", "--no-join", *players)


def text_length(command: tuple[str, ...], chars: int) -> Callable[[Path, int], Run]:
    """`command` whose `{text}` is k `chars` characters of words."""

    def make(folder: Path, k: int) -> Run:
        cfg = home(folder)
        text = " ".join(["word"] * (k * chars // 5))
        return cli(cfg, *(a.replace("{text}", text).replace("{tmp}", str(folder)) for a in command))

    return make


def init_name(folder: Path, k: int) -> Run:
    """A --name of 100k characters: past the cap of 200 (`config.MAX_NAME`, costs25) refused in one line, exit 2."""

    def run() -> None:
        target = folder / f"fresh{os.getpid()}{id(run)}"
        res = invoke(["init", str(target), "--address", "m@pbem.test", "--name", "M" * (k * 100)])
        assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
        if k * 100 > 200:
            assert res.exit_code == 2 and "a display name is at most 200" in res.output, res.output[-800:]

    return run


def url_length(folder: Path, k: int) -> Run:
    """`pbem move-record URL` with a url of 1,000k characters: past 4,096 refused in one line, exit 2 (walk12)."""
    cfg = home(folder)
    url = "postgresql+psycopg://pbem@127.0.0.1:9/" + "d" * (k * 1000)
    return cli(cfg, "move-record", url, codes=(2,) if len(url) > 4096 else (2, 3))


def move_games(folder: Path, k: int) -> Run:
    """`pbem move-record URL` of a home of k games into a new empty database, each run its own (walk12)."""
    import pytest

    from tests import pg

    base, why = pg.server()
    if base is None:
        pytest.skip(why)
    cfg = home(folder, games=k)

    def run() -> None:
        import psycopg

        name = f"pbem_sweep_{os.getpid()}_{k}_{uuid.uuid4().hex[:12]}"  # (a clock reading would taint the assert below)
        with psycopg.connect(pg.plain_url(base), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        try:
            res = _cli(cfg, "move-record", pg.with_database(base, name))
            assert res.exit_code == 0, res.output[-800:]
        finally:
            from pbem.record.db import engine_for

            engine_for.cache_clear()  # (its connections closed: the database can be dropped)
            with psycopg.connect(pg.plain_url(base), autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return run


def nothing(command: tuple[str, ...]) -> Callable[[Path, int], Run]:
    """A command with no input that grows: the same run at every size (its cost must not change)."""

    def make(folder: Path, k: int) -> Run:
        return lambda: invoke([a.replace("{tmp}", str(folder / f"d{k}")) for a in command])

    return make


# ---- the cases -------------------------------------------------------------------------------------------------

A = "Alice <alice@players.test>"
R = "a game its bots played for N polls"
G = "N games running"
CASES: list[Case] = [
    Case(
        "poll",
        "N players' and N strangers' mails in the inbox",
        2,
        inbox_count,
        "10,000 messages a run (IMAP); replies_per_hour 30 an address",
    ),
    Case(
        "poll",
        "N strangers' mails in the Maildir inbox, a run reading 64",
        40,
        maildir_backlog,
        "10,000 messages a run",
        capped=True,
    ),
    Case("poll", "one mail of 16N lines", 2, inbox_size, "max_stored_player 4 MiB"),
    Case("poll", "one mail of 8N Received headers", 2, inbox_headers, "max_stored_player 4 MiB"),
    Case("poll", "one mail forwarded 5N deep", 1, inbox_depth, "64 nested parts"),
    Case("poll", "one mail of 80N attachments", 1, inbox_attachments, "1,000 parts"),
    Case("poll", "one mail of 8N order lines", 1, order_lines, "100 order lines"),
    Case("poll", "an order line of 5N cards", 1, order_line_length, "400 characters a line"),
    Case("poll", "a From of 160N characters", 1, from_length, "2,000 characters"),
    Case("poll", "a Subject of 200N words", 1, subject_length, "max_stored_player 4 MiB"),
    Case("poll", "N moderator messages queued to send", 2, queued, "bounded by command_deadline (sends all)"),
    Case("poll", G, 1, poll_games, "games are the moderator's"),
    Case("poll", "a pbem.toml of 200N comment lines", 1, toml_size(("poll",)), "1 MiB"),
    Case("game list", "a pbem.toml of 200N comment lines", 1, toml_size(("game", "list")), "1 MiB"),
    Case("game list", G, 1, games_count(("game", "list")), "games are the moderator's"),
    Case("game waiting", G, 1, games_count(("game", "waiting")), "games are the moderator's"),
    Case("export", G + " (--all)", 1, games_count(("export", "--all", "{tmp}/all")), "games are the moderator's"),
    Case("publish", G, 1, games_count(("publish", "{tmp}/site")), "games are the moderator's"),
    Case("moderator code", G, 1, games_count(("moderator", "code")), "games are the moderator's"),
    Case("upgrade", G, 1, games_count(("upgrade",)), "games are the moderator's"),
    Case("prune", G, 1, games_count(("prune", "--older-than", "0d")), "games are the moderator's"),
    Case(
        "check",
        "none over the network here (tests/reliability/test_waits_servers.py)",
        1,
        nothing(("check", "--help")),
        "servers' answers: README's budget table",
    ),
    Case(
        "export",
        R + " (json)",
        4,
        record(("export", PLAYED, "--format", "json", "--output", "{tmp}/e.json")),
        "64 MiB export",
    ),
    Case(
        "export",
        R + " (text)",
        4,
        record(("export", PLAYED, "--format", "text", "--output", "{tmp}/e.txt")),
        "64 MiB export",
    ),
    Case("game show", R, 4, record(("game", "show", PLAYED)), "the last 20 events"),
    Case("game show", R + " (--as)", 4, record(("game", "show", PLAYED, "--as", "Alice")), "the last 20 events"),
    Case("game inputs", R, 4, record(("game", "inputs", PLAYED)), "prints every input"),
    Case("game undo", R, 4, record(("game", "undo", PLAYED, "--to", "1", "--why", "misread")), "the record"),
    Case("game extend", R, 4, record(("game", "extend", PLAYED, "2h")), "the record"),
    Case("game pause", R, 4, record(("game", "pause", PLAYED)), "the record"),
    Case("game resume", R, 4, record(("game", "resume", PLAYED), before=("game", "pause", PLAYED)), "the record"),
    Case("game abandon", R, 4, record(("game", "abandon", PLAYED)), "the record"),
    Case("game keep", R, 4, record(("game", "keep", PLAYED)), "the record"),
    Case("game process", R, 4, record(("game", "process", PLAYED)), "the record"),
    Case("game start", R, 4, record(("game", "start", PLAYED)), "the record"),
    Case("game replace", R, 4, record(("game", "replace", PLAYED, "Alice", "Cy <cy@example.test>")), "the record"),
    Case("game address", R, 4, record(("game", "address", PLAYED, "Alice", "ann2@example.test")), "the record"),
    Case("game code", R, 4, record(("game", "code", PLAYED, "Alice")), "the record"),
    Case("game away", R, 4, record(("game", "away", PLAYED, "Alice", "3")), "the record"),
    Case("game resend", R, 4, record(("game", "resend", PLAYED, "Alice")), "the record"),
    Case("game mail", R, 4, record(("game", "mail", PLAYED, "digest")), "the record"),
    Case("game say", R, 4, record(("game", "say", PLAYED, "Play on.")), "the record"),
    Case(
        "game say", "a message of 30N characters", 1, text_length(("game", "say", GAME, "{text}"), 30), "400 characters"
    ),
    Case("game new", "2N players", 1, new_players, "the kind's seats (3 to 6)"),
    Case("verify", R, 4, verify_length, "64 MiB and 4,000,000 values"),
    Case("verify", "--mail: N mails (a record of N messages mailed)", 2, verify_mail, "100,000 mails, 1 GiB"),
    Case("verify", "--sent: N mails a player sent", 2, verify_sent, "100,000 mails, 1 GiB"),
    Case("verify", "--earlier: an export of N polls", 4, verify_earlier, "64 MiB"),
    Case("backup", "N dated backups (--keep 1)", 2, backup_keep, "pbem's dated folders only"),
    Case("backup", R, 4, record(("backup", "{tmp}/b")), "--within 900 s"),
    Case("backup", R + " (--check)", 4, backup_check, "--within 900 s"),
    Case("outbox list", "N failed mails a player", 2, outbox_failed(("outbox", "list")), "prints every mail"),
    Case(
        "outbox retry", "N failed mails a player", 2, outbox_failed(("outbox", "retry", "--all")), "queues every mail"
    ),
    Case("outbox held", "N held mails a player", 2, outbox_failed(("outbox", "held"), "held"), "200 listed"),
    Case(
        "outbox release",
        "N held mails a player",
        2,
        outbox_failed(("outbox", "release", "--all"), "held"),
        "every mail",
    ),
    Case("outbox drop", "N held mails a player", 2, outbox_failed(("outbox", "drop", "--all"), "held"), "every mail"),
    Case("init", "a --name of 100N characters", 1, init_name, "200 characters (costs25)", capped=True),
    Case(
        "move-record",
        "N games, a server that does not answer (127.0.0.1:9)",
        1,
        games_count(("move-record", "postgresql+psycopg://pbem@127.0.0.1:9/none")),
        "refused before any game is read (walk12: the CLI's generic line, exit 3, before)",
    ),
    Case(
        "move-record",
        "a url of 1,000N characters",
        1,
        url_length,
        "4,096 characters (walk12)",
        capped=True,
    ),
    Case(
        "move-record",
        "N games into an empty PostgreSQL database (skipped without a server: tests/pg.py)",
        1,
        move_games,
        "batches of 500 rows or 4 MiB",
    ),
    Case("rules", "none: the kind only", 1, nothing(("rules", "habsburg")), "none grows"),
    Case("demo", "none: the kind only (its bots' game)", 1, nothing(("demo", "--help")), "none grows"),
]

#: The pairs the suite runs: one cheap pair through the poll (a mail past its cap of order lines at x16).
SAMPLE = ("poll / one mail of 8N order lines",)


# ---- measuring -------------------------------------------------------------------------------------------------


@dataclass
class Reading:
    """A pair's lines and peak bytes at x1, x4, x16 (and, where asked, x64 and x256: `measure`)."""

    case: Case
    lines: tuple[int, ...]
    held: tuple[int, ...]

    @staticmethod
    def over(got: tuple[int, ...], noise: int = 0) -> str:
        """Why `got` (the cost at x1, x4, x16 and, where read, x64 and x256: each 4 times the last) is flagged, or "".

        x16 over `OVER` times x1; or the part that grows steeper than linear in two windows running: what one
        size to the next adds more than `STEEP` times what the size before added (linear 4, a square 16), then
        again from the next size (a step at one size, a cache filled or a batch begun, does not go on).  `noise`:
        a growth from x1 to the largest size of no more than this is too little to read a shape from (0: the
        costs24 gate, a quarter of x1, which takes in the run's fixed part: `own_floor`)."""
        small, large = got[0], got[2]
        if large > OVER * max(small, 1):
            return f"x16 {large / max(small, 1):.1f} times x1"
        gate = noise or NOISE * small
        if got[-1] - small <= gate:
            return ""
        steep = []
        for i in range(len(got) - 2):
            added, more = got[i + 1] - got[i], got[i + 2] - got[i + 1]
            least = max(noise // 4, 1) if noise else 0.05 * small  # the least baseline a window's slope is read against
            steep.append(more > STEEP * max(added, least) and (noise or added > least))
        for i in range(len(steep) - 1):
            if steep[i] and steep[i + 1]:
                at = SIZE_NAMES[i + 1 : i + 4]
                g = got[i : i + 4]
                return (
                    f"{at[0]} to {at[1]} added {(g[2] - g[1]) / max(g[1] - g[0], 1):.1f} times what the size before "
                    f"added, {at[1]} to {at[2]} {(g[3] - g[2]) / max(g[2] - g[1], 1):.1f} times"
                )
        return ""

    def steep(self, noise: bool = True) -> set[str]:
        """The measures whose last window is steep and not yet confirmed by a size more."""
        out = set()
        for m, got, gate in (("lines", self.lines, NOISE_LINES), ("bytes", self.held, NOISE_BYTES)):
            if len(got) >= 3 and not self.over(got, gate if noise else 0):
                a, b, c = got[-3:]
                grew = got[-1] - got[0] > (gate // 16 if noise else NOISE * got[0])  # (a size more is cheap here)
                least = max(gate // 64, 1) if noise else 0.05 * got[0]  # (eager: a size more is cheap here)
                if grew and c - b > STEEP * max(b - a, least):
                    out.add(m)
        return out

    def small(self) -> set[str]:
        """The measures still small at the largest size read (`SMALL`): a steep curve may not show yet.  None once
        the lines are not (a size more would cost minutes)."""
        lines_most, bytes_most = SMALL[len(self.lines) - 3] if len(self.lines) - 3 < len(SMALL) else (0, 0)
        if self.lines[-1] >= lines_most:  # (the lines are the run's cost in time: past them, no size more is read)
            return set()
        return {"lines"} | ({"bytes"} if self.held[-1] - own_floor(self.held) < bytes_most else set())

    def flags_by(self, noise: bool) -> list[str]:
        """The flags; `noise` False: as costs24 read them (x1 to x16, the gate a quarter of x1, floor and all)."""
        lines, held = (self.lines, self.held) if noise else (self.lines[:4], self.held[:4])
        out = []
        if self.case.capped and self.lines[2] > FLAT * self.lines[1]:
            out.append(f"uncapped: lines x16 {self.lines[2] / self.lines[1]:.1f} times x4, both past the cap")
        if why := self.over(lines, NOISE_LINES if noise else 0):
            out.append(f"lines: {why}")
        if why := self.over(held, NOISE_BYTES if noise else 0):
            out.append(f"bytes: {why}")
        return out

    @property
    def flags(self) -> list[str]:
        return self.flags_by(True)

    def __str__(self) -> str:
        lines = " / ".join(f"{x:,}" for x in self.lines)
        held = " / ".join(f"{x:,}" for x in self.held)
        floor = own_floor(self.held)
        own = " / ".join(f"{x - floor:,}" for x in self.held)
        readable = self.held[0] > floor and self.held[2] - self.held[0] > NOISE_BYTES // 16
        ratio = (
            f"x16 {(self.held[2] - floor) / (self.held[0] - floor):.1f} times x1" if readable else "too little to read"
        )
        flags = "; ".join(self.flags)
        mark = "FLAG " if flags else "     "
        was = (
            ""
            if bool(self.flags_by(False)) == bool(flags)
            else f"  (costs24's reading: {'; '.join(self.flags_by(False)) or 'not flagged'})"
        )
        return (
            f"{mark}{self.case.name}: lines {lines}; bytes {held} (its own {own}: {ratio})"
            f"{'  <- ' + flags if flags else ''}{was}"
        )


def own_floor(held: tuple[int, ...]) -> int:
    """The bytes a run holds at its peak whatever its input (about 1.07 MB for a command that opens a home:
    SQLAlchemy's engine and its first statements): x1 less what one x1 of input holds, read as linear from x1 to x4
    (a third of what x1 to x4 added).  `held` less it is the input's own part, so that an input of 100 KB at x1 and
    1.6 MB at x16 reads 16 times, not 2.5 (1.17 MB and 2.67 MB with the floor)."""
    return max(0, held[0] - max(0, held[1] - held[0]) // 3)


def measure(case: Case, root: Path, sizes: tuple[int, ...] = SIZES, *, larger: bool = False) -> Reading:
    """The case's lines and peak bytes at each size, each run on a home of its own; a growth steep at the largest
    size read is read at a size 4 times more (x64, then x256), to tell a square's (it goes on) from a step's (a
    cache filled, a batch begun: it does not).  `larger` (the full sweep): a pair still small at x16 (`SMALL`) is
    read at x64 and x256 too, where a steep curve's square part passes its linear part."""
    from tests.growth import held, steps

    lines, peak = [], []
    warm = Path(tempfile.mkdtemp(prefix="warm-", dir=root))
    case.make(warm, sizes[0] * case.unit)()  # the modules the command imports on its first run, imported now
    for k in sizes:
        folder = Path(tempfile.mkdtemp(prefix=f"k{k}-", dir=root))
        lines.append(steps(case.make(folder / "l", k * case.unit)))
        peak.append(held(case.make(folder / "h", k * case.unit)))
    got = Reading(case, tuple(lines), tuple(peak))
    k = sizes[-1]
    while k < LARGEST and (again := got.steep() | got.steep(noise=False) | (got.small() if larger else set())):
        k *= 4
        folder = Path(tempfile.mkdtemp(prefix=f"k{k}-", dir=root))
        if "lines" in again or "bytes" in again:  # (both read at every size: the table's columns stay aligned)
            got.lines += (steps(case.make(folder / "l", k * case.unit)),)
            got.held += (held(case.make(folder / "h", k * case.unit)),)
    return got


def by_name(name: str) -> Case:
    return next(c for c in CASES if c.name == name)


def main(argv: list[str]) -> int:
    """`--quick`: x1, x4 and x16 only (and a size more where a growth is steep), as costs24's sweep."""
    larger = "--quick" not in argv
    argv = [a for a in argv if a != "--quick"]
    chosen = [c for c in CASES if not argv or any(a in c.name for a in argv)]
    flagged = was = 0
    with tempfile.TemporaryDirectory(prefix="sweep24-") as tmp:
        for case in chosen:
            began = time.monotonic()
            try:
                got = measure(case, Path(tmp), larger=larger)
            except Exception as exc:  # (a case's own builder failing is the sweep's failure: told, and the rest read)
                print(f"FAIL {case.name}: {type(exc).__name__}: {str(exc)[:600]}", flush=True)
                flagged += 1
                was += 1
                continue
            flagged += bool(got.flags)
            was += bool(got.flags_by(False))
            print(f"{got} [{time.monotonic() - began:.0f} s]", flush=True)
    print(
        f"{flagged} of {len(chosen)} pairs flagged ({was} as costs24 read them: x1 to x16, a quarter of x1 its gate)",
        flush=True,
    )
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
