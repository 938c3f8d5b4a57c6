"""players31, part A: players30's leftovers, each a class with its generator (counts on 8aa88d6c and now).

1. A correction sent after the player's own order ended their Habsburg turn ("Sorry, wrong one. I meant:" and another
   EVENT) was refused "you are not asked anything now" without a word of the mail it meant to correct.  Now its answer
   names that mail as applied and standing (`pbem.app.earlier`, the mail loaded by `pbem.app.load` for a player asked
   nothing now).  `test_a_correction_after_the_turn_ended_names_the_earlier_mail_as_standing`.
2. "Thanks, Bob" on one line was a remark, not a sign-off: the line under it was read as an order (Dynasties: applied,
   replacing the order above it) or refused, the mail with it (Habsburg).  Now a sign-off and a name on one line
   (`pbem.orders.furniture.sign_off`) is one: what follows is the signature's, set aside, an order there told.
   `test_a_sign_off_with_the_name_on_its_line_sets_aside_what_follows`.
3. An address's line with no company's, street's or year's mark ("Pass 12, 8000 Zurich", "Place Vendome 12, Paris")
   under a command alone was refused, the mail with it, on its first appearance.  Now an address's shape (a house
   number and a town, a postcode, a street's abbreviation: `pbem.orders.closings.addressed`) marks it too.
   `test_an_address_footer_under_a_command_is_the_footer`.
4. "TRIBUTE Napoleon 2027" under a command (a year: the footer's mark) was set aside as a footer, never applied nor
   told.  Now a line whose order word is in capitals (`closings.as_syntax`) or that has a legal order's shape and no
   company's form (`closings.order_shaped`: "tribute napoleon 2027" is "TRIBUTE Copper 2"'s) is the engine's to
   refuse, and so told.  `test_an_order_shaped_line_under_a_command_is_told`.
5. An order word alone in the Subject beside body orders ("Re: [pbem g1] PASS" above "EVENT ...") was taken as a
   title, untold.  Now it is told when the engine takes it alone now (`pbem.app.lines.seeming_told`); one it does not
   ("Re: [pbem g1] TRIBUTE") is still a title.  `test_a_bare_order_word_in_the_subject_the_engine_takes_is_told`.

Every case of 2, 4 and 5 runs in the suite (pure), 160 of 3's 648, one of 1's 8 (mail tests over SQLite and
Maildir); `REPLIES31_ALL=1 python3 -m pytest tests/test_replies31_leftovers.py -n 2` runs them all.
"""

from __future__ import annotations

import os
import random

import pytest

from tests.replies27 import KINDS, first_state, intake


def _legal(kind: str) -> list[str]:
    eng, state = first_state(kind)
    return list(next(r for r in eng.requests(state) if r.player == "Alice").legal)


SIGN_OFFS = (
    "Thanks, Bob",
    "Cheers, Alice",
    "Best, Alice Martin",
    "Regards - Bob",
    "Thank you, Carol",
    "Many thanks, A. Martin",
    "Danke, Jörg",
    "Merci, Amélie!",
)
MOTTOS = ("PASS the salt", "Play hard, play fair")


def named_cases() -> list[tuple[str, str, str, str]]:
    """(game, the order above, the sign-off with a name, the line under it: another legal order or a motto)."""
    out = []
    for kind in KINDS:
        legal = _legal(kind)
        out += [(kind, legal[0], s, b) for s in SIGN_OFFS for b in (legal[1], *MOTTOS)]
    return out


def test_a_sign_off_with_the_name_on_its_line_sets_aside_what_follows() -> None:
    """On 8aa88d6c 40 of the 96 cases failed (every legal order under the sign-off: Dynasties, Italian Wars and
    Sixteen Thirty applied it, replacing the order above, Habsburg refused the mail; and Sixteen Thirty refused "Play
    hard, play fair" under it); now none: only the order above is applied, the one under told ("send it above that
    line"), a motto set aside."""
    failures = []
    chosen = named_cases()
    for kind, top, sign, below in chosen:
        eng, state = first_state(kind)
        got = intake(eng, state, "Alice", f"{top}\n\n{sign}\n{below}\n")
        told = any(n.startswith(f'"{below}"') for n in got.notes)
        if got.applied != [top] or (below not in MOTTOS and not told):
            failures.append(f"{kind} {sign!r} / {below!r}: applied {got.applied}, refused {got.refused}, {got.notes}")
    assert not failures, f"{len(failures)} of {len(chosen)}:\n" + "\n".join(failures[:20])


