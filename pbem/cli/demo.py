"""`pbem demo`: a whole game played by email on the embedded defaults.

Bot players read their own report emails from the `sent` Maildir, pick one of
the legal orders written in the report, and write an order email into the
`inbox` Maildir; `poll` runs until the game is over.  The demo therefore
exercises the real path: mail parsing, order extraction, the engine's
grammar, the record, reports and the outbox.
"""

from __future__ import annotations

import mailbox
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import make_msgid, parseaddr
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.engine.rng import Rng, init_state
from pbem.engine.words import count
from pbem.trust.receipts import delivered

if TYPE_CHECKING:
    from pbem.home.config import Config

BOT_NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]
LEGAL_HEADER = "Legal orders now (copy one per line):"


@dataclass
class DemoResult:
    game: str
    summary: str
    polls: int
    messages_in: int
    messages_out: int
    seconds: float
    home: Path
    export: Path
    verified: bool
    checked: list[str] = field(default_factory=list)


def legal_lines(report_text: str) -> list[str]:
    """The first 'Legal orders now' block of a report, as the player sees it."""
    lines = report_text.splitlines()
    try:
        start = lines.index(LEGAL_HEADER) + 1
    except ValueError:
        return []
    out = []
    for line in lines[start:]:
        if not line.startswith("    ") or not line.strip():
            break
        out.append(line.strip())
    return out


def text_of(raw: bytes) -> tuple[Message, str]:
    """One of pbem's mails (its headers) and its plain text, read by its MIME boundaries (`text_bodies`: pbem
    wrote it).  Parsing it whole with the modern policy was a tenth of a demo game's time, and the tests play
    many demo games."""
    from pbem.mail.outbound.bodies import text_bodies

    return BytesHeaderParser(policy=compat32).parsebytes(raw), text_bodies(raw).get("plain", "")


CODE_LINE = re.compile(r"Your secret player code is (\S+?)\.")


def demo_code(bot_seed: str, name: str) -> str:
    """A fixed code per bot, so that seeded demos (and golden tests) are reproducible."""
    import hashlib

    digest = hashlib.sha256(f"{bot_seed}:{name}:code".encode()).hexdigest().upper()
    return f"{digest[:4]}-{digest[4:8]}"


#: Writes a bot's order mail the way a person would (greeting, signature, quoted report...):
#: (bot, order lines, game, moderator address, Message-ID replied to, report text) -> raw message.
Style = Callable[["Bot", list[str], str, str, "str | None", str], bytes]


class Bot:
    def __init__(self, name: str, address: str, rng: Rng, style: Style | None = None) -> None:
        self.name, self.address, self.rng, self.style = name, address, rng, style
        self.code: str | None = None

    def learn(self, text: str) -> None:
        """Keep the code from the first report (or a new-code notice), like a player would."""
        m = CODE_LINE.search(text) or re.search(r"Your new player code for game \S+ is (\S+?)\.", text)
        if m:
            self.code = m.group(1)

    def answer(self, report: Message, text: str, game: str, moderator: str) -> bytes | None:
        legal = legal_lines(text)
        if not legal:
            return None
        answered = " ".join(str(report["Message-ID"] or "").split()) or None  # compat32 keeps a folded header's breaks
        return self.order_mail([legal[self.rng.below(len(legal))]], game, moderator, answered, text)

    def order_mail(
        self, lines: list[str], game: str, moderator: str, reply_to: str | None, report_text: str = ""
    ) -> bytes:
        if self.style is not None:
            return self.style(self, lines, game, moderator, reply_to, report_text)
        msg = EmailMessage()
        msg["From"] = f"{self.name} <{self.address}>"
        msg["To"] = moderator
        msg["Subject"] = f"Re: [pbem {game}] orders"
        msg["Message-ID"] = make_msgid(domain="players.example")
        if reply_to:
            msg["In-Reply-To"] = reply_to
        code = [f"CODE {self.code}"] if self.code else []
        msg.set_content("\n".join(code + lines) + "\n\n-- \nsent by a pbem demo bot\n")
        return msg.as_bytes()


def _read_reports(sent: Path, seen: set[str], by_addr: dict[str, Bot]) -> dict[str, tuple[Message, str]]:
    """Each bot reads the mail sent to it since the last poll; the newest report asking it for orders, by address.

    The Maildir's two folders are listed, and only the new mail read: `mailbox.Maildir.iterkeys` looked up every
    file of the folder on every poll (two `stat` calls a mail: 100,000 in a seeded Sixteen Thirty game)."""
    newest: dict[str, tuple[Message, str]] = {}
    fresh: dict[str, Path] = {}
    for sub in ("cur", "new"):  # a key in both is new/'s, as `mailbox.Maildir` reads it
        for name in os.listdir(sent / sub):
            key = name.split(":")[0]
            if key not in seen:
                fresh[key] = sent / sub / name
    for key in sorted(fresh, key=delivered):  # sorted: only the mail new since the last poll
        seen.add(key)
        msg, text = text_of(fresh[key].read_bytes())
        addr = parseaddr(str(msg["To"]))[1] or str(msg["To"])  # (a pattern over "<...>" was quadratic in "<" runs)
        if addr in by_addr:
            by_addr[addr].learn(text)
            if LEGAL_HEADER in text:
                newest[addr] = (msg, text)
    return newest


