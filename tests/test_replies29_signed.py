"""players29, item 2: an order mistyped under the player's signature is told, quoted with why and what would be
accepted; the signature's own lines (footers, mottos) are not.

Lines under a "-- " signature, or under a sign-off after the orders ("Cheers," / "Alice"), are the signature's and
never read (`pbem.orders.furniture`, `pbem.orders.extract._not_an_order`).  One the engine takes alone was told with
the line to send; a mistyped one ("TRIBUTE Gld 5", "TRIBUTE Gold 27", "DISCARD Napoleon") was dropped silently, the
player answered as if it were not there (`pbem.app.signed` tells it now, by the rule `pbem.app.lines.closing` tells a
footer from an order mistyped under the orders).

Generated: the mistyped orders of `tests/test_replies28_footers` (each `MISTYPES` of each game's first legal orders
and of the first line each other order word's refusal offers) under `SIGNED` places below a valid order and below
HELP; a case is right when nothing more is applied than the line above, nothing is refused, and a note quotes the line
with "what would be accepted" or "send it above that line".  And every footer of `tests/test_replies27_footers`
(`FOOTERS`) and motto (`MOTTOS`) in the same places: right when no note quotes any of its lines and only the line above is applied.
On 90a53973 2,444 of the 2,460 mistyped cases were untold (dropped silently, or, one typo from a legal order under a
sign-off, told "an order line starts with its order word", which it does; the 16 told: lines the engine takes alone)
and none of the 3,120 footer and motto cases was told; now 0 and 0.  `NAMELESS` mistypes ("DISCARD Napoleon") are left out:
under a signature a line naming nothing of the game's is the signature's.  The suite runs `SAMPLED` cases of each
kind (`REPLIES29_SIGNED_ALL=1 python3 -m pytest tests/test_replies29_signed.py -n 0` runs all, about 20 s).
"""

from __future__ import annotations

import os
import random

import pytest

from tests.replies27 import KINDS, first_state, intake
from tests.test_replies27_footers import FOOTERS
from tests.test_replies28_footers import MISTYPES, _orders

#: Where the signature stands between the line above and the line under it.
SIGNED: dict[str, tuple[str, ...]] = {
    "dash-dash": ("", "-- ", "Alice"),
    "dash-dash-bare": ("", "--", "Alice Smith"),
    "cheers": ("", "Cheers,", "Alice"),
    "thanks": ("Thanks,",),
    "best": ("", "Best regards,", "Alice Smith", "Play Corp"),
}
#: Mottos and company lines a signature carries that start with an order word (players14's and this item's).
MOTTOS: dict[str, tuple[str, ...]] = {
    "motto-no-event": ("NO EVENT is too small for us",),
    "motto-play": ("PLAY hard, play fair",),
    "motto-pass": ("PASS the salt",),
    "company": ("Play Corp Ltd.", "Trade Centre, 4 Market Street"),
    "discard-old": ("DISCARD old habits, ACCEPT new challenges",),
}
SIGNATURES = {**FOOTERS, **MOTTOS}
QUOTE = ("", "On Mon, 5 Jan 2026 at 12:00, pbem <pbem@example.org> wrote:", "> Turn 1, Alice to play")
SAMPLED = 24
#: Mistypes naming nothing of the game ("DISCARD Napoleon"): under a signature, the signature's (`pbem.app.signed`).
NAMELESS = frozenset(("unknown-name", "unknown-names"))


def cases(kind: str) -> list[tuple[str, str, str, str, bool]]:
    """(game, the line above, the line under the signature, the place, whether a quote follows)."""
    eng, state = first_state(kind)
    above = next(r for r in eng.requests(state) if r.player == "Alice").legal[0]
    out = []
    for order in _orders(kind):
        typed = sorted({f(order) for name, f in MISTYPES.items() if name not in NAMELESS} - {order})
        out += [(kind, top, t, p, q) for top in (above, "HELP") for t in typed for p in SIGNED for q in (False, True)]
    return out


def footer_cases(kind: str) -> list[tuple[str, str, str, str, bool]]:
    eng, state = first_state(kind)
    above = next(r for r in eng.requests(state) if r.player == "Alice").legal[0]
    return [(kind, top, f, p, q) for top in (above, "HELP") for f in SIGNATURES for p in SIGNED for q in (False, True)]


def body(top: str, under: tuple[str, ...], place: str, quoted: bool) -> str:
    return "\n".join([top, *SIGNED[place], *under, *(QUOTE if quoted else ())]) + "\n"


def untold(kind: str, top: str, typed: str, place: str, quoted: bool) -> str:
    """Why the mistyped line under the signature was not told as it should be, or ""."""
    eng, state = first_state(kind)
    got = intake(eng, state, "Alice", body(top, (typed,), place, quoted))
    want = eng.apply(state, "Alice", [top]).state if top != "HELP" else None
    said = [n for n in got.notes if n.startswith(f'"{typed}"')]
    ok = bool(said) and all("what would be accepted" in n or "send it above that line" in n for n in said)
    if ok and not got.refused and got.state == want:
        return ""
    return f"{kind}: {typed!r} under {top!r} ({place}, quoted {quoted}): applied {got.applied}, told {got.notes}"


def told_footer(kind: str, top: str, footer: str, place: str, quoted: bool) -> str:
    """Why a footer under the signature was told as an error or changed what was applied, or ""."""
    eng, state = first_state(kind)
    lines = SIGNATURES[footer]
    got = intake(eng, state, "Alice", body(top, lines, place, quoted))
    want = eng.apply(state, "Alice", [top]).state if top != "HELP" else None
    said = [n for n in got.notes if any(n.startswith(f'"{line}"') for line in (*SIGNED[place], *lines) if line)]
    if not said and not got.refused and got.state == want:
        return ""
    return f"{kind}: footer {footer} under {top!r} ({place}, quoted {quoted}): applied {got.applied}, told {said}"


def sample(kind: str, every: list[tuple[str, str, str, str, bool]]) -> list[tuple[str, str, str, str, bool]]:
    if os.environ.get("REPLIES29_SIGNED_ALL"):
        return every
    return random.Random(f"replies29:{kind}").sample(every, min(SAMPLED, len(every)))


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_mistyped_under_the_signature_is_told_with_what_would_be_accepted(kind: str) -> None:
    chosen = sample(kind, cases(kind))
    failures = [why for case in chosen if (why := untold(*case))]
    assert not failures, f"{len(failures)} of {len(chosen)} untold:\n" + "\n".join(failures[:30])


@pytest.mark.parametrize("kind", KINDS)
def test_a_footer_under_the_signature_is_never_told_as_an_error(kind: str) -> None:
    chosen = sample(kind, footer_cases(kind))
    failures = [why for case in chosen if (why := told_footer(*case))]
    assert not failures, f"{len(failures)} of {len(chosen)} told:\n" + "\n".join(failures[:30])
