"""walk8's L4 leftover: a House of Habsburg tie's final report written before walk8 still verifies, opening line too.

walk8 named HH-R3 in the result of a tie (`pbem.engine.habsburg.rules.decided`) and let the games recorded before
verify in their own words (`Engine.earlier_forms`, `Result.earlier`, `pbem.trust.prose.expected`); what no test
read was the final report's opening line of such a game ("The game is over: Alice and Carol win House of Habsburg
with 4 points (...). Nothing more is asked of you.", `pbem.render.asking`).  Here a whole game is played by mail as
pbem wrote it before walk8 (`decided` says nothing, as then), its bots' seeds chosen for a shared win; then this
pbem verifies the export and Alice's mail: both pass, and her final report with another opening line (the
winners in another order) is refused, naming that mail's opening lines.  On 90a53973 Alice's honest mail was
refused: "MISMATCH: the mail ... Final report ... shows '<p class="lead">The game is over: ...' under the HTML
part's the opening lines" (`pbem.trust.shown.Replay` rendered them from the result's new words only; 1 of 1 old tie
reports); 0 now (`Replay.earlier`).  The game takes some 11 s: it runs under `PBEM_FULL_SIZE=1` (`.ci/run`'s step).
"""

from __future__ import annotations

import json
import mailbox
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.cli.demo import run
from pbem.engine.habsburg import rules
from tests.conftest import Clock
from tests.sizes import FULL

pytestmark = pytest.mark.skipif(not FULL, reason="a whole game by mail, some 9 s: PBEM_FULL_SIZE=1 (.ci/run's step)")

OPENING = "The game is over: Alice and Carol win House of Habsburg with 4 points"


def _verify(*args: str) -> tuple[int, str]:
    got = CliRunner().invoke(app, ["verify", *args])
    return got.exit_code, got.output


def test_an_old_tie_reports_opening_line_verifies_and_another_is_refused(tmp_path: Path) -> None:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(rules, "decided", lambda st: "")  # the result as pbem worded it before walk8
        game = run("habsburg", 3, "tie-15", tmp_path / "game", bot_seed="tie-bots-15", clock=Clock())
    doc = json.loads(game.export.read_text())
    summary = doc["result"]["summary"]
    assert summary == "Alice and Carol win House of Habsburg with 4 points (Alice 4, Bob 0, Carol 4).", summary
    code, said = _verify(str(game.export))
    assert code == 0, said
    sent = mailbox.Maildir(str(game.home / "mail" / "sent"), factory=None, create=False)
    alice = mailbox.Maildir(str(tmp_path / "alice"), factory=None, create=True)
    final = b""
    for key in sent.iterkeys():
        raw = sent.get_bytes(key)
        if re.search(rb"^To: .*<alice@", raw, re.M):
            alice.add(raw)
            final = raw if b"Final report" in raw else final
    assert OPENING.encode() in final
    code, said = _verify(str(game.export), "--mail", str(tmp_path / "alice"), "--as", "Alice")
    assert code == 0 and said.rstrip().endswith("verification passed"), said[-3000:]
    other = mailbox.Maildir(str(tmp_path / "other"), factory=None, create=True)
    for key in alice.iterkeys():
        raw = alice.get_bytes(key)
        other.add(raw.replace(OPENING.encode(), OPENING.replace("Alice and Carol", "Carol and Alice").encode(), 1))
    code, said = _verify(str(game.export), "--mail", str(tmp_path / "other"), "--as", "Alice")
    (told,) = [line for line in said.splitlines() if line.startswith("MISMATCH: ")]  # that mail, and no other
    assert code == 1 and '"[pbem habsburg-demo] Final report: Alice and Carol win' in told, said[-3000:]
    assert "the opening lines (the turn, what is asked of whom" in told, told