def _write_answers(
    inbox: mailbox.Maildir,
    bots: list[Bot],
    by_addr: dict[str, Bot],
    newest: dict[str, tuple[Message, str]],
    name: str,
    moderator: str,
    join_salts: dict[str, str] | None,
) -> int:
    """The bots' mail for the next poll (with `join_salts`, every bot joins first); how many were written."""
    wrote = 0
    if join_salts is not None:
        for b in bots:
            salt = [f"SALT {join_salts[b.name]}"] if join_salts.get(b.name) else []
            inbox.add(b.order_mail(["JOIN", *salt], name, moderator, None))
            wrote += 1
    for addr, (msg, text) in newest.items():
        raw = by_addr[addr].answer(msg, text, name, moderator)
        if raw:
            inbox.add(raw)
            wrote += 1
    if not wrote:  # nothing new to answer: ask for fresh reports
        for b in bots:
            inbox.add(b.order_mail(["STATUS"], name, moderator, None))
            wrote += 1
    return wrote


def run(
    kind: str,
    players: int,
    seed: str | None,
    home: Path,
    bot_seed: str = "demo",
    max_polls: int = 5_000,
    progress: Callable[[int], object] | None = None,
    clock: Callable[[], datetime] | None = None,
    after_poll: Callable[[Config, str], object] | None = None,
    style: Style | None = None,
    join_salts: dict[str, str] | None = None,
    name: str | None = None,
) -> DemoResult:
    """Play one game; `clock` (a callable returning an aware datetime) fixes the time for golden tests;
    `style` writes the bots' mails as people do (the tests' mail-client styles).  The demo deals at once
    (no join step: nothing in it is secret); `join_salts` opens the join step instead, and each bot answers
    its invitation with JOIN and, if it has one here, its SALT.  `name`: the game's (default KIND-demo)."""
    import json

    from pbem import engine as registry
    from pbem.app.games import Table, create_game
    from pbem.app.poll import poll
    from pbem.app.reading import mail_reader
    from pbem.cli.support import init_home
    from pbem.history.export import build, verify
    from pbem.home import config as config_mod
    from pbem.home.app import Home
    from pbem.mail.transports.seam import open_transport as transports
    from pbem.record.db import session
    from pbem.record.files import write_whole
    from pbem.record.store import game_by_name, is_over, last_order_seq, load
    from pbem.trust.receipts import read_folder

    eng = registry.get(kind)
    if not (eng.min_players <= players <= eng.max_players):
        raise ValueError(f"{eng.title} takes {eng.min_players} to {eng.max_players} players, not {players}")
    cfg_path = init_home(home, address="moderator@pbem.example", name="pbem demo moderator")
    cfg = config_mod.load(cfg_path)
    cfg.replies_per_hour = max(cfg.replies_per_hour, 100_000)  # bots write at machine speed; the budget is for people
    name = name or f"{kind}-demo"
    bots = [
        Bot(n, f"{n.lower()}@players.example", Rng(init_state(f"{bot_seed}:{n}")), style) for n in BOT_NAMES[:players]
    ]
    start = time.perf_counter()
    root = Home.of(cfg, clock=clock) if clock else Home.of(cfg)
    create_game(
        root,
        kind,
        name,
        [(b.name, b.address) for b in bots],
        seed=seed,
        codes={b.name: demo_code(bot_seed, b.name) for b in bots},
        table=Table(join=join_salts is not None),
    )
    sent = mailbox.Maildir(str(cfg.maildir_path / "sent"), factory=None, create=True)
    inbox = mailbox.Maildir(str(cfg.maildir_path / "inbox"), factory=None, create=True)
    seen: set[str] = set()
    polls = messages_in = stalled = last_mark = 0
    by_addr = {b.address: b for b in bots}
    mailbox_in, sender = transports(cfg)
    root = root.connected(mailbox_in, sender)
    poll(root)  # sends the first reports
    polls += 1
    while polls < max_polls:
        newest = _read_reports(cfg.maildir_path / "sent", seen, by_addr)
        with session(cfg.database_url) as s:
            row = game_by_name(s, name)
            assert row is not None and row.id is not None
            gid = row.id
            over = is_over(s, gid)
            progress_mark = last_order_seq(s, gid)
        if over:
            break
        stalled = stalled + 1 if progress_mark == last_mark else 0
        last_mark = progress_mark
        if stalled > 25:
            raise RuntimeError(f"the demo game stalled: no order was accepted in {count(stalled, 'poll')}; see {home}")
        joining = join_salts if join_salts is not None and polls == 1 else None  # the invitations are in
        messages_in += _write_answers(inbox, bots, by_addr, newest, name, cfg.moderator_address, joining)
        poll(root)
        polls += 1
        if progress:
            progress(polls)
        if after_poll:
            after_poll(cfg, name)
    seconds = time.perf_counter() - start
    with session(cfg.database_url) as s:
        game = game_by_name(s, name)
        assert game is not None
        loaded = load(s, game)
        result = loaded.engine.result(loaded.state)
        doc = build(s, game)
    export = home / f"{name}.json"
    write_whole(export, json.dumps(doc, indent=1, ensure_ascii=False))
    received = read_folder(cfg.maildir_path / "sent") if (cfg.maildir_path / "sent").is_dir() else []
    v = verify(doc, read=mail_reader(received))  # the bots' mail, read as the poll read it
    return DemoResult(
        game=name,
        summary=result.summary if result else "the game did not finish",
        polls=polls,
        messages_in=messages_in,
        messages_out=len(sent.keys()),
        seconds=seconds,
        home=home,
        export=export,
        verified=v.ok,
        checked=v.checked + ([v.problem] if v.problem else []),
    )
