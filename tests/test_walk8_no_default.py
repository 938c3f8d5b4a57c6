"""walk8's L8: a request with no published default (the join step's JOIN) was shown in a report as "(nothing)" under
"the published default is applied:", as if "(nothing)" were an order.  Now such a request says what the deadline does
for the player: nothing is applied for them, the step waits for the moderator (the join step's deadline tells the
moderator, who may start without them or give the seat away: `pbem.trust.deal`).

Generated: every request of each game's set-up (seeds `walk8-0..2`) and the join step's, rendered in a report's
`_asked` part (text and HTML) with its default and with none: 152 renders.  On c83d8ea7 the 98 with no default (the
join step's requests, and each request stripped of its default) said "(nothing)"; 0 now.  The walk's own path to
such a report was not found again (invitation, STATUS, JOIN's answer, resend, replace and start in a join step all
render the invitation, not a report); the template says the right thing wherever it is reached.
"""

from __future__ import annotations

from dataclasses import replace

from pbem.engine import available, get
from pbem.render.templates import render
from pbem.trust import deal


def _requests():
    for kind in available():
        eng = get(kind)
        players = ["Alice", "Bob"] if kind == "italian-wars" else ["Alice", "Bob", "Carol"]
        for seed in range(3):
            state, _ = eng.setup(players, f"walk8-{seed}", {})
            yield from eng.requests(state)
        join = deal.JoinStep(eng, players, "walk8", {})
        yield from join.requests(join.setup(players, "walk8", {})[0])


def _shown(req) -> tuple[str, str]:
    ctx = {
        "asked": [{"prompt": req.prompt, "syntax": list(req.syntax), "legal": list(req.legal),
                   "default": list(req.default), "on_file": [], "answered": False}],
        "waiting": [req.player], "due_at": None, "now": None, "result": None, "player": req.player,
    }  # fmt: skip
    return render("mail/_asked.txt.j2", **ctx), render("mail/_asked.html.j2", **ctx)


def test_a_request_with_no_default_says_what_the_deadline_does_not_nothing_in_brackets() -> None:
    seen = 0
    for req in _requests():
        for asked in (req, replace(req, default=())):
            for part in _shown(asked):
                seen += 1
                assert "(nothing)" not in part, part
                if asked.default:
                    assert "published default is applied" in part or "Default at the deadline" in part, part
                else:
                    assert "nothing is applied for you: the step waits for the moderator" in part, part
    assert seen >= 40, seen
