"""players30: every note an honest acknowledgement carries is one `pbem verify --mail` knows pbem writes.

`pbem.trust.acked.unnoted` names a note of an acknowledgement that is none of pbem's forms (`NOTES`): a moderator's
words slipped into a player's receipt.  players29's notes (an order under the signature: `extract.signed_note`,
`pbem.app.signed`; a negation: `extract.negated_note`) and players30's (`pbem.orders.elsewhere`) were not among the
forms, so `verify --mail` of an honest acknowledgement holding one said "no note pbem writes".

Generated: the notes the intake gives to the replies of players29's generators (an order, a footer or a motto under
five signatures, `tests/test_replies29_signed.py`, every seventh case; every negation of
`tests/test_replies29_negations.py`), of players30's (a vowel dropped under the signature), and an order in the
subject beside the body's and in a forwarded mail, in each game: on b1f92b21 855 of 855 notes unknown (the new forms
aside; 97 of 97 of the suite's sample), now 0 of 866.  The suite runs every `SAMPLED`-th case (`REPLIES30_NOTES_ALL=1` all); and one acknowledgement
rendered whole, text and HTML, read by `acked.unwritten`.
"""

from __future__ import annotations

import os

from pbem.trust.acked import unnoted, unwritten
from tests.replies27 import KINDS, first_state, intake
from tests.test_replies29_negations import cases as negations
from tests.test_replies29_signed import SIGNATURES, body, cases, footer_cases
from tests.test_replies30_leftovers import SIGNED, dropped_cases

SAMPLED = 1 if os.environ.get("REPLIES30_NOTES_ALL") else 9


def notes() -> list[str]:
    out: list[str] = []
    for kind in KINDS:
        eng, state = first_state(kind)
        for _, top, typed, place, quoted in (cases(kind)[::7] + footer_cases(kind)[::7])[::SAMPLED]:
            out += intake(eng, state, "Alice", body(top, tuple(SIGNATURES.get(typed, (typed,))), place, quoted)).notes
        legal = next(r for r in eng.requests(state) if r.player == "Alice").legal
        out += intake(eng, state, "Alice", legal[0] + "\n", subject=f"[pbem g1] {legal[1]}").notes
        forwarded = f"fyi\n\n---------- Forwarded message ---------\nFrom: A <a@b.example>\nSubject: x\n\n{legal[0]}\n"
        out += intake(eng, state, "Alice", forwarded).notes
    for kind, _, line, _ in negations()[::SAMPLED]:
        eng, state = first_state(kind)
        out += intake(eng, state, "Alice", line + "\n").notes
    for kind, top, typed, place in dropped_cases()[::SAMPLED]:
        eng, state = first_state(kind)
        out += intake(eng, state, "Alice", "\n".join([top, *SIGNED[place], typed]) + "\n").notes
    return out


def test_every_note_of_the_reading_is_one_verify_knows() -> None:
    said = notes()
    assert len(said) >= 80
    unknown = [f"{u}: {n}" for n in said if (u := unnoted(f"  NOTE {n}\n"))]
    assert not unknown, f"{len(unknown)} of {len(said)}:\n" + "\n".join(unknown[:10])


def test_an_acknowledgement_with_a_note_on_a_line_under_the_signature_is_all_pbems() -> None:
    from pbem.render.templates import render_mail
    from tests.app.plain import loaded, mail, signed
    from tests.app.test_revision_policy import run
    from tests.test_mail_templates import RECORD, M

    g = loaded("dynasties", ("Alice", "Bob", "Carol"))
    d = run(mail("Alice", signed("Alice", "TRIBUTE Gold 5\n\nCheers,\nAlice\nTRIBUTE Gld 4")), g)
    ack = next(m.context for m in d.mails if "chatter" in m.context)
    assert any("under your signature" in str(p) for p in ack["problems"]), ack["problems"]
    r = render_mail("ack", {**ack, **M, **RECORD})
    assert unwritten(r.text, r.html, game="g1") == "", unwritten(r.text, r.html, game="g1")
