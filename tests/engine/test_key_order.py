"""Every answer is independent of the order of the state's keys (order13).

The record writes a game's state with sorted keys (`pbem/record/kept_state.py`), so a state loaded from a snapshot
iterates its dicts in another order than the state a poll has just applied in memory.  Seeded bot games of every
kind are played, and at sampled inputs everything a player or the moderator sees that is derived from the state is
worked out on the state as it is in memory, round-tripped as the record stores it, with its keys reversed at every
depth, and (in the whole run) shuffled, seeded: the requests (legal lines, defaults, on file), the standing orders, the result, every
reader's view (sections and data, in order), each player's report text (`pbem.app.reporting.player_report`, the
report template), `pbem game show`'s text (the public sections, who is awaited), and the outcome of the bot's
line, a line of nonsense, an order word with a bad argument and the deadline's defaults (refusals, events, the
next state).  On ab18255d Sixteen Thirty's displays table, its Assassin lines and the view data of every kind
followed the keys' order; now none does.

A sample runs in the suite (a stretch of one game a kind, every 6th input, 0.1 CPU s once the templates are
loaded); `PBEM_FULL_SIZE=1` (`.ci/run`'s step) runs the whole: one game of each kind and size to its end, every
input, the shuffled keys too; `PBEM_KEY_ORDER_GAMES=N`, N games of each.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from typing import Any

import pytest

from pbem import engine as registry
from pbem.engine.base import Engine, Outcome, apply_defaults
from pbem.engine.bots import choose
from pbem.engine.rng import Rng, init_state
from pbem.render.templates import render
from tests.sizes import FULL

GAMES = int(os.environ.get("PBEM_KEY_ORDER_GAMES", "1"))
#: (players, how many inputs of each game) for each kind; None: the whole game.  The sample compares every
#: `STRIDE`-th input of a short stretch of one game per kind (well under a CPU second in all).
SIZES = {"habsburg": [3, 4, 6], "italian-wars": [2], "dynasties": [2, 3, 5], "sixteen-thirty": [3, 4, 6]}
SAMPLE = {"habsburg": (3, 24), "italian-wars": (2, 12), "dynasties": (3, 24), "sixteen-thirty": (3, 36)}
FULL_RUN = FULL or "PBEM_KEY_ORDER_GAMES" in os.environ
STRIDE = 1 if FULL_RUN else 6
#: Seat order is not alphabetical, so a dict keyed by players sorted is not in seat order either.
NAMES = ["Zora", "Bruno", "Mila", "Arlo", "Kira", "Nell"]


def stored(x: Any) -> Any:
    """As the record stores and loads it."""
    return json.loads(json.dumps(x, sort_keys=True))


def reversed_keys(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: reversed_keys(x[k]) for k in reversed(list(x))}
    if isinstance(x, list):
        return [reversed_keys(v) for v in x]
    return x


def shuffled(x: Any, rng: random.Random) -> Any:
    if isinstance(x, dict):
        keys = list(x)
        rng.shuffle(keys)
        return {k: shuffled(x[k], rng) for k in keys}
    if isinstance(x, list):
        return [shuffled(v, rng) for v in x]
    return x


def report(eng: Engine, st: dict[str, Any], player: str) -> str:
    from pbem.app.reporting import Point, Told, player_report

    every, result = eng.requests(st), eng.result(st)
    at = Point("g1", tuple(every), result, commitment_final="0" * 64, moderator="m")
    ctx = player_report(eng, st, player, at, Told((), deadline=None if result else "2026-01-07 12:00 UTC"))
    return render("mail/report.txt.j2", **ctx, now="2026-01-05T12:00:00+00:00", record=None, receipt=None)


def show(eng: Engine, st: dict[str, Any]) -> str:
    """`pbem game show`'s text of the game (`pbem.cli.games.game_show`)."""
    from pbem.app import views
    from pbem.cli.games import waiting_line

    view = eng.view(st, None)
    shown = render("mail/_sections.txt.j2", sections=view["sections"])
    return f"{view['turn']}\n{shown}\n{waiting_line('running', views.waiting(eng, st), None)}"


def seen(eng: Engine, st: dict[str, Any], players: list[str]) -> dict[str, str]:
    """What the readers see of `st`, each part named, in order (a dict's order too)."""
    out = {"requests": repr(eng.requests(st)), "result": repr(eng.result(st)), "game show": show(eng, st)}
    for p in [None, *players]:
        view = eng.view(st, p)
        out[f"view sections ({p})"] = json.dumps(view["sections"])
        out[f"view data ({p})"] = json.dumps(view["data"])
        if p is not None:
            out[f"standing ({p})"] = repr(eng.standing(st, p))
            out[f"report ({p})"] = report(eng, st, p)
    return out


