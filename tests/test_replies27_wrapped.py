"""players27, item 1: an order a hard wrap parted inside a name is offered whole, never applied as another.

A client or forwarder that wraps at 20 to 40 columns parts "EVENT CLAIM First Cousins TARGET Carol" into "EVENT CLAIM
First" and "Cousins TARGET Carol".  players26 reads the lines as one order when the break follows a comma, "+", "&"
or "and"; parted elsewhere, the first line was refused alone (or read as the whole order, a card's name completed)
and the answer said nothing of the order meant.  Now a refused line whose joining with the lines right under it is a
legal order of the player's is answered with that order to send on one line (`pbem.app.wraps`): offered, not read,
as the deadline's reading and `pbem verify` read a mail without the game's state.

Generated: every legal order of the first step of the four seeded games (every player's), wrapped at 20, 30 and 40
columns (`tests/test_replies26_wrapped.cases`, 156 wrapped lines), under a greeting and above a sign-off, read as the
intake reads a mail (`tests/replies27.intake`).  A case is answered as meant when the whole order is applied, or the
message is refused and a note offers exactly the whole order.  On efd12b07 100 of the 156 were refused with no offer;
now none is (35 read whole, 21 applied as the whole order, 100 refused with the order offered).  No case is applied
as another order, then or now.  Every case runs in the suite (about 0.5 s).
"""

from __future__ import annotations

from pbem import engine as registry
from tests.replies27 import first_state, intake
from tests.test_replies26_wrapped import cases


def misread(kind: str, player: str, order: str, lines: tuple[str, ...]) -> str:
    eng, state = first_state(kind)
    got = intake(eng, state, player, "Hi all,\n" + "\n".join(lines) + "\nCheers\n")
    whole = eng.apply(state, player, [order]).state
    if got.applied:
        return "" if got.state == whole else f"{kind}: {lines} applied as {got.applied}, not {order!r}"
    offered = [n for n in got.notes if n.endswith(f"send it on one line: {order}")]
    return "" if len(offered) == 1 else f"{kind}: {lines} refused {got.refused}, told {got.notes}"


def test_an_order_wrapped_inside_a_name_is_offered_whole_and_never_applied_as_another() -> None:
    every = cases()
    failures = [why for case in every if (why := misread(*case))]
    assert len(every) == 156, "the generator drew other orders"
    assert not failures, f"{len(failures)} of {len(every)}:\n" + "\n".join(failures)


def test_a_remark_under_a_refused_order_is_offered_nothing() -> None:
    """Only a legal order joined is offered: a remark under a refused order is listed, nothing more."""
    eng = registry.get("habsburg")
    state = eng.setup(["Alice", "Bob", "Carol"], "s", {})[0]
    got = intake(eng, state, "Alice", "EVENT CLAIM First\nCousins are fun\n")
    assert got.refused == ["EVENT CLAIM First"] and not any("one line" in n for n in got.notes)
    got = intake(eng, state, "Alice", "EVENT CLAIM First\n\nCousins TARGET Carol\n")  # a blank line: no wrap
    assert got.refused == ["EVENT CLAIM First"] and not any("one line" in n for n in got.notes)


def test_verify_knows_the_offer_as_a_note_pbem_writes() -> None:
    """`pbem verify --mail` holds every note of an answer to the forms pbem writes (`pbem.trust.acked.NOTES`)."""
    from pbem.app.join import footer_note
    from pbem.app.wraps import wrap_note
    from pbem.trust.acked import unnoted

    offer = wrap_note("EVENT CLAIM First", "Cousins TARGET Carol", "EVENT CLAIM First Cousins TARGET Carol")
    assert unnoted(f"  NOTE {offer}\n  NOTE {footer_note('Join us on Discord')}\n") == ""
    assert unnoted("  NOTE if a line break parted one order, send it on one line: PASS\n") != ""
