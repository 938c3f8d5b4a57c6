"""Ninth round of the fairness checks (docs/security.md, "Red team of the fairness checks, ninth round").

The last words of a refusal that were still the moderator's after the eighth round: the "write it as:" hint an
acknowledgement gives for a line written as an order in a sentence ("I vote red" -> VOTE red), checked for its form
only, and the reasons a held_failed notice gives for held orders the deadline could not apply, not compared.  Both
are pbem's reading at the state the message met, so once the seed is out they are worked out again.  Each forgery
generator failed on the code before this round (9d855d3); the honest mail passes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from pbem.app import rereading
from pbem.engine.base import Engine, LineResult, Outcome
from pbem.trust.receipts import lines, verify_mail
from pbem.trust.refused import Readings
from tests.test_fairness6 import per_kind
from tests.test_fairness7 import held_start

pytestmark = pytest.mark.xdist_group("fairness9")  # a unit per module, not one for all

KINDS = ["habsburg", "italian-wars", "dynasties", "sixteen-thirty"]
NO_LONGER = "that can no longer be done"  # the reason the deadline's stubbed engine gives for the held order


@contextmanager
def _no_longer(eng: Engine, player: str, line: str) -> Iterator[None]:
    """The engine refusing `player`'s `line` sent alone (a state where the held order is no longer legal is not
    reached honestly in a short game: the deadline meets the state the message met)."""
    kind = type(eng)
    apply = kind.apply

    def refusing(self: Engine, state: dict[str, Any], who: str, orders: list[str]) -> Outcome:
        if who == player and list(orders) == [line]:
            return Outcome(state, [], [LineResult(line, False, NO_LONGER)])
        return apply(self, state, who, orders)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kind, "apply", refusing)
        yield


Game = tuple[dict[str, Any], str, list[bytes], str, list[str]]


def _game(kind: str, root: Path) -> Game:
    """A game of `kind` held until the deadline, played by the real poll: the first player asked sends a message
    that writes the legal order in a sentence ("I VOTE red") beside a mistyped one (refused whole, told how to write
    the sentence), one of the sentence alone (no orders found, told how to write it), and one of the legal order
    alone (held); at the deadline the held order is no longer legal
    (`_no_longer`): the held_failed notice says why.  The game is abandoned (the seed out).  (the final export, the
    player, their mail in the order delivered, the held order, the legal orders asked for)."""
    from datetime import timedelta

    from pbem import engine as registry
    from pbem.app.cron import run_poll
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import T0, _mail

    cfg, players, asked = held_start(kind, root, f"hinted-{kind}-0123456789abcdef")
    legal = next(line for line in asked.legal if [line] != list(asked.default))  # (the default still applies)
    word = legal.split()[0]
    sent = [_mail(asked.player, "hinted", f"I {legal}\n{word} Nothing 99"), _mail(asked.player, "alone", f"I {legal}")]
    sent.append(_mail(asked.player, "held", legal))
    kp.deliver_in_order(cfg, sent)
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=2))
    with _no_longer(registry.get(kind), asked.player, legal):
        run_poll(cfg, clock=lambda: T0 + timedelta(days=2, minutes=1))
    return (*_ended(cfg, T0 + timedelta(days=2, minutes=3), dict(players)[asked.player]), legal, list(asked.legal))


def _ended(cfg: Any, when: Any, address: str) -> tuple[dict[str, Any], str, list[bytes]]:
    """The game `g1` abandoned at `when` (its seed out): (its final export, the player at `address`, the mail sent to
    them in the order delivered)."""
    from pbem.app.control import abandon
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import in_delivered_order

    abandon(Home.of(cfg), "g1", when)
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))  # type: ignore[arg-type]
    player = next(p["name"] for p in doc["players"] if p["address"] == address)
    out = [p.read_bytes() for p in in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))]
    return doc, player, [r for r in out if address.encode() in r.split(b"\n\n", 1)[0]]


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return per_kind(tmp_path_factory, "hinted", _game)


def _verify(kind: str, doc: dict[str, Any], mails: list[bytes], player: str, legal: str) -> Any:
    """`pbem verify --mail` with pbem's readings, the held order no longer legal where the deadline read it."""
    from pbem import engine as registry

    eng = registry.get(kind)

    def reread(e: Engine, state: dict[str, Any], who: str, orders: list[str]) -> tuple[str, str]:
        if list(orders) != [legal]:  # (a refusal's reading offers the legal order, as the intake did)
            return rereading.refused(e, state, who, orders)
        with _no_longer(eng, player, legal):
            return rereading.refused(e, state, who, orders)

    def failed(e: Engine, state: dict[str, Any], who: str, orders: list[str]) -> list[tuple[str, str]]:
        with _no_longer(eng, player, legal):
            return rereading.failed(e, state, who, orders)

    return verify_mail(doc, mails, player, reread, more=Readings(rereading.hint, failed))


