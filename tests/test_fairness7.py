"""Seventh round of the fairness checks (docs/security.md, "Red team of the fairness checks, seventh round").

What a player's mail still held on the moderator's word after the sixth round: what the acknowledgement of a JOIN
says (the seat, the salt, who is awaited, why a line was refused), the orders an acknowledgement of orders held
until the deadline lists as on file, and the names a "Press sent to" note gives.  Each forgery generator failed on
the code before this round (checked on a worktree of main); the honest mail passes.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pbem.trust.receipts import lines, verify_mail
from tests.test_fairness3 import _edited, _html_edited, _text_of

pytestmark = pytest.mark.xdist_group("fairness7")  # a unit per module, not one for all

KINDS = ["habsburg", "italian-wars", "dynasties", "sixteen-thirty"]


# ------------------------------------------------------------------ the acknowledgement of a JOIN


def _joined_game(kind: str, root: Path) -> tuple[dict[str, Any], dict[str, list[bytes]]]:
    """A game of `kind` with a join step, played by the real poll: Alice sends a JOIN with an empty SALT (refused),
    a JOIN with a salt, and a JOIN again (already joined); the others JOIN without a salt, which deals; the game is
    abandoned (the seed out).  (the final export, each player's mail in the order delivered)."""
    from datetime import timedelta

    from pbem.app import control, games
    from pbem.app.cron import run_poll
    from pbem.app.games import Table
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import CODES, in_delivered_order
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import PLAYERS, T0, _mail

    cfg = kp.make_home(root)
    players = PLAYERS[:2] if kind == "italian-wars" else PLAYERS
    games.create_game(Home.of(cfg), kind, "g1", players, seed=f"joined-{kind}-0123456789abcdef", codes=CODES,
                      clock=lambda: T0, table=Table(join=True))  # fmt: skip
    kp.deliver_in_order(cfg, [_mail("Alice", "a-bad", "JOIN\nSALT"), _mail("Alice", "a-join", "JOIN\nSALT my words"),
                              _mail("Alice", "a-again", "JOIN")])  # fmt: skip
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=1))
    kp.deliver_in_order(cfg, [_mail(p, f"{p}-join", "JOIN") for p, _ in players[1:]])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=2))
    control.abandon(Home.of(cfg), "g1", T0 + timedelta(minutes=3))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    sent = [p.read_bytes() for p in in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))]
    return doc, {p: [r for r in sent if f"<{a}>".encode() in r.split(b"\n\n", 1)[0]] for p, a in players}


@pytest.fixture(scope="module")
def joined_games(tmp_path_factory: pytest.TempPathFactory) -> Any:
    made: dict[str, tuple[dict[str, Any], dict[str, list[bytes]]]] = {}

    def get(kind: str) -> tuple[dict[str, Any], dict[str, list[bytes]]]:
        if kind not in made:
            made[kind] = _joined_game(kind, tmp_path_factory.mktemp(f"joined-{kind}") / "home")
        doc, mails = made[kind]
        return json.loads(json.dumps(doc)), mails

    return get


def _answering(mails: list[bytes], label: str) -> bytes:
    return next(r for r in mails if f"In-Reply-To: <{label}@".encode() in r)


