"""Eighth round of the fairness checks (docs/security.md, "Red team of the fairness checks, eighth round").

What a player's mail still held on the moderator's word after the seventh round, taken in the order of what a
moderator gains by forging it: orders held until the deadline that the deadline never applied (he changes the game:
the player's orders replaced by the default), an answer to a player's message in none of pbem's forms (he tells the
player anything), and what only the Sent folder binds.  Each forgery generator failed on the code before this round
(checked on a worktree of 21a928b); the honest mail passes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbem.app.rereading import refused as reread
from pbem.trust.receipts import lines, verify_mail
from tests.test_fairness3 import _text_of
from tests.test_fairness7 import held_start

pytestmark = pytest.mark.xdist_group("fairness8")  # a unit per module, not one for all

KINDS = ["habsburg", "italian-wars", "dynasties", "sixteen-thirty"]


# ------------------------------------------------------------------ held orders the deadline never applied


def _dropped_game(kind: str, root: Path) -> tuple[dict[str, Any], str, list[bytes], dict[str, Any]]:
    """A game of `kind` held until the deadline, played by the real poll, whose moderator drops the held orders: the
    first player asked sends a legal order (held, listed as on file) and a press to nobody (not sent), and the
    deadline is run without it (the moderator's edit), so that the player's default is applied instead; the game is
    abandoned (the seed out).
    (the final export, the player, their mail in the order delivered, the player's partial export before the
    deadline)."""
    from datetime import timedelta

    from pbem.app import deadlines
    from pbem.app.control import abandon
    from pbem.app.cron import run_poll
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import in_delivered_order
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import T0, _mail

    cfg, players, asked = held_start(kind, root, f"dropped-{kind}-0123456789abcdef")
    kp.deliver_in_order(cfg, [_mail(asked.player, "held", f"{asked.legal[0]}\nPRESS TO Zed: hello there")])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=2))
    with session(cfg.database_url) as s:
        partial = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"), as_player=asked.player)))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(deadlines, "held_orders", lambda *a, **k: [])  # the moderator drops the held orders
        run_poll(cfg, clock=lambda: T0 + timedelta(days=2, minutes=1))
    abandon(Home.of(cfg), "g1", T0 + timedelta(days=2, minutes=3))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    sent = [p.read_bytes() for p in in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))]
    address = dict(players)[asked.player]
    return doc, asked.player, [r for r in sent if address.encode() in r.split(b"\n\n", 1)[0]], partial


@pytest.fixture(scope="module")
def dropped_games(tmp_path_factory: pytest.TempPathFactory) -> Any:
    made: dict[str, tuple[dict[str, Any], str, list[bytes], dict[str, Any]]] = {}

    def get(kind: str) -> tuple[dict[str, Any], str, list[bytes], dict[str, Any]]:
        if kind not in made:
            made[kind] = _dropped_game(kind, tmp_path_factory.mktemp(f"dropped-{kind}") / "home")
        doc, player, mails, partial = made[kind]
        return json.loads(json.dumps(doc)), player, mails, json.loads(json.dumps(partial))

    return get


@pytest.mark.parametrize("kind", KINDS)
def test_held_orders_the_deadline_dropped_are_named(kind: str, dropped_games: Any) -> None:
    """Gap: an acknowledgement of orders held until the deadline whose message no input applies was a note ("not
    compared"): the moderator could tell Alice her order was on file, drop it at the deadline and apply her default
    instead.  Now, once the seed is out, pbem's reading of the lines it put on file must refuse them at the state
    the deadline met.  Generator: a game of each kind held until the deadline whose held order is dropped there."""
    doc, player, mails, _ = dropped_games(kind)
    assert any(m["outcome"] == "held" for m in doc["messages"])
    assert any(b"default orders were applied" in r for r in mails)
    c = verify_mail(doc, mails, player, reread)
    assert not c.ok and any("dropped, not refused" in p for p in c.problems), lines(c)


# ------------------------------------------------------------------ an answer in none of pbem's forms

#: Words a moderator could mail in the place of an answer's whole text (the receipt kept).
_FREE = (
    "Your orders arrived after the deadline and were not applied.\nSend them again.\n",
    "Accepted.\n",
    "Game g1: Bob has already played his best card, you may as well pass.\n",
)


def _replaced(raw: bytes, words: str) -> bytes:
    from tests.test_fairness3 import _edited

    return _edited(raw, lambda t: words + ("\n--\n" + t.split("\n--\n")[-1] if "\n--\n" in t else ""))


@pytest.mark.parametrize("kind", KINDS)
def test_a_receipted_answer_in_none_of_pbems_forms_is_named(kind: str) -> None:
    """Gap: a mail carrying the receipt of an input was read as an acknowledgement only when its first line was
    one, and as a report only when it said "Private report for": the moderator could replace the whole text of an
    acknowledgement or of a report answering the player's message with his own words ("your orders arrived late,
    send them again"), keep the true receipt, and every check passed.  Now a receipted mail must be one of the mails
    pbem writes with a receipt (each of which a check reads).  Generator: the receipted mails of the seeded game of
    each kind to its first player (about 24, spread over the game), its text replaced three ways; the honest mailbox passes (each receipted mail in
    one of the forms)."""
    from pbem.trust.receipts import parse_mail
    from tests.test_fairness4 import _box

    doc, name, raws = _box(kind, 0)
    receipted = [r for r in raws if parse_mail(r).input is not None]
    assert receipted
    receipted = receipted[:: max(1, len(receipted) // 24)]  # (at most about 24: acknowledgements and reports alike)
    forged = [_replaced(raw, _FREE[i % len(_FREE)]) for i, raw in enumerate(receipted)]
    c = verify_mail(doc, forged, name)  # (all at once: one check)
    named = sum("but its text is none of these" in p for p in c.problems)
    assert named == len(forged), (named, len(forged), lines(c)[:8])


@pytest.mark.parametrize("kind", KINDS)
def test_an_answer_without_a_receipt_in_none_of_pbems_forms_is_noted(kind: str, dropped_games: Any) -> None:
    """Gap: an answer to the player's message without an input's receipt (the acknowledgement of held orders,
    pbem's answer to STATUS, HELP, HISTORY...) whose text is none of the forms the checks read was compared with
    nothing and not mentioned.  pbem's answers to commands are not recorded, so their words cannot be worked out from
    the export: `verify --mail` now names each in a note.  Generator: the acknowledgement of held orders of a game of
    each kind, its text replaced three ways; the honest mailbox has no such note."""
    doc, player, mails, _ = dropped_games(kind)
    from pbem.trust.receipts import parse_mail

    assert not any("was compared with nothing" in x for x in verify_mail(doc, mails, player).notes)
    ack = next(r for r in mails if parse_mail(r).in_reply_to and parse_mail(r).input is None)
    for words in _FREE:
        c = verify_mail(doc, [_replaced(ack, words)], player)
        assert any("what 1 answer" in x and "was compared with nothing" in x for x in c.notes), lines(c)


# ------------------------------------------------------------------ what only the player's own mail, or the final export, binds


@pytest.mark.parametrize("kind", KINDS)
def test_what_an_answer_quotes_of_the_players_mail_is_noted_as_unchecked_without_the_sent_folder(
    kind: str, dropped_games: Any
) -> None:
    """Gap: without `--sent` the subject an answer quotes ('Your message "..."'), the lines it sets aside as not orders
    and the lines its notes quote are compared with nothing (the export holds no copy of a message, nor a digest), and
    verify said nothing of it.  Now a note says so.  Generator: the acknowledgement of held orders of a game of each
    kind with its quoted subject changed: passed without a word on 21a928b; now noted (and with the Sent folder given,
    `pbem.trust.sent` compares it: tests/test_fairness5.py)."""
    from pbem.trust.receipts import parse_mail
    from tests.test_fairness3 import _edited

    doc, player, mails, _ = dropped_games(kind)
    ack = next(r for r in mails if parse_mail(r).in_reply_to and parse_mail(r).input is None)
    forged = _edited(ack, lambda t: t.replace('Your message "', 'Your message "Re: ', 1))
    c = verify_mail(doc, [forged], player)
    assert any("were not compared with what you sent" in x for x in c.notes), lines(c)
    assert not any(
        "were not compared with what you sent" in x for x in verify_mail(doc, [forged], player, None, {}).notes
    )


@pytest.mark.parametrize("kind", KINDS)
def test_the_words_of_mail_checked_against_a_running_games_export_are_noted_as_unchecked(
    kind: str, dropped_games: Any
) -> None:
    """Gap: against a running game's (partial) export only the heads and acknowledged inputs of the player's mail are
    checked (a JOIN's acknowledgement, a report's tables, an acknowledgement's lines on file need the whole record),
    and verify said nothing of it.  Now a note says so.  Generator: the player's mail before the deadline of a game of
    each kind against their partial export, the acknowledgement of held orders listing another order on file."""
    from pbem.trust.receipts import parse_mail
    from tests.test_fairness3 import _edited

    _, player, mails, partial = dropped_games(kind)
    ack = next(r for r in mails if parse_mail(r).in_reply_to and parse_mail(r).input is None)
    forged = _edited(ack, lambda t: t.replace("    (on file) ", "    (on file) PASS\n    (on file) ", 1))
    c = verify_mail(partial, [forged], player)
    assert c.ok and any("this export is a running game's" in x for x in c.notes), lines(c)


# ------------------------------------------------------------------ why a press was not sent


@pytest.mark.parametrize("kind", KINDS)
def test_a_press_said_not_sent_for_a_reason_pbem_does_not_give_is_named(kind: str, dropped_games: Any) -> None:
    """Gap: "Press not sent: WHY." was held to its form only: the moderator could tell Alice her press to Bob was not
    sent ('"Bob" is not a player you can name here') and never relay it, or give any reason.  WHY quotes the names
    typed, so pbem's reading of them over the other players is run again (`pbem.trust.pressed`): the reason must be
    the one it gives.  Generator: the acknowledgement of held orders with a press to nobody, of a game of each kind,
    forged three ways (a player's name said not to be one, a made-up reason, the same in the HTML part); the honest
    one is not named."""
    from pbem.trust.receipts import parse_mail
    from tests.test_fairness3 import _edited, _html_edited

    doc, player, mails, _ = dropped_games(kind)
    ack = next(r for r in mails if parse_mail(r).in_reply_to and parse_mail(r).input is None)
    other = next(p["name"] for p in doc["players"] if p["name"] != player)
    why = '"zed" is not a player you can name here'
    assert f"Press not sent: {why}." in _text_of(ack)
    honest = verify_mail(doc, [ack], player, reread)  # (its held order was dropped: that is named, not the press)
    assert not any("says your press was not sent" in p for p in honest.problems), lines(honest)
    forged = [
        ("a player", _edited(ack, lambda t: t.replace(why, f'"{other}" is not a player you can name here'))),
        ("made up", _edited(ack, lambda t: t.replace(why, "press is closed during this step"))),
        ("HTML", _html_edited(ack, lambda p: p.replace("&#34;zed&#34; is not", f"&#34;{other}&#34; is not"))),
    ]
    missed = []
    for what, raw in forged:
        c = verify_mail(doc, [raw], player, reread)
        if not any("says your press was not sent because" in p for p in c.problems):
            missed.append((what, lines(c)))
    assert not missed, missed


def test_held_orders_pbems_reading_refuses_at_the_deadline_are_not_named(dropped_games: Any) -> None:
    """The other side of the dropped-orders check: held orders that pbem's reading refuses at the state the deadline
    met failed there (pbem's `held_failed`), and are said to be so, not named.  The reading is stubbed to refuse every
    line (a state where the order is no longer legal is not reached honestly in a short game)."""
    from pbem.trust.acked import REFUSED

    doc, player, mails, _ = dropped_games("dynasties")
    calls: list[list[str]] = []

    def refusing(eng: Any, state: Any, who: str, orders: list[str]) -> tuple[str, str]:
        calls.append(orders)
        return f'{REFUSED} none of your lines could be applied:\n\n  NO   "{orders[0]}"\n\n', ""

    c = verify_mail(doc, mails, player, refusing)
    assert calls and not any("dropped, not refused" in p for p in c.problems), lines(c)
    assert any("refused by pbem's reading at the state the deadline met" in x for x in c.checked), lines(c)
