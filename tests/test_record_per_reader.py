"""A player's receipts ("Record #N", `X-Pbem-Record`) reveal nothing of other players' secret actions (issue 26).

Dynasties' Tribute is secret until all are in.  In two homes played alike, Bob sends his Tribute and, in one of
them, revises it three more times, while Alice watches with STATUS before and after.  Her receipt is the same
before and after the revisions (her number and head move only with what she may see), and her numbers are the
same in both homes; Bob's own receipts do count his revisions.  `pbem verify --mail` still checks both players'
mail against the moderator's export.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest

from pbem.app import games, views
from pbem.app.cron import run_poll
from pbem.history.export import build
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from pbem.trust.receipts import verify_mail
from tests.conftest import CODES, in_delivered_order
from tests.reliability import killpoints as kp

PLAYERS = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("Carol", "carol@example.test")]
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
N = {"mail": 0}


def mail(player: str, body: str) -> bytes:
    N["mail"] += 1
    return (
        f"From: {player} <{dict(PLAYERS)[player]}>\nTo: moderator@pbem.test\nSubject: [pbem g1] orders\n"
        f"Message-ID: <reader{N['mail']}@example.test>\nContent-Type: text/plain; charset=utf-8\n\n"
        f"CODE {CODES[player]}\n{body}\n"
    ).encode()


def _files(cfg) -> set[Path]:
    return set((Path(cfg.maildir_path) / "sent").glob("*/*"))


def _sent(cfg, since: set[Path] | None = None) -> list[bytes]:
    return [p.read_bytes() for p in in_delivered_order(_files(cfg) - (since or set()))]


def _receipts(raws: list[bytes], to: str) -> list[str]:
    out = []
    for raw in raws:
        m = BytesParser(policy=policy.compat32).parsebytes(raw)
        if to in str(m["To"]) and m["X-Pbem-Record"]:
            out.append((m["Date"] or "", str(m["X-Pbem-Record"])))
    return [r for _, r in sorted(out, key=lambda x: x[1])]


def play(root: Path, revisions: int):
    cfg = kp.make_home(root)
    games.create_game(Home.of(cfg), "dynasties", "g1", PLAYERS, seed="per-reader", codes=CODES, clock=lambda: T0)
    clock = {"t": T0}

    def poll(mails: list[bytes]) -> None:
        clock["t"] += timedelta(minutes=1)
        kp.deliver_in_order(cfg, mails)
        assert run_poll(cfg, clock=lambda: clock["t"]).summary is not None

    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        bob = next(r for r in views.engine(loaded).requests(loaded.state) if r.player == "Bob")
    poll([])  # the first reports go out
    poll([mail("Bob", bob.legal[0])])  # Bob's Tribute: its being in is public, what it is is not
    before = _files(cfg)
    poll([mail("Alice", "STATUS")])
    alice_before = _receipts(_sent(cfg, before), "alice@")
    for i in range(revisions):  # Bob changes his mind: each revision is an input of the record, hidden from Alice
        poll([mail("Bob", bob.legal[(i + 1) % len(bob.legal)])])
    before = _files(cfg)
    poll([mail("Alice", "STATUS")])
    alice_after = _receipts(_sent(cfg, before), "alice@")
    return cfg, alice_before, alice_after


def test_alice_cannot_tell_how_often_bob_revised_his_secret_tribute(tmp_path: Path) -> None:
    once, a_before, a_after = play(tmp_path / "once", revisions=0)
    often, b_before, b_after = play(tmp_path / "often", revisions=3)
    assert a_before and a_after and b_before and b_after
    assert a_after == a_before and b_after == b_before, "Bob's revisions move neither Alice's number nor her head"
    numbers = [r.split()[0] for r in a_before + a_after], [r.split()[0] for r in b_before + b_after]
    assert numbers[0] == numbers[1], "her record number is the same however often Bob revised"
    sent_once, sent_often = _sent(once), _sent(often)
    bob_once = [int(r.split()[0]) for r in _receipts(sent_once, "bob@")]
    bob_often = [int(r.split()[0]) for r in _receipts(sent_often, "bob@")]
    assert max(bob_often) >= max(bob_once) + 3, "Bob's own receipts count his revisions: the test can tell"
    for cfg, raws in ((once, sent_once), (often, sent_often)):
        with session(cfg.database_url) as s:
            doc = build(s, store.game_by_name(s, "g1"))  # the moderator's export: every entry
        for player, address in PLAYERS[:2]:
            theirs = [r for r in raws if address.encode() in r]
            check = verify_mail(doc, theirs, player)
            assert check.ok and check.heads > 0, (player, check.problems)


def _acknowledged(raws: list[bytes], to: str) -> list[tuple[str, list[str]]]:
    """(X-Pbem-Input, the "input #N" lines of the body) of every mail to `to` that acknowledges an input."""
    import re

    out = []
    for raw in raws:
        m = BytesParser(policy=policy.compat32).parsebytes(raw)
        if to in str(m["To"]) and m["X-Pbem-Input"]:
            said = re.findall(r"(?:input|entry) #\d+", raw.decode("utf-8", "replace"))
            out.append((" ".join(str(m["X-Pbem-Input"]).split()[:1]), said))
    return out


def _alice_tributes(cfg) -> list[bytes]:
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        alice = next(r for r in views.engine(loaded).requests(loaded.state) if r.player == "Alice")
    before = _files(cfg)
    kp.deliver_in_order(cfg, [mail("Alice", alice.legal[0])])
    assert run_poll(cfg, clock=lambda: T0 + timedelta(hours=1)).summary is not None
    return _sent(cfg, before)


def test_alice_cannot_tell_from_the_receipt_of_her_own_tribute_how_often_bob_revised_his(tmp_path: Path) -> None:
    """The acknowledgement of Alice's orders numbers her input as her receipts count (`X-Pbem-Input` and
    "Recorded as entry #N"), not by its place among every player's inputs: that number grew by one with each of
    Bob's secret revisions before it.  Both players' mail still verifies against the moderator's export."""
    once, _, _ = play(tmp_path / "once", revisions=0)
    often, _, _ = play(tmp_path / "often", revisions=3)
    acks = [_acknowledged(_alice_tributes(cfg), "alice@") for cfg in (once, often)]
    assert acks[0] and acks[0][0][1], "Alice's tribute is acknowledged with its input number"
    assert acks[0] == acks[1], f"Alice's acknowledgement numbers her input by Bob's revisions: {acks}"
    for cfg in (once, often):
        raws = _sent(cfg)
        with session(cfg.database_url) as s:
            doc = build(s, store.game_by_name(s, "g1"))
            mine = build(s, store.game_by_name(s, "g1"), as_player="Alice")
        for player, address in PLAYERS[:2]:
            theirs = [r for r in raws if address.encode() in r]
            check = verify_mail(doc, theirs, player)
            assert check.ok and check.inputs > 0, (player, check.problems)
        alices = [r for r in raws if b"alice@example.test" in r]
        check = verify_mail(mine, alices, "Alice")  # her own export of the game in progress
        assert check.ok and check.inputs > 0, check.problems


