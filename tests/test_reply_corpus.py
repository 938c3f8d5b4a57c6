"""Replies to pbem's own mails, built as mail clients build them, read with exactly the intended orders.

Issue 23: in 17 of 90 real-client replies a correct order was refused or misapplied, and replying from
Outlook in Polish or Japanese to an acknowledgement re-applied the old order quoted in it.  Here every
client style of `tests.reply_clients` in every one of twelve languages answers the newest mail pbem sent
(the first report, then each acknowledgement), revising the player's secret tribute each time: after
every poll the order on file is exactly the one the reply meant, never the one quoted back.  Real SQLite,
real Maildirs, the Dynasties engine.  The Hypothesis test varies client, language, the way the order is
typed and the mail answered, over pbem's real report and acknowledgement texts.
"""

from __future__ import annotations

import random
from email.message import EmailMessage
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem import engine as registry
from pbem.app.games import create_game
from pbem.app.poll import poll as run_poll
from pbem.app.reading import sent_texts
from pbem.home.app import Home
from pbem.mail.inbound.message import parse
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from pbem.orders.extract import extract
from pbem.orders.own_mail import without_copies
from pbem.record import store
from pbem.record.db import session
from tests.conftest import Clock, deliver, sent_mail
from tests.reply_clients import CLIENTS, LANGS, reply, typed

PLAYERS = [("Alice", "alice@example.net"), ("Bob", "bob@example.net"), ("Carol", "carol@example.net")]
CODES = {"Alice": "K7QX-2MPD", "Bob": "B0BB-0001", "Carol": "CA01-0002"}


class Game:
    def __init__(self, root: Path) -> None:
        from pbem.cli.support import init_home
        from pbem.home import config as config_mod

        self.cfg = config_mod.load(init_home(root / "home", address="games@example.org", name="pbem moderator"))
        self.cfg.replies_per_hour = 10_000
        self.clock = Clock()
        create_game(Home.of(self.cfg), "dynasties", "dy1", PLAYERS, seed="corpus-23", clock=self.clock, codes=CODES)
        self.seen: set = set()
        self.poll()
        self.newest = self.to_alice()[-1]

    def poll(self):
        inbox, sender = MaildirInbox(self.cfg.maildir_path), MaildirSender(self.cfg.maildir_path)
        return run_poll(Home.of(self.cfg, inbox=inbox, sender=sender, clock=self.clock))

    def to_alice(self) -> list[EmailMessage]:
        return [m for m in sent_mail(self.cfg, self.seen) if "alice@" in str(m["To"])]

    def request(self):
        with session(self.cfg.database_url) as s:
            loaded = store.load(s, store.game_by_name(s, "dy1"))
            return next(r for r in loaded.engine.requests(loaded.state) if r.player == "Alice")


@pytest.mark.parametrize("client", CLIENTS)
def test_each_client_in_each_language_revises_the_tribute_exactly(tmp_path: Path, client: str) -> None:
    game = Game(tmp_path)
    rng = random.Random(f"corpus:{client}")
    tributes = [t for t in game.request().legal if t.startswith("TRIBUTE")]
    for n, lang in enumerate(LANGS):
        want = tributes[n % 2]  # every reply changes the order on file, which the quoted mail shows
        own = ["Hi,", "", typed(want, rng), "", "Thanks,", "Alice"]
        deliver(game.cfg, reply(game.newest, own, client, lang, rng))
        summary = game.poll()
        assert (summary.accepted, summary.rejected) == (1, 0), (lang, summary.line())
        assert game.request().on_file == (want,), (lang, game.request().on_file)
        game.newest = game.to_alice()[-1]  # the acknowledgement: the next reply answers it


@pytest.fixture(scope="module")
def answered(tmp_path_factory: pytest.TempPathFactory) -> list[EmailMessage]:
    """Real mails pbem sent Alice: her first report and an acknowledgement of a tribute."""
    game = Game(tmp_path_factory.mktemp("answered"))
    first = game.newest
    tribute = next(t for t in game.request().legal if t.startswith("TRIBUTE"))
    deliver(game.cfg, reply(first, [tribute], "gmail", "en", random.Random(0)))
    game.poll()
    return [first, game.to_alice()[-1]]


ORDER_WORDS = registry.get("dynasties").order_words


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 10**9),
    client=st.sampled_from(CLIENTS),
    lang=st.sampled_from(LANGS),
    which=st.integers(0, 1),
)
def test_generated_replies_around_pbems_own_mail_yield_exactly_the_order(
    answered: list[EmailMessage], seed: int, client: str, lang: str, which: int
) -> None:
    rng = random.Random(seed)
    sent = answered[which]
    want = rng.choice(["TRIBUTE Gold 7", "TRIBUTE Copper King", "PLAY Silver 4", "CONCLAVE TAKE"])
    own = [rng.choice(["", "Hello,", "Hallo,", "こんにちは", "你好"]), typed(want, rng), rng.choice(["", "Cheers"])]
    msg = parse(reply(sent, own, client, lang, rng), "games@example.org")
    assert msg.problem is None
    text = without_copies(msg.text, sent_texts(sent.as_bytes()))
    ex = extract(text, msg.subject, ORDER_WORDS)
    assert [o.upper() for o in ex.orders] == [want.upper()], (client, lang, ex.orders)
    assert ex.code is None


def test_order_lines_copied_one_by_one_out_of_a_report_are_kept() -> None:
    """Each long legal line is in the report, but not one after the other as the player wrote them."""
    report = "\n".join(
        ["Legal orders now (copy one per line):"]
        + [f"    CALL England WAR France PLACE England {n}, Open {n + 1}" for n in range(1, 6)]
        + ["If no orders arrive by the deadline the published default is applied:", "    (default) PASS"]
    )
    picked = ["CALL England WAR France PLACE England 4, Open 5", "CALL England WAR France PLACE England 1, Open 2"]
    assert without_copies("\n".join(picked), [report]).split("\n") == picked
    pasted = "\n".join(["PASS", "", *("> " + ln for ln in report.splitlines())])
    assert without_copies(pasted, [report]).split("\n") == ["PASS", ""]