@pytest.mark.parametrize("kind", KINDS)
def test_a_joins_acknowledgement_that_is_not_the_join_step_the_record_gives_is_named(
    kind: str, joined_games: Any
) -> None:
    """Gap: a JOIN's acknowledgement was read for its receipt only: the moderator could name another seat or another
    salt than the JOIN input its receipt names, tell a player who had not joined that they had (so that they never
    do, and he starts without their salt), refuse a valid JOIN with a made-up reason, tell who is awaited falsely,
    or add any words; every check passed.  Now each claim is the join step folded from the record to the
    acknowledgement, each line and paragraph one its template writes, and what it says became of the message the
    export's outcome.  Generator: the acknowledgements of a join step of each kind played by the poll (refused,
    joined, already joined), forged eleven ways in the text and three in the HTML, and the report answering the JOIN
    that deals (notices2: one mail, not an acknowledgement and then the report) with a line added to its quote;
    every honest mailbox passes."""
    doc, mails = joined_games(kind)
    for name, theirs in mails.items():
        c = verify_mail(doc, theirs, name)
        last = name == list(mails)[-1]  # (their one JOIN dealt: its answer is their first report, notices2)
        assert c.ok and (last or any("of your JOINs said" in x for x in c.checked)), (name, lines(c))
    alice, last = mails["Alice"], list(mails)[-1]
    bad, join, again = (_answering(alice, x) for x in ("a-bad", "a-join", "a-again"))
    dealing = _answering(mails[last], f"{last}-join")
    others = ", ".join(list(mails)[1:])
    forged: list[tuple[str, bytes, Callable[[str], str], str]] = [
        ("another seat", join, lambda t: t.replace("joined, Alice,", f"joined, {last},"), "joined as"),
        ("another salt", join, lambda t: t.replace('salt "my words"', 'salt "your words"'), "joined with"),
        ("no salt", join, lambda t: t.replace('with the salt "my words"', "without a salt"), "joined with"),
        ("nobody awaited", join, lambda t: t.replace(f"Waiting for: {others}.", "Waiting for: Alice."), "waiting"),
        (
            "dealt",
            join,
            lambda t: t.replace(
                f"Waiting for: {others}. The cards are dealt once every player has joined.",
                "Every player has joined: the cards are dealt. Your first report follows.",
            ),
            "still awaits",
        ),
        ("another game", join, lambda t: t.replace("Game g1: you", "Game g2: you"), "names the game"),
        (
            "not recognisable",
            join,
            lambda t: t.replace('Your message "[pbem g1] orders" was read.', "Welcome."),
            "does not write",
        ),
        (
            "a word added",
            join,
            lambda t: t.replace("\nYour salt is fixed", "\nBob has joined too.\nYour salt is fixed"),
            "does not write",
        ),
        ("a reason made up", bad, lambda t: t.replace("write your text after the word", "you may not salt"), "saying"),
        (
            "a valid JOIN refused",
            bad,
            lambda t: t.replace(
                "  'SALT': write your text after the word: SALT <any text>", "  'JOIN': the join step is closed"
            ),
            "accepts it",
        ),
        (
            "told already joined",
            bad,
            lambda t: t.replace(
                "you have not joined yet; nothing in your message was applied:",
                "you have already joined. Your salt is fixed once given, so nothing was changed.",
            ).replace("  'SALT': write your text after the word: SALT <any text>\n", ""),
            "already joined",
        ),
    ]
    missed = []
    for what, raw, edit, phrase in forged:
        c = verify_mail(doc, [_edited(raw, edit)], "Alice")
        if c.ok or not any(phrase in p and "join step replayed" in p for p in c.problems):
            missed.append((what, c.problems or lines(c)))
    for what, raw, edit in [
        ("the HTML's salt", join, lambda p: p.replace("<code>my words</code>", "<code>your words</code>")),
        ("the HTML's awaited", join, lambda p: p.replace(f"Waiting for: {others}.", "Waiting for: Alice.")),
        ("an HTML heading", bad, lambda p: p.replace("<body>", "<body><h1>You are out of the game</h1>")),
    ]:
        c = verify_mail(doc, [_html_edited(raw, edit)], "Alice")
        if c.ok or not any("HTML part" in p for p in c.problems):
            missed.append((what, c.problems or lines(c)))
    # the export's outcome of the message an acknowledgement answers
    refused = json.loads(json.dumps(doc))
    for rec in refused["messages"]:
        if rec["message_id"].startswith("<a-join@"):
            rec["outcome"] = "rejected"
    c = verify_mail(refused, [join], "Alice")
    if c.ok or not any("records your message" in p for p in c.problems):
        missed.append(("the outcome", c.problems or lines(c)))
    # the JOIN that deals is answered by the joiner's first report (notices2): its quote of the JOIN is the input's
    said = _text_of(dealing)
    assert f"Private report for {last}." in said and "== Your message ==" in said and "  OK   JOIN" in said, said
    assert "Your first report follows" not in said and "The deal: nobody chose it." in said
    c = verify_mail(
        doc, [_edited(dealing, lambda t: t.replace("  OK   JOIN\n", "  OK   JOIN\n  OK   SALT mine\n"))], last
    )
    if c.ok:
        missed.append(("the dealing JOIN's quote", lines(c)))
    assert not missed, missed
    assert "Waiting for: " in _text_of(join) and "'SALT': " in _text_of(bad) and "already joined" in _text_of(again)


