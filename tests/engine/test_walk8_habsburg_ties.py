"""walk8's L4: a House of Habsburg result decided by HH-R3's tie-break names the rule.

The result line ("Carol wins House of Habsburg with 6 points (Alice 6, Carol 6, Bob 1).", the final report's subject
and its Result section) and the game-over event named the winner of a tie without saying why.  Now both say which
rule decided (`pbem.engine.habsburg.rules.decided`): the higher Holding total, then more melds, else a shared win,
citing HH-R3.  A game recorded before keeps verifying: the game-over event's earlier form is the engine's
(`earlier_forms`) and the summary's is the result's (`Result.earlier`).

The generator plays bot games of three players from seeds `walk8-N` (the suite 40, `PBEM_WALK8_FULL=1` 300) and
checks every finished game whose top score is shared.  At 300 seeds: 26 such games, all 26 unnamed on c83d8ea7 (it never
named HH-R3), 0 now; the suite's 40 hold 2.
"""

from __future__ import annotations

import os

from pbem.engine import get
from pbem.engine.bots import choose
from pbem.engine.habsburg import rules
from pbem.engine.rng import Rng, init_state

SEEDS = 300 if os.environ.get("PBEM_WALK8_FULL") else 40


def _finished(seed: int):
    eng = get("habsburg")
    state, events = eng.setup(["Alice", "Bob", "Carol"], f"walk8-{seed}", {})
    rng = Rng(init_state(f"walk8-bots-{seed}"))
    for _ in range(500):
        if eng.result(state) is not None:
            break
        asked = [r for r in eng.requests(state) if not r.answered]
        out = eng.apply(state, asked[0].player, choose(asked[0], rng))
        state, events = out.state, [*events, *out.events]
    return eng, state, events


def test_a_tie_broken_by_hh_r3_is_named_in_the_result_and_the_games_end() -> None:
    ties = 0
    for seed in range(SEEDS):
        eng, state, events = _finished(seed)
        result = eng.result(state)
        if result is None:
            continue
        top = max(result.scores.values())
        tied = [p for p, s in result.scores.items() if s == top]
        (end,) = [e for e in events if e.kind == "game-over"]
        if len(tied) < 2:
            assert "HH-R3" not in result.summary and result.earlier == () and eng.earlier_forms(end) == ()
            continue
        ties += 1
        said = rules.decided(state)
        assert said.endswith("(HH-R3).") and result.summary.endswith(" " + said), result.summary
        assert end.text.endswith(" " + said), end.text
        if len(result.winners) > 1:
            assert "a shared win" in said, said
        else:
            assert "decided it: " + result.winners[0] in said, said
        (older,) = eng.earlier_forms(end)  # the text a game recorded before walk8 holds
        assert older.text == end.text[: -len(said) - 1] and older.text.endswith(
            f"Winner: {' and '.join(result.winners)}."
        )
        assert result.earlier == (result.summary[: -len(said) - 1],)
    assert ties >= 2, ties  # the sample holds ties (40 seeds: 2)
