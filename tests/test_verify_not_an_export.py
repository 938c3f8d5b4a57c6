"""`pbem verify FILE --mail/--sent/--earlier` of a file that is no export pbem writes: one line, never a traceback.

Found by docs4 walking README "Fairness": `pbem verify` alone refuses such a file in one line ("not a pbem history
export", "the export has no field ..."), but with a player's mail, Sent folder or earlier export the comparison ran
against it anyway and raised (KeyError 'game', "'NoneType' object is not iterable", ...).  The generator: each
field of the seeded Italian Wars export deleted, made null or text, checked with all three options: on 7f9524d 16
of 21 cases raised (by hand, every field and five types: 27 of 84 with --mail, 18 of 84 with --sent and
--earlier).  Now the mail is compared only with a file that has the shape of an export
(`pbem.trust.verify.Verification.shaped`), and the command fails with the export's problem, exit 1.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app

FIELDS = ("game", "players", "seed_commitment", "messages", "orders", "events", "chain")
DAMAGES = ("deleted", None, "x")


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:  # type: ignore[type-arg]
    """The seeded finished Italian Wars game's export (shared with the suite), and the first mails to its first
    player, as a Maildir."""
    from tests.test_history_golden import seeded_export, seeded_home

    doc = seeded_export("italian-wars")
    first = doc["players"][0]["name"]
    box = tmp_path_factory.mktemp("notexport") / "box"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    mails = sorted((seeded_home("italian-wars") / "mail" / "sent").glob("*/*"))
    theirs = [m.read_bytes() for m in mails if f"To: {first} <".encode() in m.read_bytes()[:4000]][:3]
    assert len(theirs) == 3
    for i, raw in enumerate(theirs):
        (box / "new" / f"{i}.eml").write_bytes(raw)
    return doc, box


def test_a_file_that_is_no_export_is_refused_in_one_line_with_mail_sent_and_earlier(
    export: tuple[dict, Path],  # type: ignore[type-arg]
    tmp_path: Path,
) -> None:
    export, box = export
    good = tmp_path / "good.json"
    good.write_text(json.dumps(export))
    raised = []
    for key in FIELDS:
        for damage in DAMAGES:
            doc = copy.deepcopy(export)
            if damage == "deleted":
                del doc[key]
            else:
                doc[key] = damage
            file = tmp_path / "damaged.json"
            file.write_text(json.dumps(doc))
            args = [
                "verify",
                str(file),
                "--mail",
                str(box),
                "--as",
                export["players"][0]["name"],
                "--sent",
                str(box),
                "--earlier",
                str(good),
            ]
            got = CliRunner().invoke(app, args)
            if got.exception is not None and not isinstance(got.exception, SystemExit):
                raised.append((key, damage, repr(got.exception)[:80]))
            elif got.exit_code == 0 or not got.output.splitlines()[-1].startswith("pbem: "):
                raised.append((key, damage, got.exit_code, got.output[-200:]))
    assert raised == [], f"{len(raised)} of {len(FIELDS) * len(DAMAGES)}: {raised}"
