"""The readable game record (`pbem export --format text`) of a seeded game of each kind, as golden text.

Each game is played by email through the real pipeline with a fixed clock,
seed and bot seed, so its record is reproducible.  A change in the rules, the
event texts or the record layout shows up here as a readable diff.
Run with PBEM_UPDATE_GOLDEN=1 to rewrite tests/golden/records/<kind>.txt.

`seeded_export(kind)` is shared with the other history tests: each game is
played once per test run (`tests.shared.once`: one xdist worker plays it, each
worker copies the finished home).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path

import pytest

from pbem import engine as registry
from pbem.history.export import text_record
from pbem.record import sealing
from tests.shared import once

ROOT = Path(__file__).resolve().parent / "golden" / "records"
KINDS = registry.available()


def game_of(kind: str) -> tuple[int, str]:
    """(players, seed) of the seeded game of `kind`; the bot seed is "golden".

    It is the game of the seeded playthrough (`tests.test_playthrough_golden.game_of`: its transcripts name
    the seed and hold one file per player), so that one game serves both goldens: its mail and its record.
    """
    from tests.test_playthrough_golden import game_of as playthrough

    _, players, seed = playthrough(kind)
    return players, seed


@cache
def seeded_home(kind: str) -> Path:
    """A moderator home holding one finished seeded game of `kind` (played once per test run, see `tests.shared`)."""
    from pbem.cli.demo import run
    from tests.conftest import Clock

    if kind not in registry.available():
        pytest.skip(f"the {kind} engine is not installed")

    def play(home: Path) -> None:
        players, seed = game_of(kind)
        r = run(kind, players, seed, home, bot_seed="golden", clock=Clock(), max_polls=3000)
        assert r.verified and "did not finish" not in r.summary, f"{kind}: {r.summary}; {r.checked}"

    tmp = Path(tempfile.mkdtemp(prefix=f"pbem-history-{kind}-"))
    atexit.register(shutil.rmtree, tmp, True)
    played = once(f"seeded-{kind}", play)  # under xdist: played by one worker, copied by each
    if played is None:
        play(tmp / "home")
    else:
        shutil.copytree(played, tmp / "home")
    # Its games' keys are sealed with the home's key file, which a process knows once it opened the home (a command,
    # `config.load`): a copy another worker played is known to this one only so, and a test reading the database
    # directly failed in CI when the other worker had played it (costs15's export test).
    sealing.register(tmp / "home")
    return tmp / "home"


def seeded_export(kind: str) -> dict:
    """The moderator's JSON export of the seeded finished game of `kind` (a fresh copy)."""
    return json.loads((seeded_home(kind) / f"{kind}-demo.json").read_text())


@pytest.mark.parametrize("kind", KINDS)
def test_the_text_record_of_a_seeded_game_matches_golden_text(kind: str) -> None:
    got = text_record(seeded_export(kind))
    path = ROOT / f"{kind}.txt"
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(got)
        return
    assert path.exists(), f"no golden record {path}; run with PBEM_UPDATE_GOLDEN=1"
    assert got == path.read_text(), f"{kind}: the text record differs from {path}"


@pytest.mark.parametrize("kind", KINDS)
def test_the_record_has_a_header_turn_headings_one_line_per_event_the_result_and_the_seed(kind: str) -> None:
    doc = seeded_export(kind)
    text = text_record(doc)
    lines = text.splitlines()
    assert lines[1] == f"{doc['game']['title']}: game {doc['game']['name']}"
    assert any(line.startswith("Players:") and all(p["name"] in line for p in doc["players"]) for line in lines)
    for ev in doc["events"]:
        assert any(line.lstrip().startswith(f"{ev['seq']}. {ev['text']}") for line in lines), ev["text"]
    scores = [e for e in doc["events"] if e["kind"] == "scores"]
    headings = [line for line in lines if line.startswith("--- ")]
    assert headings[0].startswith("--- Set-up") and headings[-1].startswith("--- End of the game")
    assert len(headings) == len(scores) + 2
    assert doc["result"]["summary"] in text and "(winner)" in text
    assert f"Seed: {doc['seed']}" in text and "equals the commitment" in text and "pbem verify" in text


def test_a_record_during_the_game_keeps_the_seed_secret() -> None:
    doc = seeded_export("italian-wars")
    doc["game"]["over"], doc["seed"], doc["result"] = False, None, None
    doc.pop("finished")
    text = text_record(doc)
    assert "Status:     in progress" in text and "Seed: secret until the game is over" in text
    assert "--- Since the last scoring (in progress)" in text
