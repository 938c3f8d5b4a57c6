"""players30, part A: players29's leftovers, each a class with its generator (counts on b1f92b21 and now).

1. A company's or an address's line under a bare command ("HELP" above "Play Corp Ltd. 2027", capitals and digits)
   was refused, the mail with it, on its first appearance, and so never learnt as the player's footer (players29
   learns only from accepted mails): every order mail they signed so was refused in turn.  Now such a line
   (`pbem.orders.closings.footer_marked`: a company's form, a street or a year, naming nothing of the game's) under a
   command alone is the footer, listed as not read (`pbem.app.footers`), and `pbem verify --mail` accepts the mail
   so (`pbem.trust.sent.set_aside`).  `test_a_footer_under_a_bare_command_is_the_footer`.
2. An order under the signature with a letter dropped from a short word of the game's ("TRIBUTE Gld 4": GOLD) named
   nothing the game knows (a typo is read only in a word of five letters or more) and was left the signature's,
   untold.  Now the word is read as the game's word it misses a letter of (`pbem.app.signed.mended`) and the line
   told, quoted, with what would be accepted.  `test_an_order_with_a_letter_dropped_under_the_signature_is_told`.
3. The acknowledgement listed every line set aside under "Not read as orders (set aside: they start with no order
   word ...)", also lines that do start with one (a signature's motto under "Thanks," / "Bob", a company's footer, a
   closing): the wrong reason.  Such a list now says why those are set aside (`chatter_worded`,
   `pbem.app.answers.ack_context`).  `test_the_acknowledgement_gives_the_reason_lines_starting_with_an_order_word_were_set_aside`.
4. Habsburg took "Discard Studios Inc." (a company's line) after a turn-ending order as a DISCARD that "changes
   nothing: your turn is already over", applied.  A DISCARD after the turn ended must name a discard now
   (`pbem.engine.habsburg.orders._names_a_discard`).  `test_a_company_line_starting_with_discard_after_the_turn_ends_is_never_applied`.

Every case runs in the suite (`python3 -m pytest tests/test_replies30_leftovers.py -n 0`); figures in each test.
"""

from __future__ import annotations

import pytest

from pbem.app import views
from pbem.render.templates import render_mail
from pbem.trust.acked import unwritten
from tests.app.plain import loaded, mail, signed
from tests.app.test_revision_policy import run
from tests.replies27 import KINDS, first_state, intake
from tests.test_mail_templates import RECORD, M

#: Company and address lines starting with an order word of some game, capitals and digits (players29's footers and
#: more alike).
COMPANY = (
    "Play Corp Ltd. 2027",
    "Trade Centre, 4 Market Street",
    "Pass Labs GmbH, Berlin",
    "Vote Smith 2026!",
    "Discard Studios Inc.",
    "Event Horizon Ltd",
    "Tribute Band Tours 2027",
    "Negate Software BV",
    "Meld Design Co.",
    "Offer Logistics LLC",
    "Place Holdings PLC",
    "Drop Shipping AG",
    "Take Two Interactive Inc.",
    "Leader Publishing Ltd, 12 High Street",
    "Call Centre Services 1998",
)
COMMANDS = ("HELP", "STATUS")


def command_cases() -> list[tuple[str, str, str, str]]:
    """(game, the command, the footer, the blank line between) for each footer starting with one of its words."""
    out = []
    for kind in KINDS:
        eng, _ = first_state(kind)
        words = {w.upper() for w in eng.order_words}
        out += [
            (kind, c, f, gap) for c in COMMANDS for f in COMPANY if f.split()[0].upper() in words for gap in ("", "\n")
        ]
    return out