def outcome(o: Outcome) -> dict[str, str]:
    """An outcome as the record keeps it: the state and the events' data with sorted keys, the rest in order."""
    return {
        "next state": json.dumps(o.state, sort_keys=True),
        "refusals": repr(o.lines),
        "events": json.dumps([[e.kind, e.text, list(e.visibility)] for e in o.events]),
        "events' data": json.dumps([e.data for e in o.events], sort_keys=True),
    }


def tries(req_player: str, lines: list[str]) -> list[tuple[str, list[str]]]:
    word = lines[0].split()[0] if lines and lines[0].split() else "PASS"
    return [(req_player, lines), (req_player, ["NONSENSE 42"]), (req_player, [f"{word} zzz"])]


def differences(kind: str, n: int, game: int, inputs: int | None) -> tuple[int, Counter[str]]:
    """(the inputs compared, the parts that differ between the state's orders counted over them, with the inputs
    at which any part differs as "inputs") of one game."""
    eng, players = registry.get(kind), NAMES[:n]
    seed = f"order-{kind}-{n}-{game}"
    st, _ = eng.setup(list(players), seed, {})
    bots, mix = Rng(init_state("bots-" + seed)), random.Random(seed)
    found: Counter[str] = Counter()
    step = compared = 0
    while eng.result(st) is None and (inputs is None or step < inputs):
        reqs = [r for r in eng.requests(st) if not r.answered]
        req = reqs[bots.below(len(reqs))]
        lines = choose(req, bots)
        if step % STRIDE == STRIDE - 1:
            compared, before = compared + 1, sum(found.values())
            others = [stored(st), reversed_keys(st), *([shuffled(st, mix)] if FULL_RUN else [])]
            want = seen(eng, st, players)
            acts = [(who, ls, outcome(eng.apply(st, who, ls))) for who, ls in tries(req.player, lines)]
            deadline = outcome(apply_defaults(eng, st))
            for other in others:
                got = seen(eng, other, players)
                found.update(k for k in want if got[k] != want[k])
                for who, ls, did in acts:
                    again = outcome(eng.apply(other, who, ls))
                    found.update(f"apply: {k}" for k in did if again[k] != did[k])
                again = outcome(apply_defaults(eng, other))
                found.update(f"deadline: {k}" for k in deadline if again[k] != deadline[k])
            found["inputs"] += sum(found.values()) > before
        out = eng.apply(st, req.player, lines)
        assert out.accepted, out.lines
        st, step = out.state, step + 1
    return compared, found


def _cases() -> list[tuple[str, int, int, int | None]]:
    if not FULL_RUN:
        return [(kind, n, 0, inputs) for kind, (n, inputs) in SAMPLE.items()]
    return [(kind, n, g, None) for kind, sizes in SIZES.items() for n in sizes for g in range(GAMES)]


@pytest.mark.parametrize("kind", list(SIZES))
def test_no_answer_depends_on_the_order_of_the_states_keys(kind: str) -> None:
    found: Counter[str] = Counter()
    compared = 0
    for k, n, game, inputs in _cases():
        if k == kind:
            many, differ = differences(k, n, game, inputs)
            compared, found = compared + many, found + differ
    assert compared > 0
    assert not found, (
        f"{kind}: {found['inputs']} of {compared} inputs compared have parts that follow the order of the state's "
        f"keys (times): {dict(found)}"
    )


def test_the_remove_default_on_a_tie_is_the_same_whatever_the_order_of_the_piles() -> None:
    """ST-R17's default removes the cheapest card of a descendant pile; two piles each holding an Open 1 over one named
    card tie, and on ab18255d the pile the default emptied was the first in the order of the state's keys: a
    deadline applied to a state loaded from the record changed another pile than the same deadline in memory.  Now
    the first by name."""
    eng = registry.get("sixteen-thirty")
    players = NAMES[:3]
    st, _ = eng.setup(list(players), "order13-tie", {})
    bots = Rng(init_state("order13-tie-bots"))
    while st["phase"] != "remove" or len(st["displays"][st["active"]]) < 2:
        reqs = [r for r in eng.requests(st) if not r.answered]
        req = reqs[bots.below(len(reqs))]
        st = eng.apply(st, req.player, choose(req, bots)).state
    tie = stored(st)
    p = tie["active"]
    first, second = sorted(tie["displays"][p])[:2]
    tie["displays"][p] = {
        second: {"cards": [f"{second} 2", "Open 1"], "desc": True},
        first: {"cards": [f"{first} 3", "Open 1"], "desc": True},
    }
    after = {json.dumps(apply_defaults(eng, form).state, sort_keys=True) for form in (tie, reversed_keys(tie))}
    assert len(after) == 1
    (removed,) = after
    assert json.loads(removed)["displays"][p][first]["cards"] == [f"{first} 3"]