# ------------------------------------------------------------------ orders held until the deadline


def held_start(kind: str, root: Path, seed: str) -> tuple[Any, list[tuple[str, str]], Any]:
    """A home with a game `g1` of `kind` whose orders are held until the deadline, its first report sent: (the
    home's config, the players and their addresses, the first request that has legal orders)."""
    from datetime import timedelta

    from pbem.app import games, views
    from pbem.app.cron import run_poll
    from pbem.app.games import Table
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import CODES
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import PLAYERS, T0

    cfg = kp.make_home(root)
    cfg.outage_after = timedelta(days=30)  # (one poll at the deadline, two days on: no outage)
    players = PLAYERS[:2] if kind == "italian-wars" else PLAYERS
    games.create_game(Home.of(cfg), kind, "g1", players, seed=seed, codes=CODES, clock=lambda: T0,
                      table=Table(resolve="deadline"))  # fmt: skip
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=1))
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        asked = next(r for r in views.engine(loaded).requests(loaded.state) if not r.answered and r.legal)
    return cfg, players, asked


def _held_game(kind: str, root: Path) -> tuple[dict[str, Any], str, str, dict[str, list[bytes]]]:
    """A game of `kind` whose orders are held until the deadline, played by the real poll: the first player asked
    sends a legal order with a press line to another player, then another legal order; the deadline applies both
    (and the defaults of the others, who are told so), and the game is abandoned.  (the final export, the player,
    the one their press went to, each player's mail in the order delivered)."""
    from datetime import timedelta

    from pbem.app.control import abandon
    from pbem.app.cron import run_poll
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import in_delivered_order
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import T0, _mail

    cfg, players, asked = held_start(kind, root, f"held-{kind}-0123456789abcdef")
    other = next(p for p, _ in players if p != asked.player)
    kp.deliver_in_order(cfg, [_mail(asked.player, "held", f"{asked.legal[0]}\nPRESS TO {other}: hello there")])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=2))
    kp.deliver_in_order(cfg, [_mail(asked.player, "again", asked.legal[-1])])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=3))
    run_poll(cfg, clock=lambda: T0 + timedelta(days=2, minutes=1))
    abandon(Home.of(cfg), "g1", T0 + timedelta(days=2, minutes=3))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    sent = [p.read_bytes() for p in in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))]
    return doc, asked.player, other, {p: [r for r in sent if a.encode() in r.split(b"\n\n", 1)[0]] for p, a in players}


@pytest.fixture(scope="module")
def held_games(tmp_path_factory: pytest.TempPathFactory) -> Any:
    made: dict[str, tuple[dict[str, Any], str, str, dict[str, list[bytes]]]] = {}

    def get(kind: str) -> tuple[dict[str, Any], str, str, dict[str, list[bytes]]]:
        if kind not in made:
            made[kind] = _held_game(kind, tmp_path_factory.mktemp(f"held-{kind}") / "home")
        doc, *rest = made[kind]
        return (json.loads(json.dumps(doc)), *rest)  # type: ignore[return-value]

    return get


