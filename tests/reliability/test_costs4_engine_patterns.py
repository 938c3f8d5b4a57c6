"""The engines' own patterns, made linear in runs of spaces, read every line as before.

tests/reliability/test_costs3_regexes.py now runs its generator over pbem/engine too (it had left the engines out:
their lines are capped at 400 characters before an engine reads them, so a square cost was bounded, but it was
still the square): `\\s+target\\s+` (Habsburg's EVENT ... TARGET) and Sixteen Thirty's `(.*?)\\s+for\\s+`,
`\\s+from\\s+`, `\\s+on\\s+`, `\\s+giving\\s+`, `\\s+place\\s+`, `\\s+(align|...)`, `\\s+show$` and the card split
`[^\\d]+?\\s*\\d+` cost the square of a run of spaces (each lazy step scanned the rest of the run).  So did the configuration's size
(`max_stored_* = "1 ... x"`: `\\s*` twice around an optional unit), no longer left out either.

Each new form is compared here with the old one on generated text from the words and characters of the pattern:
Sixteen Thirty's on `names.norm`'s text, the only text its parser reads (single spaces: `\\s+` there is one space),
Habsburg's and the card split on any text.
"""

from __future__ import annotations

import random
import re

from pbem.engine import names
from pbem.engine.habsburg.orders import split_target

#: (old pattern, new pattern, how it is read, the words its text is made of, on normed text only)
PAIRS = [
    (r"\s+show$", r" show$", "search", ["show", "a", "x"], True),
    (
        r"^(?:give\s+)?(.*?)\s+for\s+(.*?)(?:\s+show)?$",
        r"^(?:give )?(.*?) for (.*?)(?: show)?$",
        "match",
        ["give", "for", "show", "a", "forx"],
        True,
    ),
    (r"^(.*?)(?:\s+giving\s+(.*))?$", r"^(.*?)(?: giving (.*))?$", "match", ["giving", "a", "givingx"], True),
    (r"^(.*?)\s+from\s+(.*)$", r"^(.*?) from (.*)$", "match", ["from", "a", "fromage"], True),
    (r"^(.*?)\s+on\s+(.*)$", r"^(.*?) on (.*)$", "match", ["on", "a", "one"], True),
    (r"^(.*?)(?:\s+place\s+(.*))?$", r"^(.*?)(?: place (.*))?$", "match", ["place", "a", "placed"], True),
    (
        r"^(.*?)\s+(align|switch|rearm|war)\b\s*(.*)$",
        r"^(.*?) (align|switch|rearm|war)\b ?(.*)$",
        "match",
        ["align", "switch", "rearm", "war", "warx", "a", "-"],
        True,
    ),
    (r"[^\d]+?\s*\d+|[^\d]+$", r"[^\d]++\d+|[^\d]+$", "findall", ["a", "1", "23", "-"], False),
]
SPACES = [" ", "  ", "\t", " \t ", "\n", "\u00a0", "   "]


def _texts(words: list[str], seed: int, n: int = 3_000) -> list[str]:
    rng = random.Random(seed)
    pool = words + SPACES + ["A", "é"]
    return ["".join(rng.choice(pool) for _ in range(rng.randint(0, 10))) for _ in range(n)]


def _read(p: re.Pattern[str], how: str, text: str) -> object:
    if how == "findall":
        return p.findall(text)
    m = getattr(p, how)(text)
    return None if m is None else (m.span(), m.groups())


def test_sixteen_thirtys_linear_patterns_read_normed_lines_as_before() -> None:
    for k, (old_source, new_source, how, words, normed) in enumerate(PAIRS):
        old, new = re.compile(old_source), re.compile(new_source)
        for raw in _texts(words, k):
            text = names.norm(raw) if normed else raw
            assert _read(old, how, text) == _read(new, how, text), (old_source, text)


def test_the_configurations_size_reads_any_value_as_before() -> None:
    from pbem.home.config import _SIZE

    old = re.compile(r"^\s*(\d+)\s*(B|KB|KiB|MB|MiB)?\s*$", re.IGNORECASE)
    for raw in _texts(["12", "KB", "kib", "MiB", "b", "x", "1"], 98, 6_000):
        assert _read(old, "match", raw) == _read(_SIZE, "match", raw), raw


def test_habsburgs_target_splits_any_line_as_before() -> None:
    old = re.compile(r"\s+target\s+", re.I)
    for raw in _texts(["target", "TARGET", "a", "Targets", "xtarget"], 99, 6_000):
        m = old.search(raw)
        before = (raw[: m.start()], raw[m.end() :]) if m else (raw, None)
        assert split_target(raw) == before, raw
