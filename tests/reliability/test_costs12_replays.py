"""`pbem verify --mail` folds the record once for all the checks of a mailbox that read its past states (costs12).

The tables a report showed, the steps its deadlines bound, the acknowledgements and refusals, the notices, the dropped
lines and the readings of quoted lines each replayed the game from its seed (`shown.Replay`, `receipts._readings`):
on 271d97f the seeded Habsburg game's mailbox of Alice (88 inputs) folded 262 inputs in `check_mail`, the seeded
Sixteen Thirty game's (273 inputs) 1,088.  Inside one mailbox's check they now share one fold
(`pbem.trust.folded`): 88 and 273, each input once, and so do several mailboxes checked at once.  Counted, not
timed: `Fold.run`'s calls.

What each check says is the same with the fold shared or each its own: every line of the check, on a record that
replays, one whose input the replay refuses half-way and one with an input it cannot read (the byte-for-byte
output of `pbem verify --mail` on every seeded game's mailboxes was compared with 271d97f's once, by hand).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pbem.trust import fold, folded
from pbem.trust.receipts import lines, read_folder, verify_mail


@pytest.fixture(scope="module")
def habsburg() -> tuple[dict[str, Any], dict[str, list[bytes]]]:
    """The seeded Habsburg game's export and each player's mail."""
    from tests.test_history_golden import seeded_export, seeded_home
    from tests.test_verify_whose_mail import _to

    doc = seeded_export("habsburg")
    sent = read_folder(seeded_home("habsburg") / "mail" / "sent")
    return doc, {p["name"]: _to(sent, f"{p['name'].lower()}@players.example") for p in doc["players"]}


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """`Fold.run`'s calls from now on (in the list's one item)."""
    runs = [0]
    run = fold.Fold.run

    def counted(self: fold.Fold, *args: Any) -> Any:
        runs[0] += 1
        return run(self, *args)

    monkeypatch.setattr(fold.Fold, "run", counted)
    return runs


def _unshared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folded, "of", lambda doc, rows: None)  # each replay its own, as on 271d97f


def test_a_mailbox_folds_each_input_once_and_each_check_says_what_its_own_replay_said(
    habsburg: tuple[dict[str, Any], dict[str, list[bytes]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc, mail = habsburg
    refused = copy.deepcopy(doc)  # an input the replay refuses half-way: every check after it says so
    middle = refused["orders"][len(refused["orders"]) // 2]
    middle["lines"] = ["NO SUCH ORDER"] if middle["lines"] else middle["lines"]
    unreadable = copy.deepcopy(doc)  # an input the replay cannot read
    unreadable["orders"][-3]["lines"] = None
    cases = [(d, p) for d, p in zip((doc, refused, unreadable), mail, strict=True)]
    run = fold.Fold.run
    runs = _counting(monkeypatch)
    shared = [lines(verify_mail(d, mail[p], p)) for d, p in cases[:1]]
    assert 0 < runs[0] <= len(doc["orders"]), f"{runs[0]} inputs folded for a record of {len(doc['orders'])}"
    assert shared[0][0].startswith("ok:"), shared[0]
    monkeypatch.setattr(fold.Fold, "run", run)
    shared += [lines(verify_mail(d, mail[p], p)) for d, p in cases[1:]]
    _unshared(monkeypatch)
    own = [lines(verify_mail(d, mail[p], p)) for d, p in cases]
    for (_, p), a, b in zip(cases, shared, own, strict=True):
        assert a == b, f"{p}: {a} != {b}"
    assert any("cannot be replayed" in x for x in shared[1]), shared[1]


def test_several_mailboxes_fold_the_record_once(
    habsburg: tuple[dict[str, Any], dict[str, list[bytes]]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`pbem verify EXPORT --mail A --mail B --mail C`: the export's own replay and one fold for the three (on
    271d97f 876 for Habsburg's 88 inputs: the export's 88 and about 262 a mailbox; now 176)."""
    from typer.testing import CliRunner

    from pbem.cli import app
    from tests.test_verify_whose_mail import _box

    doc, mail = habsburg
    export = tmp_path / "export.json"
    export.write_text(json.dumps(doc))
    args = [a for p, raws in mail.items() for a in ("--mail", str(_box(tmp_path / p, raws)))]
    runs = _counting(monkeypatch)
    res = CliRunner().invoke(app, ["verify", str(export), *args])
    assert res.exit_code == 0, res.output
    assert runs[0] <= 2 * len(doc["orders"]), f"{runs[0]} inputs folded for 3 mailboxes of {len(doc['orders'])}"
