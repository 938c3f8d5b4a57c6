"""Eleventh round of the fairness red team: what `pbem verify` still took on the moderator's word.

PROCESS could not prove the seats it waited for resigned: a resignation was a control row, so a moderator could
write a `process` event naming Bob, who never resigned, and apply Bob's defaults early.  Each resignation is now a
public moderator event in the chain, and verify requires one before every `process` event naming the player
(`pbem.trust.resigns`).  `forged_resignations` is the generator: an honest game's export, forged as a forger
would, re-chained; every case verified on ba1be06.  Played on the embedded defaults (real SQLite, real Maildirs,
the real poll) with a clock after `resigns.SINCE`, on the game `tests.test_process.resigned_turn` makes.
"""

from __future__ import annotations

import copy
import html
import json
import mailbox
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email import message_from_bytes

import pytest

from pbem.app import control, processing
from pbem.history.export import build
from pbem.home.app import Home
from pbem.orders.moderator import PRESS_RESIGNED, processed
from pbem.record import store
from pbem.record.db import session
from pbem.trust import resigns, told
from pbem.trust.hint_markup import SEEMING
from pbem.trust.receipts import lines, verify_mail
from pbem.trust.verify import check
from tests.conftest import Clock, body_of, deliver, order_mail, sent_mail, signed
from tests.test_export_verify import _rechain
from tests.test_fairness9 import _swapped
from tests.test_moderator import PLAYERS, new_game, run_poll
from tests.test_process import resigned_turn
from tests.test_resigned import _resign_bob, _to

CAROL = "Carol <carol@players.test>"


def _said(text: str) -> str:
    return f"The moderator says: {text}"


def forged_resignations(doc: dict) -> Iterator[tuple[str, dict, str]]:
    """(what, the export forged and re-chained, what verify must say of it): the honest export `doc` of a game where
    Bob resigned and a `process` event applied his step's deadline now, with the resignation taken out, moved,
    given to another, or the process naming another."""
    events = doc["events"]
    (gone,) = [n for n, e in enumerate(events) if (e.get("data") or {}).get("action") == "resign"]
    (proc,) = [n for n, e in enumerate(events) if (e.get("data") or {}).get("action") == "process"]
    names = {p["name"]: p["seat"] for p in doc["players"]}

    def resign_of(player: str, seat: int | None = None) -> dict:
        seat = names[player] if seat is None else seat
        return {
            # (a word, as pbem writes in a game that declares its bindings: fairness25)
            "data": {"action": "resign", "player": player, "seat": seat, "word": "482193"},
            "text": f"{player} resigned from the game.",
        }

    def process_of(*players: str) -> dict:
        data = dict(events[proc]["data"], players=list(players))
        return {"data": data, "text": processed(list(players))}

    unresigned = "who had not resigned"
    changes: dict[str, tuple[dict[int, dict], str]] = {
        "a message in place of the resignation": (
            {gone: {"data": {"action": "say", "text": "Welcome."}, "text": _said("Welcome.")}},
            f"names Bob, {unresigned}",
        ),
        "Carol's resignation in place of Bob's": ({gone: resign_of("Carol")}, f"names Bob, {unresigned}"),
        "the process names Carol": ({proc: process_of("Carol")}, f"names Carol, {unresigned}"),
        "the process names Bob and Carol": ({proc: process_of("Bob", "Carol")}, f"names Carol, {unresigned}"),
        "the resignation after the process": (
            {gone: {k: events[proc][k] for k in ("data", "text")}, proc: resign_of("Bob")},
            f"names Bob, {unresigned}",
        ),
        "Bob's resignation of Alice's seat": ({gone: resign_of("Bob", names["Alice"])}, "but seat 0 was Alice's then"),
        "a resignation of no seat": ({gone: resign_of("Bob", 7)}, "the game has no seat 7"),
        "a hidden resignation": ({gone: {"visibility": ["Alice", "Carol"]}}, "is not public"),
        "a resignation in other words": ({gone: {"text": "Bob left."}}, "where its text is"),
        "a resignation with a reason": (
            {gone: {"data": dict(events[gone]["data"], why="slow")}},
            "holds its action, player and seat",
        ),
    }
    for what, (change, said) in changes.items():
        bad = copy.deepcopy(doc)
        for n, fields in change.items():
            bad["events"][n].update(copy.deepcopy(fields))
        yield what, _rechain(bad), said


