"""players28, item 4: a mail to a player asked nothing now never ends "Reply to this mail with your orders".

The report closed with that line whenever the game was not over (`templates/mail/report.txt.j2`): the report of
another player's move, a digest (`pbem.app.digests` sends reports), the report at a deal or a takeover, to a player
the game asks nothing of then.  The acknowledgement (`idle`, `unasked`) and HELP (`asked`) said it only when asked
already.  Now the report says "Nothing is needed from you now: a report comes when something is asked of you" to a
player with no request, and the reply line only to a player with one (answered or not: orders on file may be changed
until the step resolves).

Generated: `SEEDS` seeded bot games of every kind, `MOMENTS` states spread over each (set-up and end included), the
report and the HELP answer of every player at each, in text and HTML, rendered as the pipeline renders them
(`pbem.app.reporting.player_report`).  A case is right when the reply line is there exactly when the player is asked
something and the game is not over.  On c83d8ea7 45 of the 264 cases were wrong: every report to a player asked
nothing while the game runs (text and HTML alike; HELP was right); now none is.  `python3 -m pytest
tests/test_replies28_closing.py -n 0` runs every case (about 2 s).
"""

from __future__ import annotations

import pytest

from pbem import engine as registry
from pbem.app.reporting import Point, Told, player_report
from pbem.engine.bots import play
from pbem.render.templates import render_mail
from tests.conftest import body_of, deliver, order_mail, sent_mail
from tests.engine.test_contract import moments, players
from tests.test_mail_templates import CONTEXTS, RECORD, M
from tests.test_moderator import new_game, run_poll

HINT = "Reply to this mail with your orders"
SEEDS = 2
MOMENTS = 6
KINDS = list(registry.KINDS)


def cases(kind: str) -> list[tuple[str, str, bool, str, str]]:
    """(game, player, whether asked, the report's text and HTML) and the same for the HELP answer."""
    eng = registry.get(kind)
    out: list[tuple[str, str, bool, str, str]] = []
    for seed in range(SEEDS):
        pt = play(eng, players(min(max(eng.min_players, 3), eng.max_players)), f"closing{seed}", bot_seed=f"cl{seed}")
        for state in moments(eng, pt, MOMENTS):
            every, result = eng.requests(state), eng.result(state)
            at = Point("g1", tuple(every), result, commitment_final="0" * 64, moderator="m")
            for player in pt.players:
                asked = any(r.player == player for r in every) and result is None
                ctx = player_report(eng, state, player, at, Told((), deadline=None))
                r = render_mail("report", {**ctx, **M, **RECORD, "now": "2026-01-05T12:00:00+00:00"})
                out.append((f"{kind} report", player, asked, r.text, r.html))
                h = render_mail("help", {**CONTEXTS["help"], **M, **RECORD, "asked": ctx["asked"], "waiting": []})
                out.append((f"{kind} help", player, asked, h.text, h.html))
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_only_a_player_asked_something_is_told_to_reply_with_orders(kind: str) -> None:
    failures = [
        f"{what} to {player} (asked: {asked}): text {HINT in text}, HTML {HINT in html}"
        for what, player, asked, text, html in cases(kind)
        if (HINT in text, HINT in html) != (asked, asked)
    ]
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:30])


def test_a_refusal_to_a_player_asked_nothing_has_no_reply_line(home, clock) -> None:
    """Through the mail: orders without a code from Bob, asked nothing at Habsburg's first step, and from Alice, who
    moves first: only Alice's refusal says to reply with orders (`pbem.app.views.unasked`)."""
    players = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
    name = new_game(home, clock, kind="habsburg", players=players)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    for who, asked in (("Bob", False), ("Alice", True)):
        deliver(home, order_mail(f"{who} <{who.lower()}@players.test>", name, "NO EVENT"))
        run_poll(home, clock)
        (refused,) = sent_mail(home, seen)
        assert "NOT applied" in str(refused["Subject"]) and (HINT in body_of(refused)) == asked, body_of(refused)