@pytest.mark.parametrize("kind", KINDS)
def test_honest_mail_of_a_game_held_until_the_deadline_verifies(kind: str, held_games: Any) -> None:
    """Defect: the notice of defaults applied at a deadline ("your default orders were applied") carries the receipt
    of the deadline's input, numbered as its reader counts; `verify --mail` looked for it among the reader's own
    inputs only, so an honest notice whose number was not also the deadline input's global number was named "an
    input the export does not hold" (every player defaulted in a game held until the deadline).  Generator: every
    player's mailbox of a game of each kind held until the deadline passes."""
    doc, _, _, mails = held_games(kind)
    defaulted = 0
    for name, theirs in mails.items():
        c = verify_mail(doc, theirs, name)
        assert c.ok, (name, lines(c))
        defaulted += any(b"default orders were applied" in r for r in theirs)
    assert defaulted >= 1


@pytest.mark.parametrize("kind", KINDS)
def test_an_acknowledgement_of_held_orders_listing_other_orders_on_file_is_named(kind: str, held_games: Any) -> None:
    """Gap: an acknowledgement of orders held until the deadline carries no receipt (no input is recorded until the
    deadline), so the lines it quotes as accepted and lists as "on file" were the moderator's word: he could tell
    the player their order was on file and apply another at the deadline.  Now they must be the lines the deadline
    applied for that message (the export's input naming it), in the text and the HTML part.  Generator: both
    acknowledgements of held orders of each kind, forged five ways; the honest ones pass (each compared)."""
    doc, player, _, mails = held_games(kind)
    acks = [r for r in mails[player] if "resolves at the deadline" in _text_of(r) and b"X-Pbem-Input" not in r]
    assert len(acks) == 2
    honest = verify_mail(doc, acks, player)
    assert honest.ok and any("those the deadline applied" in x for x in honest.checked), lines(honest)
    other = "PASS" if "(on file) PASS" not in _text_of(acks[0]) else "VOTE RED"
    missed = []
    for raw in acks:
        for what, forged in [
            ("on file", _edited(raw, lambda t: t.replace("    (on file) ", f"    (on file) {other}\n    (on file) ", 1))),
            ("accepted", _edited(raw, lambda t: t.replace("  OK   ", f"  OK   {other}\n  OK   ", 1))),
            ("awaited", _edited(raw, lambda t: t.replace("\nReply to this mail", "\nStill awaited from: Zed.\n\nReply", 1))),
            ("no note", _edited(raw, lambda t: re.sub(r"(?m)^  NOTE This game resolves at the deadline.*\n", "", t).replace("    (on file) ", f"    (on file) {other}\n    (on file) ", 1))),
            ("HTML on file", _html_edited(raw, lambda p: p.replace("<pre>(on file) ", f"<pre>(on file) {other}\n(on file) ", 1))),
        ]:  # fmt: skip
            c = verify_mail(doc, [forged], player)
            if c.ok or not any("the deadline applied for your message" in p for p in c.problems):
                missed.append((what, c.problems or lines(c)))
    assert not missed, missed


# ------------------------------------------------------------------ whom a "Press sent to" note names


@pytest.mark.parametrize("kind", KINDS)
def test_a_press_note_naming_other_recipients_than_the_record_is_named(kind: str, held_games: Any) -> None:
    """Gap: an answer's note "Press sent to Bob." was held only to its form (sixth round): the names were the
    moderator's word, so he could tell Alice her press went to Bob and Carol and relay it to Bob alone, or to
    nobody.  Each such note must now be a press of the reader's that the export records by the mail's head (a
    `press` event from them to exactly those players), each press noted once, in the text and the HTML part.
    Generator: the acknowledgement noting a press in a game of each kind, forged four ways; the honest one passes."""
    doc, player, other, mails = held_games(kind)
    noted = next(r for r in mails[player] if f"  NOTE Press sent to {other}." in _text_of(r))
    plain = next(r for r in mails[player] if "resolves at the deadline" in _text_of(r) and r is not noted)
    assert verify_mail(doc, [noted, plain], player).ok
    note = f"  NOTE Press sent to {other}.\n"
    forged = [
        ("more names", [_edited(noted, lambda t: t.replace(note, f"  NOTE Press sent to {other}, Zed.\n"))]),
        ("noted twice", [_edited(noted, lambda t: t.replace(note, note + note))]),
        ("noted in another answer", [noted, _edited(plain, lambda t: t.replace("  NOTE This game", note + "  NOTE This game"))]),
        ("HTML names", [_html_edited(noted, lambda p: p.replace(f"<p>Press sent to {other}.</p>", f"<p>Press sent to {other}, Zed.</p>"))]),
    ]  # fmt: skip
    missed = []
    for what, box in forged:
        c = verify_mail(doc, box, player)
        if c.ok or not any("says your press was sent to" in p for p in c.problems):
            missed.append((what, c.problems or lines(c)))
    assert not missed, missed