#: Address lines with no company's, street's or year's mark; `{w}` an order word of the game, written as a name.
ADDRESSES = (
    "{w} Vendome 12, Paris",
    "{w} 12, 8000 Zurich",
    "{w} des Vosges 4, 75004 Paris",
    "{w} Hill Pkwy 1600",
    "{w} Gardens 7, Springfield",
    "{w}str. 5, 10115 Berlin",
)
#: The brief's own, starting with no order word or one of Sixteen Thirty's (PLACE).
PLAIN = ("Place Vendome 12, Paris", "Hauptstr. 5, 10115 Berlin", "1600 Amphitheatre Pkwy")


def address_cases() -> list[tuple[str, str, str]]:
    out = []
    for kind in KINDS:
        eng, _ = first_state(kind)
        words = sorted({w.title() for w in eng.order_words if w.isalpha()})
        lines = [*PLAIN, *(a.format(w=w) for w in words for a in ADDRESSES)]
        out += [(kind, c, line) for c in ("HELP", "STATUS") for line in lines]
    return out


ADDRESSES_SAMPLED = 160  # cases a suite run reads (all with REPLIES31_ALL=1)


def test_an_address_footer_under_a_command_is_the_footer() -> None:
    """On 8aa88d6c 522 of the 648 cases were refused (the mail with them); now none: the command answered, nothing
    refused, the address listed as not read."""
    failures = []
    chosen = address_cases()
    if not os.environ.get("REPLIES31_ALL"):
        chosen = random.Random("replies31:addresses").sample(chosen, ADDRESSES_SAMPLED)
    for kind, command, line in chosen:
        eng, state = first_state(kind)
        got = intake(eng, state, "Alice", f"{command}\n\n{line}\n")
        if got.refused or got.applied or command not in got.asked or line.rstrip("!") not in got.ex.chatter:
            failures.append(f"{kind} {command} + {line!r}: refused {got.refused}, chatter {got.ex.chatter}")
    assert not failures, f"{len(failures)} of {len(chosen)}:\n" + "\n".join(failures[:20])


def _name_number(order: str) -> bool:
    """Whether `order` is its order word, a word and a number ("TRIBUTE Copper 2")."""
    words = order.split()
    return len(words) == 3 and words[1].isalpha() and words[2].isdigit()


def shaped_cases() -> list[tuple[str, str, str]]:
    """(game, the command, the line): each order word of the game with an unknown name and a year ("TRIBUTE Napoleon
    2027"), and in lower case where a legal order has that shape ("tribute napoleon 2027": "TRIBUTE Copper 2")."""
    out = []
    for kind in KINDS:
        eng, _ = first_state(kind)
        lines = {f"{w} Napoleon 2027" for w in eng.order_words if " " not in w}
        lines |= {f"{o.split()[0]} napoleon 2027".lower() for o in _legal(kind) if _name_number(o)}
        out += [(kind, c, line) for c in ("HELP", "STATUS") for line in sorted(lines)]
    return out


def test_an_order_shaped_line_under_a_command_is_told() -> None:
    """On 8aa88d6c 120 of the 128 cases were set aside silently (a year: the footer's mark); now none: each refused
    with the engine's reason (quoted, so told), the command still answered.  A company's line under a command is
    still the footer (`tests/test_replies30_leftovers.py`)."""
    failures = []
    chosen = shaped_cases()
    assert len(chosen) >= 60
    for kind, command, line in chosen:
        eng, state = first_state(kind)
        got = intake(eng, state, "Alice", f"{command}\n{line}\n")
        if got.refused != [line] and not any(line in n for n in got.notes):
            failures.append(f"{kind} {command} + {line!r}: refused {got.refused}, chatter {got.ex.chatter}")
    assert not failures, f"{len(failures)} of {len(chosen)}:\n" + "\n".join(failures[:20])


