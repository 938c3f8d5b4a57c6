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
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem import engine as registry
from pbem.app.deadlines import held_orders
from pbem.app.games import Table, create_game
from pbem.app.poll import poll as run_poll
from pbem.app.reading import sent_texts
from pbem.history.export import build
from pbem.home.app import Home
from pbem.mail.inbound.message import parse
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from pbem.orders.extract import extract, own_line
from pbem.orders.own_mail import without_copies
from pbem.record import store
from pbem.record.db import session
from tests.conftest import Clock, deliver, in_delivered_order, sent_mail
from tests.reply_clients import CLIENTS, LANGS, reply, typed

PLAYERS = [("Alice", "alice@example.net"), ("Bob", "bob@example.net"), ("Carol", "carol@example.net")]
CODES = {"Alice": "K7QX-2MPD", "Bob": "B0BB-0001", "Carol": "CA01-0002"}


class Game:
    def __init__(self, root: Path, table: Table = Table()) -> None:
        from pbem.cli.support import init_home
        from pbem.home import config as config_mod

        self.cfg = config_mod.load(init_home(root / "home", address="games@example.org", name="pbem moderator"))
        self.cfg.replies_per_hour = 10_000
        self.clock = Clock()
        create_game(
            Home.of(self.cfg), "dynasties", "dy1", PLAYERS, seed="corpus-23", clock=self.clock, codes=CODES, table=table
        )
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


@pytest.mark.parametrize("client", CLIENTS)
def test_orders_held_for_the_deadline_are_applied_as_acknowledged_whatever_the_client(
    tmp_path: Path, client: str
) -> None:
    """A game that resolves at the deadline reads each held message again then (and to show it "on file"):
    from the whole text, a reply under a header block no rule knows (Vietnamese, Greek Outlook) had the
    copied report's order lines read with the player's, and the message was refused whole at the deadline
    though its acknowledgement had said "on file: TRIBUTE ...".  Every client, in several languages: what is
    held is what was acknowledged, and the deadline applies exactly that."""
    game = Game(tmp_path, Table(resolve="deadline"))
    rng = random.Random(f"held:{client}")
    tributes = [t for t in game.request().legal if t.startswith("TRIBUTE")]
    wanted = []
    for n, lang in enumerate(("en", "ja", "pl", "de")):
        want = tributes[n % 2]
        wanted.append(want.upper())
        deliver(game.cfg, reply(game.newest, ["Hi,", typed(want, rng)], client, lang, rng))
        assert game.poll().accepted == 1, lang
        with session(game.cfg.database_url) as s:
            held = held_orders(s, store.game_by_name(s, "dy1").id, ORDER_WORDS)
        assert [tuple(o.upper() for o in h.orders) for h in held] == [(w,) for w in wanted], (lang, held)
        game.newest = game.to_alice()[-1]
    game.clock.advance(hours=49)
    assert game.poll().deadlines == 1
    with session(game.cfg.database_url) as s:
        doc = build(s, store.game_by_name(s, "dy1"))
    alices = [o for o in doc["orders"] if o["player"] == "Alice"]
    assert [[x.upper() for x in o["lines"]] for o in alices] == [[w] for w in wanted], alices
    assert all(o["kind"] == "orders" for o in alices), "applied as sent, not refused for the default"


@pytest.mark.parametrize("client", CLIENTS)
def test_verify_sent_reads_each_reply_as_the_poll_did_with_the_mail_it_answers(tmp_path: Path, client: str) -> None:
    """`pbem verify --sent` read a player's mail from its plain part alone and with every copy of pbem's mail in
    it: an honest export was called SUBSTITUTED for an HTML-only Outlook reply ("you wrote (no orders)") and for
    one under a header block no rule knows (the copied report's orders).  With the player's received mail
    (`--mail`), it reads each mail exactly as the poll did; without it, it says that it could not."""
    import mailbox

    from typer.testing import CliRunner

    from pbem.cli import app

    game = Game(tmp_path)
    rng = random.Random(f"sent:{client}")
    tributes = [t for t in game.request().legal if t.startswith("TRIBUTE")]
    outbox = mailbox.Maildir(str(tmp_path / "alice-sent"), factory=None, create=True)
    for n, lang in enumerate(("en", "ja", "pl", "de")):
        raw = reply(game.newest, ["Hi,", typed(tributes[n % 2], rng)], client, lang, rng)
        outbox.add(raw)
        deliver(game.cfg, raw)
        assert game.poll().accepted == 1, lang
        game.newest = game.to_alice()[-1]
    inbox = mailbox.Maildir(str(tmp_path / "alice-inbox"), factory=None, create=True)
    for raw in (
        p.read_bytes()
        for p in in_delivered_order(q for q in (game.cfg.maildir_path / "sent").rglob("*") if q.is_file())
    ):
        if b"alice@example.net" in raw.split(b"\n\n", 1)[0]:
            inbox.add(raw)
    export = tmp_path / "dy1.json"
    made = CliRunner().invoke(app, ["--config", str(game.cfg.path), "export", "dy1", "--moderator", "-o", str(export)])
    assert made.exit_code == 0, made.output
    args = ["verify", str(export), "--partial", "--sent", str(tmp_path / "alice-sent"), "--as", "Alice"]
    res = CliRunner().invoke(app, [*args, "--mail", str(tmp_path / "alice-inbox")])
    assert res.exit_code == 0 and "SUBSTITUTED" not in res.output, res.output


