"""examples/audit_randomness.py: the stand-alone auditor recomputes every draw of a finished game.

It runs as a separate process with only the standard library (no pbem on its
path), on the real JSON export of a finished game of every kind, and names
the first mismatch of a tampered export.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_history_golden import KINDS, seeded_export

SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "audit_randomness.py"


def _run(doc: dict, tmp_path: Path) -> subprocess.CompletedProcess:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    # -S -I: no site packages, no PYTHONPATH, no user site: the script stands alone.
    return subprocess.run([sys.executable, "-S", "-I", str(SCRIPT), str(path)], capture_output=True, text=True)


@pytest.mark.parametrize("kind", KINDS)
def test_the_auditor_reproduces_every_draw_of_a_finished_game(kind: str, tmp_path: Path) -> None:
    doc = seeded_export(kind)
    res = _run(doc, tmp_path)
    assert res.returncode == 0 and res.stdout.startswith("OK: "), res.stdout + res.stderr
    draws = sum(len(e["data"].get("rng", [])) for e in doc["events"])
    assert draws >= 2 and f"{draws} random draws" in res.stdout


def _first_with(doc: dict, op: str) -> dict:
    return next(e for e in doc["events"] if any(r["op"] == op for r in e["data"].get("rng", [])))


def test_a_changed_deck_order_is_named(tmp_path: Path) -> None:
    doc = seeded_export("habsburg")
    ev = next(e for e in doc["events"] if e["kind"] == "shuffle")
    ev["data"]["deck"][0], ev["data"]["deck"][1] = ev["data"]["deck"][1], ev["data"]["deck"][0]
    res = _run(doc, tmp_path)
    assert res.returncode == 1 and f"MISMATCH: event {ev['seq']}" in res.stdout and "'deck'" in res.stdout


def test_a_changed_die_is_named(tmp_path: Path) -> None:
    doc = seeded_export("sixteen-thirty")
    ev = _first_with(doc, "die")
    rec = next(r for r in ev["data"]["rng"] if r["op"] == "die")
    rec["value"] = rec["value"] % 6 + 1
    res = _run(doc, tmp_path)
    assert res.returncode == 1 and f"MISMATCH: event {ev['seq']}" in res.stdout and "the seed gives" in res.stdout


def test_a_hidden_draw_breaks_the_trail(tmp_path: Path) -> None:
    doc = seeded_export("dynasties")
    ev = _first_with(doc, "shuffle")
    doc["events"] = [e for e in doc["events"] if e["seq"] != ev["seq"]]
    res = _run(doc, tmp_path)
    assert res.returncode == 1 and "a draw is missing" in res.stdout


def test_a_wrong_seed_is_refused(tmp_path: Path) -> None:
    doc = seeded_export("italian-wars")
    doc["seed"] += "x"
    res = _run(doc, tmp_path)
    assert res.returncode == 1 and "commitment" in res.stdout


def test_missing_draw_trails_are_refused(tmp_path: Path) -> None:
    """Issue 25: an export whose draw trails were deleted passed (nothing left to check)."""
    doc = seeded_export("habsburg")
    ev = next(e for e in doc["events"] if e["kind"] == "stolen")
    del ev["data"]["rng"]
    res = _run(doc, tmp_path)
    assert res.returncode == 1 and f"MISMATCH: event {ev['seq']}" in res.stdout and "trail is missing" in res.stdout
    doc = seeded_export("habsburg")
    doc["chain"]["legacy_events"] = len(doc["events"])
    res = _run(doc, tmp_path)
    assert res.returncode == 1 and "recorded before it" in res.stdout


def test_a_deck_the_moderator_chose_is_refused(tmp_path: Path) -> None:
    """Issue 25: listing the deck in the order a known seed shuffles into a chosen deal passed: the shuffle was
    recomputed from whatever `before` said.  The set-up deck must be the rulebook's, in its printed order."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("audit_randomness", SCRIPT)
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    Generator = script.Generator
    doc = seeded_export("habsburg")
    ev = next(e for e in doc["events"] if e["kind"] == "shuffle")
    rec = ev["data"]["rng"][0]
    rec["before"] = list(reversed(rec["before"]))  # another order in: another deal out, all recomputed honestly
    gen = Generator(doc["seed"])
    gen.n = rec["at"]
    rec["value"] = ev["data"]["deck"] = gen.shuffle(rec["before"])
    res = _run(doc, tmp_path)
    assert res.returncode == 1 and f"MISMATCH: event {ev['seq']}" in res.stdout and "not the rulebook's" in res.stdout


def test_a_card_drawn_that_is_not_the_decks_is_named(tmp_path: Path) -> None:
    """Issue 25: each draw's use is checked: the moderator tells a player they drew another card than the one at
    that position of the recomputed shuffle (the shuffle and every trail left as they were)."""
    doc = seeded_export("habsburg")
    ev = next(e for e in doc["events"] if e["kind"] == "drew")
    deck = next(e for e in doc["events"] if e["kind"] == "shuffle")["data"]["deck"]
    other = next(card for card in deck if card not in ev["data"]["cards"])
    ev["data"]["cards"] = [other, *ev["data"]["cards"][1:]]
    res = _run(doc, tmp_path)
    assert res.returncode == 1 and f"event {ev['seq']} (drew" in res.stdout, res.stdout
    assert "the recomputed deck gives" in res.stdout


def test_a_deal_that_is_not_the_decks_is_named(tmp_path: Path) -> None:
    doc = seeded_export("habsburg")
    a, b = [e for e in doc["events"] if e["kind"] == "dealt"][:2]
    a["data"]["cards"][0], b["data"]["cards"][0] = b["data"]["cards"][0], a["data"]["cards"][0]
    res = _run(doc, tmp_path)
    assert res.returncode == 1 and f"event {a['seq']} (dealt" in res.stdout, res.stdout


def test_a_wrong_stolen_card_is_named(tmp_path: Path) -> None:
    """Issue 25: the audit said OK on a wrong stolen card (the draw's value was right, its use was not checked).
    Every stolen card must be the one at the drawn position of the victim's hand as the events built it."""
    doc = seeded_export("habsburg")
    thefts = [e for e in doc["events"] if e["kind"] == "stolen"]
    assert thefts
    deck = next(e for e in doc["events"] if e["kind"] == "shuffle")["data"]["deck"]
    ev = thefts[len(thefts) // 2]
    ev["data"]["stolen"] = next(card for card in deck if card != ev["data"]["stolen"])
    res = _run(doc, tmp_path)
    assert res.returncode == 1 and f"event {ev['seq']} (stolen" in res.stdout, res.stdout
    assert f"of {ev['data']['victim']}'s hand holds" in res.stdout
