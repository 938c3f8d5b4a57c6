"""A record of many undos: what a fold keeps to go back grows with its inputs, not with a state for each (costs18).

Both the moderator's fold (`store.replay`) and `pbem verify`'s fold a record with `pbem.trust.fold.Fold`.  On
9fb0ae7 it kept a whole state for every undo (`restored`), the state every 16 inputs once an undo folded back, and
for every undo the list of the inputs it undid: a Sixteen Thirty record (some 8 KB a state) of an order and an undo,
again and again, held 4.9 KB an input, so an export at its 64 MiB cap (some 100,000 inputs, the moderator being
the verifier's adversary) some 500 MB; an undo going back to any earlier input (random) held its list besides, k
times n numbers.  Now the states form a tree (each input a node on the state it was applied to, each undo the node it
goes back to), a state is kept every `KEEP` nodes of a long way only, and an undo's list is made when read.

The generator: three shapes of record (each order undone and sent again; two orders and an undo of the second; a
third of the inputs numbered undos to any earlier input, some rerolling), counted not timed: the bytes the fold
holds once done (`tracemalloc`) an input, at 250 inputs.  On 9fb0ae7 3,619 to 4,860 (3 of 3 over the bound);
now 235 to 541.  And what the fold gives is what a fold keeping every state gives: every input's state, events and
answer, and every undo's point and list, on 12 random records, with `KEEP` 1, the default, and never.
"""

from __future__ import annotations

import copy
import random
import tracemalloc
from bisect import bisect_right
from typing import Any

import pytest

from pbem import engine as registry
from pbem.trust import deal as joining
from pbem.trust import fold as folding
from pbem.trust.fold import UNDO, Fold, run_input, undo_lines
from tests.growth import alone, traced

KIND = "sixteen-thirty"
N = 250  # inputs of each record measured
MOST_BYTES = 1000  # held an input, at most: 235 to 541 now; 3,619 to 4,860 on 9fb0ae7 (a state each two inputs)

Row = tuple[int, str, str, list[str]]


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    from tests.test_history_golden import seeded_export

    return seeded_export(KIND)


def _record(doc: dict[str, Any], shape: str, n: int, rng: random.Random) -> list[Row]:
    """n inputs: the seeded record's first order (a hidden answer, revised: each accepted, a new state) and undos."""
    first = doc["orders"][0]
    order = (first["kind"], first["player"], list(first["lines"]))
    rows: list[Row] = []
    while len(rows) < n:
        seq = len(rows) + 1
        if shape == "each":  # an order, undone, sent again
            rows += [(seq, *order), (seq + 1, UNDO, "", undo_lines(seq - 1, False, "misread"))]
        elif shape == "second":  # two orders, the second undone
            rows += [(seq, *order), (seq + 1, *order), (seq + 2, UNDO, "", undo_lines(seq, False, "misread"))]
        elif seq > 2 and rng.random() < 0.34:  # an undo to any earlier input, some rerolling
            rows.append((seq, UNDO, "", undo_lines(rng.randrange(0, seq - 1), rng.random() < 0.3, "why")))
        else:
            rows.append((seq, *order))
    return rows[:n]


def _fold(doc: dict[str, Any]) -> tuple[Fold, dict[str, Any]]:
    eng = registry.get(doc["game"]["kind"])
    players, seed, options = [str(p["name"]) for p in doc["players"]], str(doc["seed"]), doc["game"]["options"]
    start = eng.setup(players, seed, options)[0]
    return Fold(start, lambda st: joining.step_engine(eng, st, players, seed, options), seed), start


def _run(doc: dict[str, Any], rows: list[Row]) -> tuple[Fold, list[Any]]:
    f, state = _fold(doc)
    outs = []
    for row in rows:
        out = f.run(*row, state)
        outs.append(out)
        state = out.state
    return f, outs


@pytest.mark.parametrize("shape", ["each", "second", "random"])
def test_a_fold_of_many_undos_holds_little_an_input(doc: dict[str, Any], shape: str) -> None:
    rows = _record(doc, shape, N, random.Random(N))

    def kept() -> tuple[int, int]:  # in a child of its own: no other thread allocating meanwhile (`tests.growth.alone`)
        with traced():
            before = tracemalloc.get_traced_memory()[0]
            f = _run(doc, rows)[0]
            return tracemalloc.get_traced_memory()[0] - before, len(f.undos)  # what the fold holds once done, `f` alive

    got, undos = alone(kept)
    assert got <= MOST_BYTES * N, f"{shape}: {got // N:,} bytes held an input, {undos} undos"


def _plain(doc: dict[str, Any], rows: list[Row]) -> list[dict[str, Any] | None]:
    """Each input's state, by a fold keeping the state after every accepted input (None: refused)."""
    f, start = _fold(doc)
    states, seqs, out = [start], [0], []
    for seq, kind, player, lines in rows:
        now = states[-1]
        if kind == UNDO:
            to, reroll = int(lines[0]), lines[1] == "reroll"
            if not 0 <= to < seq - 1:
                out.append(None)
                continue
            state = copy.deepcopy(states[bisect_right(seqs, to) - 1])
            if reroll:
                state["rng"]["n"] = max(state["rng"]["n"], now["rng"]["n"])
        else:
            done = run_input(f.engine_for(now), copy.deepcopy(now), kind, player, lines)
            if not done.accepted:
                out.append(None)
                continue
            state = done.state
        states.append(state)
        seqs.append(seq)
        out.append(state)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_the_tree_gives_what_a_fold_keeping_every_state_gives(
    doc: dict[str, Any], seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    rows = _record(doc, "random", rng.randrange(4, 48), rng)
    plain = _plain(doc, rows)
    runs = []
    for keep in (1, folding.KEEP, 10**9):
        monkeypatch.setattr(folding, "KEEP", keep)
        f, outs = _run(doc, rows)
        runs.append((dict(f.undos), f.points, [(o.events, o.lines) for o in outs]))
        assert [o.state if o.accepted else None for o in outs] == plain, f"KEEP {keep}"
        assert all(f.restored(s) == plain[s - 1] for s in f.undos), f"KEEP {keep}"
    assert runs[0] == runs[1] == runs[2]