def _applied_game(kind: str, root: Path) -> Game:
    """A game of `kind` played by the real poll in which the first player asked sends the legal order with the same
    order written in a sentence under it ("I VOTE red"): the order applied, the sentence told how to write; the game
    is abandoned (the seed out).  (as `_game`, the legal order sent)."""
    from datetime import timedelta

    from pbem.app import games, views
    from pbem.app.cron import run_poll
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import CODES
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import PLAYERS, T0, _mail

    cfg = kp.make_home(root)
    players = PLAYERS[:2] if kind == "italian-wars" else PLAYERS
    games.create_game(Home.of(cfg), kind, "g1", players, seed=f"applied-{kind}-0123456789abcdef", codes=CODES,
                      clock=lambda: T0)  # fmt: skip
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=1))
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))  # type: ignore[arg-type]
        asked = next(r for r in views.engine(loaded).requests(loaded.state) if not r.answered and r.legal)
    legal = min(asked.legal, key=lambda line: len(line.split()))  # (a sentence of few words is an order in one)
    kp.deliver_in_order(cfg, [_mail(asked.player, "applied", f"{legal}\nI {legal}")])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=2))
    return (*_ended(cfg, T0 + timedelta(minutes=3), dict(players)[asked.player]), legal, list(asked.legal))


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return per_kind(tmp_path_factory, "applied", _applied_game)


@pytest.mark.parametrize("kind", KINDS)
def test_the_hint_of_an_acknowledgement_of_applied_orders_is_pbems_reading_before_them(kind: str, applied: Any) -> None:
    """An acknowledgement of applied orders (its receipt names their input) gives its hints at the state before that
    input: the honest one passes, and its hint forged four ways (three where one legal line is offered) is named
    (each passed on 9d855d3)."""
    from pbem.app.rereading import refused as reread

    doc, player, mails, legal, asked = applied(kind)
    assert f"so write it as: {legal}" in _plain(mails[_hinted(mails, "applied")])
    more = Readings(rereading.hint, rereading.failed)
    c = verify_mail(doc, mails, player, reread, more=more)
    assert c.ok and any("without a refusal are pbem's" in x for x in c.checked), lines(c)
    forged = _forged_hints(mails, legal, [o for o in asked if o != legal], "applied")
    for what, box in forged[:-1]:  # (the HTML one: as in a refusal)
        c = verify_mail(doc, box, player, reread, more=more)
        assert any("where pbem's reading of that line offers" in p for p in c.problems), (what, "\n".join(lines(c)))


def _plain(raw: bytes) -> str:
    from pbem.trust import told

    return told.plain(raw)


def _hinted(mails: list[bytes], label: str = "hinted") -> int:
    """The index of the refusal of the message that wrote the order in a sentence (`label` "alone": the answer to the
    message of the sentence alone)."""
    return next(i for i, raw in enumerate(mails) if f"In-Reply-To: <{label}@".encode() in raw)


def _notice(mails: list[bytes]) -> int:
    """The index of the held_failed notice."""
    return next(i for i, raw in enumerate(mails) if b"Held orders not applied" in raw.split(b"\n\n", 1)[0])


@pytest.mark.parametrize("kind", KINDS)
def test_honest_hints_and_held_failed_reasons_are_pbems_reading(kind: str, games: Any) -> None:
    """The honest mail of each game verifies clean: the refusal's "write it as:" hint is pbem's reading of the line
    at the state the message met, and the held_failed notice's reasons pbem's reading at the state the deadline met."""
    doc, player, mails, legal, _ = games(kind)
    assert f"so write it as: {legal}" in _plain(mails[_hinted(mails)])
    assert f"'{legal}': {NO_LONGER}" in _plain(mails[_notice(mails)])
    c = _verify(kind, doc, mails, player, legal)
    assert c.ok, lines(c)
    assert any("notice of held orders not applied gave are pbem's reading" in x for x in c.checked), lines(c)
    assert f"so write it as: {legal}" in _plain(mails[_hinted(mails, "alone")])
    assert any('the orders their "write it as:" hints offer (in 1 acknowledgement)' in x for x in c.checked), lines(c)
    assert any("hints of 1 acknowledgement without a refusal are pbem's" in x for x in c.checked), lines(c)
    assert not any("cannot be replayed" in x or "notice" in x for x in c.notes), lines(c)


