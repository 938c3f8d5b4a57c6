"""Export and `pbem verify`: a finished game verifies; any tampering is caught and named."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pbem.history.export import text_record, verify

# Every test here reads the module's three finished games: one worker runs them all, so the games are played once.
pytestmark = pytest.mark.xdist_group("export-verify")


@pytest.fixture(scope="module")
def finished() -> dict[str, dict]:
    """The exports of the seeded finished games the history tests play too (`seeded_export`: played once per
    test run, by whichever worker asks first), each a fresh copy."""
    from tests.test_history_golden import seeded_export

    return {kind: seeded_export(kind) for kind in ("habsburg", "italian-wars", "dynasties")}


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


# ---------------------------------------------------------------- the chained record (issue 13)


def _rechain(doc: dict) -> dict:
    """Recompute every hash and the head, as a forger who rewrites the whole chain would."""
    from pbem.trust import chain

    rows = chain.sequence(doc["orders"], doc["events"])
    head = doc["seed_commitment"]
    for row in rows:
        head = chain.link(head, chain.entry_of(row))
        row["hash"] = head
    doc["chain"] = dict(doc["chain"], head=head, entries=len(rows))
    # the signed head no longer fits: these checks are of the chain, so the forger signs with a key of his own (its
    # fingerprint is not the invitation's; tests/test_fairness.py shows what the signature adds against mail)
    from pbem.trust import signing

    if "key" in doc["game"]:
        private = signing.new_key()
        doc["game"]["key"] = signing.public_key(private)
        doc["signature"] = signing.export_signature(private, doc)
    return doc


def _refused(doc: dict, *words: str, partial: bool = False) -> str:
    v = verify(doc, partial=partial)
    assert not v.ok, "verify passed a tampered export"
    assert all(w in v.problem for w in words), v.problem
    return v.problem


def _cut(doc: dict, n: int) -> dict:
    """Drop the last `n` inputs and every entry after them."""
    keep = len(doc["orders"]) - n
    doc["orders"] = doc["orders"][:keep]
    doc["events"] = [e for e in doc["events"] if e["input_seq"] <= keep]
    doc.pop("final_view")  # the position at the end: a cut history would show another one (verify checks it)
    return doc


def test_every_entry_carries_its_link_and_the_export_its_head(finished) -> None:
    from pbem.trust import chain

    doc = finished["dynasties"]
    rows = chain.sequence(doc["orders"], doc["events"])
    assert len(rows) == doc["chain"]["entries"] and doc["chain"]["start"] == doc["seed_commitment"]
    assert chain.first_break(doc["seed_commitment"], rows) == (-1, doc["chain"]["head"])
    assert rows[-1]["hash"] == doc["chain"]["head"] and rows[-1]["kind"] == "game-over"
    v = verify(doc)
    assert any("the chain of" in c for c in v.checked) and any("ends with the game's end" in c for c in v.checked)


@pytest.mark.parametrize("rechained", [False, True])
def test_a_history_cut_short_with_a_forged_result_is_refused(finished, rechained: bool) -> None:
    doc = _cut(copy.deepcopy(finished["habsburg"]), 3)
    last = min(doc["result"]["scores"], key=doc["result"]["scores"].get)
    doc["result"] = {"scores": {**doc["result"]["scores"], last: 100}, "winners": [last], "summary": f"{last} wins."}
    if rechained:
        _rechain(doc)
        _refused(doc, "does not end the game")
    else:
        _refused(doc)


@pytest.mark.parametrize("field", ["winners", "summary"])
def test_a_changed_winner_or_summary_is_refused(finished, field: str) -> None:
    doc = copy.deepcopy(finished["italian-wars"])
    loser = next(p["name"] for p in doc["players"] if p["name"] not in doc["result"]["winners"])
    doc["result"][field] = [loser] if field == "winners" else f"{loser} wins the battle."
    _refused(doc, f"result's {field}")


def test_a_deleted_result_is_refused(finished) -> None:
    doc = copy.deepcopy(finished["dynasties"])
    doc["result"] = None
    _refused(doc, "no result")


@pytest.mark.parametrize("rechained", [False, True])
def test_a_fabricated_public_moderator_event_is_refused(finished, rechained: bool) -> None:
    doc = copy.deepcopy(finished["habsburg"])
    last = doc["events"][-1]
    doc["events"].append(
        dict(
            seq=last["seq"] + 1,
            input_seq=last["input_seq"],
            at=last["at"],
            kind="moderator",
            text="Alice conceded.",
            visibility="public",
            data={"action": "concede"},
            hash=last["hash"],
        )
    )
    _refused(_rechain(doc) if rechained else doc, "must end with the game's end")


def test_a_moderator_event_inserted_mid_game_breaks_the_chain(finished) -> None:
    doc = copy.deepcopy(finished["habsburg"])
    mid = len(doc["events"]) // 2
    fake = dict(doc["events"][mid], kind="moderator", text="Alice conceded.", data={"action": "concede"})
    for e in doc["events"][mid:]:
        e["seq"] += 1
    doc["events"].insert(mid, fake)
    doc["chain"]["entries"] += 1
    _refused(doc, "chain breaks")


def test_messages_re_marked_rejected_are_refused(finished) -> None:
    doc = copy.deepcopy(finished["dynasties"])
    for m in doc["messages"]:
        m["outcome"] = "rejected"
    _refused(doc, "marks that message rejected")


@pytest.mark.parametrize("rechained", [False, True])
def test_moved_timestamps_are_refused(finished, rechained: bool) -> None:
    doc = copy.deepcopy(finished["italian-wars"])
    ev = doc["events"][len(doc["events"]) // 2]
    ev["at"] = "2000-01-01T00:00:00+00:00"
    if rechained:
        _refused(_rechain(doc), "is dated 2000-01-01")
    else:
        _refused(doc, "chain breaks", f"event {ev['seq']}")


@pytest.mark.parametrize("rechained", [False, True])
def test_swapped_event_seqs_are_refused(finished, rechained: bool) -> None:
    doc = copy.deepcopy(finished["habsburg"])
    a, b = doc["events"][10], doc["events"][11]
    a["seq"], b["seq"] = b["seq"], a["seq"]
    if rechained:  # and put back in seq order, so the numbering holds
        doc["events"].sort(key=lambda e: e["seq"])
        _refused(_rechain(doc), "differs")
    else:
        _refused(doc, "swapped")


@pytest.mark.parametrize("rechained", [False, True])
def test_an_event_attributed_to_another_input_is_refused(finished, rechained: bool) -> None:
    doc = copy.deepcopy(finished["dynasties"])
    ev = next(e for e in doc["events"] if e["input_seq"] > 2 and e["kind"] not in ("press", "moderator"))
    nxt = next(e for e in doc["events"] if e["input_seq"] > ev["input_seq"])
    # the last event of input k claimed by input k + 1 keeps the seq order, so only attribution can catch it
    ev = max((e for e in doc["events"] if e["input_seq"] == ev["input_seq"]), key=lambda e: e["seq"])
    ev["input_seq"] = nxt["input_seq"]
    _refused(_rechain(doc) if rechained else doc, "attributes", "replay gives")


def test_an_incomplete_history_is_refused_unless_partial(finished) -> None:
    doc = _cut(copy.deepcopy(finished["italian-wars"]), 2)
    doc["result"], doc["game"]["over"] = None, False
    _rechain(doc)
    _refused(doc, "incomplete", "--partial")
    v = verify(doc, partial=True)
    n = len(doc["orders"]) + len(doc["events"])
    assert v.ok and any(f"proven up to entry {n}" in c for c in v.checked), v


def test_an_export_made_before_the_chain_still_verifies_with_a_note(finished) -> None:
    doc = copy.deepcopy(finished["habsburg"])
    del doc["chain"], doc["signature"], doc["game"]["key"]  # made before the chain: nor signed
    for row in doc["orders"] + doc["events"]:
        del row["hash"]
        row.pop("salt", None)
        row.get("data", {}).pop("rng", None)  # the facts the engine added since
    # a forger could claim "made before the chain" for any made-up history: refused unless asked for
    _refused(doc, "no hash chain", "--legacy")
    v = verify(doc, legacy=True)
    assert v.ok, v.problem
    assert any("NOT PROVEN (--legacy)" in n for n in v.notes)
    doc["events"][5]["text"] += "!"
    assert not verify(doc, legacy=True).ok


def test_a_fresh_export_marked_legacy_to_drop_its_draw_trails_is_refused(finished) -> None:
    """Issue 25: legacy events are matched fact by fact, so marking a fresh export's events legacy let a forger
    delete every draw trail (the audit script then had nothing to check); verify alone now refuses it."""
    doc = copy.deepcopy(finished["habsburg"])
    for e in doc["events"]:
        e["data"].pop("rng", None)
    doc["chain"]["legacy_events"] = len(doc["events"])
    _refused(_rechain(doc), "recorded before the chain", "--legacy")


def test_cli_verify_partial_says_up_to_where(finished, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app

    doc = _cut(copy.deepcopy(finished["habsburg"]), 1)
    doc["result"], doc["game"]["over"] = None, False
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(_rechain(doc)))
    res = CliRunner().invoke(app, ["verify", str(path)])
    assert res.exit_code == 1 and "incomplete" in res.output
    res = CliRunner().invoke(app, ["verify", "--partial", str(path)])
    assert res.exit_code == 0 and "proven up to entry" in res.output and "verification passed" in res.output


def test_a_game_in_progress_is_proven_by_its_chain_with_partial(finished) -> None:
    doc = _cut(copy.deepcopy(finished["dynasties"]), 4)
    doc["result"], doc["game"]["over"], doc["seed"] = None, False, None
    _rechain(doc)
    _refused(doc, "seed is not revealed", "--partial")
    v = verify(doc, partial=True)
    assert (
        v.ok and any("proven up to entry" in c for c in v.checked) and any("nothing was replayed" in n for n in v.notes)
    )
    doc["events"][7]["text"] += "!"
    _refused(doc, "chain breaks at entry", partial=True)


@pytest.mark.parametrize("how", ["changed", "a public one changed", "removed", "stripped from public ones", "old rule"])
def test_the_salts_of_events_are_the_seeds(finished, how: str) -> None:
    """Every event's salt (docs/export-format.md, "The chained record") is the one the seed gives; a forger
    who rewrites the whole chain still cannot choose it, nor strip the salts of public events to make their
    numbers guessable again.  An export of a game recorded before public events were salted still verifies."""
    doc = copy.deepcopy(finished["habsburg"])
    hidden = [e for e in doc["events"] if e["visibility"] != "public"]
    public = [e for e in doc["events"] if e["visibility"] == "public"]
    assert hidden and public and all("salt" in e for e in doc["events"])
    assert any("the salts of" in line for line in verify(doc).checked)
    if how == "changed":
        hidden[len(hidden) // 2]["salt"] = "0" * 32
        _refused(_rechain(doc), "the salt of event", f"event {hidden[len(hidden) // 2]['seq']}")
    elif how == "a public one changed":
        public[1]["salt"] = "0" * 32
        _refused(_rechain(doc), "the salt of event", f"event {public[1]['seq']}")
    elif how == "removed":  # without it, the entry hashes differently: the chain as stated breaks there
        del hidden[0]["salt"]
        _refused(doc, "chain breaks", f"event {hidden[0]['seq']}")
    elif how == "stripped from public ones":  # rechained: only the rule names it
        for e in public[len(public) // 2 :]:
            del e["salt"]
        _refused(_rechain(doc), f"event {public[len(public) // 2]['seq']} carries no salt")
    else:  # the rule before: public events unsalted (re-signed: the moderator's key signs what pbem wrote then)
        for e in public:
            del e["salt"]
        v = verify(_rechain(doc))
        assert v.ok and any("the salts of" in line for line in v.checked), v.problem


@pytest.mark.parametrize("kind", ["habsburg", "italian-wars", "dynasties"])
def test_a_changed_fact_is_named_by_its_field_and_both_values(finished, kind: str) -> None:
    """When only an event's data differs (a flipped draw), the message names the field and both values, not the
    text twice; every drawn value of the first drawing events of each kind, and a changed text."""
    drawing = [e for e in finished[kind]["events"] if e["data"].get("rng")][:4]
    assert drawing
    for ev in drawing:
        doc = copy.deepcopy(finished[kind])
        target = next(e for e in doc["events"] if e["seq"] == ev["seq"])
        draw = target["data"]["rng"][0]
        was = draw["value"]
        draw["value"] = was[::-1] if isinstance(was, list) and len(set(map(str, was))) > 1 else 7919
        problem = _refused(doc, f"event {ev['seq']} differs in data.rng[0].value")
        assert problem.count(ev["text"][:40]) <= 1, problem
        assert "7919" in problem or isinstance(was, list), problem
    doc = copy.deepcopy(finished[kind])
    doc["events"][-1]["text"] += " (changed)"
    _refused(doc, "differs in text", "(changed)")


LONG = "x" * 2_000_000


@pytest.mark.parametrize(
    "where",
    ["event text", "order line", "order player", "message id", "created", "summary", "rng value", "salt"],
)
def test_every_quoted_value_is_bounded(finished, where: str) -> None:
    """A value of any length in an export is quoted cut to a few dozen characters, with its length said."""
    doc = copy.deepcopy(finished["habsburg"])
    if where == "event text":
        doc["events"][3]["text"] = LONG
    elif where == "order line":
        doc["orders"][2]["lines"] = [LONG]
    elif where == "order player":
        doc["orders"][2]["player"] = LONG
    elif where == "message id":
        doc["orders"][2]["message_id"] = LONG
    elif where == "created":
        doc["game"]["created"] = "9" + LONG
    elif where == "summary":
        doc["result"]["summary"] = LONG
    elif where == "rng value":
        next(e for e in doc["events"] if e["data"].get("rng"))["data"]["rng"][0]["value"] = LONG
    else:
        next(e for e in doc["events"] if e["visibility"] != "public")["salt"] = LONG
    v = verify(doc)
    assert not v.ok and len(v.problem) < 600, (len(v.problem), v.problem[:300])
    assert "characters)" in v.problem or where == "salt", v.problem


def test_cli_verify_prints_a_bounded_report(finished, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pbem.cli import app

    doc = copy.deepcopy(finished["italian-wars"])
    doc["events"][0]["text"] = LONG
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc))
    res = CliRunner().invoke(app, ["verify", str(path)])
    assert res.exit_code == 1 and len(res.output) < 5_000, len(res.output)


@pytest.mark.parametrize("kind", ["habsburg", "italian-wars", "dynasties"])
@pytest.mark.parametrize("removed", ["key and signature", "key, signature and input salts"])
def test_a_keyed_export_stripped_of_its_key_is_refused_unless_legacy(finished, kind: str, removed: str) -> None:
    """A game made since pbem signs receipts has a key and salted inputs from input 1: without its key (and
    signature) its export would pass as an unsigned old game, whose heads no signature binds."""
    doc = copy.deepcopy(finished[kind])
    assert doc["game"]["key"] and "salt" in doc["orders"][0]
    doc["game"].pop("key")
    doc.pop("signature")
    if removed == "key and signature":
        _refused(doc, "no game key", "first input carries a salt", "--legacy")
        v = verify(doc, legacy=True)
        assert v.ok and any(n.startswith("NOT PROVEN (--legacy)") for n in v.notes), v.problem
    else:  # the salts are chained: removing them breaks the chain, and a rechained one the salt rule
        for o in doc["orders"]:
            o.pop("salt")
        _refused(doc, "chain breaks")


def _as_worded_before(doc: dict) -> int:
    """Reword the export's `unusable` events as pbem wrote them before 2026-12-05 ("but you did not" of the card's
    owner in an event every player reads); the number reworded."""
    n = 0
    for e in doc["events"]:
        if e["kind"] == "unusable" and f"but {e['data']['player']} did not" in e["data"]["reason"]:
            e["data"]["reason"] = e["data"]["reason"].replace(f"but {e['data']['player']} did not", "but you did not")
            e["text"] = (
                f"{e['data']['player']}'s {e['data']['card']} cannot be used ({e['data']['reason']}) and is discarded."
            )
            n += 1
    return n


def test_a_game_recorded_before_a_wording_was_mended_still_verifies(finished) -> None:
    """An event every player reads said "you" of one of them (found by reading the Italian Wars demo's mail); the
    engine now names the player, and a game recorded in the old words verifies, with a note saying so, while a
    text in any other words is still refused."""
    doc = copy.deepcopy(finished["italian-wars"])
    assert not any("you did not" in e["text"] for e in doc["events"])
    n = _as_worded_before(doc)
    assert n > 0, "the seeded Italian Wars game discards no WON/LOST card: pick another seed"
    v = verify(_rechain(doc))
    assert v.ok, v.problem
    assert any(f"{n} event" in note and "earlier pbem" in note for note in v.notes), v.notes
    bent = next(e for e in doc["events"] if e["kind"] == "unusable" and "you did not" in e["text"])
    bent["text"] = bent["text"].replace("you did not", "nobody did")
    _refused(_rechain(doc), f"event {bent['seq']} differs in")
