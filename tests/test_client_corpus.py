"""Replies from real mail clients (tests/corpus/clients): exactly the intended orders come out, and are accepted.

Each ``NAME.eml`` is a reply to Alice's first House of Habsburg report (seed
``corpus-3``: Alice plays first), written as that client writes it: greeting,
signature, the quoted report, top- or bottom-posted, flowed, HTML-only.
``NAME.expected`` holds the orders, code, HELP flag and chatter it must yield.
The second test delivers each file to a real game through the Maildir poll.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem import engine as registry
from pbem.app.games import create_game
from pbem.app.poll import poll as run_poll
from pbem.home.app import Home
from pbem.mail.inbound.message import parse
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from pbem.orders.extract import extract
from tests.conftest import body_of, deliver, sent_mail

ROOT = Path(__file__).resolve().parent / "corpus" / "clients"
CASES = sorted(ROOT.glob("*.eml"))
PLAYERS = [("Alice", "alice@example.net"), ("Bob", "bob@example.net"), ("Carol", "carol@example.net")]
CODES = {"Alice": "K7QX-2MPD", "Bob": "B0BB-0001", "Carol": "CA01-0002"}


def expected(path: Path) -> dict:
    return json.loads(path.with_suffix(".expected").read_text())


def test_the_corpus_covers_the_clients_people_use() -> None:
    names = " ".join(p.stem for p in CASES)
    for client in ("gmail-web", "gmail-android", "outlook-desktop", "outlook-web", "apple-mail", "iphone-mail"):
        assert client in names
    for client in ("thunderbird", "yahoo", "proton", "flowed", "html-only", "-top", "-bottom"):
        assert client in names


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_client_reply_yields_exactly_the_intended_orders(path: Path) -> None:
    msg = parse(path.read_bytes(), "games@example.org")
    assert msg.problem is None and msg.game == "hh1" and msg.sender == "alice@example.net"
    ex = extract(msg.text, msg.subject, registry.get("habsburg").order_words)
    want = expected(path)
    assert ex.orders == want["orders"]
    assert ex.code == want["code"]
    assert ex.help == want.get("help", False)
    assert ex.chatter == want["chatter"]
    assert ex.problems == [] and ex.press == []


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_client_reply_is_accepted_by_the_moderator(tmp_path: Path, path: Path) -> None:
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod
    from tests.conftest import Clock

    cfg = config_mod.load(init_home(tmp_path / "home", address="games@example.org", name="pbem moderator"))
    clock = Clock()
    create_game(Home.of(cfg), "habsburg", "hh1", PLAYERS, seed="corpus-3", clock=clock, codes=CODES)
    poll = lambda: run_poll(  # noqa: E731
        Home.of(cfg, inbox=MaildirInbox(cfg.maildir_path), sender=MaildirSender(cfg.maildir_path), clock=clock)
    )
    poll()
    seen: set = set()
    sent_mail(cfg, seen)
    deliver(cfg, path.read_bytes())
    summary = poll()
    assert (summary.accepted, summary.rejected) == (1, 0), summary.line()
    to_alice = [m for m in sent_mail(cfg, seen) if "alice@" in str(m["To"])]
    # the acknowledgement: its own mail, or the top of Alice's next report (one mail: issue 23)
    ack = next(body_of(m) for m in to_alice if "was read." in body_of(m))
    want = expected(path)
    for order in want["orders"]:
        assert f"  OK   {order}" in ack
    assert "Not read as orders" in ack
    for line in want["chatter"]:
        assert f"    {line}" in ack
