"""Issue 25: fairness that holds against the moderator.  Each test plays a real game (pbem.cli.demo), performs one
attack of the issue as a dishonest moderator (or a curious player) would, and shows the check that now catches it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.history.export import verify
from pbem.trust import chain
from pbem.trust.canonical import MAX_BYTES, BadJson, canonical, load_export
from tests.conftest import Clock

pytestmark = pytest.mark.xdist_group("fairness")


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> dict:
    """A finished three-player game of House of Habsburg: its home, and the moderator's export."""
    from pbem.cli.demo import run

    home = tmp_path_factory.mktemp("fair") / "home"
    r = run("habsburg", 3, "fair-habsburg", home, clock=Clock())
    assert r.verified, r.checked
    return {"home": home, "doc": json.loads(r.export.read_text()), "export": r.export}


def _rechain(doc: dict) -> dict:
    """Recompute every hash and the head, as a moderator who rewrites the whole chain can."""
    rows = chain.sequence(doc["orders"], doc["events"])
    head = doc["seed_commitment"]
    for row in rows:
        head = chain.link(head, chain.entry_of(row))
        row["hash"] = head
    doc["chain"] = dict(doc["chain"], head=head, entries=len(rows))
    return doc


def _refused(doc: dict, *words: str) -> str:
    v = verify(doc)
    assert not v.ok, "verify passed a tampered export"
    assert all(w in v.problem for w in words), v.problem
    return v.problem


def _cli_verify(path: Path, *more: str):
    from pbem.cli import app

    return CliRunner().invoke(app, ["verify", str(path), *more])


# ------------------------------------------------------------------ 1. verify reads strictly, checks every field


@pytest.mark.parametrize(
    "text, words",
    [
        ("[" * 1000 + "]" * 1000, "nests 1000 levels deep"),
        ('{"format": "pbem-history", "format": "other"}', "appears twice"),
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": 9007199254740993}', "outside the range RFC 8785"),
        ('{"a": [1, 2', "not valid JSON"),
        (b'{"a": "\xff"}', "not UTF-8"),
    ],
)
def test_hostile_json_is_refused_in_one_line(text: str | bytes, words: str, tmp_path: Path) -> None:
    with pytest.raises(BadJson, match=words):
        load_export(text)
    path = tmp_path / "bad.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    res = _cli_verify(path)
    assert res.exit_code == 2 and words in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1, res.output


def test_an_oversized_export_is_refused_before_it_is_parsed() -> None:
    with pytest.raises(BadJson, match="more than the"):
        load_export(" " * (MAX_BYTES + 1))


def test_canonical_json_is_rfc_8785_and_keeps_every_chained_hash(played) -> None:
    """The chain hashes of a real export are those of RFC 8785: the format version need not change."""
    doc = played["doc"]
    import rfc8785

    rows = chain.sequence(doc["orders"], doc["events"])
    for row in rows:
        entry = chain.entry_of(row)
        assert canonical(entry) == rfc8785.dumps(entry)
        legacy = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        assert canonical(entry) == legacy
    assert verify(doc).ok


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d.__setitem__("version", True), "version must be int"),
        (lambda d: d["game"].__setitem__("over", "yes"), "over must be bool"),
        (lambda d: d.__setitem__("comment", "trust me"), "'comment', which this pbem does not know"),
        (lambda d: d["events"][3].__setitem__("note", "x"), "'note', which this pbem does not know"),
        (lambda d: d["orders"][0].__setitem__("lines", [1]), "every line of orders[1] must be text"),
    ],
)
def test_fields_of_the_wrong_type_or_unknown_fields_are_refused(played, edit, words: str) -> None:
    doc = copy.deepcopy(played["doc"])
    edit(doc)
    _refused(doc, words)


def test_an_edited_final_view_is_refused(played) -> None:
    doc = copy.deepcopy(played["doc"])
    sections = doc["final_view"]["sections"]
    sections.append(copy.deepcopy(sections[0]))
    _refused(doc, "final view")


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d.__setitem__("finished", "2027-01-01T00:00:00+00:00"), "said to end at"),
        (lambda d: d["game"].__setitem__("created", "2099-01-01T00:00:00+00:00"), "said to be created at"),
        (lambda d: d["players"][1].__setitem__("seat", 0), "seat order"),
        (lambda d: d["messages"].append(copy.deepcopy(d["messages"][0])), "listed twice"),
    ],
)
def test_unchained_fields_that_disagree_with_the_chain_are_refused(played, edit, words: str) -> None:
    doc = copy.deepcopy(played["doc"])
    edit(doc)
    _refused(doc, words)


