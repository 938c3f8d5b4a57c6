"""Sixth round of the fairness checks (docs/security.md, "Red team of the fairness checks, sixth round").

What a player's export still held on the moderator's word alone: the position a partial export shows
(`final_view`, unsigned).  Each test failed on the code before this round; the
honest mail and exports pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbem.trust.verify import check, earlier

pytestmark = pytest.mark.xdist_group("fairness")

FIXTURES = Path(__file__).resolve().parent / "fixtures"


# ------------------------------------------------------------------ a partial export's final view is signed


def _running(root: Path) -> dict[str, Any]:
    """Alice's and the public export of a running Dynasties game, and the final export once abandoned (this pbem)."""
    from tests.fixtures.make_partial_view_unsigned import make

    return json.loads(json.dumps(make(root)))


def _forgeries(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The export with its final view changed: a line of the position, and a value of the reader's secrets."""
    turn = json.loads(json.dumps(doc))
    turn["final_view"]["turn"] = str(turn["final_view"].get("turn")) + " (your move)"
    out = [("the turn", turn)]
    if "treasury" in doc["final_view"].get("data", {}):
        rich = json.loads(json.dumps(doc))
        who = next(iter(rich["final_view"]["data"]["treasury"]))
        rich["final_view"]["data"]["treasury"][who] += 1
        out.append(("a treasury", rich))
    return out


def test_a_partial_exports_final_view_is_signed_and_a_forged_one_is_named(tmp_path: Path) -> None:
    """Gap: a partial export's signature covered its listing, not its `final_view`, the position it shows its reader
    (their hand, their treasury, whose move it is): the moderator could hand a player a signed export of the running
    game showing a false position, and `pbem verify --partial` passed it; only `--earlier` at the end compared it,
    as the holder's word.  Now the signature covers the view's digest too: a changed view is named at once, and the
    pair of documents at the end is proof.  Generator: Alice's and the public export, each forged two ways."""
    docs = _running(tmp_path / "home")
    for who in ("alice", "public"):
        honest = check(docs[who], partial=True)
        assert honest.ok and any("final view" in c for c in honest.checked), (who, honest.problem)
        assert earlier(docs["final"], docs[who]).ok
        for what, forged in _forgeries(docs[who]):
            caught = check(forged, partial=True)
            assert not caught.ok and "final view" in caught.problem and "changed" in caught.problem, (who, what)
            later = earlier(docs["final"], forged)
            assert not later.ok and "final view" in later.problem, (who, what, later.problem)


def test_a_partial_export_made_before_the_view_was_signed_verifies_byte_for_byte() -> None:
    """Old exports keep verifying: `tests/fixtures/partial_view_unsigned.json` was written by main before this round
    (its signatures do not cover the view).  Each verifies alone with a word that its view is not signed, and against
    the final export; a view changed in it is still caught at the end (`--earlier`), as the holder's evidence."""
    stored = json.loads((FIXTURES / "partial_view_unsigned.json").read_text())
    for who in ("alice", "public"):
        assert "view" not in stored[who]["signature"]
        alone = check(stored[who], partial=True)
        assert alone.ok and any("final view is not signed" in c for c in alone.checked), (who, alone.problem)
        assert earlier(stored["final"], stored[who]).ok
        for _, forged in _forgeries(stored[who]):
            assert check(forged, partial=True).ok  # (nothing binds it before the end)
            caught = earlier(stored["final"], forged)
            assert not caught.ok and "not signed in an export made before" in caught.problem, caught.problem

