"""The pass that measures an export before it is parsed runs in C, and counts what the Python pass counted (costs23).

`pbem.trust.canonical.measured` reads every export `pbem verify` is given (and `pbem publish`'s site manifest)
before the parser does: more than `MAX_VALUES` values, or nesting deeper than `MAX_DEPTH`, is refused unparsed.  On
90a53973 it was one step of Python a character (costs22): 64 MiB took 2.3 s for an export (the seeded Sixteen
Thirty export 156 times), 5.3 s for `{},`, 6.8 s nested 32 million deep.  Now the strings go by one regex, the
structure is counted by `str.count` and the nesting read from the brackets alone: 0.59, 0.35 and 0.70 s
(`python3 benchmarks/measured.py`).

Two generators.  The hostile shapes of costs22 (and a few more) at some 20,000 characters: the lines of Python the
pass executes (`tests.growth.steps`, a count no load changes) may be at most 100 and one for every 16 characters; on
90a53973 10 of 10 shapes executed 4.7 to 7.5 lines a character, now 0 of 10 (13 to 21 lines; 255 for 8,000
characters in runs of 100 brackets, a step a run).  And texts made at random
(JSON values whose strings hold brackets, commas, quotes and backslashes; token soups; the two cut anywhere): the
values are what the Python pass of 90a53973 (`_pass`, kept here) counted for every text, the nesting wherever the
brackets pair, and `load_export` accepts or refuses as it did (a refused text of both passes may be told another
sentence only where its brackets do not pair): 0 of 400 texts differ here, 0 of 20,000 with PBEM_FULL_SIZE=1.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pbem.trust import canonical
from tests.growth import growth, steps
from tests.sizes import size

TEXTS = size(20_000, 400)
SHAPES = {
    "export-like": lambda n: json.dumps([{"seq": k, "lines": [f"MOVE {k}, [a]"], "x": {"y": None}} for k in range(n)]),
    "empty objects": lambda n: "[" + "{}," * n + "{}]",
    "empty lists": lambda n: "[" + "[]," * n + "[]]",
    "short strings": lambda n: "[" + '"ab",' * n + '"ab"]',
    "numbers": lambda n: "[" + "1000," * n + "1000]",
    "nested": lambda n: "[" * n + "]" * n,
    "escapes": lambda n: '["' + '\\"[' * n + '"]',
    "open string": lambda n: '["' + "{}," * n,
    "open string of quotes": lambda n: '["' + '\\"[' * n,  # (each quote a start the regex read to the end)
    "nested groups": lambda n: ("[" * 40 + "]" * 40) * (n // 40),
    "long runs": lambda n: ("[" * 100 + "]" * 100) * (n // 100),  # a step of Python a run of 64 or more
}


def _pass(text: str) -> tuple[int, int, bool]:
    """90a53973's `measured`, and whether the brackets outside strings pair (never below 0, back to 0 at the end)."""
    deepest = level = values = 0
    lowest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == ",":
            values += 1
        elif ch in "[{":
            level += 1
            values += 1
            deepest = max(deepest, level)
        elif ch in "]}":
            level -= 1
            lowest = min(lowest, level)
    return deepest, values + 1, lowest == 0 and level == 0


ALPHABET = ["[", "]", "{", "}", ",", '"', "\\", ":", " ", "a", "1", "é", "\U0001f600", "\ud800", "\n", '\\"', "[]"]


def _value(rng: random.Random, depth: int) -> Any:
    pick = rng.randrange(6 if depth < 6 else 3)
    if pick == 0:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(8)))
    if pick == 1:
        return rng.choice([0, -7, 2**53 - 1, True, None])
    if pick == 2:
        return rng.choice(["", "x", "\\", '"', "[{"])
    if pick in (3, 4):
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {"".join(rng.choice(ALPHABET) for _ in range(3)): _value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _text(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        text = json.dumps(_value(rng, 0), ensure_ascii=rng.random() < 0.5)
    elif kind == 1:
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(60)))
    elif kind == 2:  # deep: past MAX_DEPTH and past the runs of 64
        d = rng.choice([31, 32, 33, 70, 200])
        text = "[" * d + json.dumps(_value(rng, 0)) + "]" * d
    else:
        text = ",".join(json.dumps(_value(rng, 0)) for _ in range(rng.randrange(1, 5)))
    if rng.random() < 0.3:  # cut anywhere
        text = text[: rng.randrange(len(text) + 1)]
    return text


def _loaded(text: str) -> tuple[str, Any]:
    try:
        return "ok", canonical.load_export(text)
    except canonical.BadJson as exc:
        return "refused", str(exc)


@pytest.mark.parametrize("piece", [canonical.PIECE, 5], ids=["one piece", "pieces of 5"])
def test_the_pass_counts_what_the_python_pass_counted(piece: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(canonical, "PIECE", piece, raising=False)
    rng = random.Random(23)
    differ = []
    for k in range(TEXTS):
        text = _text(rng)
        deepest, values, pair = _pass(text)
        got = canonical.measured(text)
        if got[1] != values or (pair and got[0] != deepest) or got[0] < deepest:  # (never less: no JSON)
            differ.append((k, text[:80], got, (deepest, values)))
            continue
        # what load_export does with it: the same (as the old pass would have it, where the brackets pair)
        how, what = _loaded(text)
        if pair and deepest > canonical.MAX_DEPTH:
            ok = how == "refused" and f"nests {deepest} levels deep" in what
        else:
            ok = how == "refused" or json.loads(text) == what
        if not ok:
            differ.append((k, text[:80], how, str(what)[:80]))
    assert not differ, f"{len(differ)} of {TEXTS} texts: {differ[:5]}"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_pass_executes_few_lines_of_python_whatever_the_texts_length(shape: str) -> None:
    text = SHAPES[shape](4_000)
    lines = steps(lambda: canonical.measured(text))
    assert lines <= 100 + len(text) // 16, f"{shape}: {lines:,} lines of Python for {len(text):,} characters"


@pytest.mark.parametrize("shape", ["open string of quotes", "escapes", "short strings", "nested"])
def test_the_regexes_read_each_character_a_bounded_number_of_times(shape: str) -> None:
    """What runs in C is timed: the CPU time at 4x the text (`tests.growth.growth`, read again while over the bound)."""
    g = growth(lambda n: lambda text=SHAPES[shape](n): canonical.measured(text), 20_000, bound=8)
    assert g.ratio <= 8, f"{shape}: {g}"