def subject_cases() -> list[tuple[str, str, str, bool]]:
    """(game, the subject's order word, the body's order, whether the engine takes the word alone now)."""
    out = []
    for kind in KINDS:
        eng, state = first_state(kind)
        legal = _legal(kind)
        for word in eng.order_words:
            taken = eng.apply(state, "Alice", [word]).accepted
            out.append((kind, word, next(o for o in legal if o.upper() != word.upper()), taken))
    return out


def test_a_bare_order_word_in_the_subject_the_engine_takes_is_told() -> None:
    """On 8aa88d6c 12 of the 12 words the engine takes alone (Habsburg's PASS, DONE, NO EVENT ...; Dynasties' TAKE,
    CONCLAVE) were dropped untold beside the body's order; now none: told, quoted, with the line to send.  The 65
    others (TRIBUTE, MELD, PLACE-START ...) are titles, told nothing, before and now."""
    failures = []
    chosen = subject_cases()
    for kind, word, body, taken in chosen:
        eng, state = first_state(kind)
        got = intake(eng, state, "Alice", f"Hi\n\n{body}\n", subject=f"Re: [pbem g1] {word}")
        said = [n for n in got.notes if n.startswith(f'"{word}" in the subject was not read')]
        if got.applied != [body] or bool(said) != taken:
            failures.append(f"{kind} {word!r} (taken alone: {taken}): applied {got.applied}, told {got.notes}")
    assert sum(t for *_, t in chosen) >= 8
    assert not failures, f"{len(failures)} of {len(chosen)}:\n" + "\n".join(failures[:20])


CORRECTIONS = ("Sorry, wrong one. I meant:", "Correction:", "Ignore my last mail, I meant", "")


def correction_cases() -> list[tuple[str, int]]:
    return [(c, k) for c in CORRECTIONS for k in (1, 2)]


def _sampled() -> list[tuple[str, int]]:
    every = correction_cases()
    return every if os.environ.get("REPLIES31_ALL") else random.Random("replies31").sample(every, 1)


@pytest.mark.parametrize(("said", "other"), _sampled())
def test_a_correction_after_the_turn_ended_names_the_earlier_mail_as_standing(home, clock, said, other) -> None:
    """Real SQLite and Maildir, Habsburg: Alice's first legal order ends her turn, then a second mail 35 s later with
    a correction's words and another legal order.  On 8aa88d6c 8 of the 8 cases were refused without a word of the
    first mail; now none: the answer names it ("was applied and stands"), and `pbem verify --mail` knows the note."""
    from pbem.trust.acked import unwritten
    from tests.conftest import body_of, deliver, order_mail, sent_mail
    from tests.test_moderator import PLAYERS, asked, new_game, run_poll

    name = new_game(home, clock, kind="habsburg", name="g1", players=PLAYERS)
    run_poll(home, clock)
    seen: set[str] = set()
    req = next(r for r in asked(home, name)[0] if r.legal)
    address = dict(PLAYERS)[req.player]
    last = [m for m in sent_mail(home, seen) if address in str(m["To"])][-1]
    first, second = req.legal[0], req.legal[other]
    for body, when in ((first, "12:00:05"), (f"{said}\n{second}".strip(), "12:00:40")):
        deliver(home, order_mail(f"{req.player} <{address}>", name, f"{body}\n\nThanks", subject=f"Re: {last['Subject']}",
                                 In_Reply_To=str(last["Message-ID"]), Date=f"Mon, 05 Jan 2026 {when} +0000"))  # fmt: skip
    run_poll(home, clock)
    mails = [m for m in sent_mail(home, seen) if address in str(m["To"])]
    answer = body_of(mails[1])
    assert "NOTHING WAS APPLIED" in answer and "was applied and stands" in answer, answer
    assert f'"Re: {last["Subject"]}" sent 2026-01-05 12:00 UTC' in answer, answer
    html = mails[1].get_body(preferencelist=("html",))
    assert not unwritten(answer, html.get_content() if html else "", game=name), answer
