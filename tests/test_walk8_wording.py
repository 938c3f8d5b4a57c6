"""walk8's L11: six wording slips, found by reading each moderator-facing and player-facing message once.

1. `pbem poll --new-outbox-key` said "nothing to do" whatever it did (tests/test_walk8_poll_lines.py).
2. The invitation to JOIN listed "CODE ..." among the lines to reply with, above a paragraph saying a reply needs
   no code: the reply needs only JOIN (and SALT).
3. A refused JOIN's answer said to send JOIN "with your CODE line": a reply needs none.
4. `pbem game pause`, `resume`, `extend`, `abandon` and `away` printed one bare line ("hh1 paused") where every other
   command that mails the players says so and what to run ("...; run pbem poll to send it").
5. `pbem game replace` said "their code and report are queued" before the deal too, when the newcomer's mail is the
   invitation to JOIN, and did not say to run pbem poll.
6. `pbem game away` printed its date as "Wed 09 Dec 2026 05:06 UTC", every other line of the CLI as
   "2026-12-09 05:06 UTC".

Generated: the invitation in the 8 contexts of (code given or not) x (joined or not) x (a takeover or not), the
refused JOIN's answer, and every command above on a running game.  On c83d8ea7: 4 of the 8 invitations (every one
not joined, with a code or "<your code>") listed a CODE line to reply with, the refused JOIN's answer asked for one, and the 6
command lines said nothing of the poll (one test); 0 now.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from pbem.render.templates import render_mail

PLAYERS = ["--player", "Alice <a@x.test>", "--player", "Bob <b@x.test>", "--player", "Carol <c@x.test>"]


def _invite(code: str | None, joined: bool, takeover: bool) -> str:
    from tests.test_mail_templates import CONTEXTS, RECORD, M

    ctx = {**CONTEXTS["join_invite"], **M, **RECORD, "code": code, "joined": joined, "takeover": takeover}
    return render_mail("join_invite", ctx).text


@pytest.mark.parametrize(
    ("code", "joined", "takeover"), list(itertools.product(["AAAA-2222", None], [False, True], [False, True]))
)
def test_the_invitation_asks_a_reply_for_no_code_line(code, joined, takeover) -> None:
    text = _invite(code, joined, takeover)
    block = text.split("reply to this message with the lines", 1)[-1].split("\n\n", 2)[1] if not joined else ""
    assert "CODE" not in block, block
    if not joined:
        assert block.split() == ["JOIN", "SALT", "<any", "text", "you", "like>"], block
        assert "a new message (not a reply) needs" in text or f'Put a line "CODE {code}" in a new' in text, text


def test_a_refused_joins_answer_asks_a_reply_for_no_code_line() -> None:
    from tests.test_mail_templates import CONTEXTS, RECORD, M

    ctx = {
        **CONTEXTS["join_ack"],
        **M,
        **RECORD,
        "refused": [{"line": "JION", "reason": "not JOIN"}],
        "accepted": False,
    }
    text = render_mail("join_ack", ctx).text
    assert "with your CODE line" not in text and "in a reply (a new message needs your CODE line too)" in text, text


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pbem.cli.support import init_home

    cfg = init_home(tmp_path_factory.mktemp("walk8words") / "home", address="games@example.test")
    got = CliRunner().invoke(
        app, ["--config", str(cfg), "game", "new", "habsburg", "--name", "hh1", "--no-join", *PLAYERS]
    )
    assert got.exit_code == 0, got.output
    return cfg


def test_every_command_that_mails_the_players_says_so_and_what_to_run(running: Path) -> None:
    said = {}
    for args in (
        ["game", "extend", "hh1", "2h"],
        ["game", "pause", "hh1"],
        ["game", "resume", "hh1"],
        ["game", "away", "hh1", "Bob", "2"],
        ["game", "replace", "hh1", "Carol", "Dora <d@x.test>"],
        ["game", "abandon", "hh1"],
    ):
        got = CliRunner().invoke(app, ["--config", str(running), *args])
        assert got.exit_code == 0, got.output
        said[args[1]] = got.output.strip()
    quiet = [name for name, line in said.items() if not line.endswith("the players are told (run pbem poll to send)")]
    assert quiet == [], said
    assert re.search(r"until \d{4}-\d\d-\d\d \d\d:\d\d UTC;", said["away"]), said["away"]
    assert "before the deal, the invitation to JOIN" in said["replace"], said["replace"]