def _played(home, clock: Clock) -> dict:
    """Bob resigned, his turn processed now and applied, the game abandoned (its seed revealed): the export."""
    name = "hh1"
    resigned_turn(home, name, lambda: run_poll(home, clock), set(), clock)
    assert processing.process(Home.of(home), name, clock.now) == ["Bob"]
    run_poll(home, clock)
    control.abandon(Home.of(home), name, clock.now)
    with session(home.database_url) as s:
        return json.loads(json.dumps(build(s, store.game_by_name(s, name))))


@pytest.fixture
def late() -> Clock:
    return Clock(datetime(2026, 12, 8, 12, 0, tzinfo=UTC))


def test_a_process_event_naming_a_player_who_did_not_resign_is_named(home, late, monkeypatch) -> None:
    doc = _played(home, late)
    honest = check(copy.deepcopy(doc))
    assert honest.ok and not any("moderator's word" in n for n in honest.notes), honest.problem or honest.notes
    assert any("resign 1" in line and "process 1" in line for line in honest.checked), honest.checked
    caught = []
    for what, bad, said in forged_resignations(doc):
        v = check(bad)
        assert not v.ok and said in v.problem, (what, v.problem)
        caught.append(what)
    assert len(caught) == 10
    # the same record, had it been dated before pbem chained resignations, with none in it: one plain note
    monkeypatch.setattr(resigns, "SINCE", datetime(2027, 1, 1, tzinfo=UTC))
    (_, old, _) = next(forged_resignations(doc))
    v = check(old)
    assert v.ok, v.problem
    (note,) = [n for n in v.notes if "moderator's word" in n]
    assert "no resignation entry" in note and "(Bob)" in note, note
    # ... but a record that holds a resignation is of the new form whatever its dates
    v = check(next(b for w, b, _ in forged_resignations(doc) if w == "the process names Carol"))
    assert not v.ok and "names Carol, who had not resigned" in v.problem, v.problem


def _mailbox(home, address: str) -> list[bytes]:
    """Every mail the home sent to `address` (the player's own folder)."""
    sent = mailbox.Maildir(str(home.maildir_path / "sent"), factory=None, create=False)
    raws = [sent.get_bytes(key) for key in sent.iterkeys()]
    return [raw for raw in raws if re.search(rb"^To: .*" + re.escape(address.encode()), raw, re.M)]


def test_press_to_a_player_who_resigned_is_not_relayed_and_verify_checks_the_reason(home, clock) -> None:
    """Press naming only Bob, who resigned, is answered "Bob resigned: ..." quoting the line; naming Alice and Bob, it
    goes to Alice and Carol is told Bob was left out.  Carol's mail verifies; the reason given for another player,
    who did not resign, is named."""
    name, seen = _resign_bob(home, clock)
    press = "PRESS TO Bob: still there?\nPRESS TO Alice, Bob: and you?"
    deliver(home, order_mail(CAROL, name, signed("Carol", press)))
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    assert not _to(mails, "bob@players.test"), [str(m["Subject"]) for m in _to(mails, "bob@players.test")]
    (relayed,) = [m for m in _to(mails, "alice@players.test") if "Press" in str(m["Subject"])]
    assert "and you?" in body_of(relayed) and "still there?" not in body_of(relayed)
    (ack,) = [body_of(m) for m in _to(mails, "carol@players.test")]
    for typed in ("Bob", "Alice, Bob"):
        assert f'Press not sent: Bob {PRESS_RESIGNED} ("PRESS TO {typed}"). Write PRESS TO' in ack, ack
    assert "NOTE Press sent to Alice." in ack, ack
    control.abandon(Home.of(home), name, clock.now)
    with session(home.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, name))))
    mine = _mailbox(home, "carol@players.test")
    c = verify_mail(doc, mine, "Carol")
    assert c.ok, lines(c)
    (at,) = [n for n, raw in enumerate(mine) if b"Press not sent" in raw]
    forged = [*mine[:at], _swapped(mine[at], f"Bob {PRESS_RESIGNED}", f"Alice {PRESS_RESIGNED}"), *mine[at + 1 :]]
    c = verify_mail(doc, forged, "Carol")
    assert not c.ok and any("not sent to Alice because they resigned" in x for x in lines(c)), lines(c)


