"""House of Habsburg engine: the contract object (`ENGINE`) tying rules, orders, views and handbook together.

Strictly sequential (docs/rulings.md): only the active player is ever asked.  A turn
is draw (automatic) -> melds -> one optional event -> discard to 5 -> next seat.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import Event, Game, Outcome, Request, Result, RuleError, apply_lines
from pbem.engine.declare import HistorySpec, Series, Slot
from pbem.engine.habsburg import orders, rules, secrets
from pbem.engine.habsburg.handbook import HANDBOOK, SYNTAX
from pbem.engine.habsburg.table import plain, typed
from pbem.engine.habsburg.view import view as make_view
from pbem.engine.views import View


class HabsburgEngine(Game):
    kind = "habsburg"
    title = "House of Habsburg"
    min_players = 3
    max_players = 6
    order_words = orders.ORDER_WORDS
    #: One event a turn, or NO EVENT (HH-R9): a second event line is refused, both quoted.
    slots = (
        Slot(
            "your event this turn",
            ("EVENT", "PLAY", *orders.EVENT_WORDS, *sorted(orders.NO_EVENT)),
            hint="a turn has at most one event (HH-R9)",
        ),
    )
    history = HistorySpec(
        step="Turn",
        step_keys=("turn",),
        series=(
            Series("scores", "Score (tokens + holdings) after each turn", "Points"),
            Series("tokens", "Tokens after each {step}", "Tokens"),
            Series("holdings", "Holdings after each {step}", "Holdings"),
        ),
    )
    handbook_text = HANDBOOK
    secrets = secrets

    def deal(self, players: list[str], seed: str, options: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
        ev: list[Event] = []
        st = rules.new_state(players, seed, ev)
        return plain(st), ev

    def requests(self, state: dict[str, Any]) -> list[Request]:
        st = typed(state)
        if st["phase"] == "over":
            return []
        p = rules.active(st)
        if st["phase"] == "discard":
            excess = len(st["hands"][p]) - rules.HAND_LIMIT
            prompt = f"Your hand is {excess} card(s) over the limit of 5: discard that many (HH-R10)."
        else:
            prompt = (
                "Your turn: make any melds, then play one event or NO EVENT "
                "(add DISCARD-IF-NEEDED to avoid a second prompt)."
            )
        return [
            Request(
                p,
                f"t{st['turn']}.{st['phase']}",
                prompt,
                tuple(orders.legal_lines(st)),
                SYNTAX,
                tuple(orders.default_lines(st)),
            )
        ]

    def must_know(self, state: dict[str, Any], event: Event, player: str) -> bool:
        """A card taken from your hand, your meld discarded or taken (HH-R8)."""
        key = {"claim": "victim", "stolen": "victim", "disaster": "owner", "succession": "from"}.get(event.kind)
        return key is not None and event.data.get(key) == player

    def apply(self, state: dict[str, Any], player: str, lines: list[str]) -> Outcome:
        first = typed(state)
        mine = first["phase"] != "over" and rules.active(first) == player
        ctx = {"turn": first["turn"] if mine else None}

        def line(draft: dict[str, Any], p: str, text: str, ev: list[Event]) -> str:
            st = typed(draft)
            understood = orders.apply_line(st, p, text, ev, ctx)
            if st["phase"] != "over":
                rules.check_over(st, ev, mid_turn=True)
            return understood

        def legal(draft: dict[str, Any], p: str, err: RuleError) -> tuple[str, ...]:
            st = typed(draft)
            asked = st["phase"] != "over" and rules.active(st) == p
            return tuple((err.legal or tuple(orders.legal_lines(st))) if asked else err.legal)

        return apply_lines(state, player, lines, line, legal=legal)

    def standing(self, state: dict[str, Any], player: str) -> tuple[str, ...]:
        return tuple(orders.standing_on_file(typed(state), player))

    def view(self, state: dict[str, Any], player: str | None) -> View:
        return make_view(self, typed(state), player)

    def result(self, state: dict[str, Any]) -> Result | None:
        st = typed(state)
        if st["phase"] != "over":
            return None
        sc = rules.scores(st)
        win = tuple(st["winners"] or ())
        summary = (
            f"{' and '.join(win)} {'win' if len(win) > 1 else 'wins'} House of Habsburg with "
            f"{sc[win[0]]} points (" + ", ".join(f"{p} {sc[p]}" for p in st["players"]) + ")."
        )
        details = {"tokens": dict(st["tokens"]), "holdings": {p: rules.holdings(st, p) for p in st["players"]}}
        tie = rules.decided(st)  # the rule that decided a tie, named (walk8); the summary without it is an earlier form
        return Result(sc, win, f"{summary} {tie}" if tie else summary, details, (summary,) if tie else ())

    def earlier_forms(self, event: Event) -> tuple[Event, ...]:
        return rules.earlier_forms(event)


ENGINE = HabsburgEngine()
