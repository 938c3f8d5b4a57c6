"""players29, item 1: a footer the player writes under every mail is learnt from their earlier mails to pbem.

A footer starting with an order word with a capital or a digit ("Play Corp Ltd. 2027", "Trade Centre, 4 Market
Street") is refused under the orders as a mistyped order may be (`pbem.app.lines.closing`), the whole mail with it,
every time the player writes.  `pbem.app.footprints` reads, for a refused mail, the player's newest accepted mails of
the game (their kept copies): a line they wrote there that no applied order is was set aside then, and is set aside
now when it names nothing the game knows (`Extracted.footers`).

Generated (pure, as the shell decides again): each of `FOOTERS` under each of the first `ORDERS` legal orders of each
game's first step where the footer starts with an order word, with an earlier mail of the player's that carried it
(under HELP and her sign-off, accepted) or none.  Right: with the earlier mail, the order applied and the footer
listed as chatter; without, refused as before; and a line an earlier mail applied, or one naming the game, is never
set aside.  On 90a53973, which reads no earlier mail, all 45 cases were refused (as each is here without it); now
none is.  3 more were left out until players30: Habsburg took "Discard Studios Inc." after an EVENT as a DISCARD
with "nothing more to do: your turn is already over", applied as a no-op, with the earlier mail or without (3 of the
48 cases fail on b1f92b21); a DISCARD after the turn ended must name a discard now (`pbem.engine.habsburg.orders`),
so the line is the footer it is: 0 of 48.  Every case runs in the suite (under 1 s;
the mail test about 2 s).
"""

from __future__ import annotations

import json

import pytest

from pbem.app.footprints import footer_keys
from pbem.app.lines import read_again
from pbem.engine import slots
from pbem.history.export import build
from pbem.orders.extract import extract
from pbem.record import store
from pbem.record.db import session
from pbem.trust.sent import check_sent
from tests.conftest import body_of, deliver, order_mail, sent_mail, signed
from tests.replies27 import KINDS, first_state
from tests.test_moderator import asked, new_game, run_poll

#: Footers players sign with that start with a word some game reads, with a capital or a digit.
FOOTERS = (
    "Play Corp Ltd. 2027",
    "Trade Centre, 4 Market Street",
    "Pass Labs GmbH, Berlin",
    "Vote Smith 2026!",
    "Discard Studios Inc.",
    "Event Horizon Ltd",
    "Tribute Band Tours 2027",
    "Place Vendome 12, Paris",
    "Negate Software BV",
    "Meld Design Co.",
)
ORDERS = 3


def decided(kind: str, body: str, earlier: list[tuple[str, tuple[str, ...]]]) -> tuple[list[str], list[str], list[str]]:
    """(applied, refused, chatter) of `body` from Alice at `kind`'s first step, with her `earlier` mails."""
    eng, state = first_state(kind)
    ex = extract(body, "", tuple(eng.order_words))
    ex.footers = footer_keys(earlier)
    result = eng.apply(state, "Alice", list(ex.orders))
    lines, result, _, chatter = read_again(eng, state, "Alice", list(ex.orders), result, {"problems": []}, ex)
    result = slots.one_per_slot(eng, state, "Alice", lines, result)
    if result.accepted:
        return list(lines), [], chatter
    return [], [r.line for r in result.lines if not r.ok], chatter


def cases() -> list[tuple[str, str, str]]:
    out = []
    for kind in KINDS:
        eng, state = first_state(kind)
        legal = next(r for r in eng.requests(state) if r.player == "Alice").legal[:ORDERS]
        words = {w.upper() for w in eng.order_words}
        out += [(kind, o, f) for o in legal for f in FOOTERS if f.split()[0].upper() in words]
    return out


def test_a_footer_the_player_signed_an_earlier_mail_with_is_set_aside() -> None:
    """Each case: refused without the earlier mail (as on 90a53973, which read none: 45 of 45), applied with it, the
    footer listed."""
    chosen = cases()
    assert len(chosen) >= 30
    failures = []
    for kind, order, footer in chosen:
        body = f"{order}\n\n{footer}\n"
        before = decided(kind, body, [])
        after = decided(kind, body, [(f"HELP\n\nCheers,\nAlice\n{footer}\n", ())])
        if before[0] or not before[1] or after[0] != [order] or footer not in after[2]:
            failures.append(f"{kind} {order!r} + {footer!r}: without {before}, with {after}")
    assert not failures, f"{len(failures)} of {len(chosen)}:\n" + "\n".join(failures)


@pytest.mark.parametrize("kind", KINDS)
def test_a_mistyped_order_sent_again_or_an_order_once_applied_is_never_taken_for_a_footer(kind: str) -> None:
    """The earlier mails say nothing of a line they applied, nor of one a refused mail carried (never read here:
    only accepted mails are), and a line naming the game is never set aside."""
    eng, state = first_state(kind)
    legal = next(r for r in eng.requests(state) if r.player == "Alice").legal
    first, mistyped = legal[0], legal[0] + " 77"
    applied = decided(kind, f"{first}\n{mistyped}\n", [(f"{first}\n{mistyped}\n", (first, mistyped))])
    named = decided(kind, f"{first}\n{mistyped}\n", [(f"HELP\n{mistyped}\n", ())])
    assert not applied[0] and applied[1], applied
    assert not named[0] and named[1], named


def test_through_the_mail_a_footer_under_help_then_under_an_order(home, clock) -> None:
    """Real SQLite and Maildir: Alice's HELP mail signed with her company's footer under "Cheers," is answered; her
    next mail, an order with the same footer and no sign-off, is applied, the footer listed as not read (on 90a53973:
    refused, "NOTHING WAS APPLIED", as every mail she sends so)."""
    players = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
    name = new_game(home, clock, kind="dynasties", name="dy1", players=players)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    footer = "Play Corp Ltd. 2027"
    first = f"HELP\n\nCheers,\nAlice\n{footer}"  # under her sign-off: the signature's, the mail accepted
    mails = [order_mail("Alice <alice@players.test>", name, signed("Alice", first))]
    deliver(home, mails[0])
    run_poll(home, clock)
    sent_mail(home, seen)
    requests, _ = asked(home, name)
    order = next(r for r in requests if r.player == "Alice").legal[0]
    mails.append(order_mail("Alice <alice@players.test>", name, signed("Alice", f"{order}\n\n{footer}")))
    deliver(home, mails[1])
    run_poll(home, clock)
    answers = [m for m in sent_mail(home, seen) if "alice" in str(m["To"])]
    text = "\n".join(body_of(m) for m in answers)
    assert "NOTHING WAS APPLIED" not in text and order in text and footer in text, text
    # `pbem verify --sent` of her Sent folder learns the footer from her other mail: no SUBSTITUTED (players29)
    with session(home.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, name), as_player="Alice")))
    checked = check_sent(doc, mails, "Alice")
    assert checked.ok and any(footer in n for n in checked.notes), (checked.problems, checked.notes)
