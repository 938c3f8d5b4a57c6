"""Seventh round of the fairness checks (docs/security.md, "Red team of the fairness checks, seventh round").

What a player's mail still held on the moderator's word after the sixth round: what the acknowledgement of a JOIN
says (the seat, the salt, who is awaited, why a line was refused), the orders an acknowledgement of orders held
until the deadline lists as on file, and the names a "Press sent to" note gives.  Each forgery generator failed on
the code before this round (checked on a worktree of main); the honest mail passes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pbem.trust.receipts import lines, verify_mail
from tests.test_fairness3 import _edited, _html_edited, _text_of

pytestmark = pytest.mark.xdist_group("fairness")

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
    joined, already joined, the JOIN that deals), forged eleven ways in the text and three in the HTML; every
    honest mailbox passes."""
    doc, mails = joined_games(kind)
    for name, theirs in mails.items():
        c = verify_mail(doc, theirs, name)
        assert c.ok and any("of your JOINs said" in x for x in c.checked), (name, lines(c))
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
        (
            "not dealt",
            dealing,
            lambda t: t.replace(
                "Every player has joined: the cards are dealt. Your first report follows.",
                "Waiting for: Alice. The cards are dealt once every player has joined.",
            ),
            "cards are dealt",
        ),
    ]
    missed = []
    for what, raw, edit, phrase in forged:
        to = "Alice" if raw is not dealing else last
        c = verify_mail(doc, [_edited(raw, edit)], to)
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
    assert not missed, missed
    assert "Waiting for: " in _text_of(join) and "'SALT': " in _text_of(bad) and "already joined" in _text_of(again)
