"""A game with many undos: folding its record and listing its inputs cost linear in the record (costs10).

Every undo (`pbem game undo NAME --to SEQ`) is a moderator input, and folding the record (`pbem.trust.fold.Fold`:
`store.replay`, `pbem game undo` itself, `pbem game inputs` once an undo is marked, `pbem verify`) replayed, for each
undo, every input from the set-up to the one it goes back to: k undos in a game of n inputs cost k times n engine
moves.  Now a fold going back keeps the state every `fold.KEEP` inputs as it passes there, and the next starts from
the nearest.  `pbem game inputs` then marked the inputs each undo took back by looking at every input for each undo;
now each undo takes its span out of the inputs still standing by bisection (`pbem.app.undo.taken_back`).

The generator: a House of Habsburg bot game's first m moves, each followed by a marked undo taking it back and by
the move again (the moderator's "that was a misread order", m times).  On ba1be06 the fold made 110 and 1,640 engine
moves for m = 10 and 40 (14.9 at 4x; 7.2 and 91 ms); then 77 and 349 (4.5; the state kept every 16 inputs); since
costs18 (a tree of states, one kept every `KEEP` nodes of a long way) 286 and 1,366 for m = 25 and 100 (4.8; from
the set-up 350 and 5,150).  The fold
ends in the same state, with the same points gone back to, as a fold that keeps nothing.  `taken_back` on 600 and
2,400 inputs, a third of them undos: the loop of `listed` on ba1be06 took 3.3 and 52 ms (15.6 at 4x), now 0.3 and
1.4 ms; it agrees with that loop on a corpus of records with numbered undos to any earlier point.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from functools import cache
from typing import Any

import pytest

from pbem import engine as registry
from pbem.app.undo import Listed, taken_back
from pbem.engine import bots
from pbem.trust import fold as folding
from pbem.trust.fold import UNDO, Fold, undo_lines, undo_mark
from tests.growth import step_growth

M = 25  # rounds at m; 4m at 4m
# engine moves at 4m over m: replaying from the set-up 14.7; the tree of states (costs18) 4.8, its walks at most
# 2 * KEEP - 1 once past the first (at 10 and 40 rounds, still in them: 7.7; costs10's state kept every 16 inputs 4.5)
MAX_MOVES = 5.0
MAX_GROWTH = 5.0  # CPU of `taken_back` at 4x: linear 4; every input for every undo, 16
PLAYERS = ["Alice", "Bob", "Carol"]
SEED = "costs10-undos"
HABSBURG = registry.get("habsburg")
WHEN = datetime(2026, 12, 6, tzinfo=UTC)

Row = tuple[int, str, str, list[str]]


@cache
def _moves() -> list[tuple[str, list[str]]]:
    return bots.play(HABSBURG, PLAYERS, SEED).inputs


def _record(m: int) -> list[Row]:
    """m rounds of a move, the marked undo taking it back, and the move again: (seq, kind, player, lines)."""
    rows: list[Row] = []
    state = HABSBURG.setup(PLAYERS, SEED, {})[0]
    for who, lines in _moves()[:m]:
        seq = len(rows) + 1
        after = HABSBURG.apply(state, who, lines).state
        rows += [
            (seq, "orders", who, lines),
            (seq + 1, UNDO, "", undo_lines(str(undo_mark(after, seq - 1)), False, "misread")),
        ]
        rows.append((seq + 2, "orders", who, lines))
        state = after
    return rows


def _fold(rows: list[Row]) -> tuple[int, dict[str, Any], Fold]:
    """(engine moves, the state at the end, the fold) of folding `rows` as `store.replay` does."""
    moves = 0

    def engine_for(_: dict[str, Any]) -> Any:
        nonlocal moves
        moves += 1
        return HABSBURG

    state = HABSBURG.setup(PLAYERS, SEED, {})[0]
    f = Fold(state, engine_for, SEED)
    for seq, kind, player, lines in rows:
        out = f.run(seq, kind, player, lines, state)
        assert out.accepted, (seq, out.lines)
        state = out.state
    return moves, state, f


def test_folding_m_and_4m_undos_costs_moves_linear_in_the_record() -> None:
    assert len(_moves()) >= 4 * M, "the bot game is long enough"
    moves = {m: _fold(_record(m))[0] for m in (M, 4 * M)}
    assert moves[4 * M] <= MAX_MOVES * moves[M], f"engine moves folding m and 4m undos: {moves}"


def test_the_fold_keeping_states_ends_where_one_keeping_none_ends(monkeypatch) -> None:
    rows = _record(4 * M)
    _, state, f = _fold(rows)
    monkeypatch.setattr(folding, "KEEP", 10**9)  # every undo folds again from the set-up, as on ba1be06
    _, plain, g = _fold(rows)
    assert state == plain and f.points == g.points and f.undos == g.undos
    assert f.kept and not g.kept
    expected = HABSBURG.setup(PLAYERS, SEED, {})[0]
    for who, lines in _moves()[: 4 * M]:  # each move taken back and made again: the moves once each
        expected = HABSBURG.apply(expected, who, lines).state
    assert state == expected


def _listed(n: int, rng: random.Random) -> list[Listed]:
    """n inputs, about a third of them numbered undos going back to any earlier input."""
    out: list[Listed] = []
    for seq in range(1, n + 1):
        if seq > 2 and rng.random() < 0.34:
            to = rng.randrange(0, seq - 1)
            out.append(Listed(seq, WHEN, UNDO, "", undo_lines(to, False, "why"), None))
        else:
            out.append(Listed(seq, WHEN, "orders", "Alice", ["PASS"], None))
    return out


def _scanned(out: list[Listed]) -> tuple[dict[int, int], dict[int, int]]:
    """What `pbem game inputs` marked on ba1be06: every input looked at for each undo."""
    undone: dict[int, int] = {}
    back: dict[int, int] = {}
    for r in out:
        if r.kind == UNDO:
            to = int(r.lines[0])
            back[r.seq] = to
            for other in out:
                if to < other.seq < r.seq and other.kind != UNDO:
                    undone.setdefault(other.seq, r.seq)
    return undone, back


@pytest.mark.parametrize("seed", range(40))
def test_taken_back_marks_what_every_input_looked_at_for_each_undo_marked(seed: int) -> None:
    rng = random.Random(seed)
    out = _listed(rng.randrange(1, 60), rng)
    assert taken_back(out, None) == _scanned(out)


def test_listing_the_inputs_of_n_and_4n_with_a_third_undos_is_linear() -> None:
    records = {n: _listed(n, random.Random(n)) for n in (300, 1200)}
    # lines of Python executed (`step_growth`), not CPU time: 3.7, and 13.7 for `_scanned` (ba1be06's loop)
    g = step_growth(lambda n: lambda: taken_back(records[n], None), 300)
    assert g.ratio <= MAX_GROWTH, f"taken_back, 300 and 1,200 inputs: {g}"