# ------------------------------------------------------------------ a refusal that quotes only its first lines


def _cut_game(kind: str, root: Path) -> tuple[dict[str, Any], str, list[bytes], list[bytes]]:
    """A game of `kind` played by the real poll: the first player asked sends twelve mistyped orders and a legal
    one (refused whole; the acknowledgement quotes the first ten refused lines and counts the rest); the game is
    abandoned.  (the final export, the player, their received mail, their Sent folder)."""
    from datetime import timedelta

    from pbem.app import games, views
    from pbem.app.control import abandon
    from pbem.app.cron import run_poll
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import CODES, in_delivered_order
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import PLAYERS, T0, _mail

    cfg = kp.make_home(root)
    players = PLAYERS[:2] if kind == "italian-wars" else PLAYERS
    games.create_game(Home.of(cfg), kind, "g1", players, seed=f"cut-{kind}-0123456789abcdef", codes=CODES,
                      clock=lambda: T0)  # fmt: skip
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=1))
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        asked = next(r for r in views.engine(loaded).requests(loaded.state) if not r.answered and r.legal)
    word = asked.legal[0].split()[0]
    body = "\n".join([*(f"{word} Nothing {n}" for n in range(12)), asked.legal[0]])
    sent = [_mail(asked.player, "cut", body)]
    kp.deliver_in_order(cfg, sent)
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=2))
    abandon(Home.of(cfg), "g1", T0 + timedelta(minutes=3))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    address = dict(PLAYERS)[asked.player].encode()
    out = [p.read_bytes() for p in in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))]
    return doc, asked.player, [r for r in out if address in r.split(b"\n\n", 1)[0]], sent


@pytest.mark.parametrize("kind", KINDS)
def test_a_refusal_quoting_only_its_first_lines_is_pbems_reading_of_the_mail_sent(kind: str, tmp_path: Path) -> None:
    """Gap: a refusal of a long message quotes only its first refused lines ("... and 3 more lines not shown"), and
    it was not compared at all (its lines are not all there to read again): its reasons, the lines it shows and the
    counts were the moderator's word.  With the player's Sent folder (`pbem verify --sent S --mail M`) every order
    line of the message is known, as the poll read it: pbem's reading of them all, cut as pbem cuts it, must be the
    refusal.  Generator: such a refusal in a game of each kind, forged three ways (a shown reason, the count of lines
    not shown, the count of lines refused); the honest one passes, and without --sent a note says it was not
    compared."""
    from pbem.app.reading import mail_reader
    from pbem.app.rereading import refused
    from pbem.trust.sent import written

    doc, player, mails, sent = _cut_game(kind, tmp_path / "home")
    cut = next(r for r in mails if "more lines not shown" in _text_of(r))
    wrote = written(doc, sent, mail_reader(mails))
    honest = verify_mail(doc, [cut], player, refused, wrote)
    assert honest.ok and any("reasons 1 acknowledgement gave" in x for x in honest.checked), lines(honest)
    alone = verify_mail(doc, [cut], player, refused)
    assert alone.ok and any("quoted only the first" in x for x in alone.notes), lines(alone)
    missed = []
    for what, edit in [
        (
            "a reason",
            lambda t: re.sub(r"(?m)^(       why[^:\n]*: )", r"\1you are not asked anything now; ", t, count=1),
        ),
        ("lines not shown", lambda t: t.replace("  ... and 3 more lines not shown", "  ... and 1 more line not shown")),
        ("lines refused", lambda t: t.replace("NOTHING WAS APPLIED: 12 lines", "NOTHING WAS APPLIED: 10 lines")),
    ]:
        c = verify_mail(doc, [_edited(cut, edit)], player, refused, wrote)
        if c.ok or not any("not pbem's" in p for p in c.problems):
            missed.append((what, c.problems or lines(c)))
    assert not missed, missed


