"""Legal-order lists as players read them: never cut silently.

A request lists the legal orders "exactly as the player would type them", and
every report, reminder and HELP answer prints that list.  Some choice sets are
large (Sixteen Thirty's starting placement has up to 286 ways to pick three
cards of thirteen, a vote call one line per country, issue and card).  Printing
them all buries the report; printing the first N hides the rest and, worse,
may hide the published default.  `offer` is the one rule every engine uses:

* up to `SHOW_ALL` lines are listed in full;
* a larger set is described by its grammar (the request's syntax) and a count,
  with a few examples spread over the set, the published default first; the
  prompt says so, so every place that prints the request says it too.
"""

from __future__ import annotations

from collections.abc import Sequence

#: lists up to this long are shown whole
SHOW_ALL = 40
#: how many examples a larger set shows (the default lines included)
EXAMPLES = 8


def examples(legal: Sequence[str], default: Sequence[str], k: int = EXAMPLES) -> list[str]:
    """`k` lines to show for a large set: the default lines first, then lines spread evenly over the set."""
    shown = list(dict.fromkeys(default))
    rest = [x for x in dict.fromkeys(legal) if x not in shown]
    room = max(0, k - len(shown))
    if room and rest:
        step = len(rest) / room
        shown += [rest[int(i * step)] for i in range(min(room, len(rest)))]
    return shown


def offer(
    prompt: str, legal: Sequence[str], default: Sequence[str], grammar: Sequence[str]
) -> tuple[str, tuple[str, ...]]:
    """The (prompt, legal lines) a request shows for the set `legal`.

    Small sets come back as they are.  A set larger than `SHOW_ALL` comes back
    as a few examples (the default first) and the prompt gains one sentence
    with the count and the grammar, e.g. "There are 286 legal orders, of the
    form PLACE-START <card>, <card>, <card>; 8 examples are listed, your default
    first. Any order of that form that follows the rules is accepted."
    """
    lines = list(dict.fromkeys(legal))
    extra = [d for d in default if d not in lines]
    total = len(lines) + len(extra)
    if total <= SHOW_ALL:
        return prompt, tuple(lines)
    shown = examples(lines, default)
    form = " or ".join(grammar) if grammar else "shown in the handbook"
    first = ", your default first" if default else ""
    note = (
        f" There are {total} legal orders, of the form {form}; {len(shown)} examples are listed{first}. "
        "Any order of that form that follows the rules is accepted."
    )
    return prompt.rstrip() + note, tuple(shown)
