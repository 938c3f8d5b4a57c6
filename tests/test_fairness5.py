"""Fifth round of the fairness checks (docs/security.md, "Red team of the fairness checks, fifth round").

What the fourth round left to the moderator's word: the lines an acknowledgement quotes as applied ("Your
message"), and a report saying "No deadline is set" (masked like a deadline's time).  Each forgery is made on real
mail of the seeded finished game of each kind, under its true signed receipt; each test failed on the code before
this round, and the honest mailbox passes (tests/test_fairness3.py's generator checks every whole mailbox).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from pbem.trust.receipts import lines, verify_mail
from tests.test_fairness3 import _edited, _html_edited, _text_of
from tests.test_fairness4 import _box, _entries
from tests.test_history_golden import KINDS

pytestmark = pytest.mark.xdist_group("fairness")

Forgery = Callable[[bytes], bytes]


def _first_ok(text: str) -> str:
    m = re.search(r"^  OK   (.*)$", text, re.M)
    assert m is not None
    return m.group(1)


def _swap_ok(raw: bytes) -> bytes:
    """The first quoted line says another order than the one applied (the applied lines in the export)."""
    return _edited(raw, lambda t: re.sub(r"^(  OK   ).*$", r"\1PASS", t, count=1, flags=re.M))


def _add_ok(raw: bytes) -> bytes:
    return _edited(raw, lambda t: re.sub(r"^(  OK   .*)$", r"\1\n  OK   VOTE RED", t, count=1, flags=re.M))


def _drop_ok(raw: bytes) -> bytes:
    return _edited(raw, lambda t: re.sub(r"^  OK   .*\n", "", t, count=1, flags=re.M))


def _html_swap(raw: bytes) -> bytes:
    return _html_edited(raw, lambda p: re.sub(r"(<tr><td><code>)[^<]*(</code></td><td>ok)", r"\1PASS\2", p, count=1))


def _html_add(raw: bytes) -> bytes:
    return _html_edited(
        raw,
        lambda p: p.replace(
            "</tbody></table>", "<tr><td><code>VOTE RED</code></td><td>ok</td></tr>\n</tbody></table>", 1
        ),
    )


def _html_cell(raw: bytes) -> bytes:
    return _html_edited(raw, lambda p: re.sub(r"(</code></td><td>ok)", r"\1, and Bob passed", p, count=1))


#: (what the forgery is, how it is made, a phrase its mismatch holds)
QUOTES: list[tuple[str, Forgery, str]] = [
    ("a quoted line says another order", _swap_ok, "'PASS'"),
    ("a line quoted that was not applied", _add_ok, "VOTE RED"),
    ("an applied line left out of the quote", _drop_ok, "leaves out"),
    ("the HTML quotes another order", _html_swap, "in its HTML part"),
    ("the HTML quotes a line not applied", _html_add, "VOTE RED"),
    ("the HTML says more after ok", _html_cell, "Bob passed"),
]


def _cut(raws: list[bytes], *needles: bytes) -> tuple[list[bytes], int]:
    """The first mail whose text holds `needles`, as a mailbox of its own, and its index there."""
    at = next(i for i, r in enumerate(raws) if b"X-Pbem-Input" in r and all(n in _text_of(r).encode() for n in needles))
    return [raws[at]], 0  # (checked alone: its receipt, its quote, its tables; quick)


@pytest.mark.parametrize("kind", KINDS)
def test_an_acknowledgement_quoting_other_lines_than_the_input_applied_is_named(kind: str) -> None:
    """Gap: "Your message" quoted the player's applied lines and nobody compared them: the moderator could apply
    PASS, record PASS, and tell the player "OK   VOTE RED" under the true receipt (the tables true of PASS).  Now
    the quote, text and HTML, must be the lines of the input its receipt names: each forgery is named, the honest
    mail passes.  Generator: a report answering the player's orders in each kind, forged six ways."""
    doc, name, raws = _box(kind, 1)
    box, at = _cut(raws, b"Accepted and applied:", b"Private report for")
    honest = verify_mail(doc, box, name)
    assert honest.ok, lines(honest)
    raw = box[at]
    assert _first_ok(_text_of(raw))
    missed = []
    for what, forge, phrase in QUOTES:
        c = verify_mail(doc, [*box[:at], forge(raw), *box[at + 1 :]], name)
        said = [p for p in c.problems if phrase.lower() in p.lower() and "the one its receipt names" in p]
        if c.ok or not said:
            missed.append((what, c.problems or lines(c)))
        else:
            assert "this mail is your evidence" in said[0], said[0]
    assert not missed, missed


