"""Eighth round of the fairness checks (docs/security.md, "Red team of the fairness checks, eighth round").

What a player's mail still held on the moderator's word after the seventh round, taken in the order of what a
moderator gains by forging it: orders held until the deadline that the deadline never applied (he changes the game:
the player's orders replaced by the default), an answer to a player's message in none of pbem's forms (he tells the
player anything), and what only the Sent folder binds.  Each forgery generator failed on the code before this round
(checked on a worktree of 21a928b); the honest mail passes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbem.app.rereading import refused as reread
from pbem.trust.receipts import lines, verify_mail

pytestmark = pytest.mark.xdist_group("fairness")

KINDS = ["habsburg", "italian-wars", "dynasties", "sixteen-thirty"]


# ------------------------------------------------------------------ held orders the deadline never applied


def _dropped_game(kind: str, root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], str, list[bytes]]:
    """A game of `kind` held until the deadline, played by the real poll, whose moderator drops the held orders: the
    first player asked sends a legal order (held, listed as on file), and the deadline is run without it (the
    moderator's edit), so that the player's default is applied instead; the game is abandoned (the seed out).
    (the final export, the player, their mail in the order delivered)."""
    from datetime import timedelta

    from pbem.app import deadlines, games, views
    from pbem.app.control import abandon
    from pbem.app.cron import run_poll
    from pbem.app.games import Table
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import CODES, in_delivered_order
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import PLAYERS, T0, _mail

    cfg = kp.make_home(root)
    cfg.outage_after = timedelta(days=30)
    players = PLAYERS[:2] if kind == "italian-wars" else PLAYERS
    games.create_game(Home.of(cfg), kind, "g1", players, seed=f"dropped-{kind}-0123456789abcdef", codes=CODES,
                      clock=lambda: T0, table=Table(resolve="deadline"))  # fmt: skip
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=1))
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        asked = next(r for r in views.engine(loaded).requests(loaded.state) if not r.answered and r.legal)
    kp.deliver_in_order(cfg, [_mail(asked.player, "held", asked.legal[0])])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=2))
    monkeypatch.setattr(deadlines, "held_orders", lambda *a, **k: [])  # the moderator drops the held orders
    run_poll(cfg, clock=lambda: T0 + timedelta(days=2, minutes=1))
    monkeypatch.undo()
    abandon(Home.of(cfg), "g1", T0 + timedelta(days=2, minutes=3))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    sent = [p.read_bytes() for p in in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))]
    address = dict(players)[asked.player]
    return doc, asked.player, [r for r in sent if address.encode() in r.split(b"\n\n", 1)[0]]


@pytest.mark.parametrize("kind", KINDS)
def test_held_orders_the_deadline_dropped_are_named(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gap: an acknowledgement of orders held until the deadline whose message no input applies was a note ("not
    compared"): the moderator could tell Alice her order was on file, drop it at the deadline and apply her default
    instead.  Now, once the seed is out, pbem's reading of the lines it put on file must refuse them at the state
    the deadline met.  Generator: a game of each kind held until the deadline whose held order is dropped there."""
    doc, player, mails = _dropped_game(kind, tmp_path / "home", monkeypatch)
    assert any(m["outcome"] == "held" for m in doc["messages"])
    assert any(b"default orders were applied" in r for r in mails)
    c = verify_mail(doc, mails, player, reread)
    assert not c.ok and any("dropped, not refused" in p for p in c.problems), lines(c)
