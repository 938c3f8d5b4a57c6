"""players33, part A: players32's leftovers, each a class with its generator (counts on ab18255d and now).

1. A closing read by a name's prefix: Italian Wars read "keep care" and "pref care" (a closing typed under the orders)
   as LEADER-PREF Careful Soldier, every game matching a name by a unique prefix (`pbem.engine.names`).  Now a line
   at the end of the message whose order word is not in capitals, its words after it in lower case, few, with no
   digit or sign of an order's syntax, one of them no whole word of what the engine read, is a closing: set aside and
   told with the order it would have been, or refused so when alone (`pbem.app.prefixed`).
   `test_a_closing_is_never_read_as_an_order_by_a_prefix`; the orders shaped as orders stay read:
   `test_a_prefix_shaped_as_an_order_is_still_read`.

`REPLIES33_ALL=1 python3 -m pytest tests/test_replies33_leftovers.py -n 0` runs every case; the suite a sample.
"""

from __future__ import annotations

import os
import random

from tests.replies27 import KINDS, first_state, intake

SAMPLED = 40  # cases of each generator a suite run reads (all with REPLIES33_ALL=1)


def _chosen(every: list[tuple[str, ...]], tag: str, kept: int = 0) -> list[tuple[str, ...]]:
    """A sample of `every` (all with REPLIES33_ALL=1): its first `kept` cases, and `SAMPLED` drawn from the rest."""
    if os.environ.get("REPLIES33_ALL") or len(every) <= SAMPLED + kept:
        return every
    return every[:kept] + random.Random(f"replies33:{tag}").sample(every[kept:], SAMPLED)


def _legal(kind: str) -> list[str]:
    eng, state = first_state(kind)
    return list(next(r for r in eng.requests(state) if r.player == "Alice").legal)


#: Sign-offs as people write them, in English and in their own languages, each starting with an order word of one of
#: the four games (TAKE, KEEP, PLAY, PASS, DROP, CALL, DONE, PLACE, START, VOTE, ACCEPT, OFFER, TRADE, PLAN, ...).
CLOSINGS = (
    "Take care", "Take care!", "Take it easy", "Take care of yourself", "Keep well", "Keep safe!", "Keep in touch",
    "Keep cool", "Keep smiling", "Keep warm", "Keep the faith", "Play nice", "Play fair", "Drop me a line",
    "Call me", "Pass on my regards", "Keep care", "keep care", "Keep care!", "pref care", "Pref care", "Prefer care",
    # German, Norwegian, Dutch, Italian, Spanish, French, Polish, Swedish, Turkish, Russian speakers' sign-offs
    "Pass auf dich auf", "Pass gut auf dich auf!", "Pass på deg selv", "Take care und bis bald", "Keep care, tschüss",
    "Take care, groetjes", "Keep care, ciao", "keep care e a presto", "Take care, abrazos", "Keep care, bises",
    "Take care, pozdrawiam", "Keep care, hälsningar", "Take care, görüşürüz", "Keep care, пока",
    "keep care amigo", "Keep care mate", "take care my friend", "Take care, cara", "keep care cari saluti",
)  # fmt: skip
#: Words that end a sign-off in many languages, after any order word of a game ("keep care", "pass bene").
TAILS = ("care", "care!", "well", "safe", "cool", "nice", "warm", "bene", "bien", "gut", "goed", "bem", "dobrze", "ciao")  # fmt: skip


FIRST = 2 * len(CLOSINGS)  # the suite reads every closing of `CLOSINGS` under Italian Wars' order, and `SAMPLED` more


def closing_cases() -> list[tuple[str, ...]]:
    """(game, the first legal order, the closing, "under" or "alone"): each closing under the order, and alone in a
    mail with a greeting and a name (no order meant)."""
    out: list[tuple[str, ...]] = []
    for kind in KINDS:
        eng, _ = first_state(kind)
        top = _legal(kind)[0]
        words = sorted({w.lower() for w in eng.order_words if w.replace("-", "").isalpha()})
        lines = [
            *CLOSINGS,
            *(f"{w} {t}" for w in words for t in TAILS),
            *(f"{w.title()} {t}" for w in words for t in TAILS),
        ]
        out += [(kind, top, line, where) for line in lines for where in ("under", "alone")]
    return sorted(out, key=lambda c: c[0] != "italian-wars" or c[2] not in CLOSINGS)  # `FIRST` of them first


