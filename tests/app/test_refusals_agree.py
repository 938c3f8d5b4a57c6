"""A refusal's reason and the status the same mail shows agree (found by the players' testers in Italian Wars:
"you are not asked anything now" above "Still awaited from: Bob" and the player's own name).

Over states the bots reach in every kind, a player who is asked and one who is not send orders (another step's,
another player's, two answers in one message); the refusal's reasons are read against the mail's status, both as
the intake gives them: a player told "not asked" is not listed as awaited, a player listed as awaited is never told
"not asked", and a reason's "waiting for ..." names exactly the players the status lists."""

from __future__ import annotations

import dataclasses
import re

import pytest

from pbem import engine as registry
from pbem.app import views
from pbem.app.decision import Decision, Report
from pbem.app.intake import Facts, decide
from pbem.engine.bots import choose
from pbem.engine.rng import Rng, init_state
from pbem.mail.outbound.outgoing import Mail
from pbem.orders.extract import extract
from tests.app.plain import loaded, mail, signed

STEPS = 45  # bot moves played per kind
EVERY = 3  # every third state reached is tried


def acknowledgement(d: Decision) -> dict | None:
    for e in d.effects:
        if isinstance(e, Mail) and e.kind == "ack":
            return e.context
        if isinstance(e, Report) and e.ack is not None:
            return e.ack
    return None


def send(g, player: str, lines: list[str]) -> Decision:
    msg = mail(player, signed(player, "\n".join(lines)))
    ex = extract(msg.text, msg.subject, views.engine(g).order_words)
    return decide(msg, Facts(g, "running", {}, [], extracted=ex, registered=True), 10_000)


def states(kind: str) -> tuple[list[dict], list[str], tuple[str, ...]]:
    """States the bots reach (every `EVERY`th) and the legal lines seen on the way (any player's, any step's)."""
    eng = registry.get(kind)
    players = ("Alice", "Bob", "Carol")[: max(eng.min_players, 2)]
    state = loaded(kind, players).state
    rng = Rng(init_state(f"agree-{kind}"))
    out, seen = [], []
    for i in range(STEPS):
        reqs = [r for r in eng.requests(state) if not r.answered]
        if not reqs or eng.result(state):
            break
        for r in eng.requests(state):
            seen.extend(r.legal[:: max(1, len(r.legal) // 3)])
        if i % EVERY == 0:
            out.append(state)
        req = reqs[rng.below(len(reqs))]
        state = eng.apply(state, req.player, choose(req, rng)).state
    return out, list(dict.fromkeys(seen)), players


def _named(text: str) -> set[str]:
    return {n.strip() for n in re.split(r",| and ", text) if n.strip()} - {"nobody"}


@pytest.mark.parametrize("kind", registry.available())
def test_a_refusal_never_says_not_asked_to_a_player_the_status_lists_as_awaited(kind: str) -> None:
    eng = registry.get(kind)
    found, seen, players = states(kind)
    g0 = loaded(kind, players)
    told = {"asked": 0, "not asked": 0}
    for st in found:
        g = dataclasses.replace(g0, state=st)
        for p in players:
            mine = [r for r in eng.requests(st) if r.player == p and not r.answered]
            messages = [[line] for line in seen[:: max(1, len(seen) // 12)]]  # other steps', other players' orders
            if mine and mine[0].legal:  # two answers to one question in one message
                legal = mine[0].legal
                messages += [[legal[0], legal[-1]], [legal[-1], legal[0]]]
            for lines in messages:
                d = send(g, p, lines)
                ack = acknowledgement(d)
                if d.outcome != "rejected" or ack is None:
                    continue
                waiting = list(ack["waiting"])
                for r in ack["lines"]:
                    if r["ok"]:
                        continue
                    why = r["reason"]
                    where = (kind, p, lines, why, waiting)
                    if "not asked" in why:
                        told["not asked"] += 1
                        assert p not in waiting, where
                    elif p in waiting:
                        told["asked"] += 1
                    said = re.search(r"waiting for ([^;(]*)", why)
                    if said:
                        assert _named(said.group(1)) == set(waiting), where
    assert told["not asked"] and told["asked"], told  # both kinds of sender were tried
