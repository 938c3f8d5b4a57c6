"""perf34 (issue 27): the copy search's two Python loops over every line of a reply and every word of a report.

`own_mail.without_copies` cost 8.05 M instructions a reply of `benchmarks/instructions.py`'s (a fifth of a reply's):
* `_keep_marked` asked `typed.may_be_marked` of every line of the copy (two microseconds a line: a set made of its
  characters, eight substring tests), where a line of a quoted report holds no mark.  Now each piece of a mark is
  searched for in the reply's text in C (`typed.may_be_marked_lines`) and only a line holding one is asked;
* `_SentIndex` put each of the report's two parts' words (a thousand) into a dict of places in a Python loop (1.2 M
  instructions a reply), to look up about 20 runs.  Now a run is found by searching the words joined by spaces in C
  (`_SentIndex.places_of`, at most `FINDS` searches, then the old index), and a run holding a word not sent is not
  searched for; whether a word is at more than `PLACES` places is bounded by the distinct words of pieces of
  `CHUNK` words, each a set made in C (`_at_most`), and counted only when that bound says it may be;
* `changed_in_quote` took each quoted line's text by `own_quotes.marked_off` (two `unquoted` calls a line, 0.48 M
  instructions a reply); one match of `own_mail._MARKED_OFF` gives the same text (0.29 M).

Generated: games of 3 to 6 players, each player's report and their reply to it as clients write one (test_perf33's
generators: an attribution or Outlook's block, the report quoted or unquoted, orders above or below), some lines of
the reply marked as the writer's choice ("<-- this", "[x]", "✓", "(my pick)", an "x" after it).  A reply fails when
`may_be_marked` is asked of a line holding no piece of a mark, when `changed_in_quote` calls `marked_off` a line,
when the index runs a Python line for each sent word (more than `INDEX_LINES` building it: ab18255d ran two a word),
or when it reads otherwise than by the index of every word (`FINDS` = 0) or than `may_be_marked` asked of every
line.  ab18255d fails 12 of the suite's 12 games and 1,200 of
the full 1,200 (`PBEM_PERF34_FULL=1`; any checkout: `PYTHONPATH=CHECKOUT:. python3 tests/test_perf34.py 400`, which
counts 400 games a seed), this branch 0 and 0.
"""

from __future__ import annotations

import os
import random
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from pbem.orders import own_mail, typed
from pbem.orders.typed import may_be_marked
from tests.test_perf33 import NAMES, read, reply, report

FULL = os.environ.get("PBEM_PERF34_FULL") == "1"
_MARKED = [" <-- this", "  <== mine", " ✓", " x", " (my pick)", " 👈"]
_BEFORE = ["[x] ", "✓ ", "x ", "→ "]
_OTHER = "<←⬅👈👉✓✔☑✅"
INDEX_LINES = 32  # Python lines building the index of one sent text's words, at most (ab18255d: two a word)


def _marked(rng: random.Random, text: str) -> str:
    """`text` with a few of its lines marked as the writer's choice (after the line or before it)."""
    lines = text.split("\n")
    for _ in range(rng.randrange(0, 3)):
        n = rng.randrange(len(lines))
        lines[n] = lines[n] + rng.choice(_MARKED) if rng.random() < 0.6 else rng.choice(_BEFORE) + lines[n]
    return "\n".join(lines)


def _holds_a_piece(line: str) -> bool:
    """Whether `line` holds a piece of a mark as `may_be_marked` reads them (written out again here)."""
    pieces = ("<", " x", " X", "x ", "X ", "[x]", "[X]", "(x)", "(X)")
    return any(p in line for p in pieces) or any(c in line for c in _OTHER) or line.rstrip().endswith(")")


@contextmanager
def _counted() -> Iterator[dict[str, Any]]:
    """The lines without a piece of a mark `_keep_marked`'s scan asked `may_be_marked` of, and the Python lines run
    building the sent words' index."""
    seen: dict[str, Any] = {"unmarked": 0, "index_lines": 0, "marked_off": 0}
    saved, marked_off = typed.may_be_marked, own_mail.marked_off

    def unquoted(line: str) -> str | None:
        caller = sys._getframe(1).f_code
        seen["marked_off"] += caller.co_name == "<dictcomp>" and sys._getframe(2).f_code.co_name == "changed_in_quote"
        return marked_off(line)

    def asked(line: str) -> bool:
        scan = sys._getframe(1).f_code.co_name in ("_keep_marked", "may_be_marked_lines")  # not `chosen`'s own
        if scan and not _holds_a_piece(line):
            seen["unmarked"] += 1
        return saved(line)

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        name = frame.f_code.co_qualname
        if name in ("_SentIndex.__init__", "_SentIndex._at"):
            seen["index_lines"] += event == "line"
            return tracer
        return None

    had = getattr(own_mail, "may_be_marked", None)
    typed.may_be_marked = asked  # type: ignore[assignment]
    if had is not None:  # before perf34 `_keep_marked` asked it by this name
        own_mail.may_be_marked = asked  # type: ignore[attr-defined]
    own_mail.marked_off = unquoted  # type: ignore[assignment]
    sys.settrace(tracer)
    try:
        yield seen
    finally:
        sys.settrace(None)
        own_mail.marked_off = marked_off  # type: ignore[assignment]
        typed.may_be_marked = saved  # type: ignore[assignment]
        if had is not None:
            own_mail.may_be_marked = had  # type: ignore[attr-defined]


