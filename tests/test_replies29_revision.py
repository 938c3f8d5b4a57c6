"""players29, item 4: `revision_on_file` ends with "Reply to this mail with your orders" only to a player asked something.

A mail written before the player's orders applied to an earlier step ("earlier": a phone's outbox sending an old
turn's reply late) is refused and told which message stands (`pbem.app.revisions.refuse_stale`).  The answer always
ended "If it is meant for now, reply to this mail with the orders again" and the record's reply line, also to a player
the game asks nothing now (their turn passed: Habsburg's and Dynasties' other players wait most of the game).  Now it
says "Nothing is needed from you now" to them (`pbem.app.views.unasked`), and the reply line only to a player asked.

Generated: `SEEDS` seeded bot games of every kind, `MOMENTS` states spread over each (set-up and end but the last),
each player's late copy decided by `pbem.app.intake.decide` on plain objects and its mail rendered.  A case is right
when the reply line is there exactly when the player is asked something.  On 90a53973 26 of the 55 cases were wrong
(each player asked nothing told to reply with orders); now none is.  Every case runs in the suite
(`python3 -m pytest tests/test_replies29_revision.py -n 0`, under 2 s).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from pbem import engine as registry
from pbem.app import views
from pbem.app.revisions import OnFile
from pbem.engine.bots import play
from pbem.render.templates import render_mail
from tests.app.plain import loaded, mail, signed
from tests.app.test_revision_policy import EARLIER, run
from tests.engine.test_contract import moments
from tests.test_mail_templates import RECORD, M

HINT = "Reply to this mail with your orders"
SEEDS = 1
MOMENTS = 6
PLAYERS = ("Alice", "Bob", "Carol")
APPLIED = OnFile(40, datetime(2026, 1, 5, 10, 0, tzinfo=UTC), "Re: [pbem g1] Turn 1", ("NO EVENT",))


def cases(kind: str) -> list[tuple[str, bool, str, str]]:
    """(player, whether asked, the answer's text and HTML) for each player at each moment."""
    eng = registry.get(kind)
    n = min(max(eng.min_players, 3), eng.max_players)
    out = []
    for seed in range(SEEDS):
        pt = play(eng, list(PLAYERS[:n]), f"late{seed}", bot_seed=f"lt{seed}")
        for state in moments(eng, pt, MOMENTS)[:-1]:  # the end: a game over refuses orders as such
            g = replace(loaded(kind, PLAYERS[:n]), state=state)
            for player in PLAYERS[:n]:
                d = run(mail(player, signed(player, eng.order_words[0]), Date=EARLIER), g, earlier=APPLIED)
                [m] = d.mails
                assert m.kind == "revision_on_file", d.reason
                r = render_mail("revision_on_file", {**m.context, **M, **RECORD})
                out.append((player, not views.unasked(g, player), r.text, r.html))
    return out


@pytest.mark.parametrize("kind", registry.KINDS)
def test_a_late_copy_asks_for_orders_only_from_a_player_asked_something(kind: str) -> None:
    failures = [
        f"{kind} {player} (asked: {asked}): text {HINT in text}, HTML {HINT in html}"
        for player, asked, text, html in cases(kind)
        if (HINT in text, HINT in html) != (asked, asked) or ("reply to this mail" in text.lower()) != asked
    ]
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures)
