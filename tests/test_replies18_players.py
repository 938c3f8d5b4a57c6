"""A late reply whose lines are legal in a later step (players18): refused, not applied to a question it did not answer.

Sixteen Thirty's trade step closed by its deadline (NO TRADE applied for Carol) and Carol is asked now to play a
Special card.  Her reply to the trade step's report, arriving after, with a line legal now ("PLAY Increase Army Size
...") was applied to the specials step: a misreading of what she meant.  A probe of the four games (each game after
0 to 3 bot polls, its deadline passed until the player was asked again, then a reply to the older report with a line
legal now) found it so in 16 of 16 cases on cfaaf5d.  Now `pbem.app.closing.changed` (the player's requests' steps
then, from the snapshot of the step open at the answered mail's sending, and now) refuses it whole: the answer opens
with when the step closed and what was applied, then says nothing was applied and quotes the lines to send again, in
notes `pbem verify --mail` knows.  A reply to the newest report is applied as before, and one whose question did not
change is too.  The suite runs one case of each game (the other three from their first report); all five tests
fail on cfaaf5d.
"""

from __future__ import annotations

import pytest

from pbem import engine as registry
from pbem.app import closing
from pbem.app.facts import Facts
from tests.conftest import deliver, sent_mail
from tests.test_replies3_players import Moment, _moment, _poll, _requests
from tests.test_replies7_clients import _text_mail
from tests.test_replies17_players import _verified


def _answer(moment: Moment) -> tuple[str, str, str]:
    answer = [m for m in sent_mail(moment.cfg) if moment.address in str(m["To"])][-1]
    text, page = answer.get_body(preferencelist=("plain",)), answer.get_body(preferencelist=("html",))
    assert text is not None and page is not None
    return str(answer["Subject"]), str(text.get_content()), str(page.get_content())


def test_through_a_real_poll_a_late_reply_legal_in_a_later_step_is_refused_and_told_to_send_again(
    tmp_path, monkeypatch
) -> None:
    from pbem.record import lookups
    from pbem.trust.acked import unnoted, unparagraphed

    moment = _moment(tmp_path, "sixteen-thirty", 1)  # Carol, asked for her trade
    moment.clock.advance(days=8)
    _poll(moment.cfg, moment.clock)  # the deadline: NO TRADE for her; she is asked for her Specials now
    now = [r for r in _requests(moment.cfg) if r.player == moment.player and not r.answered]
    assert now and now[0].legal[-1] not in moment.legal, now
    line = now[0].legal[-1]
    moment.clock.advance(minutes=5)
    deliver(moment.cfg, _text_mail(moment, ["Hi,", line, "", "Carol"]))  # to the trade step's report
    assert _poll(moment.cfg, moment.clock).accepted == 0
    subject, text, page = _answer(moment)
    notes = [row for row in text.split("\n") if row.startswith("  NOTE ")]
    assert subject.endswith("your orders: NOT applied"), subject
    assert notes[0].startswith("  NOTE The step your mail answered closed at "), text
    assert "your default orders were applied: " in notes[0] and "You are asked now: " in notes[0], notes[0]
    assert notes[1] == (
        f'  NOTE Nothing was applied: if you meant these orders for what you are asked now, send them again: "{line}".'
    ), text
    assert unnoted(text) == "" and unparagraphed(page) == "", (unnoted(text), unparagraphed(page))
    assert page.index("The step your mail answered closed") < page.index("send them again: "), page
    assert _verified(moment, tmp_path, 5) == 0  # `pbem verify --partial --mail` of her mail, this answer too
    to_her = [m for m in sent_mail(moment.cfg) if m["To"].addresses[0].addr_spec == moment.address]
    moment.report = [m for m in to_her if "Re:" not in str(m["Subject"])][-1]  # the step open now's: applied
    deliver(moment.cfg, _text_mail(moment, ["Hi,", line, "", "Carol"]))
    moment.clock.advance(minutes=5)
    reads = []
    monkeypatch.setattr(lookups, "closed_after", lambda *a: reads.append(a))  # the common reply reads no closing
    assert _poll(moment.cfg, moment.clock).accepted == 1 and reads == []