def failures(cases: int, seed: int = 34, check: bool = True) -> list[str]:
    """The generated games of which a reply asked `may_be_marked` of a line without a piece of a mark, ran a Python
    line a sent word building the index, or (`check`) read otherwise than the old ways."""
    rng = random.Random(seed)
    out = []
    for game in range(cases):
        players = NAMES[: rng.randrange(3, 7)]
        for p in players:
            sent = report(rng, game, p, players)
            text = _marked(rng, reply(rng, sent))
            with _counted() as seen:
                got = read(text, sent)
            if seen["unmarked"]:
                out.append(f"game {game}, {p}: may_be_marked asked of {seen['unmarked']} lines without a mark")
            if seen["marked_off"]:
                out.append(f"game {game}, {p}: changed_in_quote called marked_off line by line")
            if seen["index_lines"] > INDEX_LINES:
                words = len(own_mail._words(sent))
                out.append(f"game {game}, {p}: {seen['index_lines']} lines indexing {words} words")
            if check and got != _read_the_old_way(text, sent):
                out.append(f"game {game}, {p}: read otherwise than the old way")
    return out


def _read_the_old_way(text: str, sent: str) -> str:
    """`read`, every run looked up in the index of every word and `may_be_marked` asked of every line."""
    finds, lines = own_mail.FINDS, typed.may_be_marked_lines
    own_mail.FINDS = 0
    own_mail.may_be_marked_lines = lambda ls: [n for n, line in enumerate(ls) if may_be_marked(line)]  # type: ignore
    try:
        return read(text, sent)
    finally:
        own_mail.FINDS, own_mail.may_be_marked_lines = finds, lines  # type: ignore[assignment]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_line_without_a_mark_is_asked_and_no_word_indexed_in_python(seed: int) -> None:
    found = failures(400 if FULL else 4, seed)
    assert not found, found[:3]


def _line(rng: random.Random) -> str:
    """A line of pieces that make or nearly make a mark, in any order, with white space of any kind."""
    pieces = ["NO EVENT", "x", "X", " ", "\t", ">", "<", "(", ")", "[x]", "(X)", "pick", "(my pick)", "\u3000", "\x1c"]
    pieces += [*_OTHER, "ab", "xx", "\u00a0", "\x0b", " x ", "PASS"]
    return "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 9)))


def test_the_lines_that_may_be_marked_are_those_may_be_marked_says() -> None:
    rng = random.Random(34)
    for _ in range(800 if FULL else 120):
        lines = [_line(rng) for _ in range(rng.randrange(0, 12))]
        assert typed.may_be_marked_lines(lines) == [n for n, line in enumerate(lines) if may_be_marked(line)], lines


def test_a_quoted_lines_text_is_marked_offs() -> None:
    rng = random.Random(34)
    pieces = [">", " ", "\t", "\u00a0", "\u3000", "\x0b", "\x1c", "\x85", "a", "NO EVENT", "x", "> ", ">>", "\r"]
    for _ in range(100_000 if FULL else 4_000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))
        want = own_mail.marked_off(line)
        found = own_mail._MARKED_OFF.match(line)
        assert (found.group(1).rstrip() if found else None) == (None if want is None else want.strip()), repr(line)


def test_the_bound_on_a_words_places_says_so_only_when_it_holds() -> None:
    rng = random.Random(34)
    for _ in range(60 if FULL else 12):
        vocabulary = [f"w{k}" for k in range(rng.randrange(1, 60))]
        n = rng.randrange(0, 1500)
        words: list[str | None] = [rng.choice(vocabulary) if rng.random() < 0.97 else None for _ in range(n)]
        most = rng.choice([8, 64, own_mail.PLACES])
        counts = Counter(w for w in words if w is not None)
        assert own_mail._at_most(words, most) == (max(counts.values(), default=0) <= most)


def test_a_run_is_found_at_every_place_the_index_finds_it() -> None:
    rng = random.Random(34)
    vocabulary = ["play", "gold", "no", "event", "the", "é", "x"]
    for _ in range(40 if FULL else 10):
        sent = [" ".join(rng.choice(vocabulary) for _ in range(rng.randrange(0, 200))) for _ in range(2)]
        searched, indexed = own_mail._SentIndex(sent), own_mail._SentIndex(sent)
        indexed.finds = 0
        for _ in range(20):
            run = [rng.choice(vocabulary) for _ in range(own_mail.GRAM)]
            assert searched.places_of(run) == indexed.places_of(run)


if __name__ == "__main__":  # count any checkout: PYTHONPATH=CHECKOUT:. python3 tests/test_perf34.py [GAMES]
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    for seed in (1, 2, 3):
        bad = failures(n, seed, check=False)
        print(f"seed {seed}: {len({f.split(',')[0] for f in bad})} of {n} games fail")