# ------------------------------------------------------------------ the new readings never raise


_PIECES = [
    'Your message "x" was read.', "Game g1: you have joined, Alice, ", 'with the salt "', '"', "without a salt", ".",
    "Game g1: you have not joined yet; nothing in your message was applied:", "  '", "': ", "Waiting for: ", ", ",
    " The cards are dealt once every player has joined.", "\n", "\n\n", "-- \n", "  NOTE ", "Press sent to Bob.",
    "<p>", "</p>", "<ul>", "</ul>", "<li><code>", "</code>: ", "</li>", "<body>", "</body>", "<h1>", "\u201c",
    "Orders now on file for you (revisable until the step resolves):", "    (on file) ", "  OK   ", "Accepted and applied:",
    "<p>Orders now on file for you:</p><pre>", "(on file) ", "</pre>", "x" * 300, "SALT", "JOIN",
]  # fmt: skip


def test_no_text_makes_the_joins_held_or_press_readings_raise() -> None:
    """Fuzzer: whatever a JOIN's acknowledgement, an acknowledgement of held orders or an answer holds (pieces of
    what the readings look for, in any order), reading it returns a value, never raises; a refused row is split
    where the join step's reading gives its reason."""
    import random

    from pbem.trust import acked, joined
    from pbem.trust.receipts import _HTML_PRESS_SENT, _PRESS_SENT

    rng = random.Random(7)
    for _ in range(400):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randrange(40)))
        assert isinstance(joined.is_join_ack(text), bool)
        for said in (joined.read_text(text, "Test Moderator"), joined.read_html(text, "Test Moderator")):
            assert isinstance(said.stray, str) and isinstance(said.rows, list)
        assert isinstance(acked.held(text, text, ["JOIN"]), str)
        assert isinstance(_PRESS_SENT.findall(text), list) and isinstance(_HTML_PRESS_SENT.findall(text), list)
    line, why, ok = joined._row("SALT': write your text after the word: SALT <any text>")
    assert (line, ok) == ("SALT", True) and why.startswith("write your text")
    assert joined._row("a': b': write JOIN alone on its line; put your text on a line \"SALT <any text>\"")[:1] == (
        "a': b",
    )


# ------------------------------------------------------------------ without the Sent folder: which message an input came from


@pytest.mark.parametrize("kind", KINDS)
def test_an_answer_carrying_the_receipt_of_an_input_from_another_message_is_named(kind: str) -> None:
    """Gap: an answer to the player's message (In-Reply-To) carries the receipt of the input it applied, and the
    export records which message each input came from; nobody compared the two, so without the Sent folder an
    answer to Alice's second message could carry the receipt (and quote the lines) of her first, telling her the
    second was applied.  Now the input its receipt names must come from the message it answers.  Generator: the
    seeded game's acknowledgements of each kind, each re-addressed to the player's next message."""
    from tests.test_fairness4 import _box

    doc, name, raws = _box(kind, 0)
    acks = [r for r in raws if b"X-Pbem-Input" in r and b"\nIn-Reply-To: " in r]
    assert len(acks) >= 2  # (honest, they pass: tests/test_fairness3.py's generator checks each whole mailbox)
    forged = []
    for raw, other in itertools.pairwise(acks):
        mine = re.search(rb"\nIn-Reply-To: (\S+)", raw)
        theirs = re.search(rb"\nIn-Reply-To: (\S+)", other)
        assert mine is not None and theirs is not None
        if mine[1] != theirs[1]:
            forged.append(raw.replace(mine[0], b"\nIn-Reply-To: " + theirs[1], 1))
    c = verify_mail(doc, forged, name)  # (all at once: one replay)
    assert forged and sum("records as coming from your message" in p for p in c.problems) == len(forged), lines(c)


