"""A whole-gambit Dynasties bot and the rounds-per-gambit measure.

`message` composes one email's order lines from a player's own view and
request only (never the state): at the Tribute it sends the Tribute, a play
list for the gambit's Turns and a standing conclave choice, so a gambit
usually needs one round of email.  `rounds_per_gambit` plays bot games and
counts, per gambit, the request rounds: the times the moderator had to ask
for answers not already on file (a simultaneous step asked of several
players counts once).
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import Request
from pbem.engine.rng import Rng, init_state
from pbem.engine.views import View


def _shuffled(cards: list[str], rng: Rng) -> list[str]:
    out = list(cards)
    rng.shuffle(out)
    return out


def message(engine_view: View, request: Request, rng: Rng) -> list[str]:
    """Order lines for `request`, using only what `engine_view` shows its player."""
    data = engine_view["data"]
    hand = list(data.get("hand", []))
    on_file = data.get("on_file", [])
    pref = [] if any(x.upper().startswith("CONCLAVE") for x in on_file) else ["CONCLAVE TAKE HIGHEST"]
    step = request.step
    if step.endswith(".tribute"):
        order = _shuffled(hand, rng)
        lines = [f"TRIBUTE {order[0]}"]
        if order[1:]:
            lines.append("PLAYS " + ", ".join(order[1:5]))
        return lines + pref
    if ".play." in step:
        return ["PLAYS " + ", ".join(_shuffled(hand, rng)[:4]), *pref]
    if ".conclave." in step:
        return ["CONCLAVE TAKE HIGHEST"]
    if request.legal:
        return [request.legal[rng.below(len(request.legal))]]
    return list(request.default)


def _gambit_of(step: str) -> int:
    return int(step.split(".", 1)[0][1:])


def rounds_per_gambit(players: int, games: int, seed: Any) -> list[int]:
    """Play `games` bot games of `players` seats; one count of request rounds per gambit played."""
    from pbem.engine.dynasties import ENGINE

    counts: list[int] = []
    for g in range(games):
        names = [f"P{i + 1}" for i in range(players)]
        state, _ = ENGINE.setup(names, f"{seed}-{g}", {})
        rng = Rng(init_state(f"{seed}-bots-{g}"))
        per: dict[int, int] = {}
        while ENGINE.result(state) is None:
            asked = [r for r in ENGINE.requests(state) if not r.answered]
            if not asked:
                raise AssertionError("game not over but nobody is asked anything")
            gambit = _gambit_of(asked[0].step)
            per[gambit] = per.get(gambit, 0) + 1
            for req in asked:
                live = [
                    r
                    for r in ENGINE.requests(state)
                    if r.player == req.player and r.step == req.step and not r.answered
                ]
                if not live:
                    continue
                lines = message(ENGINE.view(state, req.player), live[0], rng)
                out = ENGINE.apply(state, req.player, lines)
                if not out.accepted:
                    raise AssertionError(f"bot message rejected: {out.lines}")
                state = out.state
        counts += [per[k] for k in sorted(per)]
    return counts
