"""A long game's export, text and page cost time linear in its events (costs8).

`pbem.history.story.turns` groups a history's events by the scoring event that closes each turn; for every event it
searched the scoring events from the first, so a game of n events and n/k turns cost n times n/k: the text record
(`pbem export --format text`), the HTML page (`--format html`, `pbem publish`) and their turn headings grew with the
square of the game's length (on cc9d072, at 4x the events: `turns` 12.5x, the text 10.5x, the page 6x).  Now the
closing scoring event is found by bisection over their positions.  The generator: a seeded finished game's export
with its events repeated k and 4k times (positions renumbered), the grouping's and the text's CPU time compared
with `tests/growth.py` (both failed on cc9d072; the page's other work hides the square at these sizes).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pbem.history import formats
from pbem.history.story import turns
from tests.growth import growth
from tests.test_history_golden import seeded_export


@pytest.fixture(scope="module")
def base() -> dict[str, Any]:
    return seeded_export("habsburg")


def longer(doc: dict[str, Any], k: int) -> dict[str, Any]:
    """`doc` with its events played `k` times over, each round's positions after the last round's."""
    out = copy.copy(doc)
    top = max(e["seq"] for e in doc["events"])
    out["events"] = [
        {**e, "seq": e["seq"] + r * top, "input_seq": e["input_seq"] or (1 if r else 0)}
        for r in range(k)
        for e in doc["events"]
    ]
    return out


@pytest.mark.parametrize("stage", ["turns", "text"])
def test_a_long_games_export_grows_linearly(base: dict[str, Any], stage: str) -> None:
    docs = {k: longer(base, k) for k in (4, 16)}
    run = (lambda d: turns(d)) if stage == "turns" else (lambda d: formats.render(d, stage))

    def work(k: int) -> Any:
        return lambda: run(docs[k])

    g = growth(work, 4, bound=6.5)
    assert g.ratio <= 6.5, f"{stage}: {g}"


def test_the_groups_are_those_the_search_from_the_first_scoring_gave(base: dict[str, Any]) -> None:
    """For a document in order (as pbem writes them), each event is in the group of the first scoring event at or
    after it, as the search from the first found it (the golden text records check the seeded games too)."""
    doc = longer(base, 3)
    scores = [e for e in doc["events"] if e["kind"] == "scores"]
    first = scores[0]["seq"]
    want = [
        "setup" if e["input_seq"] == 0 and e["seq"] < first
        else next((f"t{s['data']['turn']}" for s in scores if e["seq"] <= s["seq"] and "turn" in s["data"]), None)
        or next((f"t{i + 1}" for i, s in enumerate(scores) if e["seq"] <= s["seq"]), "end")
        for e in doc["events"]
    ]  # fmt: skip
    got = {e["seq"]: g.key for g in turns(doc) for e in g.events}
    assert [got[e["seq"]] for e in doc["events"]] == want
