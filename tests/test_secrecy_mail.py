"""No player's mail names another player's hidden cards (real pipeline, real mail files).

A whole bot game is played by email on the embedded defaults.  After every
poll, every new mail to player P is checked against the hidden items of every
other player Q at that moment (read from the engine state): none may appear
unless an event visible to P had already named it (a steal P took part in,
a card P saw played).  The game of 3 players (or the nearest count a kind seats)
is tests/test_history_visibility.py's, which runs this check after each of its
polls; here each kind's other counts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pbem import engine as registry
from pbem.record import store
from pbem.record.db import session
from tests.conftest import Clock
from tests.secrets_by_kind import HIDDEN


class Told:
    """What each player has been told so far: the text and data of every event visible to them.

    Read incrementally (only the events appended since the last poll), so a whole game costs one pass over its
    events, not one per poll and player."""

    def __init__(self) -> None:
        self.last = 0
        self.lines: dict[str, list[str]] = {}

    def update(self, s, game_id: int, players: list[str]) -> None:
        for r in store.events_for(s, game_id, after=self.last):
            event = store.event_of(r)
            said = r.text + json.dumps(json.loads(r.data_json))
            for p in players:
                if event.visible_to(p):
                    self.lines.setdefault(p, []).append(said)
            self.last = r.seq

    def known_to(self, player: str) -> str:
        return "\n".join(self.lines.get(player, []))


def _new_mail(cfg, seen: set) -> list[tuple[str, str]]:
    """(recipient address, plain text) of every mail in the `sent` Maildir not seen yet, oldest first.

    The same mail as `tests.conftest.sent_mail`, read with the fast compat32 parser: pbem's mail is
    multipart/alternative (or plain), and the plain part is the text a player reads."""
    import mailbox
    from email import policy
    from email.parser import BytesParser
    from email.utils import getaddresses

    from pbem.trust.receipts import delivered

    md = mailbox.Maildir(str(cfg.maildir_path / "sent"), factory=None, create=True)
    out = []
    for k in sorted((k for k in md.iterkeys() if k not in seen), key=delivered):
        seen.add(k)
        m = BytesParser(policy=policy.compat32).parsebytes(md.get_bytes(k))
        plain = next((p for p in m.walk() if p.get_content_type() == "text/plain"), None)
        payload = plain.get_payload(decode=True) if plain is not None else b""
        text = payload.decode(plain.get_content_charset() or "utf-8") if plain is not None else ""
        out.append((getaddresses(m.get_all("To", []))[0][1], text))
    return out


def mail_check(kind: str) -> tuple[Callable[[Any, str], None], dict[str, int]]:
    """(an `after_poll` hook for `pbem.cli.demo.run`, its count of mails checked): after every poll, every new mail
    to a player P must name no hidden item of another player Q unless an event visible to P had named it."""
    seen: set = set()
    checked = {"mails": 0}
    told = Told()

    def after_poll(cfg, name) -> None:
        new = _new_mail(cfg, seen)
        known_cache: dict[str, str] = {}
        with session(cfg.database_url) as s:
            loaded = store.load(s, store.game_by_name(s, name))
            state = loaded.state
            told.update(s, loaded.game.id, list(state["players"]))
            for to, text in new:
                seat = loaded.seat_for_address(to)
                if seat is None:
                    continue
                p = seat.player
                known = known_cache.get(p) or known_cache.setdefault(p, told.known_to(p))
                for q in state["players"]:
                    if q == p:
                        continue
                    for item in HIDDEN[kind](state, q):
                        named = item in text and re.search(rf"(?<![\w-]){re.escape(item)}(?![\w-])", text)
                        if named and item not in known:
                            raise AssertionError(f"mail to {p} names {q}'s hidden {item!r}:\n{text}")
                checked["mails"] += 1

    return after_poll, checked


def seats(kind: str) -> int:
    """The players of the random game of `kind` that tests/test_history_visibility.py plays (its `GAMES`): 3, or
    the nearest count the kind seats.  That game runs `mail_check` too (it is the same whole game by email)."""
    eng = registry.get(kind)
    return min(max(3, eng.min_players), eng.max_players)


#: Every kind whose secrets are searchable names, with its fewest and its most players; a count that the
#: visibility test's game already plays with this check (`seats`) is not played again here.
GAMES = [
    (kind, n)
    for kind in HIDDEN
    for n in sorted({registry.get(kind).min_players, registry.get(kind).max_players})
    if n != seats(kind)
]


def test_the_visibility_game_checks_the_counts_left_out_here() -> None:
    every = {(kind, n) for kind in HIDDEN for n in {registry.get(kind).min_players, registry.get(kind).max_players}}
    from tests.test_history_visibility import GAMES as VISIBILITY

    assert every <= set(GAMES) | {(kind, players) for kind, players, _ in VISIBILITY}


@pytest.mark.parametrize("kind, players", GAMES)
def test_no_mail_names_another_players_hidden_cards(tmp_path: Path, kind: str, players: int) -> None:
    from pbem.cli.demo import run

    if kind not in registry.available():
        pytest.skip(f"{kind} not installed")
    after_poll, checked = mail_check(kind)
    r = run(kind, players, f"secrecy-{kind}-{players}", tmp_path / "home", clock=Clock(), after_poll=after_poll)
    assert r.verified
    assert checked["mails"] > 10
