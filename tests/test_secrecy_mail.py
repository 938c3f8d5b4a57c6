"""No player's mail names another player's hidden cards (real pipeline, real mail files).

A whole bot game is played by email on the embedded defaults.  After every
poll, every new mail to player P is checked against the hidden items of every
other player Q at that moment (read from the engine state): none may appear
unless an event visible to P had already named it (a steal P took part in,
a card P saw played).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pbem import engine as registry
from pbem.record import store
from pbem.record.db import session
from tests.conftest import Clock, body_of, sent_mail
from tests.secrets_by_kind import HIDDEN


def _known_to(s, game_id: int, player: str) -> str:
    return "\n".join(
        r.text + json.dumps(json.loads(r.data_json))
        for r in store.events_for(s, game_id)
        if store.event_of(r).visible_to(player)
    )


#: Every kind whose secrets are searchable names, with its fewest and its most players.
GAMES = [(kind, n) for kind in HIDDEN for n in sorted({registry.get(kind).min_players, registry.get(kind).max_players})]


@pytest.mark.parametrize("kind, players", GAMES)
def test_no_mail_names_another_players_hidden_cards(tmp_path: Path, kind: str, players: int) -> None:
    from pbem.demo import run

    if kind not in registry.available():
        pytest.skip(f"{kind} not installed")
    seen: set = set()
    checked = {"mails": 0}

    def after_poll(cfg, name) -> None:
        new = sent_mail(cfg, seen)
        known_cache: dict[str, str] = {}
        with session(cfg.database_url) as s:
            loaded = store.load(s, store.game_by_name(s, name))
            state = loaded.state
            for m in new:
                to = m["To"].addresses[0].addr_spec
                seat = loaded.seat_for_address(to)
                if seat is None:
                    continue
                p = seat.player
                text = body_of(m)
                known = known_cache.get(p) or known_cache.setdefault(p, _known_to(s, loaded.game.id, p))
                for q in state["players"]:
                    if q == p:
                        continue
                    for item in HIDDEN[kind](state, q):
                        if re.search(rf"(?<![\w-]){re.escape(item)}(?![\w-])", text) and item not in known:
                            raise AssertionError(f"mail to {p} names {q}'s hidden {item!r}:\n{text}")
                checked["mails"] += 1

    r = run(kind, players, f"secrecy-{kind}-{players}", tmp_path / "home", clock=Clock(), after_poll=after_poll)
    assert r.verified
    assert checked["mails"] > 10