def _swapped(raw: bytes, old: str, new: str) -> bytes:
    """`raw` with the first `old` of its plain text made `new` (headers and receipt untouched)."""
    from tests.test_fairness3 import _edited

    return _edited(raw, lambda t: t.replace(old, new, 1))


def _forged_hints(mails: list[bytes], legal: str, others: list[str], label: str) -> list[tuple[str, list[bytes]]]:
    """The player's mailbox with the refusal's hint forged: another legal order offered (each of up to two), the
    line the refusal refused offered, a hint added for a remark that has none, and the refused line offered in the
    HTML part alone (the text left true)."""
    from markupsafe import escape

    from tests.test_fairness3 import _html_edited

    k = _hinted(mails, label)
    hint = f"so write it as: {legal}"
    note = f'  NOTE "Thanks all" was not read as an order: an order line starts with its order word, {hint}\n'
    offered = [*others[:2], f"{legal.split()[0]} Nothing 99"]  # (the line the refusal refused)
    forms: list[tuple[str, str, str]] = [(f"offers {o}", hint, f"so write it as: {o}") for o in offered]
    forms.append(("a hint for a remark", "  NOTE ", note + "  NOTE "))
    out = [(what, [*mails[:k], _swapped(mails[k], a, b), *mails[k + 1 :]]) for what, a, b in forms]
    html = _html_edited(mails[k], lambda p: p.replace(str(escape(hint)), str(escape(f"so write it as: {offered[-1]}"))))
    return [*out, ("in the HTML part", [*mails[:k], html, *mails[k + 1 :]])]


LABELS = ["hinted", "alone"]  # the refusal with a hint, the answer to the sentence alone


@pytest.mark.parametrize("kind", KINDS)
def test_a_hint_offering_another_order_than_pbems_reading_is_named(kind: str, games: Any) -> None:
    """Gap: the "write it as:" hint of a refusal (pbem offers the legal line the player probably meant, "I vote red"
    -> VOTE red) was checked for its form only: the moderator could offer another order (the one he wants played),
    a line the game refuses, or a hint for a remark, and every check passed.  Now the hint is pbem's reading of the
    line it quotes at the state the refusal met (`pbem.app.rereading.hint`).  Generator: the refusal of each game's
    message writing its held order in a sentence beside a mistyped one, and the answer to the sentence alone (no
    orders found), each hint forged five ways (four where the request offers one legal line), one in the HTML part
    alone."""
    doc, player, mails, legal, asked = games(kind)
    others = [o for o in asked if o != legal]
    forged = [(f"{label}: {what}", box) for label in LABELS for what, box in _forged_hints(mails, legal, others, label)]
    assert len(forged) >= 8
    for what, box in forged:
        c = _verify(kind, doc, box, player, legal)
        assert any("where pbem's reading of that line offers" in p for p in c.problems), (what, "\n".join(lines(c)))


_REASONS = ["you are not asked anything now; waiting for nobody", "that is not a legal order now", NO_LONGER + "."]


@pytest.mark.parametrize("kind", KINDS)
def test_a_held_failed_notice_giving_other_reasons_than_pbems_reading_is_named(kind: str, games: Any) -> None:
    """Gap: the reasons a held_failed notice gives for held orders the deadline could not apply were not compared:
    the moderator could tell the player their vote was "not asked anything now" (so that they stop sending it),
    and every check passed.  Now each reason is pbem's reading of the held lines at a state the deadline met
    (`pbem.app.rereading.failed`, `pbem.trust.dropped.failed_untrue`).  Generator: each game's notice with its
    reason replaced three ways."""
    doc, player, mails, legal, _ = games(kind)
    k = _notice(mails)
    for why in _REASONS:
        box = [
            *mails[:k],
            _swapped(mails[k], f": {NO_LONGER}\n", f": {why}\n"),
            *mails[k + 1 :],
        ]
        c = _verify(kind, doc, box, player, legal)
        assert any("could not be applied at the deadline because" in p for p in c.problems), (why, lines(c))
