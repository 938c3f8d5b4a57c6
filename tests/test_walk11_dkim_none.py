"""`pbem verify`'s DKIM summary of an export that lists no player's mail says why, never "0 of 0" (walk11).

walk10 met "dkim: 0 of 0 player inputs vouched for" verifying games of 40 inputs and more with --partial: those were
silent games (every input a deadline's defaults) and public exports of running games, which list no player's
input.  The figure was true, and said nothing: that there was nothing to count, or why.  Now the line says why
(`pbem.trust.vouched.none_listed`).  The generator takes the exports of a real game (the public one, each
player's, the moderator's) at three moments (made, after a deadline's defaults, after a player's order) and
variants of each with inputs left out or their mail unnamed, `CASES` in all; the DKIM line of each must be
"K of N" with N the inputs listed that name a player's mail, or, with none, "no player input to check: ..."
and its reason.  On 8aa88d6c 55 of 60 cases printed "0 of 0 player inputs" (every case with none listed: the
other 5 list a player's order); on walk11 0.
"""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

from pbem.app import games
from pbem.app.cron import run_poll
from pbem.history.export import build, verify
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from tests.conftest import CODES, Clock, deliver, order_mail, signed
from tests.test_moderator import PLAYERS

CASES = 60
AUDIENCES = [None, "public", *[p for p, _ in PLAYERS]]


def _exports(cfg: Any) -> list[dict[str, Any]]:
    out = []
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, "hh1")
        for who in AUDIENCES:
            out.append(build(s, game, public=who == "public", as_player=None if who in (None, "public") else who))
    return out


def _moments(cfg: Any) -> list[dict[str, Any]]:
    """The game's exports when made, after a deadline's defaults, and after a player's order."""
    clock = Clock()
    games.create_game(Home.of(cfg), "habsburg", "hh1", PLAYERS, seed="dkim-none", clock=clock, codes=CODES)
    docs = _exports(cfg)
    clock.advance(hours=49)
    run_poll(cfg, clock=clock)  # the first step's deadline: every seat's defaults
    docs += _exports(cfg)
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "hh1"))
        req = next(r for r in loaded.engine.requests(loaded.state) if not r.answered)
    line = req.legal[0] if req.legal else "PASS"
    deliver(cfg, order_mail(f"{req.player} <{dict(PLAYERS)[req.player]}>", "hh1", signed(req.player, line)))
    clock.advance(minutes=5)
    run_poll(cfg, clock=clock)
    return docs + _exports(cfg)


def _variant(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The export with some inputs left out, or their mail unnamed (the checks before DKIM's are not the point)."""
    doc = copy.deepcopy(doc)
    how = rng.choice(["as is", "players' dropped", "mail unnamed", "some dropped"])
    if how == "players' dropped":
        doc["orders"] = [o for o in doc["orders"] if not o.get("player")]
    elif how == "mail unnamed":
        for o in doc["orders"]:
            o["message_id"] = None
    elif how == "some dropped":
        doc["orders"] = [o for o in doc["orders"] if rng.random() < 0.5]
    return doc


def test_the_dkim_line_counts_what_is_listed_or_says_why_there_is_nothing(home) -> None:
    from pbem.trust import vouched

    docs = _moments(home)
    assert len(docs) == 3 * len(AUDIENCES)
    assert any(o.get("message_id") for o in docs[-len(AUDIENCES)]["orders"])  # the player's order applied
    assert verify(json.loads(json.dumps(docs[0])), partial=True).ok  # the real exports verify as they are
    rng = random.Random(11)
    said_nothing, wrong = 0, []
    for i in range(CASES):
        doc = docs[i] if i < len(docs) else _variant(rng.choice(docs), rng)
        line = vouched.check(doc).summary
        named = sum(1 for o in doc["orders"] if o.get("message_id") and o.get("player"))
        said_nothing += bool(re.search(r"\b0 of 0 player inputs\b", line))
        if named and not line.startswith(f"dkim: 0 of {named} player input"):
            wrong.append(line)
        if not named and not re.fullmatch(r"dkim: no player input to check: .{20,}", line):
            wrong.append(line)
    print(f"dkim lines of {CASES} exports: {said_nothing} said '0 of 0 player inputs', {len(wrong)} wrong")
    assert not wrong and not said_nothing, (said_nothing, wrong[:3])


def test_a_silent_games_moderator_export_says_no_player_mail_was_applied(home) -> None:
    """The case walk10 met: every input a deadline's (a silent game), verified with --partial."""
    clock = Clock()
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="silent", clock=clock, codes=CODES)
    for _ in range(2):
        clock.advance(hours=49)
        run_poll(home, clock=clock)
    with session(home.database_url) as s:
        doc = build(s, store.game_by_name(s, "hh1"))
    v = verify(json.loads(json.dumps(doc)), partial=True)
    assert v.ok, v.problem
    assert v.vouched[-1].startswith("dkim: no player input to check: none of the "), v.vouched[-1]
    assert "is a player's mail yet (deadlines' defaults, the moderator's)" in v.vouched[-1], v.vouched[-1]