def test_a_chainless_or_legacy_marked_export_with_a_fake_event_is_refused(played, tmp_path: Path) -> None:
    """Issue 25: verify trusted its own downgrade paths: stripping the chain let a fake press event in."""
    doc = copy.deepcopy(played["doc"])
    fake = {
        "seq": len(doc["events"]) + 1,
        "input_seq": len(doc["orders"]),
        "at": doc["events"][-1]["at"],
        "kind": "press",
        "text": "Alice conceded the game to Bob.",
        "visibility": "public",
        "data": {},
    }
    doc["events"].append(fake)
    del doc["chain"]
    for row in doc["orders"] + doc["events"]:
        row.pop("hash", None)
    _refused(doc, "no hash chain", "--legacy")
    path = tmp_path / "downgraded.json"
    path.write_text(json.dumps(doc))
    res = _cli_verify(path)
    assert res.exit_code == 1 and "no hash chain" in res.output and "verification passed" not in res.output


def test_a_revealed_weak_seed_is_warned_about_even_when_not_marked(played) -> None:
    """Issue 25: verify was silent on a revealed seed weaker than pbem's own rule (the demo's seed is a name)."""
    v = verify(copy.deepcopy(played["doc"]))
    assert v.ok and any(n.startswith("WARNING: the revealed seed is weaker") for n in v.notes), v.notes


# ------------------------------------------------------------------ secret inputs are salted


def test_every_input_is_salted_so_bracketing_receipts_reveal_nothing(played) -> None:
    """Issue 25: an input that produces no event was chained without a salt: with the heads before and after it
    (two receipts in another player's mail) its lines could be confirmed by guessing.  Now each carries a salt the
    seed gives; a guess without the seed no longer reproduces the head."""
    doc = copy.deepcopy(played["doc"])
    rows = chain.sequence(doc["orders"], doc["events"])
    at = {id(r): i for i, r in enumerate(rows)}
    order = doc["orders"][len(doc["orders"]) // 2]
    assert order["salt"] == chain.input_salt(doc["seed"], order["seq"])
    i = at[id(order)]
    before = rows[i - 1]["hash"] if i else doc["seed_commitment"]
    guess = chain.input_entry(
        order["seq"], order["kind"], order["player"], order["lines"], order["message_id"], order["at"]
    )
    assert chain.link(before, guess) != order["hash"]  # the right guess, unsalted: no match
    order["salt"] = "0" * 32
    _refused(_rechain(doc), f"the salt of input {order['seq']}")
    doc = copy.deepcopy(played["doc"])
    del doc["orders"][5]["salt"]
    _refused(_rechain(doc), f"input {doc['orders'][5]['seq']} carries no salt")


# ------------------------------------------------------------------ an abandoned game reveals its seed


def test_an_abandoned_game_reveals_its_seed_and_verifies_up_to_the_abandon(tmp_path: Path) -> None:
    from pbem.app.control import abandon
    from pbem.cli.demo import run
    from pbem.history.export import build
    from pbem.home import config as config_mod
    from pbem.record.db import session
    from pbem.record.store import game_by_name

    clock = Clock()
    r = run("dynasties", 3, "fair-abandon", tmp_path / "home", clock=clock, max_polls=4)
    assert not r.verified
    cfg = config_mod.load(tmp_path / "home" / "pbem.toml")
    abandon(cfg, r.game, clock())
    with session(cfg.database_url) as s:
        game = game_by_name(s, r.game)
        assert game is not None
        public = build(s, game, public=True)
    assert public["game"]["abandoned"] is True and public["seed"] and public["orders"]
    v = verify(public)
    assert v.ok, v.problem
    assert any("abandoned: proven up to entry" in c for c in v.checked)
    public["events"] = public["events"][:-1]  # the abandon event cut off: the claim is refused
    _refused(_rechain(public), "not the moderator's abandon")
