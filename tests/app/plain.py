"""Plain objects for the policy tests: a game as the shell would load it, without a database."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache

from pbem import engine as registry
from pbem.mail.inbound.message import Inbound, parse
from pbem.record.rows import Deadline, Game, Seat
from pbem.record.store import Loaded
from pbem.trust.codes import hash_code
from tests.conftest import CODES, order_mail

WHEN = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
MODERATOR = "moderator@pbem.test"


@cache
def code_hash(player: str) -> str:
    return hash_code(CODES[player], salt=f"salt-{player}", rounds=1000)


def address(player: str) -> str:
    return f"{player.lower()}@players.test"


def loaded(
    kind: str = "habsburg", players: tuple[str, ...] = ("Alice", "Bob", "Carol"), resolve: str = "asap"
) -> Loaded:
    eng = registry.get(kind)
    state, _ = eng.setup(list(players), "policy-seed", {})
    game = Game(
        id=1,
        name="g1",
        kind=kind,
        seed="policy-seed",
        seed_commitment="c0ffee",
        players_json=json.dumps(list(players)),
        options_json="{}",
        resolve=resolve,
        created_at=WHEN,
    )
    seats = [
        Seat(
            id=i + 1,
            game_id=1,
            position=i,
            player=p,
            address=address(p),
            display_name=p,
            code_hash=code_hash(p),
            created_at=WHEN,
        )
        for i, p in enumerate(players)
    ]
    return Loaded(game, seats, state, 0, 0)


def mail(sender: str, body: str, game: str = "g1", **kw: str) -> Inbound:
    """A message from `sender` ("Name <addr>" or a bare player name) as the parser gives it."""
    if "@" not in sender:
        sender = f"{sender} <{address(sender)}>"
    return parse(order_mail(sender, game, body, **kw), MODERATOR)


def signed(player: str, body: str) -> str:
    return f"CODE {CODES[player]}\n{body}"


def deadline(step: str, due: datetime, id: int = 7) -> Deadline:
    return Deadline(id=id, game_id=1, step=step, due_at=due, reason="step opened", created_at=WHEN)
