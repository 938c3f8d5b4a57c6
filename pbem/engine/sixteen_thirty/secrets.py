"""Sixteen Thirty Something secrets: what only one player knows, for the secrecy tests.

A player's secrets are their hand, their victory counters and score
breakdowns (until the game is over), their answer on file for a
simultaneous step, a locked ballot, pre-submitted orders and standing
orders.  Whether they have answered is public, so `scramble` changes what
is on file, never whether; the cards of an offer on the table stay in the hand
(the offer is a secret too, but accepting it takes them).  Cards and counters are named by countries, which
every report names anyway, so there are no names to search mail for.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import Draft

State = dict[str, Any]


def scramble(s: State, q: str) -> State:
    """The same state with q's secrets changed: other players' views must not change.

    Made on a `Draft` (each part deep-copied when first read, so the history entries too), so the
    parts no secret lives in (deck, displays, countries ...) are shared with `s`, as an accepted
    state shares them."""
    t = Draft(s)
    offer = (s["trade"] or {}).get("offers", {}).get(q) or {}
    kept = list(offer.get("give", []))  # an offer on the table is given from q's hand if accepted: it stays there
    t["hands"][q] = kept + ["Vote"] * (len(s["hands"][q]) - len(kept))
    if not s["over"]:
        t["counters"][q] = ["Poland"] * len(s["counters"][q])
        for h in t["history"]:
            h["breakdown"][q] = []
    t["queue"][q] = []
    t["standing"][q] = {"place_none": False, "except": [], "votes": [["ANY", "ANY", "RED"]], "offer_none": False}
    if q in t["answers"]:
        t["answers"][q] = _other_answer(t["answers"][q])
    if t["vote"]:
        t["vote"]["early"].pop(q, None)
    return t.settle()


def _other_answer(a: Any) -> Any:
    if a in ("RED", "BLUE"):
        return "BLUE" if a == "RED" else "RED"
    if isinstance(a, list):
        return []
    if isinstance(a, dict):
        return None
    if a is None:
        return {"give": [], "for": ["ANY"]}
    return a


def hidden_names(s: State, q: str) -> list[str] | None:
    return None
