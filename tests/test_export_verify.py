"""Export and `pbem verify`: a finished game verifies; any tampering is caught and named."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pbem.export import text_record, verify
from tests.conftest import Clock


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> dict[str, dict]:
    from pbem.demo import run

    docs = {}
    for kind, n in [("habsburg", 3), ("italian-wars", 2), ("dynasties", 3)]:
        r = run(kind, n, f"export-{kind}", tmp_path_factory.mktemp(kind) / "home", clock=Clock())
        docs[kind] = json.loads(r.export.read_text())
    return docs


def test_the_export_holds_what_the_format_promises(finished) -> None:
    doc = finished["habsburg"]
    assert doc["format"] == "pbem-history" and doc["version"] == 1
    assert {"game", "players", "seed_commitment", "seed", "messages", "orders", "events", "result"} <= set(doc)
    assert doc["seed"] and doc["result"]["scores"]
    assert all(o["message_id"] for o in doc["orders"] if o["kind"] == "orders")
    assert all(m["outcome"] in ("accepted", "rejected", "ignored") for m in doc["messages"])
    assert {e["visibility"] if isinstance(e["visibility"], str) else "players" for e in doc["events"]} >= {
        "public",
        "players",
    }


@pytest.mark.parametrize("kind", ["habsburg", "italian-wars", "dynasties"])
def test_a_finished_game_verifies(finished, kind: str) -> None:
    v = verify(finished[kind])
    assert v.ok, v.problem
    assert any("commitment" in c for c in v.checked) and any("reproduced exactly" in c for c in v.checked)


def _first(doc: dict, pred) -> dict:
    return next(e for e in doc["events"] if pred(e))


def test_tampering_with_a_draw_is_caught(finished) -> None:
    doc = copy.deepcopy(finished["habsburg"])
    ev = _first(doc, lambda e: "you drew" in e["text"].lower())
    card = ev["text"].rsplit("drew ", 1)[1].split(" (")[0]
    ev["text"] = ev["text"].replace(card, "Holy Roman Empire" if card != "Holy Roman Empire" else "Austria")
    v = verify(doc)
    assert not v.ok and f"event {ev['seq']} differs" in v.problem


def test_tampering_with_a_coin_or_die_is_caught(finished) -> None:
    doc = copy.deepcopy(finished["italian-wars"])
    ev = _first(doc, lambda e: "coin" in e["text"].lower())
    ev["data"] = {**ev["data"], "tampered": True}
    v = verify(doc)
    assert not v.ok and f"event {ev['seq']} differs" in v.problem


def test_a_different_seed_fails_the_commitment(finished) -> None:
    doc = copy.deepcopy(finished["dynasties"])
    doc["seed"] = doc["seed"] + "0"
    v = verify(doc)
    assert not v.ok and "commitment" in v.problem


def test_a_forged_order_is_caught(finished) -> None:
    doc = copy.deepcopy(finished["habsburg"])
    doc["orders"] = doc["orders"][1:]
    assert not verify(doc).ok


def test_the_text_record_has_one_line_per_event(finished) -> None:
    doc = finished["italian-wars"]
    text = text_record(doc)
    assert text.count("\n") >= len(doc["events"])
    assert doc["seed"] in text and doc["result"]["summary"] in text


def test_cli_verify_passes_and_fails_with_exit_codes(finished, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app

    good = tmp_path / "good.json"
    good.write_text(json.dumps(finished["habsburg"]))
    res = CliRunner().invoke(app, ["verify", str(good)])
    assert res.exit_code == 0 and "verification passed" in res.output
    bad_doc = copy.deepcopy(finished["habsburg"])
    bad_doc["events"][3]["text"] += "!"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_doc))
    res = CliRunner().invoke(app, ["verify", str(bad)])
    assert res.exit_code == 1 and "verification FAILED: event" in res.output
