"""Issue 16: a replaced seat goes by its newcomer's name in every game (plain objects, no database).

The engine state is renamed (`pbem.engine.seats.rename`), so the newcomer's report, their requests,
the orders others write about them and every later event use the new name, while a replay of the
recorded inputs (the rename among them) reproduces the game exactly.
"""

from __future__ import annotations

import json

import pytest

from pbem import engine as registry
from pbem.app.reporting import Point, Told, player_report
from pbem.engine.bots import choose
from pbem.engine.rng import Rng, init_state
from pbem.engine.seats import rename
from pbem.render.templates import render_mail
from pbem.trust.fold import run_input


def _players(kind: str) -> list[str]:
    eng = registry.get(kind)
    return ["Alice", "Carol"] if eng.max_players < 3 else ["Alice", "Bob", "Carol"]


@pytest.mark.parametrize("kind", list(registry.KINDS))
def test_ISSUE16_after_a_replacement_reports_orders_and_events_use_the_new_name(kind: str) -> None:
    eng = registry.get(kind)
    players = _players(kind)
    state, _ = eng.setup(players, "rename-seed", {})
    rng = Rng(init_state("bots"))
    inputs: list[tuple[str, str, list[str]]] = []

    def move() -> list:
        req = next(r for r in eng.requests(state) if not r.answered)
        lines = choose(req, rng)
        out = eng.apply(state, req.player, lines)
        assert out.accepted, out.lines
        inputs.append(("orders", req.player, lines))
        return out

    for _ in range(3):  # the seat changes hands in the middle of the game
        state = move().state
    out = rename(state, "Carol", "Zoë Müller")
    assert out.accepted and rename(state, "Carol", "Alice").accepted is False
    state = out.state
    inputs.append(("rename", "Carol", ["Zoë Müller"]))
    assert "Carol" not in json.dumps(state, ensure_ascii=False)

    ctx = player_report(eng, state, "Zoë Müller", Point("g1", tuple(eng.requests(state)), None), Told(()))
    mail = render_mail(
        "report", {**ctx, "moderator": "M", "moderator_address": "m@pbem.test", "now": "2026-01-05T12:00:00+00:00"}
    )
    assert "Private report for Zoë Müller." in mail.text and "Carol" not in mail.text + mail.html

    later: list[str] = []
    while eng.result(state) is None and len(inputs) < 400:
        out = move()
        state, later = out.state, later + [e.text for e in out.events]
    assert any("Zoë Müller" in t for t in later) and not any("Carol" in t for t in later)

    replayed, _ = eng.setup(players, "rename-seed", {})
    for kind_, player, lines in inputs:
        replayed = run_input(eng, replayed, kind_, player, lines).state
    assert replayed == state
