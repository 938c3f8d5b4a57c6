"""House of Habsburg engine: the contract object (`ENGINE`) tying rules, orders, views and handbook together.

Strictly sequential (RULINGS 2.4): only the active player is ever asked.  A turn
is draw (automatic) -> melds -> one optional event -> discard to 5 -> next seat.
"""

from __future__ import annotations

from typing import Any

from ..base import Event, LineResult, Outcome, Request, Result, RuleError, apply_defaults, clone
from . import orders, rules
from .handbook import HANDBOOK, SYNTAX
from .view import view as make_view


class HabsburgEngine:
    kind = "habsburg"
    title = "House of Habsburg"
    min_players = 3
    max_players = 6
    order_words = orders.ORDER_WORDS

    def setup(self, players: list[str], seed: str, options: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
        if not self.min_players <= len(players) <= self.max_players:
            raise ValueError(f"House of Habsburg needs 3 to 6 players, not {len(players)}")
        if len(set(players)) != len(players):
            raise ValueError("player names must be distinct")
        ev: list[Event] = []
        st = rules.new_state(players, seed, ev)
        return st, ev

    def requests(self, state: dict[str, Any]) -> list[Request]:
        if state["phase"] == "over":
            return []
        p = rules.active(state)
        if state["phase"] == "discard":
            excess = len(state["hands"][p]) - rules.HAND_LIMIT
            prompt = f"Your hand is {excess} card(s) over the limit of 5: discard that many (HH-R10)."
        else:
            prompt = (
                "Your turn: make any melds, then play one event or NO EVENT "
                "(add DISCARD-IF-NEEDED to avoid a second prompt)."
            )
        return [
            Request(
                p,
                f"t{state['turn']}.{state['phase']}",
                prompt,
                tuple(orders.legal_lines(state)),
                SYNTAX,
                tuple(orders.default_lines(state)),
            )
        ]

    def apply(self, state: dict[str, Any], player: str, lines: list[str]) -> Outcome:
        st = clone(state)
        ev: list[Event] = []
        results: list[LineResult] = []
        mine = st["phase"] != "over" and rules.active(st) == player
        ctx = {"turn": st["turn"] if mine else None}
        for line in lines:
            try:
                understood = orders.apply_line(st, player, line, ev, ctx)
                if st["phase"] != "over":
                    rules.check_over(st, ev, mid_turn=True)
                results.append(LineResult(line, True, understood=understood))
            except RuleError as err:
                asked = st["phase"] != "over" and rules.active(st) == player
                legal = (err.legal or tuple(orders.legal_lines(st))) if asked else err.legal
                results.append(LineResult(line, False, reason=err.reason, legal=tuple(legal)))
        if not all(r.ok for r in results):
            return Outcome(state, [], results)
        return Outcome(st, ev, results)

    def timeout(self, state: dict[str, Any]) -> Outcome:
        return apply_defaults(self, state)

    def view(self, state: dict[str, Any], player: str | None) -> dict[str, Any]:
        return make_view(state, player, self.kind, self.title)

    def result(self, state: dict[str, Any]) -> Result | None:
        if state["phase"] != "over":
            return None
        sc = rules.scores(state)
        win = tuple(state["winners"])
        summary = (
            f"{' and '.join(win)} {'win' if len(win) > 1 else 'wins'} House of Habsburg with "
            f"{sc[win[0]]} points (" + ", ".join(f"{p} {sc[p]}" for p in state["players"]) + ")."
        )
        details = {"tokens": dict(state["tokens"]), "holdings": {p: rules.holdings(state, p) for p in state["players"]}}
        return Result(sc, win, summary, details)

    def handbook(self) -> str:
        return HANDBOOK


ENGINE = HabsburgEngine()