def closing_outcome(kind: str, top: str, line: str, where: str) -> str:
    """ "read" (the order above applied, nothing of the closing) or "misapplied" (the closing applied as an order)."""
    eng, state = first_state(kind)
    body = f"Hi,\n\n{top}\n\n{line}\nAlice\n" if where == "under" else f"Hi Bob,\n\nsee you soon.\n\n{line}\nAlice\n"
    got = intake(eng, state, "Alice", body)
    if not got.applied:
        return "read" if where == "alone" or got.refused else "misapplied"
    if where == "alone":
        return "misapplied"
    return "read" if got.state == eng.apply(state, "Alice", [top]).state else "misapplied"


def test_a_closing_is_never_read_as_an_order_by_a_prefix() -> None:
    """Of the 3,576 cases (41 closings, and 14 endings after each order word in lower case and capitalised, under the
    game's first order and alone in a mail), on ab18255d 68 misapplied (Italian Wars: "keep care", "Pref care",
    "prefer care", "leader care", "Leader-Pref care!" ... read as LEADER-PREF Careful Soldier, under the order or
    alone), 3,508 read; now 0 misapplied, 3,576 read, each such closing told with that order.  The suite's sample:
    the 82 of `CLOSINGS` in Italian Wars (12 misapplied on ab18255d) and 40 drawn."""
    failures = []
    for kind, top, line, where in _chosen(closing_cases(), "closing", FIRST):
        if (how := closing_outcome(kind, top, line, where)) != "read":
            failures.append(f"{how}: {kind} {where} {line!r}")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:20])


def test_a_closing_read_by_a_prefix_is_told_with_the_order() -> None:
    """The note quotes the closing and names the order it would have been, a form `pbem verify --mail` knows."""
    from pbem.trust.acked import unnoted

    eng, state = first_state("italian-wars")
    got = intake(eng, state, "Alice", "DISCARD NONE\n\nkeep care\n")
    assert got.applied == ["DISCARD NONE"]
    assert [n for n in got.notes if n.startswith('"keep care" was not read') and "LEADER-PREF Careful Soldier" in n]
    assert not any(unnoted(f"  NOTE {n}") for n in got.notes)
    alone = intake(eng, state, "Alice", "Hi Bob,\n\nKeep care\nAlice\n")
    assert not alone.applied and alone.refused == ["Keep care"]


#: Orders typed with a prefix but shaped as orders: the order word in capitals, a word of the name whole, a capital,
#: a list's comma.  Each is read as the engine reads it, before and now.
SHAPED = (
    ("DISCARD NONE", "KEEP care", "LEADER-PREF Careful Soldier"),
    ("DISCARD NONE", "keep careful", "LEADER-PREF Careful Soldier"),
    ("DISCARD NONE", "pref Care", "LEADER-PREF Careful Soldier"),
    ("DISCARD NONE", "pref great, care", "LEADER-PREF Great Captain, Careful Soldier"),
    ("DISCARD NONE", "LEADER-PREF fam", "LEADER-PREF Famous Captain"),
    ("DISCARD NONE", "prefer vigorous", "LEADER-PREF Vigorous Captain"),
)


def test_a_prefix_shaped_as_an_order_is_still_read() -> None:
    """A guard: 0 of the 6 fail on ab18255d and now."""
    eng, state = first_state("italian-wars")
    for top, line, meant in SHAPED:
        got = intake(eng, state, "Alice", f"{top}\n\n{line}\n")
        assert got.state == eng.apply(state, "Alice", [top, meant]).state, (line, got.applied, got.notes)
