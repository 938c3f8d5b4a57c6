"""Mail written before order13 still verifies: a Sixteen Thirty report or refusal listing piles in the order of
the state's keys.

Before order13 the displays table, the Assassin and REMOVE lines and the ACCEPT lines followed the order of the keys
of the state the poll held (just applied in memory, or loaded from the record with sorted keys); now they are by
name (tests/engine/test_key_order.py).  Such an old report is written here from a state just applied, as pbem wrote
it then (`pbem.engine.views.as_kept`), and its sections, compared by `pbem verify --mail` as sets
(`pbem.trust.shown.report_of`), are those of the report pbem writes now.  An old refusal listing Assassin lines in
placement order is read by verify's readings of the state (`pbem.trust.refused._readings`): with the reading as
kept it matches (on the reading of today alone it did not: the test of the last case), and a refusal with two of
its lines swapped matches no reading.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pbem import engine as registry
from pbem.app.rereading import refused as reread
from pbem.engine.bots import choose
from pbem.engine.rng import Rng, init_state
from pbem.engine.views import as_kept
from pbem.render.templates import render
from pbem.trust import refused, shown

PLAYERS = ["Zora", "Bruno", "Mila"]


def _assassin_moment() -> tuple[dict[str, Any], str, str]:
    """A state just applied in memory (a bot game), where the active player may play an Assassin on a display
    whose piles were not placed in the order of their names; with that player and the pile's owner."""
    eng = registry.get("sixteen-thirty")
    st, _ = eng.setup(list(PLAYERS), "order13-old", {})
    bots = Rng(init_state("order13-bots"))
    for _ in range(2000):
        reqs = [r for r in eng.requests(st) if not r.answered]
        for r in reqs:
            for q in PLAYERS:
                placed = list(st["displays"][q])
                many = sum(line.startswith(f"PLAY Assassin {q} ") for line in r.legal) > 2
                if q != r.player and placed != sorted(placed) and many:
                    return st, r.player, q
        req = reqs[bots.below(len(reqs))]
        st = eng.apply(st, req.player, choose(req, bots)).state
    raise AssertionError("no moment with an Assassin on a display out of name order")


def _report(st: dict[str, Any], player: str) -> tuple[str, str]:
    from pbem.app.reporting import Point, Told, player_report

    eng = registry.get("sixteen-thirty")
    at = Point("g1", tuple(eng.requests(st)), None, commitment_final="0" * 64, moderator="m")
    ctx = player_report(eng, st, player, at, Told((), deadline="2026-01-07 12:00 UTC"))
    both = {**ctx, "now": "2026-01-05T12:00:00+00:00", "record": None, "receipt": None}
    return render("mail/report.txt.j2", **both), render("mail/report.html.j2", **both)


@pytest.fixture(scope="module")
def moment() -> tuple[dict[str, Any], str, str]:
    return _assassin_moment()


def test_an_old_report_in_the_order_of_the_keys_shows_the_sections_verify_expects(moment) -> None:  # type: ignore[no-untyped-def]
    st, player, _ = moment
    with as_kept():
        old = _report(st, player)
    new = _report(st, player)
    assert old[0] != new[0] and old[1] != new[1], "the old report's order is the new one: nothing compared"
    old_read, new_read = shown.report_of(*old), shown.report_of(*new)
    assert old_read is not None and new_read is not None
    assert old_read[1] == new_read[1]


class _Replay:
    """The states verify replays (`pbem.trust.shown.Replay`): one here, as the record's inputs rebuild it."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.states = {1: state}

    def reader(self, state: dict[str, Any]) -> Any:
        return registry.get("sixteen-thirty")


def _matched(st: dict[str, Any], player: str, lines: list[str], text: str, page: str) -> bool:
    want = (refused.block(text), refused.html_block(page))
    return any(
        (refused.block(t), refused.html_block(h)) == want
        for _, t, h, *_ in refused._readings(_Replay(st), [1], [player], lines, reread)  # type: ignore[arg-type]
    )


def test_an_old_refusal_listing_assassin_lines_in_placement_order_is_read_as_pbem_wrote_it(moment) -> None:  # type: ignore[no-untyped-def]
    st, player, owner = moment
    lines = [f"PLAY Assassin {owner} Nothing 9"]
    with as_kept():
        old = reread(registry.get("sixteen-thirty"), st, player, lines)
    new = reread(registry.get("sixteen-thirty"), json.loads(json.dumps(st, sort_keys=True)), player, lines)
    assert refused.block(old[0]) != refused.block(new[0]), "the old refusal lists what the new one does"
    assert _matched(st, player, lines, *new)
    assert _matched(st, player, lines, *old)
    rows = old[0].split("\n")
    at = next(i for i, row in enumerate(rows) if row.strip().startswith(f"PLAY Assassin {owner} "))
    rows[at], rows[at + 1] = rows[at + 1], rows[at]
    assert not _matched(st, player, lines, "\n".join(rows), old[1])


def test_without_the_reading_as_kept_the_old_refusal_would_be_named(moment, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    st, player, owner = moment
    lines = [f"PLAY Assassin {owner} Nothing 9"]
    with as_kept():
        old = reread(registry.get("sixteen-thirty"), st, player, lines)

    class Now:
        def __enter__(self) -> None: ...
        def __exit__(self, *exc: object) -> None: ...

    monkeypatch.setattr(refused, "as_kept", Now)
    assert not _matched(st, player, lines, *old)