@pytest.mark.parametrize("kind", ["habsburg", "italian-wars", "dynasties"])
def test_a_late_reply_to_the_first_report_legal_when_the_player_is_next_asked_is_refused(tmp_path, kind: str) -> None:
    """The probe's case in the other games: the first report's step closed by its deadline, and by as many more as
    it takes for the player to be asked again; their reply to that first report with a line legal now is refused."""
    moment = _moment(tmp_path, kind)
    for _ in range(4):
        moment.clock.advance(days=8)
        _poll(moment.cfg, moment.clock)
        now = [r for r in _requests(moment.cfg) if r.player == moment.player and not r.answered and r.legal]
        if now:
            break
    assert now, f"{moment.player} is not asked again"
    moment.clock.advance(minutes=5)
    deliver(moment.cfg, _text_mail(moment, ["Hi,", now[0].legal[-1], "", moment.player]))
    assert _poll(moment.cfg, moment.clock).accepted == 0
    subject, text, _ = _answer(moment)
    assert subject.endswith("your orders: NOT applied") and f'send them again: "{now[0].legal[-1]}".' in text, text


def test_a_reply_whose_question_did_not_change_is_applied() -> None:
    """The step open at the answered mail's sending closed (others' orders moved it), but the player is asked the
    same step now: nothing changed for them.  Nor does a mail sent when they were asked nothing."""
    from datetime import UTC, datetime

    from pbem.record.lookups import Closed

    eng = registry.get("dynasties")
    state, _ = eng.setup(["Alice", "Bob", "Carol"], "replies18", {})
    steps = tuple(sorted(r.step for r in eng.requests(state) if r.player == "Alice"))
    closed = Closed(datetime(2026, 12, 6, tzinfo=UTC), "orders", ())
    assert not closing.changed(Facts(None, closed=closed, asked_then=steps), eng, state, "Alice")
    assert not closing.changed(Facts(None, closed=closed, asked_then=()), eng, state, "Alice")
    assert closing.changed(Facts(None, closed=closed, asked_then=("g0.other",)), eng, state, "Alice")
    assert not closing.changed(Facts(None, asked_then=("g0.other",)), eng, state, "Alice")  # not closed


def test_a_late_replys_note_says_the_deadline_the_player_was_told_and_when_it_was_applied_only_if_another() -> None:
    """walk6: a player told the deadline 20:31 read "closed at 20:43" (when the poll applied it).  The note says the
    due time, then the applying time only when it is another minute; a step closed by orders says when.  Every form
    is a note `pbem verify --mail` knows, the old one ("closed at TIME") too (mails of e5c877a-era pbem)."""
    from datetime import UTC, datetime

    from pbem.record.lookups import Closed
    from pbem.trust.acked import NOTES

    eng = registry.get("dynasties")
    state, _ = eng.setup(["Alice", "Bob", "Carol"], "replies18", {})
    due, late = datetime(2026, 12, 6, 20, 31, tzinfo=UTC), datetime(2026, 12, 6, 20, 43, tzinfo=UTC)
    notes = {
        "late": closing.note(Closed(late, "deadline", ("PASS",), 0, due), eng, state, "Bob"),
        "on time": closing.note(Closed(due.replace(second=40), "deadline", (), 0, due), eng, state, "Bob"),
        "orders": closing.note(Closed(late, "orders", ()), eng, state, "Bob"),
        "unknown due": closing.note(Closed(late, "deadline", ()), eng, state, "Bob"),
    }
    start = "The step your mail answered closed at "
    assert notes["late"].startswith(start + "its deadline, 2026-12-06 20:31 UTC (applied at 2026-12-06 20:43 UTC), ")
    assert notes["on time"].startswith(start + "its deadline, 2026-12-06 20:31 UTC, before your mail arrived: ")
    assert notes["orders"].startswith(start + "2026-12-06 20:43 UTC, before your mail arrived: it was resolved")
    assert notes["unknown due"].startswith(start + "2026-12-06 20:43 UTC, before your mail arrived: its deadline")
    old = f"{start}2026-12-06 20:43 UTC, before your mail arrived: its deadline passed. Nothing is asked of you now."
    for note in [*notes.values(), old]:
        assert any(p.fullmatch(note) for p in NOTES), note
