"""A player's mailbox, real pipeline: another player's secret answer and its revisions show in no mail's size,
number or bytes (a third secrecy red team).

In a home on its database, polled by `run_poll` with mail delivered to its Maildir, a game of each kind whose
first step two players answer at once and in secret: B answers (with one legal order or another) and revises
it 0 or 2 times, A asks STATUS and HELP before and after, all in the same polls.  Every mail A receives must be
the same in number and size, and byte for byte but for what each home draws at random (its Message-ID key, so
the Message-IDs and the boundaries made from them; the game's signing key, so the receipts' signatures and the
key's fingerprint).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.app import games, views
from pbem.app.cron import run_poll
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from tests.conftest import CODES, in_delivered_order
from tests.reliability import killpoints as kp

PLAYERS = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("Carol", "carol@example.test")]
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def mail(player: str, body: str, n: str) -> bytes:
    """`body` from `player`; its Message-ID names its place in the script (`n`), the same in every variant."""
    return (
        f"From: {player} <{dict(PLAYERS)[player]}>\nTo: moderator@pbem.test\nSubject: [pbem g1] orders\n"
        f"Message-ID: <sizes-{n}@example.test>\nContent-Type: text/plain; charset=utf-8\n\n"
        f"CODE {CODES[player]}\n{body}\n"
    ).encode()


def _files(cfg) -> set[Path]:
    return set((Path(cfg.maildir_path) / "sent").glob("*/*"))


#: What each home draws at random: the Message-ID key (ids, and the boundaries made from them), the game's
#: signing key (signatures, the fingerprint); and the record's head (`X-Pbem-Record: <n> <head>`, "Record #n,
#: <head>..."), the chain's hash after the newest entry the reader may see, which binds the hidden entries before
#: it (B's answer, salted from the secret seed: `pbem.trust.chain.input_salt`).  Each is replaced by as many
#: "#": sizes stay comparable, and the record's number <n> is compared.
RANDOM = [
    re.compile(rb"<pbem\.[0-9a-f]{32}@"),
    re.compile(rb"=_pbem_[0-9a-f]{16}"),
    re.compile(rb"(?m)^X-Pbem-(?:Signature|Key)[^\n]*(?:\n[ \t][^\n]*)*"),
    re.compile(rb"(?i)(?:key|fingerprint)[^\n]{0,40}?[0-9a-f]{16,}"),
    re.compile(rb"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])"),
    re.compile(rb"(?<=Record #)([0-9]+, (?:<code>)?)[0-9a-f]{16}"),  # the number kept (group 1)
]


def _hashes(m: re.Match[bytes]) -> bytes:
    """The match as "#"s of its length, but its group 1 (kept as it is)."""
    kept = m.group(1) if m.groups() else b""
    return kept + b"#" * (len(m.group(0)) - len(kept))


def masked(raw: bytes) -> bytes:
    for pattern in RANDOM:
        raw = pattern.sub(_hashes, raw)
    return raw


def alices_mail(kind: str, root: Path, choice: int, revisions: int) -> list[bytes]:
    """Every mail to A while B answers with their `choice`-th legal order and revises it `revisions` times."""
    players = PLAYERS[:2] if kind == "italian-wars" else PLAYERS
    cfg = kp.make_home(root)
    games.create_game(Home.of(cfg), kind, "g1", players, seed=f"sizes-{kind}", codes=CODES, clock=lambda: T0)
    clock = {"t": T0}
    to_a: list[bytes] = []
    (a, address), (b, _) = players[0], players[1]  # A reads, B answers in secret
    to = re.compile(rb"(?m)^To: [^\n]*" + re.escape(address.encode()))

    def poll(mails: list[bytes]) -> None:
        clock["t"] += timedelta(minutes=1)
        before = _files(cfg)
        kp.deliver_in_order(cfg, mails)
        ran = run_poll(cfg, clock=lambda: clock["t"])
        assert ran.summary is not None or not mails  # a poll with nothing to read may stay idle
        to_a.extend(raw for raw in (p.read_bytes() for p in in_delivered_order(_files(cfg) - before)) if to.search(raw))

    poll([])
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        asked = {r.player: r for r in views.engine(loaded).requests(loaded.state) if not r.answered and r.legal}
    assert {a, b} <= set(asked), f"{kind}: its first step does not ask both"
    legal = list(dict.fromkeys(asked[b].legal))
    to_a.clear()
    script = [mail(b, legal[choice % len(legal)], "b0")]
    script += [mail(b, legal[(choice + i + 1) % len(legal)], f"b{i + 1}") for i in range(revisions)]
    poll(script[:1])
    poll([mail(a, "STATUS", "a1")])
    poll(script[1:])  # the revisions, in one poll: as many polls (and the same times) in every variant
    poll([mail(a, "STATUS\nHELP", "a2")])
    return to_a


@pytest.mark.parametrize("kind", ["dynasties", "italian-wars", "sixteen-thirty"])
def test_another_players_secret_answer_and_revisions_change_no_mail_a_player_gets(kind: str, tmp_path: Path) -> None:
    base = alices_mail(kind, tmp_path / "base", 0, 0)
    assert len(base) >= 3, f"{kind}: A got {len(base)} mails"
    for name, choice, revisions in (("other", -1, 0), ("revised", 0, 2)):
        other = alices_mail(kind, tmp_path / name, choice, revisions)
        assert [len(m) for m in other] == [len(m) for m in base], (kind, name, "sizes or number differ")
        for x, y in zip(base, other):
            assert masked(x) == masked(y), (kind, name)