def test_a_footer_under_a_bare_command_is_the_footer() -> None:
    """On b1f92b21 all 92 cases were refused ("NOTHING WAS APPLIED", the footer quoted as a refused order); now none:
    the command answered, nothing refused, the footer listed.  A mistyped order under HELP is still refused
    (`tests/test_replies28_footers.py`)."""
    chosen = command_cases()
    assert len(chosen) >= 60
    failures = []
    for kind, command, footer, gap in chosen:
        eng, state = first_state(kind)
        got = intake(eng, state, "Alice", f"{command}\n{gap}{footer}\n")
        if (
            got.refused
            or got.applied
            or command not in got.asked
            or footer.rstrip(".!") not in " ".join(got.ex.chatter)
        ):
            failures.append(f"{kind} {command!r} + {footer!r}: refused {got.refused}, chatter {got.ex.chatter}")
    assert not failures, f"{len(failures)} of {len(chosen)}:\n" + "\n".join(failures)


SIGNED = {"dash-dash": ("", "-- ", "Alice"), "cheers": ("", "Cheers,", "Alice"), "thanks": ("Thanks,", "Alice")}


def dropped_cases() -> list[tuple[str, str, str, str]]:
    """(game, the line above, the line typed, the place): each legal order of Alice's first step with a vowel dropped
    from a word of four or five letters, its last number changed too ("TRIBUTE Gold 5": "TRIBUTE Gld 4")."""
    out = []
    for kind in KINDS:
        eng, state = first_state(kind)
        legal = next(r for r in eng.requests(state) if r.player == "Alice").legal
        typed: set[str] = set()
        phrases = {w.upper() for w in eng.order_words if " " in w}
        for order in legal:
            words = order.split()
            if " ".join(words[:2]).upper() in phrases:
                continue  # "NO EVENT": the order word mistyped, not its argument
            for i, w in enumerate(words[1:], 1):
                if len(w) in (4, 5) and w.isalpha():
                    for k in (k for k in range(1, len(w)) if w[k].lower() in "aeiou"):
                        said = [*words[:i], w[:k] + w[k + 1 :], *words[i + 1 :]]
                        if said[-1].isdigit():
                            said[-1] = str(int(said[-1]) + 1)
                        typed.add(" ".join(said))
        out += [(kind, legal[0], t, p) for t in sorted(typed) for p in SIGNED]
    return out


def test_an_order_with_a_letter_dropped_under_the_signature_is_told() -> None:
    """On b1f92b21 3 of the 156 cases were untold (those one typo from no legal order: "TRIBUTE Gld 6" under each
    sign-off; the others are one typo from a legal order, told so since players29); now none: each is quoted with why it is no order and what would be accepted, and only the line above is applied."""
    chosen = dropped_cases()
    assert len(chosen) >= 60
    failures = []
    for kind, top, typed, place in chosen:
        eng, state = first_state(kind)
        got = intake(eng, state, "Alice", "\n".join([top, *SIGNED[place], typed]) + "\n")
        said = [n for n in got.notes if n.startswith(f'"{typed}"')]
        ok = bool(said) and all("what would be accepted" in n or "send it above that line" in n for n in said)
        if not ok or got.applied != [top]:
            failures.append(f"{kind} {typed!r} ({place}): applied {got.applied}, told {got.notes}")
    assert not failures, f"{len(failures)} of {len(chosen)}:\n" + "\n".join(failures[:30])


OLD = "they start with no order word"
NEW = "lines under your signature or sign-off, footers, closings and remarks are not read"
#: Lines under the player's sign-off: a motto starting with an order word, or a greeting.
LINES = (
    "PLAY hard, play fair",
    "PASS the salt",
    "Play Corp Ltd.",
    "Take care,",
    "Vote for us in the Club of the Year awards",
    "Discard this e-mail if you are not the intended recipient",
    "Trade fair 2027: visit us at stand 4",
    "See you all next week",
)


def ack_cases() -> list[tuple[str, str, str, bool]]:
    """(game, the sign-off, the line under it, whether it starts with one of the game's order words); a "-- "
    signature's lines are never listed."""
    out = []
    for kind in KINDS:
        words = {w.upper() for w in first_state(kind)[0].order_words}
        out += [(kind, p, line, line.split()[0].upper() in words) for p in ("cheers", "thanks") for line in LINES]
    return out


