"""perf35 (issue 27): the search of a reply for a list of the quoted report the writer trimmed reads each quoted line's
text once, and the sent lines' words a text at a time.

`own_mail.trimmed_in_quote` (players33) read every quoted line's quote marks by `own_quotes.marked_off` (two `unquoted`
calls a line), every sent line's words by `_words`, and the quote marks again on each line a walk met: 2.11 M of the
copy search's 8.36 M instructions a reply.  Each quoted line's text is now one match (`own_mail._quoted_texts`, shared
with `changed_in_quote`), the sent lines' words a text at a time (`_rows_words`), the walks read the texts.  Reading
the structure first to ask the order reader less was tried and dropped (its answers are remembered across a poll:
docs/performance.md, perf35); the reader is asked first, as before, so the cap `QUOTED_ORDERS` counts the same lines.

Generated: reports laid out as pbem's (lists of legal orders of 2 to 90 lines, one or two of them, the second after
a list long enough to reach the cap; the syntax's lines with blanks, defaults, a table under a rule, repeated lines,
prose), and replies to them as writers trim them: the quote whole, one to three orders of a list kept and the others
deleted (the quote going on or cut there), a line changed, marked or typed in, quoted once or twice, blank quoted
lines between.  Each reply is read by `without_copies` with `trimmed_in_quote` answered by the new function and by
the old one (`tests/trimmed_reference.py`, the function as it was at 36ff7173): 0 differences (`PBEM_FULL_SIZE=1`:
2,750 calls, 1,051 with a line told, 349 reaching the cap).  36ff7173 reads a line at a time in all of the suite's 16
replies (`PBEM_FULL_SIZE=1`: 400), this branch in none.  `python3 -m pytest -p tests.trimmed_reference FILES` runs any
reply corpus with both functions compared on every call (docs/performance.md, perf35).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from pbem import engine as registry
from pbem.mail.outbound.outgoing import REDACTED
from pbem.orders import extract, own_mail
from pbem.orders.own_mail import without_copies
from tests import trimmed_reference
from tests.sizes import size

WORDS = tuple(registry.get("habsburg").order_words)
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]
CARDS = ["Peter", "Leopold", "King", "Marry Well", "Franz", "Battle", "Bohemia", "Dalmatia", "Tyrol", "Styria"]
HEADINGS = ["Legal orders now (copy one per line):", "Orders you may give:", "Or instead, one of"]
PROSE = [
    "Deadline: in 2 days, Wed 9 Dec 19:01 UTC.",
    "Private report for {p}. Do not forward it: it holds what only you may know.",
    "Keep it private: anyone with it and your mailbox could send orders as you.",
    "The seed is revealed when the game ends; `pbem verify` then replays every shuffle and die roll.",
    "  * {p} draws 1 card (Draw Phase); {k} left in the deck.",
    "  * Turn {k}: {p} to play.",
]


def _orders(rng: random.Random, n: int, apart: list[str] | None = None) -> list[str]:
    """`n` distinct listed orders, indented as a report lists them (none of the list `apart`, if given)."""
    pool = [f"EVENT CLAIM {c} TARGET {p}" for c in CARDS for p in NAMES] + [f"EVENT PERSON {c}" for c in CARDS]
    pool = [x for x in pool if f"    {x}" not in (apart or [])]
    rng.shuffle(pool)
    ends = ["NO EVENT", "DISCARD-IF-NEEDED LOWEST"] if apart is None else ["PASS", "DISCARD LOWEST"]
    return [f"    {x}" for x in [*pool[: n - 2], *ends][:n]]


def report(rng: random.Random, apart: bool = False) -> tuple[str, list[list[str]]]:
    """A report laid out as pbem's, and its lists of orders (one or two; a second one below a list long enough that
    the orders before it reach `QUOTED_ORDERS`).  `apart`: the two lists share no line, nor their headings (as in
    pbem's reports; else they may, a harder case)."""
    p, k = rng.choice(NAMES), rng.randrange(2, 80)
    lists = [_orders(rng, rng.choice([2, 3, 5, 12, 40, 41, 60, 63, 64, 65, 70, 90]))]
    if rng.random() < 0.4:
        lists.append(_orders(rng, rng.choice([2, 3, 6]), lists[0] if apart else None))
    headings = rng.sample(HEADINGS, 2) if apart else [rng.choice(HEADINGS), rng.choice(HEADINGS)]
    lines = [f'House of Habsburg, game "g{k}": Turn {k}, {p} to play', ""]
    for listed, heading in zip(lists, headings):
        lines += [rng.choice(PROSE).format(p=p, k=k), "", heading, *listed, ""]
    lines += ["How to write it:", "  EVENT CLAIM <card> TARGET <player>", "  NO EVENT   (aliases: PASS, NONE)", ""]
    lines += ["If no orders arrive by the deadline the published default is applied:", "    (default) NO EVENT", ""]
    for q in NAMES[: rng.randrange(2, 6)]:
        lines += [f"  Player: {q}", "    Score: 0; Hand: 3; Melds: -"]
    lines += ["", "== Your hand ==", "  Card     Type", "  -------  -----", *(f"  {c}  Holding" for c in CARDS[:3]), ""]
    lines += [rng.choice(PROSE).format(p=p, k=k) for _ in range(rng.randrange(1, 4))]
    return "\n".join(lines), lists


def _kept(rng: random.Random, listed: list[str]) -> list[str]:
    """The lines of a list a writer keeps, in order: one to three, or all but some."""
    if rng.random() < 0.7:
        return sorted(rng.sample(listed, min(len(listed), rng.randrange(1, 4))), key=listed.index)
    return [x for x in listed if rng.random() < 0.8]


def reply(rng: random.Random, sent: str, lists: list[list[str]], whole: bool = False) -> str:
    """`sent` quoted as a writer answers it: whole (`whole`), or a list trimmed, changed, marked or typed into."""
    lines = sent.split("\n")
    if not whole:
        for listed in lists:
            if rng.random() < 0.7:
                at = lines.index(listed[0])
                kept = _kept(rng, listed)
                lines[at : at + len(listed)] = kept
                if rng.random() < 0.3:
                    del lines[at + len(kept) :]  # the quote cut under what is kept
                    break
        for _ in range(rng.randrange(0, 3)):
            n = rng.randrange(len(lines))
            if lines[n].startswith("    E"):
                how = rng.randrange(3)
                lines[n] = [f"    EVENT PERSON {rng.choice(CARDS)}", lines[n] + " <-- this", lines[n] + "\n]PASS"][how]
    prefix = rng.choice(["> ", "> ", ">> ", "> > "])
    quoted = []
    for line in "\n".join(lines).split("\n"):
        quoted.append(line[1:] if line.startswith("]") else f"{prefix}{line}".rstrip())
        if rng.random() < 0.05:
            quoted.append(">")
    own = [rng.choice(["NO EVENT", "EVENT PERSON Peter", "Hi,", ""]), ""]
    return "\n".join([*own, "On Mon, 5 Jan 2026 at 11:00, Moderator <m@pbem.test> wrote:", *quoted])


Keep = Callable[[str], bool]
Told = list[tuple[str, str]]


def read(text: str, sent: str, keep: Keep) -> tuple[str, Told]:
    changed: list[tuple[str, str]] = []
    return without_copies(text, [sent], keep, [sent], changed, REDACTED, mine_quoted=True), changed


def test_a_trimmed_list_is_read_as_the_old_function_read_it_around_the_cap() -> None:
    rng = random.Random(35)
    keep = extract.own_line(WORDS)
    before = dict(trimmed_reference.COUNTS)
    saved, own_mail.trimmed_in_quote = own_mail.trimmed_in_quote, trimmed_reference.both  # type: ignore[assignment]
    try:
        for _ in range(size(3000, 40)):
            sent, lists = report(rng)
            read(reply(rng, sent, lists), sent, keep)
    finally:
        own_mail.trimmed_in_quote = saved  # type: ignore[assignment]
    counts = Counter({k: v - before[k] for k, v in trimmed_reference.COUNTS.items()})

    assert counts["differ"] == 0
    assert counts["told"] >= counts["compared"] // 10 and counts["capped"] >= counts["compared"] // 20, counts


def line_by_line(text: str, sent: str) -> int:
    """How many times `trimmed_in_quote`, reading `text` (a reply to `sent`), reads a line's quote marks
    (`own_quotes.marked_off`) or a sent line's words (`_words`) one line at a time."""
    calls = [0]
    original, marked_off, words = own_mail.trimmed_in_quote, own_mail.marked_off, own_mail._words
    inside = [False]

    def counting(f: Callable[[str], Any]) -> Callable[[str], Any]:
        def counted(line: str) -> Any:
            calls[0] += inside[0]
            return f(line)

        return counted

    def trimmed(*a: Any) -> Told:
        inside[0] = True
        try:
            return original(*a)
        finally:
            inside[0] = False

    own_mail.trimmed_in_quote, own_mail.marked_off, own_mail._words = trimmed, counting(marked_off), counting(words)
    try:
        read(text, sent, extract.own_line(WORDS))
    finally:
        own_mail.trimmed_in_quote, own_mail.marked_off, own_mail._words = original, marked_off, words
    return calls[0]


def test_the_quoted_lines_and_the_sent_lines_are_read_in_one_pass() -> None:
    rng = random.Random(3535)
    failed, cases = 0, size(400, 16)
    for case in range(cases):
        sent, lists = report(rng)
        text = reply(rng, sent, lists, whole=case % 2 == 0)
        failed += line_by_line(text, sent) > 0
    assert failed == 0, f"{failed} of {cases} replies read a line at a time"
