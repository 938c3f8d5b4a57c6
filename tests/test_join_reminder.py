"""The join step's reminder (templates/mail/reminder.*.j2) and `pbem verify --mail` reading it (pbem.trust.noticed).

On 9fb0ae7 a player invited to a game and not yet joined got "[pbem hh1] Reminder: orders due", "waiting for your
orders", and "If you have not joined by the deadline ..." twice: once in the join prompt, once in the reminder's own
line.  Now its subject and first line say to join, and the prompt alone says what the deadline does.  `pbem verify
--mail` renders the reminder again to compare it, so both wordings verify (both were written by pbem 0.3.0: X-Mailer
cannot tell them apart), each only whole: a mail mixing the two is named.
"""

from __future__ import annotations

import email

from pbem.trust.receipts import lines, verify_mail
from tests.test_fairness3 import _edited, _html_edited
from tests.test_fairness17 import _late_friend
from tests.test_mail_templates import JOIN_PROMPT  # (its golden reminder_join is this mail)

OLD_LINE = (
    "If you have not joined by the deadline, the moderator is told and may start the game without you or give your "
    "seat to someone else."
)
NEW = b"Subject: [pbem hh1] Reminder: join the game"
OLD = b"Subject: [pbem hh1] Reminder: orders due"
COMPARED = "2 reminders of a deadline say what the game replayed to their heads asked you"


def _older(raw: bytes, subject: bool = True, text: bool = True, html: bool = True) -> bytes:
    """A join reminder as pbem wrote it up to 9fb0ae7 (each part of it, or only some: a mixed one)."""
    if subject:
        raw = raw.replace(NEW, OLD, 1)
    if text:
        raw = _edited(
            raw,
            lambda t: t.replace(" waiting for you to join.", " waiting for your orders.", 1).replace(
                "\n    JOIN\n", f"\n    JOIN\n{OLD_LINE}\n", 1
            ),
        )
    if html:
        raw = _html_edited(
            raw,
            lambda p: (
                p.replace("Reminder: join the game</title>", "Reminder: orders due</title>", 1)
                .replace(" waiting for you to join.</p>", " waiting for your orders.</p>", 1)
                .replace("<li>JOIN</li></ul>\n", f"<li>JOIN</li></ul>\n<p>{OLD_LINE}</p>\n", 1)
                .replace(
                    '<section class="asked"><p><strong>Asked of you:</strong> ',
                    '<section class="asked"><h2>Asked of you: ',
                    1,
                )
                .replace(" someone else.</p>\n<p>Legal orders now:", " someone else.</h2>\n<p>Legal orders now:", 1)
            ),
        )
    return raw


def _part(raw: bytes, kind: str) -> str:
    part = next(p for p in email.message_from_bytes(raw).walk() if p.get_content_type() == kind)
    return str(part.get_payload(decode=True).decode("utf-8"))


def _text(raw: bytes) -> str:
    return _part(raw, "text/plain")


def _html(raw: bytes) -> str:
    return _part(raw, "text/html")


def test_the_join_reminder_asks_to_join_once_and_both_wordings_verify(home, clock) -> None:
    """Bob, invited, is reminded of the join deadline (then of the moved one) before joining late.  His reminders
    say "join the game" and the deadline's sentence once; they verify, and so do the same reminders in 9fb0ae7's
    wording; one in a mix of the two (the older subject on the newer text, the older text without its HTML) is
    named."""
    doc, mail = _late_friend(home, clock)
    box = mail["Bob"]
    reminders = [k for k, raw in enumerate(box) if NEW in raw.split(b"\n\n", 1)[0]]
    assert len(reminders) >= 2 and not [raw for raw in box if OLD in raw.split(b"\n\n", 1)[0]], len(box)
    for k in reminders:
        said = _text(box[k])
        assert said.startswith("Reminder: game hh1 is waiting for you to join.\n"), said
        assert said.count("If you have not joined by the deadline") == 1 and f"Asked of you: {JOIN_PROMPT}\n" in said
        html = _html(box[k])  # the long prompt a paragraph: as a heading it was ten lines of bold type on a phone
        assert "<h2>" not in html and "<p><strong>Asked of you:</strong> Join the game: reply JOIN" in html, html
    c = verify_mail(doc, box, "Bob")
    assert c.ok and any(COMPARED in x for x in c.checked), lines(c)

    older = [_older(raw) if k in reminders else raw for k, raw in enumerate(box)]
    c = verify_mail(doc, older, "Bob")
    assert c.ok and any(COMPARED in x for x in c.checked), lines(c)

    first = reminders[0]
    for mixed in (
        _older(box[first], text=False, html=False),
        _older(box[first], subject=False),
        _older(box[first], html=False),
    ):
        c = verify_mail(doc, [*box[:first], mixed, *box[first + 1 :]], "Bob")
        assert any("the reminder you were shown is not pbem's" in p for p in c.problems), lines(c)