def _ack(kind: str, place: str, line: str) -> tuple[str, str]:
    players = ("Alice", "Bob") if kind == "italian-wars" else ("Alice", "Bob", "Carol")
    g = loaded(kind, players)
    eng = views.engine(g)
    req = next(r for r in eng.requests(g.state) if r.legal)
    body = "\n".join([req.legal[0], *SIGNED[place][:-1], req.player, line])
    d = run(mail(req.player, signed(req.player, body)), g)
    # the acknowledgement: its own mail, or the top of the report that answers the message (Habsburg's turn going on)
    ack = next((m.context for m in d.mails if "chatter" in m.context), None) or next(r.ack for r in d.reports if r.ack)
    r = render_mail("ack", {**ack, **M, **RECORD})
    return r.text, r.html


def test_the_acknowledgement_gives_the_reason_lines_starting_with_an_order_word_were_set_aside() -> None:
    """On b1f92b21 60 of the 128 renderings (the 30 of the 64 cases whose line under the sign-off starts with one of
    the game's order words, text and HTML) gave "they start with no order word"; now none does: those give the reason
    that holds, the others keep their heading."""
    failures = []
    chosen = ack_cases()
    for kind, place, line, worded in chosen:
        text, html = _ack(kind, place, line)
        if wrong := unwritten(text, html, game="g1"):  # `pbem verify --mail` knows the heading as pbem's
            failures.append(f"{kind} {place} {line!r}: verify --mail says it {wrong}")
        for part, said in (("text", text), ("HTML", html)):
            if (NEW in said) != worded or (OLD in said) == worded:
                failures.append(f"{kind} {place} {line!r} ({part}): {said[said.find('Not read') :][:200]!r}")
    assert not failures, f"{len(failures)} of {2 * len(chosen)}:\n" + "\n".join(failures[:20])


DISCARDS = ("Discard Studios Inc.", "Discard Records Ltd", "Discard Protocol", "DISCARD-IF-NEEDED Logistics GmbH")


def test_a_company_line_starting_with_discard_after_the_turn_ends_is_never_applied() -> None:
    """Habsburg, after each legal order of Alice's first step that ends her turn (an EVENT, NO EVENT): on b1f92b21 all
    the 24 company lines were applied as a DISCARD doing nothing; now none is (refused: a company's line under the
    orders on its first appearance, as players29's footers are).  A real discard after the turn (LOWEST, HIGHEST, a
    card of the game) is still accepted as doing nothing."""
    eng, state = first_state("habsburg")
    legal = next(r for r in eng.requests(state) if r.player == "Alice").legal
    ending = sorted({o for o in legal if not o.startswith(("MELD", "DISCARD"))} | {"NO EVENT"})
    failures = []
    for order in ending:
        for line in DISCARDS:
            got = intake(eng, state, "Alice", f"{order}\n\n{line}\n")
            if any(a.upper().startswith("DISCARD") for a in got.applied):
                failures.append(f"{order!r} + {line!r}: applied {got.applied}")
        for real in ("DISCARD-IF-NEEDED LOWEST", "DISCARD HIGHEST", "DISCARD if needed lowest"):
            got = intake(eng, state, "Alice", f"{order}\n{real}\n")
            if got.applied != [order, real]:
                failures.append(f"{order!r} + {real!r}: applied {got.applied}, refused {got.refused}")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures)


@pytest.mark.parametrize("kind", ["dynasties"])
def test_a_command_with_a_mistyped_order_under_it_is_still_refused(kind: str) -> None:
    """The other side of item 1: "HELP" above "TRIBUTE Gold 77" or "TRIBUTE Gld 2027" names the game: refused."""
    eng, state = first_state(kind)
    for line in ("TRIBUTE Gold 77", "TRIBUTE Gold 2027", "TRIBUTE Gld 2027", "TRIBUTE Copper Ltd"):
        got = intake(eng, state, "Alice", f"HELP\n\n{line}\n")
        assert got.refused == [line], (line, got.refused, got.ex.chatter)
