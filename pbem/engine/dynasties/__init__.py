"""Dynasties (seed 001, rulings DY-R1..DY-R22): the engine object the registry loads.

Owns only the contract glue (setup options, all-or-nothing apply, timeout,
view, result); the rules live in rules.py, the orders in orders.py, the
views in view.py and the handbook in handbook.py.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import Event, Game, Request, Result
from pbem.engine.declare import HistorySpec, Option, Series, Slot
from pbem.engine.dynasties import orders as O
from pbem.engine.dynasties import rules as R
from pbem.engine.dynasties import secrets
from pbem.engine.dynasties import view as V
from pbem.engine.dynasties.handbook import HANDBOOK
from pbem.engine.dynasties.table import plain, typed
from pbem.engine.views import View


class DynastiesEngine(Game):
    kind = "dynasties"
    title = "Dynasties"
    min_players = 2
    max_players = 6
    order_words = tuple(O.VERBS)
    declared_options = (Option("legacy", "gold in the Legacy pot at the start, DY-R8", whole=True),)
    #: A Tribute, a play, a Conclave choice and a discard are one each; a later line may replace an
    #: earlier secret answer or standing list, but never plays a second card (DY-R10, DY-R13).
    slots = (
        Slot("your Tribute", ("TRIBUTE", "TRIB"), replaces=True),
        Slot(
            "your play",
            ("PLAY", "PLAYS"),
            replaces=True,
            hint="to play one card now and keep others for later Turns, write them on one line: PLAYS <card>, <card>",
        ),
        Slot("your Conclave choice", ("CONCLAVE", "TAKE"), replaces=True),
        Slot("your discard", ("DISCARD", "DROP"), replaces=True, hint="name every card on one DISCARD line"),
    )
    history = HistorySpec(
        step="Gambit",
        step_keys=("gambit", "turn"),
        series=(
            Series("scores", "Treasuries (Gold) after each gambit", "Gold"),
            Series("stakes", "Stakes after each {step}", "Gold"),
        ),
    )
    handbook_text = HANDBOOK
    secrets = secrets

    def must_know(self, state: dict[str, Any], event: Event, player: str) -> bool:
        """Gold another player's Pureblood Family makes you pay (DY-R7).  The one-Gold powers (Precedence,
        Royal Levy) wait for your next mail: each of your decisions comes with a request that tells them."""
        d = event.data
        return (
            event.kind == "payment"
            and d.get("from") == player
            and d.get("to") not in ("stakes", player)
            and "Pureblood" in str(d.get("why", ""))
        )

    def deal(self, players: list[str], seed: str, options: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
        legacy = options.get("legacy", 0)
        if isinstance(legacy, bool) or not isinstance(legacy, int) or legacy < 0:
            try:
                legacy = int(str(legacy))
            except ValueError:
                legacy = -1
            if legacy < 0:
                raise ValueError("option legacy must be a whole number >= 0")
        st, ev = R.setup(players, seed, legacy)
        return plain(st), ev

    def requests(self, state: dict[str, Any]) -> list[Request]:
        return O.requests(typed(state))

    def line(self, state: dict[str, Any], player: str, text: str, events: list[Event]) -> str:
        return O.apply_line(typed(state), events, player, text)

    def finish(self, state: dict[str, Any], player: str, events: list[Event]) -> None:
        O.finish_tributes(typed(state), events)

    def standing(self, state: dict[str, Any], player: str) -> tuple[str, ...]:
        return O.standing_on_file(typed(state), player)

    def view(self, state: dict[str, Any], player: str | None) -> View:
        return V.view(self, typed(state), player)

    def result(self, plain_state: dict[str, Any]) -> Result | None:
        state = typed(plain_state)
        res = state["result"]
        if not res:
            return None
        winners = tuple(res["winners"])
        top = state["treasury"][winners[0]]
        summary = (
            f"{' and '.join(winners)} {'wins' if len(winners) == 1 else 'share the win'} with {top} Gold "
            f"after {state['gambit']} gambits; Legacy {state['legacy']}"
            + (f" split {res['legacy_share']} each." if len(winners) > 1 else " to the winner.")
        )
        return Result(
            dict(state["treasury"]),
            winners,
            summary,
            {
                "legacy": state["legacy"],
                "legacy_share": res["legacy_share"],
                "gambits": state["gambit"],
                "removed": state["removed"],
            },
        )


ENGINE = DynastiesEngine()