def _simultaneous(kind: str, root: Path, revisions: int) -> tuple[list[tuple[str, list[str]]], int]:
    """A game of `kind` at its first step that two players answer at once: B answers and revises `revisions`
    times, then A answers.  (What A's acknowledgement numbers and states, B's inputs in the moderator's export.)"""
    players = PLAYERS[:2] if kind == "italian-wars" else PLAYERS
    cfg = kp.make_home(root)
    games.create_game(Home.of(cfg), kind, "g1", players, seed=f"per-reader-{kind}", codes=CODES, clock=lambda: T0)
    clock = {"t": T0}

    def poll(mails: list[bytes]) -> list[bytes]:
        clock["t"] += timedelta(minutes=1)
        before = _files(cfg)
        kp.deliver_in_order(cfg, mails)
        assert run_poll(cfg, clock=lambda: clock["t"]).summary is not None
        return _sent(cfg, before)

    poll([])
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        asked = {r.player: r for r in views.engine(loaded).requests(loaded.state) if not r.answered and r.legal}
    assert len(asked) >= 2, f"{kind}: its first step is answered by one player"
    a, b = sorted(asked)[:2]
    legal_b = asked[b].legal
    for i in range(revisions + 1):
        poll([mail(b, legal_b[i % len(legal_b)])])
    acks = _acknowledged(poll([mail(a, asked[a].legal[0])]), dict(PLAYERS)[a])
    with session(cfg.database_url) as s:
        doc = build(s, store.game_by_name(s, "g1"))
    record = ("record", [r.split()[0] for r in _receipts(_sent(cfg), dict(PLAYERS)[a])[-1:]])  # its number
    return [*acks, record], sum(o["player"] == b for o in doc["orders"])


@pytest.mark.parametrize("kind", ["dynasties", "italian-wars", "sixteen-thirty"])
def test_no_receipt_counts_another_players_secret_revisions_in_any_game(kind: str, tmp_path: Path) -> None:
    """Every game with an answer given at once and in secret: A's acknowledgement and record line are the same
    whether B revised their secret answer or not, while B's revisions are inputs of the record (the test can tell)."""
    once, b_once = _simultaneous(kind, tmp_path / "once", 0)
    often, b_often = _simultaneous(kind, tmp_path / "often", 3)
    assert b_often >= b_once + 3, f"{kind}: B's revisions were not recorded ({b_once} vs {b_often} inputs)"
    assert once[0][1], f"{kind}: A's answer is acknowledged with its number"
    assert once == often, f"{kind}: A's receipts move with B's secret revisions: {once} vs {often}"