# ------------------------------------------------------------------ 2. the deadline a reminder states


def _deadline_game(home, clock, extend_days: int = 0) -> tuple[dict, dict[str, list[bytes]]]:
    """Alice's turn (a game of turns) opens; with `extend_days`, the moderator extends it, Carol asks STATUS (her
    report states the extended deadline) and Alice answers the next hour; then polls every 6 hours until Bob's turn
    (or Alice's) has been defaulted at its deadline and the next is asked.  (The abandoned game's export, each
    player's mail.)"""
    name = new_game(home, clock)
    run_poll(home, clock)
    if extend_days:
        control.extend(Home.of(home), name, timedelta(days=extend_days), clock.now)
        clock.advance(hours=1)
        deliver(home, order_mail(CAROL, name, signed("Carol", "STATUS")))
        run_poll(home, clock)
        clock.advance(hours=1)
        deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", "PASS")))
        run_poll(home, clock)
    for _ in range(10):
        clock.advance(hours=6)
        run_poll(home, clock)
    control.abandon(Home.of(home), name, clock.now)
    with session(home.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, name))))
    assert any(o["kind"] == "deadline" for o in doc["orders"]), "a deadline's defaults were applied"
    return doc, {p: _mailbox(home, address) for p, address in PLAYERS}


@pytest.mark.parametrize("days", [3, 6])
def test_a_deadline_stated_for_a_step_extended_then_answered_early_binds_no_later_step(home, clock, days) -> None:
    """Gap (ba1be06): every deadline input after a report's head had to come no earlier than the deadline that report
    stated, whatever the step.  A step extended a week and answered the next day is followed by one due two days
    after that, earlier than the deadline stated: the honest game's defaults were named as applied early in Carol's
    `verify --mail` (both cases failed on ba1be06).  Now a stated deadline binds its own step (the replayed game's)."""
    doc, mail = _deadline_game(home, clock, days)
    for player, mine in mail.items():
        c = verify_mail(doc, mine, player)
        assert c.ok, (player, lines(c))


def _later(raw: bytes, hours: int) -> bytes:
    """The reminder `raw` stating a deadline `hours` later, with the time left it says made to fit (as pbem counts
    it from the mail's Date), so the fairness10 check of its words passes."""
    from email.utils import parsedate_to_datetime

    from pbem.trust import told
    from pbem.trust.noticed import _human, reminded
    from tests.test_fairness3 import _html_edited

    due, left = reminded(told.plain(raw))
    new = datetime.strptime(due, "%Y-%m-%d %H:%M UTC").replace(tzinfo=UTC) + timedelta(hours=hours)
    sent = parsedate_to_datetime(message_from_bytes(raw)["Date"])
    was, now = (due, f"(in about {left})"), (f"{new:%Y-%m-%d %H:%M} UTC", f"(in about {_human(new, sent)})")
    both = _swapped(raw, "Deadline: {} {}.".format(*was), "Deadline: {} {}.".format(*now))
    return _html_edited(
        both, lambda page: page.replace("{}</strong> {}".format(*was), "{}</strong> {}".format(*now), 1)
    )