@pytest.mark.parametrize("client", CLIENTS)
def test_a_replys_subject_is_the_title_of_pbems_mail_never_the_players_order(tmp_path: Path, client: str) -> None:
    """A reply keeps the subject of the mail it answers.  With nothing but a greeting in the body, the invitation's
    title "Join the game: reply JOIN" was read as the player's JOIN line and refused ("write JOIN alone on its
    line"), quoting pbem's words back as the player's.  Now the answer lists the greeting as not read and JOIN as
    what would be accepted; a subject the player wrote ([pbem dy1] JOIN) is still read."""
    game = Game(tmp_path, Table(join=True))
    invitation = game.newest
    assert "Join the game: reply JOIN" in str(invitation["Subject"])
    deliver(game.cfg, reply(invitation, ["Hello! count me in: yes"], client, "en", random.Random(client)))
    summary = game.poll()
    assert (summary.accepted, summary.rejected) == (0, 1), summary.line()
    (answer,) = game.to_alice()
    text = str(answer.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    assert "'Join the game: reply JOIN'" not in text and "No orders were found" in text, text
    assert "    Hello! count me in: yes" in text and "         JOIN\n" in text, text
    own = EmailMessage()
    own["From"], own["To"] = str(invitation["To"]), str(invitation["From"])
    own["Subject"], own["Message-ID"] = "Re: [pbem dy1] JOIN", make_msgid(domain="players.example")
    own["In-Reply-To"] = own["References"] = str(invitation["Message-ID"])
    own.set_content("Hello!\n")
    deliver(game.cfg, own.as_bytes())
    assert game.poll().accepted == 1


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
#: A generated reply: its randomness, the client and language that write it, and which mail of `answered` it answers.
REPLIES = dict(
    seed=st.integers(0, 10**9), client=st.sampled_from(CLIENTS), lang=st.sampled_from(LANGS), which=st.integers(0, 1)
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**REPLIES)
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


#: A player's own last lines with a colon early on, as people write them right above the client's block.
COLON_LINES = (
    "PRESS TO ALL: shall we talk?",  # a press line that cannot be read: refused with its reason, never lost
    "Tribute: Gold 7",  # not an order (the order word must start the line): listed as not read
    "Note: back at 21:30",
    "P.S.: I am away on Friday",
    "TRIBUTE Gold 7  # sent at 21:08",
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(**REPLIES)
def test_the_writers_own_lines_with_a_colon_above_the_answered_mail_are_read_as_if_alone(
    answered: list[EmailMessage], seed: int, client: str, lang: str, which: int
) -> None:
    """The class of "PRESS TO ALL: ..." and "UNDO TO 17: ..." right above the quoted mail, dropped unseen as the
    client's ``Label: value`` block: whatever the player wrote last, with a colon, is read exactly as the same
    lines sent alone (the same orders, the same problems, every line set aside listed)."""
    rng = random.Random(seed)
    sent = answered[which]
    last = rng.choice(COLON_LINES)
    order = [] if last.startswith("TRIBUTE") else [typed(rng.choice(["TRIBUTE Gold 7", "PLAY Silver 4"]), rng)]
    own = [rng.choice(["", "Hello,"]), *order, last]
    msg = parse(reply(sent, own, client, lang, rng), "games@example.org")
    assert msg.problem is None
    text = without_copies(msg.text, sent_texts(sent.as_bytes()), keep=own_line(ORDER_WORDS))
    ex = extract(text, msg.subject, ORDER_WORDS)
    alone = extract("\n".join(own), msg.subject, ORDER_WORDS)
    assert [o.upper() for o in ex.orders] == [o.upper() for o in alone.orders], (client, lang, ex.orders)
    assert ex.problems == alone.problems, (client, lang, ex.problems)
    assert set(alone.chatter) <= set(ex.chatter), (client, lang, alone.chatter, ex.chatter)


def test_a_reply_with_no_order_is_answered_with_its_lines_and_what_would_be_accepted(tmp_path: Path) -> None:
    """ "Gold 7 for me" right above the quoted report: no order (an order word must start the line), and the
    answer quotes the line as set aside and lists the orders that would be accepted now, not just "HELP"."""
    game = Game(tmp_path)
    legal = game.request().legal
    deliver(game.cfg, reply(game.newest, ["Gold 7 for me"], "gmail", "en", random.Random(1)))
    summary = game.poll()
    assert (summary.accepted, summary.rejected) == (0, 1)
    (answer,) = game.to_alice()
    text = str(answer.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    assert "No orders were found" in text and "    Gold 7 for me" in text
    assert "what would be accepted" in text and all(f"         {o}\n" in text for o in legal[:15])
    html = str(answer.get_body(preferencelist=("html",)).get_content())  # type: ignore[union-attr]
    assert "What would be accepted" in html and legal[0] in html
    assert game.request().on_file == ()


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
    marks = [">"] * 3  # the quote's words go, three of its marks stay (a signature above it ends there: QUOTE_RUN)
    assert without_copies(pasted, [report]).split("\n") == ["PASS", "", *marks]


def test_an_order_word_written_as_a_label_is_read(tmp_path: Path) -> None:
    """ "Tribute: <a legal tribute>." (the order word as a label, a full stop after) is that order: it was set aside
    as a line with no order word (found by the players' testers), and a mail with other orders went on without it."""
    game = Game(tmp_path)
    chosen = game.request().legal[-1]  # "TRIBUTE Copper King"
    word, _, rest = chosen.partition(" ")
    deliver(game.cfg, reply(game.newest, [f"{word.title()}: {rest}."], "gmail", "en", random.Random(2)))
    summary = game.poll()
    assert (summary.accepted, summary.rejected) == (1, 0)
    assert game.request().on_file == (chosen,)


def test_a_delayed_copy_of_an_old_steps_reply_is_not_applied_to_the_current_step(tmp_path: Path) -> None:
    """Found by the players' testers: a phone's copy of a reply to the Tributes report, written before the
    player's accepted Tribute (sent from the laptop) but arriving in the next step, was applied to that step.
    A mail written before the player's orders applied to an earlier step is refused, saying why."""
    from email import message_from_bytes
    from email.utils import format_datetime

    from tests.conftest import order_mail

    game = Game(tmp_path)
    first = game.newest
    t0 = game.clock.now

    def dated(raw: bytes, when) -> bytes:
        msg = message_from_bytes(raw)
        del msg["Date"]
        msg["Date"] = format_datetime(when)
        return msg.as_bytes()

    legal = game.request().legal
    phone = dated(reply(first, [legal[1]], "gmail-bottom", "en", random.Random(3)), t0 + timedelta(minutes=1))
    laptop = dated(reply(first, [legal[0]], "gmail", "en", random.Random(4)), t0 + timedelta(minutes=2))
    game.clock.advance(minutes=3)
    deliver(game.cfg, laptop)
    assert game.poll().accepted == 1
    with session(game.cfg.database_url) as s:  # Bob and Carol give theirs: the Tributes resolve, a new step opens
        loaded = store.load(s, store.game_by_name(s, "dy1"))
        others = {r.player: r.legal[0] for r in loaded.engine.requests(loaded.state) if not r.answered}
    for name, line in others.items():
        deliver(game.cfg, order_mail(f"{name} <{name.lower()}@example.net>", "dy1", f"CODE {CODES[name]}\n{line}"))
    game.clock.advance(minutes=1)
    assert game.poll().accepted == len(others)
    before = game.request()
    game.to_alice()  # (the mails so far: `to_alice` gives each mail once)
    game.clock.advance(minutes=20)
    deliver(game.cfg, phone)  # the phone's copy, written before the laptop's, arrives now
    summary = game.poll()
    assert (summary.accepted, summary.rejected) == (0, 1)
    assert game.request() == before, "nothing applied to the current step"
    answers = game.to_alice()
    text = " ".join(" ".join(str(m.get_body(preferencelist=("plain",)).get_content()).split()) for m in answers)  # type: ignore[union-attr]
    assert "applied to an earlier step" in text and "cannot be meant for this one" in text, text


@pytest.mark.parametrize("others", [0, 1])
def test_an_inline_choice_typed_under_its_quoted_line_is_read_whatever_line_it_repeats(tmp_path: Path, others) -> None:
    """Found by the players' testers: an inline reply typing the chosen order just under the quoted legal list was
    dropped as part of the quote when it repeated the list's last line (the quote's next words continue the
    report's own text after that line), silently: "No orders were found", or a mail accepted without it.  For
    every legal line of a real report: typed in lower case right under its own quoted line, it is the order."""
    from pbem.orders.extract import extract, own_line
    from pbem.orders.own_mail import without_copies

    game = Game(tmp_path)
    text = str(game.newest.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    words = game_words = _dynasties_words()
    quoted = [f"> {x}" if x else ">" for x in text.splitlines()]
    legal = game.request().legal
    assert legal and all(any(q.strip("> ").strip() == line for q in quoted) for line in legal)
    for line in legal:
        at = next(i for i, q in enumerate(quoted) if q.strip("> ").strip() == line)
        mine = (["conclave take highest"] if others else []) + [line.lower()]
        reply_text = "\n".join([*quoted[: at + 1], "", *mine, "", *quoted[at + 1 :]])
        kept = without_copies(reply_text, [text], keep=own_line(game_words))
        got = extract(kept, "", words).orders
        assert [g.lower() for g in got] == mine, (line, got)


def _dynasties_words() -> tuple[str, ...]:
    from pbem import engine as registry

    return tuple(registry.get("dynasties").order_words)
