"""players28, item 1: a footer of five words or more, or with a capital or a digit, under a command or an order, and a
mistyped order in the same places: the footer never read and never a reason to refuse, the mistyped order never set
aside.

players27 left 160 of its 5,984 footer cases (`tests/test_replies27_footers.py`, `REPLIES27_ALL=1`) refusing the
mail: "Done is better than perfect.", "Keep calm and carry on", "Offer valid while stocks last" (five words or more),
"Vote for us in the Club of the Year awards", "Join the conversation at the Boardgame Guild" (capitals), "Leader in
board games since 1999", "Trade fair 2027: visit us at stand 4" (digits), under each command, JOIN and order of a game
where they start with an order word.  A closing was set aside only when short, in lower case and without a digit
(`pbem.app.lines.closing`); now a line in lower case of any length (twelve words at most), or a sentence of five
words or more with two words of sentences ("the", "for", "at", "since": `pbem.orders.closings.FUNCTION_WORDS`, none
a word of the game's), naming no word the game knows now and none one typo from one, is too.  What tells a mistyped
order from a footer is what it names: a word of a legal order or a name the engine offered (of two letters or more,
numbers aside, in a sentence: "VOTE for the Red side"), a word one typo from one, or a short line with a capital or
a digit ("VOTE Green", "TRIBUTE Gold 77").

Generated here: mistyped orders (`MISTYPES` of each of the first `ORDERS` legal orders of each game's first step,
and of the first legal line each refusal offers for each of the game's other order words) under a valid order and
under HELP, right under it and after a blank line (the places the footers were refused in).  A case is read as meant
when the mistyped line is refused with its reason or applied as the engine reads it, or a note quotes it: never set
aside as chatter.  On c83d8ea7 4 of the 636 cases were set aside ("trade want any", Sixteen Thirty's order of a later
step in lower case, under the set-up's order and under HELP: taken for a short closing) and 160 of the 5,984 footer
cases refused the mail; now 0 and 0: a line the engine reads as an order of another step is a closing only when it
holds a word of sentences ("Pass it on!").  Every case runs in the suite (`python3 -m pytest
tests/test_replies28_footers.py -n 0`, about 3 s); `REPLIES27_ALL=1 python3 -m pytest tests/test_replies27_footers.py
-n 0` runs the footers'.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.replies27 import first_state, intake

KINDS = ("habsburg", "italian-wars", "sixteen-thirty", "dynasties")
ORDERS = 4  # legal orders of each game's first step, at most
WORDS = 8  # the game's other order words tried for the legal line their refusal offers, at most


def _longest(words: list[str]) -> int:
    """Where the longest word after the order word is."""
    return max(range(1, len(words)), key=lambda k: len(words[k].strip(",")))


def _dropped(order: str) -> str:
    words = order.split()
    k = _longest(words)
    w = words[k]
    words[k] = w[:2] + w[3:] if len(w.strip(",")) >= 5 else w
    return " ".join(words)


def _swapped(order: str) -> str:
    words = order.split()
    k = _longest(words)
    w = words[k]
    words[k] = w[:1] + w[2] + w[1] + w[3:] if len(w.strip(",")) >= 4 else w
    return " ".join(words)


def _digit(order: str) -> str:
    return next((order.replace(ch, ch + "7", 1) for ch in order if ch.isdigit()), order + " 77")


#: How an order is mistyped: a letter dropped or two swapped in its longest name, all in lower case with a letter
#: dropped, a number changed, its names replaced by one unknown, a remark after it, said in a sentence.
MISTYPES: dict[str, Callable[[str], str]] = {
    "dropped": _dropped,
    "swapped": _swapped,
    "lower-dropped": lambda o: _dropped(o).lower(),
    "digit": _digit,
    "unknown-name": lambda o: f"{o.split()[0]} Napoleon",
    "unknown-names": lambda o: f"{o.split()[0]} Napoleon Bonaparte of Corsica",
    "remark-after": lambda o: f"{o} for the win",
    "sentence": lambda o: f"{o.split()[0]} for the {' '.join(o.split()[1:])} please",
    "sentence-lower": lambda o: f"{o.split()[0]} for the {' '.join(o.split()[1:]).lower()} please",
}
PLACES = {"under": (), "blank": ("",)}


def _orders(kind: str) -> list[str]:
    """The legal orders mistyped in `kind`: the first step's first `ORDERS`, and for each other order word the first
    legal line the engine's refusal of it offers ("VOTE RED" for "VOTE x" in Sixteen Thirty)."""
    eng, state = first_state(kind)
    legal = list(next(r for r in eng.requests(state) if r.player == "Alice").legal[:ORDERS])
    for word in [w for w in eng.order_words if " " not in w][:WORDS]:
        refused = [r for r in eng.apply(state, "Alice", [f"{word} x"]).lines if not r.ok]
        offered = [x for r in refused for x in r.legal if x.split()[0].upper() in eng.order_words and " " in x]
        legal += offered[:1] if offered and offered[0] not in legal else []  # an order, not a name the refusal lists
    return legal


def cases() -> list[tuple[str, str, str, str]]:
    """(game, the line above, the mistyped line, the place)."""
    out = []
    for kind in KINDS:
        eng, state = first_state(kind)
        above = next(r for r in eng.requests(state) if r.player == "Alice").legal[0]
        for order in _orders(kind):
            typed = {f(order) for f in MISTYPES.values()} - {order}
            out += [(kind, top, t, p) for top in (above, "HELP") for t in sorted(typed) for p in PLACES]
    return out


def set_aside(kind: str, top: str, typed: str, place: str) -> str:
    """Why the mistyped line was set aside untold, or ""."""
    eng, state = first_state(kind)
    got = intake(eng, state, "Alice", "\n".join([top, *PLACES[place], typed]) + "\n")
    said = typed.split()[:3]  # as read: a word a sentence ends with ("please") taken off
    if any(line.split()[:3] == said for line in [*got.refused, *got.applied]) or any(
        f'"{typed}"' in n for n in got.notes
    ):
        return ""
    return f"{kind}: {typed!r} under {top!r} ({place}): applied {got.applied}, chatter {got.ex.chatter}"


@pytest.mark.parametrize("kind", KINDS)
def test_a_mistyped_order_under_an_order_or_a_command_is_never_set_aside_as_a_footer(kind: str) -> None:
    chosen = [c for c in cases() if c[0] == kind]
    failures = [why for case in chosen if (why := set_aside(*case))]
    assert not failures, f"{len(failures)} of {len(chosen)} set aside:\n" + "\n".join(failures[:40])


def test_footers_with_capitals_digits_or_five_words_are_set_aside_and_a_name_of_the_game_keeps_a_line() -> None:
    """The shape (`pbem.orders.closings.closing_shape`), as both readers use it (`pbem.trust.sent.set_aside`)."""
    from pbem.orders.closings import closing_shape
    from pbem.trust.sent import set_aside as verified

    known = {"RED", "BLUE", "VOTE", "GOLD", "SPAIN"}
    for footer in (
        "Vote for us in the Club of the Year awards",
        "Trade fair 2027: visit us at stand 4",
        "Leader in board games since 1999",
        "Offer valid while stocks last",
        "Done is better than perfect.",
    ):
        assert closing_shape(footer, known), footer
        assert verified(["VOTE RED", footer], ["VOTE RED"], known) == [footer]
    for order in ("VOTE for the Red side", "VOTE Green", "TRIBUTE Gold 77", "PLACE Spain 3 on the left", "PLAY Nice"):
        assert not closing_shape(order, known), order
