"""Sixteen Thirty Something (Warfrog, 1995) for pbem: the engine object tying the
subpackage together (tables, state, votes, wars, specials, trade, turn, orders, asks,
view, handbook, bot)."""

from __future__ import annotations

from typing import Any

from pbem.engine.base import Event, Game, Outcome, Request, Result
from pbem.engine.declare import HistorySpec, Series, Slot
from pbem.engine.sixteen_thirty import asks, orders, secrets, state
from pbem.engine.sixteen_thirty.parse import ORDER_WORDS
from pbem.engine.sixteen_thirty.shape import plain, typed
from pbem.engine.sixteen_thirty.tables import KIND, TITLE
from pbem.engine.sixteen_thirty.turn import advance
from pbem.engine.views import View


class SixteenThirtyEngine(Game):
    kind = KIND
    title = TITLE
    min_players = 3
    max_players = 6
    order_words: tuple[str, ...] = ORDER_WORDS
    #: Secret, revisable answers (a later line replaces the earlier) and one ballot per vote: a CALL
    #: opens a new vote, so PLAY Vote with two CALL lines may carry two VOTE lines (ST-R9, ST-R15).
    slots = (
        Slot("your starting placement", ("PLACE-START", "START"), replaces=True),
        Slot("your trade request", ("TRADE", "NO TRADE", "PASS TRADE"), replaces=True),
        Slot("your offer", ("OFFER", "NO OFFER"), replaces=True),
        Slot("your answer to the offers", ("ACCEPT", "DECLINE"), replaces=True),
        Slot("your placement", ("PLACE",), replaces=True, reset=("CALL",)),
        Slot("your ballot", ("VOTE",), replaces=True, reset=("CALL",), hint="one ballot per vote (ST-R9)"),
    )
    history = HistorySpec(
        step="Turn",
        step_keys=("turn",),
        series=(
            Series("scores", "Victory points after each turn", "Points"),
            Series("gained", "Points gained in each {step}", "Points", "Gained in the last {step}"),
        ),
        entity_fields=("status", "faction"),
        colours={"RED": "#D55E00", "BLUE": "#0072B2"},
    )

    secrets = secrets

    def must_know(self, state: dict[str, Any], event: Event, player: str) -> bool:
        """An Assassin on your pile or Unrest hitting you (ST-R13, ST-R14); a war fought by a country you hold
        a pile in (ST-R12); the cards of your offer changing hands when it is accepted (ST-R15); the result of a
        vote you cast a ballot in (ST-R9: locked ballots were asked of nobody)."""
        d = event.data
        if event.kind == "trade-cards":
            return player in d.get("gave", {})
        if event.kind == "special":
            return d.get("target") == player or player in d.get("hit", ())
        if event.kind == "war":
            held = state["displays"].get(player, {})
            return d.get("attacker") in held or d.get("defender") in held
        if event.kind == "ballots":  # ST-R9: a ballot locked with the CALL or PLACE was asked of nobody, so
            return player in d.get("ballots", {})  # its voter (the caller, say) is told the result all the same
        return False

    def deal(self, players: list[str], seed: str, options: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
        st, ev = state.setup(players, seed, options)
        advance(st, ev, orders.run_queue)
        return plain(st), ev

    def requests(self, st: dict[str, Any]) -> list[Request]:
        return asks.requests(typed(st))

    def apply(self, st: dict[str, Any], player: str, lines: list[str]) -> Outcome:
        return orders.apply(st, player, lines)

    def standing(self, st: dict[str, Any], player: str) -> tuple[str, ...]:
        return tuple(orders.standing_on_file(typed(st), player))

    def view(self, st: dict[str, Any], player: str | None) -> View:
        from pbem.engine.sixteen_thirty.view import view

        return view(self, typed(st), player)

    def result(self, st: dict[str, Any]) -> Result | None:
        r = typed(st)["result"]
        if not r:
            return None
        return Result(
            dict(r["scores"]),
            tuple(r["winners"]),
            r["summary"],
            {"history": [{"turn": h["turn"], "totals": h["totals"]} for h in typed(st)["history"]]},
        )

    def handbook(self) -> str:  # loaded when asked: a cron run with nothing to do stays cheap
        from pbem.engine.sixteen_thirty.handbook import HANDBOOK

        return HANDBOOK


ENGINE = SixteenThirtyEngine()
