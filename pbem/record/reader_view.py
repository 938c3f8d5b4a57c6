"""The record as one reader may know it: what a receipt shown to a player states (issue 26).

A receipt (`X-Pbem-Record: <n> <head>`, "Record #n") shown to player P counts
only the entries of the chain P may see (P's own inputs, the moderator's and
the deadline's inputs, events public or visible to P) and states the chain's
head right after the newest of them.  So another player's secret revisions,
and hidden events, move neither P's number nor P's head until something P may
see follows them, and even then P's number grows by one per entry P sees: it
tells nothing about how many hidden entries lie between.  The head still binds
the whole chain up to there (hidden entries included, salted), so `verify
--mail` checks it against the export as before (`pbem.trust.receipts`), at the
position of P's n-th visible entry.

One statement on the orders' and events' primary keys (game_id, seq) for the
game; the caller owns the transaction.
"""

from __future__ import annotations

import json

from sqlalchemy import text
from sqlmodel import Session

from pbem.engine.base import PUBLIC
from pbem.record.db import fetch

_PUBLIC_JSON = json.dumps(PUBLIC)

_Q = text(
    """
SELECT
  (SELECT count(*) FROM orders WHERE game_id = :g AND (player = :p OR player = '')),
  (SELECT count(*) FROM events WHERE game_id = :g AND (visibility_json = :pub OR visibility_json LIKE :pat ESCAPE '!')),
  (SELECT seq FROM orders WHERE game_id = :g AND (player = :p OR player = '') ORDER BY seq DESC LIMIT 1),
  (SELECT hash FROM orders WHERE game_id = :g AND (player = :p OR player = '') ORDER BY seq DESC LIMIT 1),
  (SELECT input_seq FROM events WHERE game_id = :g AND (visibility_json = :pub OR visibility_json LIKE :pat ESCAPE '!')
     ORDER BY seq DESC LIMIT 1),
  (SELECT hash FROM events WHERE game_id = :g AND (visibility_json = :pub OR visibility_json LIKE :pat ESCAPE '!')
     ORDER BY seq DESC LIMIT 1)
"""
)


def _like(player: str) -> str:
    quoted = json.dumps(player)
    return "%" + quoted.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%"


def visible_record(s: Session, game_id: int, player: str, commitment: str) -> tuple[int, str]:
    """(entries `player` may see, the chain's head after the newest of them; `commitment` when none)."""
    params = {"g": game_id, "p": player, "pub": _PUBLIC_JSON, "pat": _like(player)}
    inputs, events, order_seq, order_hash, event_input, event_hash = fetch(s.connection(), _Q, params)[0]
    n = int(inputs or 0) + int(events or 0)
    if order_seq is None and event_input is None:
        return n, commitment
    # chain order: an input before the events it produced (`pbem.trust.chain.position`)
    if event_input is None or (order_seq is not None and order_seq > event_input):
        return n, str(order_hash)
    return n, str(event_hash)
