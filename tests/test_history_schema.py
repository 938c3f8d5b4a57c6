"""docs/export.schema.json (JSON Schema 2020-12, format version 1) accepts real exports of every kind and audience."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem.export import VERSION
from tests.test_history_golden import KINDS, seeded_export, seeded_home

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the test extra: pip install -e .[test]")

SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "export.schema.json"
DOC = SCHEMA.with_name("export-format.md")


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_schema_is_the_current_format_version() -> None:
    schema = json.loads(SCHEMA.read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["version"] == VERSION == schema["properties"]["version"]["const"]


def _errors(validator, doc) -> list[str]:
    return [f"{e.json_path}: {e.message[:300]}" for e in validator.iter_errors(doc)]


@pytest.mark.parametrize("kind", KINDS)
def test_real_exports_of_every_kind_and_audience_validate(validator, kind: str) -> None:
    from pbem import config as config_mod
    from pbem.export import build
    from pbem.record import store
    from pbem.record.db import session

    assert _errors(validator, seeded_export(kind)) == []
    cfg = config_mod.load(seeded_home(kind) / "pbem.toml")
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, f"{kind}-demo")
        first = json.loads(game.players_json)[0]
        for doc in (build(s, game, public=True), build(s, game, as_player=first)):
            assert _errors(validator, json.loads(json.dumps(doc))) == []


def test_the_schema_rejects_what_the_format_forbids(validator) -> None:
    doc = seeded_export("italian-wars")
    bad = [
        dict(doc, version=2),
        dict(doc, seed_commitment="xyz"),
        dict(doc, events=[dict(doc["events"][0], visibility="everyone")]),
        dict(doc, events=[dict(doc["events"][0], kind="scores", data={"turn": 1})]),
        {k: v for k, v in doc.items() if k != "orders"},
    ]
    for b in bad:
        assert _errors(validator, b), b.get("version")


def test_the_format_page_documents_every_field() -> None:
    schema = json.loads(SCHEMA.read_text())
    text = DOC.read_text()
    names = set(schema["properties"])
    for sub in ("game", "players", "messages", "orders", "result"):
        node = schema["properties"][sub]
        node = node.get("items", node)
        node = next((o for o in node.get("oneOf", [node]) if o.get("type") == "object"), node)
        names |= set(node.get("properties", {}))
    names |= set(schema["$defs"]["event"]["properties"]) | set(schema["$defs"]["scores_data"]["properties"])
    missing = sorted(n for n in names if f"`{n}`" not in text)
    assert not missing, f"docs/export-format.md does not document {missing}"
