"""`pbem verify EXPORT --mail ...` folds the record once, for the export's own replay and its mailboxes (costs13).

costs12 shared one fold among the checks of every mailbox, but the export's own replay (`verify._replay`, every
input replayed and its events compared) folded the record again: the seeded Habsburg game (88 inputs) with its three
players' mail, or Alice's alone, 176 `Fold.run` calls on 8edb878; now 88, the export's replay driving the fold the mailboxes take on
(`folded.started`).  Counted, not timed.  What the command prints is the same as with each its own fold, on the
record as it is and on one whose input the replay refuses half-way.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.trust import folded
from tests.reliability.test_costs12_replays import _counting, habsburg  # noqa: F401 (the fixture)


def _verify(tmp_path: Path, doc: dict[str, Any], mail: dict[str, list[bytes]], name: str) -> tuple[int, str]:
    from tests.test_verify_whose_mail import _box

    where = tmp_path / name  # the output names the folders: compared without it
    where.mkdir()
    export = where / "export.json"
    export.write_text(json.dumps(doc))
    args = [a for p, raws in mail.items() for a in ("--mail", str(_box(where / p, raws)))]
    res = CliRunner().invoke(app, ["verify", str(export), *args])
    return res.exit_code, res.output.replace(str(where), "")


def test_the_export_and_its_mailboxes_fold_the_record_once(
    habsburg: tuple[dict[str, Any], dict[str, list[bytes]]],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    doc, everyone = habsburg
    mail = dict(list(everyone.items())[:1])  # Alice's: one mailbox folded the record twice on 8edb878 as three did
    refused = copy.deepcopy(doc)  # an input the replay refuses half-way: the export and every mailbox say so
    middle = next(o for o in refused["orders"][len(refused["orders"]) // 2 :] if o["lines"])
    middle["lines"] = ["NO SUCH ORDER"]
    runs = _counting(monkeypatch)
    shared = [_verify(tmp_path, doc, mail, "doc")]
    assert shared[0][0] == 0, shared[0][1]
    assert runs[0] == len(doc["orders"]), f"{runs[0]} inputs folded for a record of {len(doc['orders'])}"
    shared.append(_verify(tmp_path, refused, mail, "refused"))
    assert shared[1][0] != 0 and "rejected on replay" in shared[1][1], shared[1][1]
    monkeypatch.setattr(folded, "started", lambda doc, rows: None)  # the export's replay its own, as on 8edb878
    own = [_verify(tmp_path, doc, mail, "doc2"), _verify(tmp_path, refused, mail, "r2")]
    assert shared == own