def test_the_notice_of_held_orders_applied_at_the_deadline_quotes_the_input() -> None:
    """The notice of orders held until the deadline ("were applied:", `mail/held_applied`) quotes the input applied:
    its honest text and HTML agree, a changed line in either is named."""
    from pbem.render.templates import render_mail
    from pbem.trust import acked

    applied = ["DISCARD Milan", "DISCARD <Genoa> & 'Pisa'"]
    r = render_mail(
        "held_applied", {"game_name": "iwd", "due": "2026-01-07 12:00 UTC", "lines": applied, "moderator": "M"}
    )
    assert acked.differs(r.text, r.html, applied) == ""
    assert "'PASS'" in acked.differs(r.text.replace("    DISCARD Milan", "    PASS"), r.html, applied)
    html = acked.differs(r.text, r.html.replace("<code>DISCARD Milan", "<code>PASS"), applied)
    assert html.startswith("in its HTML part") and "'PASS'" in html
    assert "leaves out" in acked.differs(r.text, r.html, [*applied, "DISCARD Rome"])


def test_the_quote_follows_the_acknowledgements_own_bounds() -> None:
    """pbem quotes at most `MANY` accepted lines of `LINE_CHARS` characters each (`pbem.app.answers.quoted_lines`);
    the trust layer's copy of those bounds is the intake's, so an honest long message, and a long line, pass, in
    the acknowledgement's text and HTML as `mail/ack` renders them; a wrong count of the lines not shown does not."""
    from pbem.app import answers
    from pbem.render.templates import render_mail
    from pbem.trust import acked

    assert (acked.MANY, acked.LINE_CHARS) == (answers.MANY, answers.LINE_CHARS)
    applied = [f"PLAY card {i}" for i in range(103)] + ["x" * 300, "VOTE   (understood as: PASS)"]
    quoted, more = answers.quoted_lines([{"line": x, "ok": True, "understood": x.upper()} for x in applied])
    ctx = {**CONTEXT, "applied": True, "lines": quoted, "more_lines": more}
    r = render_mail("ack", ctx)
    assert more == 5 and acked.differs(r.text, r.html, applied) == ""
    assert "counts 4 more" in acked.differs(r.text.replace("and 5 more", "and 4 more"), r.html, applied)
    assert "counts 4 more" in acked.differs(r.text, r.html.replace("and 5 more", "and 4 more"), applied)
    short = applied[-2:]
    quoted, more = answers.quoted_lines([{"line": x, "ok": True, "understood": ""} for x in short])
    r = render_mail("ack", {**ctx, "lines": quoted, "more_lines": more})
    assert acked.differs(r.text, r.html, short) == ""
    assert acked.differs(r.text, r.html, ["y" * 300, short[1]]) != ""


CONTEXT = dict(
    subject_in="Re: [pbem hh1] orders", game_name="hh1", rejected_count=0, problems=[], press_failed=[], more_notes=0,
    no_orders=False, press_sent=[], held=False, on_file=[], waiting=[], report_follows=False, chatter=[],
    more_chatter=0, moderator="M",
)  # fmt: skip


# ------------------------------------------------------------------ "No deadline is set" was masked like a deadline


@pytest.mark.parametrize("kind", KINDS)
def test_a_report_saying_no_deadline_is_set_while_the_step_has_one_is_named(kind: str) -> None:
    """Gap: the opening lines' deadline words were left out of the comparison, "No deadline is set for this step."
    with them, so a report could tell a player there was no deadline (and the defaults then came as a surprise)
    while the replay had one, and `--mail` passed.  Only the time inside a sentence that states a deadline is left
    out now; an open step always has a deadline in pbem, so the other sentence is named, in the text and the
    HTML, and in the "Waiting for" form too."""
    doc, name, raws = _box(kind, 1)
    asked = [i for i, r in enumerate(raws) if re.search(rb"^Deadline: in ", r, re.M) and b"Private report" in r]
    box = [r for r in raws if _entries(r) <= _entries(raws[asked[0]])]
    at = box.index(raws[asked[0]])
    assert verify_mail(doc, box, name).ok
    raw = box[at]
    forgeries = [
        _edited(raw, lambda t: re.sub(r"^Deadline: .*\.$", "No deadline is set for this step.", t, count=1, flags=re.M)),
        _html_edited(raw, lambda p: re.sub(r"<p>Deadline: [^<]*</p>", "<p>No deadline is set for this step.</p>", p, count=1)),
    ]  # fmt: skip
    waiting = [i for i, r in enumerate(raws) if re.search(rb"; deadline in ", r) and b"Private report" in r]
    if waiting:
        box2 = [r for r in raws if _entries(r) <= _entries(raws[waiting[0]])]
        at2 = box2.index(raws[waiting[0]])
        w = _edited(box2[at2], lambda t: re.sub(r"; deadline in [^\n]*UTC\.", "; no deadline is set.", t, count=1))
        c = verify_mail(doc, [*box2[:at2], w, *box2[at2 + 1 :]], name)
        assert not c.ok and any("no deadline is set" in p for p in c.problems), lines(c)
    for forged in forgeries:
        c = verify_mail(doc, [*box[:at], forged, *box[at + 1 :]], name)
        assert not c.ok and any("no deadline is set" in p.lower() for p in c.problems), lines(c)