def test_a_reminder_stating_more_time_than_the_step_had_is_named(home, clock) -> None:
    """Gap (ba1be06, fairness10's limit): the deadline a reminder states was its own word: a reminder telling Alice
    she had a day (or six hours, or a week) more than she had, followed by her defaults at the true deadline, passed.
    Its stated deadline now binds the deadline input of its step as a report's does (`pbem.trust.due`).
    Generator: the reminder's deadline moved 1, 6, 24 and 144 hours later, its time left made to fit: 4 of 4
    verified on ba1be06."""
    doc, mail = _deadline_game(home, clock)
    mine = mail["Alice"]
    c = verify_mail(doc, mine, "Alice")
    assert c.ok and any("reminder" in x for x in c.checked), lines(c)
    k = next(i for i, raw in enumerate(mine) if b"Reminder: orders due" in raw.split(b"\n\n", 1)[0])
    for hours in (1, 6, 24, 144):
        c = verify_mail(doc, [*mine[:k], _later(mine[k], hours), *mine[k + 1 :]], "Alice")
        named = [p for p in c.problems if "before the deadline" in p and "Reminder" in p]
        assert len(named) == len(c.problems) == 1, (hours, lines(c))  # its words are pbem's: only its deadline lies


# ------------------------------------------------------------------ 3. a hint in other markup


def hint_shapes(mails: list[bytes], other: str) -> list[tuple[str, list[bytes]]]:
    """The player's mailbox with the hinted refusal's HTML part offering `other` in markup other than pbem's
    `<p>&#34;...</p>` (its text part left true): ten shapes of the same words."""
    from markupsafe import escape

    from tests.test_fairness3 import _html_edited
    from tests.test_fairness9 import _hinted

    k = _hinted(mails)
    page = told.html(mails[k])
    start = page.index("<p>&#34;", page.index("</table>"))
    para = page[start : page.index("</p>", start) + 4]
    words = html.unescape(para[3:-4])
    typed, _, _ = words.partition(SEEMING)
    body = f"{typed}{SEEMING} {other}"
    q = str(escape(body))
    shapes = {
        "&quot;": f"<p>{q.replace('&#34;', '&quot;')}</p>",
        "a literal quote": f"<p>{q.replace('&#34;', chr(34))}</p>",
        "a div": f"<div>{q}</div>",
        "a paragraph with a class": f'<p class="note">{q}</p>',
        "capitals": f"<P>{q}</P>",
        "a tag inside a word": f"<p>{q.replace('write', 'wr<b></b>ite', 1)}</p>",
        "a letter escaped": f"<p>{q.replace('write', '&#119;rite', 1)}</p>",
        "a list item": f"<ul><li>{q}</li></ul>",
        "a span in a paragraph": f"<p><span>{q}</span></p>",
        "split over lines": f"<p>{q.replace(' so ', chr(10) + 'so ', 1)}</p>",
    }
    return [
        (what, [*mails[:k], _html_edited(mails[k], lambda p, s=s: p.replace(para, s, 1)), *mails[k + 1 :]])
        for what, s in shapes.items()
    ]


@pytest.fixture(scope="module")
def hinted(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    from tests.test_fairness9 import _game

    return _game("habsburg", tmp_path_factory.mktemp("hinted11") / "home")


def test_a_hint_in_the_html_part_in_other_markup_is_named(hinted) -> None:
    """Gap (tenth round's limit): a "write it as:" hint in the HTML part was read only as pbem writes it, a paragraph
    starting `<p>&#34;`: the same words in other markup offering another order passed, while most mail programs show
    that part.  Now each order a hint of the HTML part offers, read as text, must be one its text part offers
    (`pbem.trust.hint_markup`).  Generator: the refusal's HTML hint offering another legal order in ten shapes, each
    named now: 3 of 10 verified on ba1be06 (`&quot;`, a literal quote, `<P>`); the markup check of acknowledgements
    (fifth round) or the hint's own reading named the other seven."""
    from tests.test_fairness9 import _verify

    doc, player, mails, legal, asked = hinted
    assert _verify("habsburg", doc, mails, player, legal).ok
    other = next(o for o in asked if o != legal)
    for what, box in hint_shapes(mails, other):
        c = _verify("habsburg", doc, box, player, legal)
        assert any(f'offers "write it as: {other.casefold()}" where its text part does not' in p for p in c.problems), (
            what,
            lines(c),
        )