def test_joins_acknowledgements_around_an_undo_in_the_join_step(tmp_path: Path) -> None:
    """An undo in the join step names its target by a mark the seed keys: once the seed is out every JOIN's
    acknowledgement is compared (the undone JOIN's, and the one sent again); before, those up to the undo are, and a
    note counts the rest.  Honest mail of a join step with an undo (`tests.fixtures.make_undo_join_numbered`)."""
    from tests.fixtures.make_undo_join_numbered import play
    from tests.test_hidden_count import PLAYERS

    cfg, _, final = play(tmp_path / "home")
    sealed = {**json.loads(json.dumps(final)), "seed": None}
    everything = [p.read_bytes() for p in sorted((Path(cfg.maildir_path) / "sent").glob("*/*"))]
    who, address = PLAYERS[1]  # Bob: his JOIN was undone and sent again (every player's mail passes: test_fairness5)
    mine = [raw for raw in everything if re.search(rb"(?m)^To: [^\n]*" + re.escape(address.encode()), raw)]
    said = []
    for doc in (final, sealed):
        c = verify_mail(doc, mine, who)
        assert c.ok, (who, lines(c))
        said.append([x.split(" of your JOINs said")[0] for x in c.checked + c.notes if "of your JOINs said" in x])
    assert said == [["what 2 acknowledgements"], ["what 1 acknowledgement", "what 1 acknowledgement"]], said


@pytest.mark.parametrize("kind", KINDS)
def test_an_invitation_to_join_that_is_not_the_join_step_the_record_gives_is_named(
    kind: str, joined_games: Any
) -> None:
    """Gap: the invitation to join (STATUS while the join step is open sends it again) was read for its receipt and
    its commitment header only: its text could name other seats, say nobody else was awaited, or state another seed
    commitment than its header (the one the player reads).  Now the seats, who is awaited, whether the reader had
    joined, the commitment and the key's fingerprint it states are the join step's at its head and the export's, in
    the text and the HTML part.  Generator: the invitation of each kind, forged five ways; the honest one passes."""
    doc, mails = joined_games(kind)
    invite = next(r for r in mails["Alice"] if "Players: " in _text_of(r))
    honest = verify_mail(doc, [invite], "Alice")
    assert honest.ok and any("1 invitation to join said" in x for x in honest.checked), lines(honest)
    seats = ", ".join(mails)
    other = "0" * 64
    missed = []
    for what, raw in [
        ("seats", _edited(invite, lambda t: t.replace(f"Players: {seats}.", "Players: Alice, Zed."))),
        ("awaited", _edited(invite, lambda t: t.replace(f"Waiting for: {seats}.", "Waiting for: Alice."))),
        ("commitment", _edited(invite, lambda t: t.replace(doc["seed_commitment"], other))),
        ("asked", _edited(invite, lambda t: t.replace("To take your seat, reply", "You have joined without a salt. Nothing more is needed. Reply"))),
        ("HTML awaited", _html_edited(invite, lambda p: p.replace(f"<p>Waiting for: {seats}.</p>", "<p>Waiting for: Alice.</p>"))),
    ]:  # fmt: skip
        c = verify_mail(doc, [raw], "Alice")
        if c.ok or not any("the invitation you were shown" in p for p in c.problems):
            missed.append((what, c.problems or lines(c)))
    assert not missed, missed
