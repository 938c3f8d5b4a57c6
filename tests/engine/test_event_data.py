"""Every event keeps the facts it was built with, and every random draw is on the auditor's trail.

* An event's `data` never changes once the engine has built it: a later step
  of the same message (a discard after a reveal) must not edit an event already
  appended (issue 13: the Italian Wars `reveal` lost cards that way).
* Every draw of a bot game of every kind is listed in some event's `rng`
  records, from block 0 on without a gap, and examples/audit_randomness.py
  recomputes each from the seed.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from pbem import engine as registry
from pbem.engine.base import Event
from pbem.engine.bots import play

PLAYERS = {"habsburg": 3, "italian-wars": 2, "dynasties": 3, "sixteen-thirty": 4}
NAMES = ["Alice", "Bob", "Carol", "Dave", "Eve"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _snapshot_on_construction(monkeypatch) -> dict[int, str]:
    """Record each Event's data as JSON the moment it is constructed (keyed by id; events are kept alive)."""
    built: dict[int, str] = {}
    original = Event.__init__

    def init(self, *args, **kwargs) -> None:
        original(self, *args, **kwargs)
        built[id(self)] = json.dumps(self.data, sort_keys=True)

    monkeypatch.setattr(Event, "__init__", init)
    return built


@pytest.mark.parametrize("kind", list(PLAYERS))
@pytest.mark.parametrize("game", range(3))
def test_an_events_data_never_changes_after_it_is_built(monkeypatch, kind: str, game: int) -> None:
    built = _snapshot_on_construction(monkeypatch)
    pt = play(registry.get(kind), NAMES[: PLAYERS[kind]], f"frozen-{game}", bot_seed=f"b{game}", timeout_every=5)
    kinds = set()
    for ev in pt.events:
        kinds.add(ev.kind)
        assert json.dumps(ev.data, sort_keys=True) == built[id(ev)], f"{kind}: {ev.kind} changed after: {ev.text}"
    assert len(kinds) > 10


def test_the_check_catches_an_event_whose_list_is_the_states(monkeypatch) -> None:
    built = _snapshot_on_construction(monkeypatch)
    hand = ["a", "b"]
    ev = Event("reveal", "reveals a, b", "public", {"cards": hand})
    hand.remove("b")
    assert json.dumps(ev.data, sort_keys=True) != built[id(ev)]


def _audit():
    sys.path.insert(0, str(EXAMPLES))
    try:
        import audit_randomness
    finally:
        sys.path.remove(str(EXAMPLES))
    return audit_randomness.audit


@pytest.mark.parametrize("kind", list(PLAYERS))
def test_every_draw_of_a_bot_game_is_on_the_trail_and_reproduced(kind: str) -> None:
    audit = _audit()
    for game in range(3):
        seed = f"trail-{game}"
        pt = play(registry.get(kind), NAMES[: PLAYERS[kind]], seed, bot_seed=f"b{game}", timeout_every=4)
        doc = {
            "seed": seed,
            "seed_commitment": hashlib.sha256(seed.encode()).hexdigest(),
            "events": [dict(seq=i + 1, **ev.to_json(), hash="-") for i, ev in enumerate(pt.events)],
            "game": {"kind": kind},  # what the audit checks the deck against
            "players": [{"name": n, "seat": i} for i, n in enumerate(NAMES[: PLAYERS[kind]])],
            "chain": {"legacy_events": 0},  # the trail only; the chain itself is verify's
        }
        ok, message = audit(doc)
        assert ok, f"{kind}: {message}"
        assert pt.state["rng"]["n"] == int(message.split("(")[1].split()[0]), "blocks used but not on the trail"
