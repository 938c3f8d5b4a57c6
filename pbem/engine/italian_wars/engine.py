"""The Italian Wars engine object: set-up, requests, apply, timeout, result (owns the contract).

Two players, French and Spanish (IW-R1).  The hand procedure lives in
`rules.py` and `negation.py`, the order language in `orders.py`, the views in
`view.py` and the players' handbook in `handbook.py`.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import (
    MODERATOR,
    PUBLIC,
    Event,
    Game,
    Request,
    Result,
)
from pbem.engine.declare import HistorySpec, Option, Series, Slot
from pbem.engine.italian_wars import secrets
from pbem.engine.italian_wars.cards import NAMES
from pbem.engine.italian_wars.handbook import HANDBOOK
from pbem.engine.italian_wars.negation import start_negation
from pbem.engine.italian_wars.orders import ALIASES, apply_line, legal_lines, standing_on_file
from pbem.engine.italian_wars.rules import (
    default_leader,
    earlier_forms,
    finish_leaders,
    max_discard,
    resolve_discards,
    start_hand,
)
from pbem.engine.italian_wars.table import State, negation, plain, typed
from pbem.engine.italian_wars.view import make_view
from pbem.engine.rng import Rng, init_state
from pbem.engine.views import View

SYNTAX_DISCARD = (
    "DISCARD <card>, <card>, ... (0-4 cards; 0-5 after losing a hand)",
    "DISCARD NONE",
    "LEADER-PREF <leader>, <leader>, ...  (standing: which Leader to keep)",
    "NEGATE-PLAN <own card> > <target>; <own card> > <target>; ...  (standing; or NONE)",
)


class ItalianWars(Game):
    kind = "italian-wars"
    title = "Italian Wars"
    min_players = 2
    max_players = 2
    order_words = tuple(ALIASES)
    declared_options = (Option("sides", "fixed: the first player is French; lot: drawn, IW-R1", ("fixed", "lot")),)
    #: Revisable secret answers: a later line of the same message replaces the earlier (the handbook:
    #: "You may send DISCARD again to replace your answer").
    slots = (
        Slot("your discard", tuple(w for w, v in ALIASES.items() if v == "DISCARD"), replaces=True),
        Slot("your leader preference", tuple(w for w, v in ALIASES.items() if v == "LEADER-PREF"), replaces=True),
        Slot("your leader choice", tuple(w for w, v in ALIASES.items() if v == "LEADER"), replaces=True),
        Slot("your negate plan", tuple(w for w, v in ALIASES.items() if v == "NEGATE-PLAN"), replaces=True),
    )
    history = HistorySpec(
        step="Hand",
        step_keys=("hand", "turn"),
        series=(
            Series("scores", "Hands won (cumulative)", "Hands won"),
            Series("streaks", "Winning streak after each {step}", "Hands in a row", "Streak"),
            Series("forces", "Force deployed in each {step}", "Force", "Force in the last {step}"),
        ),
    )

    handbook_text = HANDBOOK
    secrets = secrets

    def must_know(self, state: dict[str, Any], event: Event, player: str) -> bool:
        """Your deployed card negated (IW-R11)."""
        return event.kind == "negate" and event.data.get("target_owner") == player

    def deal(self, players: list[str], seed: str, options: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
        state: State = {
            "players": list(players),
            "rng": init_state(seed),
            "sides": {},
            "deck": list(NAMES),
            "discard": [],
            "hands": {p: [] for p in players},
            "field": {p: [] for p in players},
            "hand": 0,
            "won": {p: 0 for p in players},
            "streak": {p: 0 for p in players},
            "prev_winner": None,
            "prev_loser": None,
            "step": "discard",
            "pending": {},
            "prefs": {},
            "plans": {},
            "leader_ask": [],
            "leader_pick": {},
            "neg": None,
            "last": None,
            "secret_log": [],
            "over": False,
            "winner": None,
        }
        side_log: list[dict[str, Any]] = []
        deck_log: list[dict[str, Any]] = []
        french = 0 if options.get("sides") == "fixed" else Rng(state["rng"], side_log).coin()
        state["sides"] = {players[french]: "French", players[1 - french]: "Spanish"}
        how = "fixed by option" if options.get("sides") == "fixed" else "by lot (IW-R1)"
        events = [
            Event(
                "sides",
                f"Sides {how}: {players[french]} is French, {players[1 - french]} is Spanish.",
                PUBLIC,
                {"sides": dict(state["sides"]), "how": how, "rng": side_log},
            )
        ]
        Rng(state["rng"], deck_log).shuffle(state["deck"])
        events.append(Event("shuffle", "The 96-card deck was shuffled.", PUBLIC, {"cards": 96}))
        events.append(
            Event(
                "deck-order",
                f"Deck order (top first): {', '.join(state['deck'])}.",
                MODERATOR,
                {"deck": list(state["deck"]), "rng": deck_log},
            )
        )
        start_hand(state, events)
        return plain(state), events

    def requests(self, state: dict[str, Any]) -> list[Request]:
        return _requests(typed(state))

    def line(self, state: dict[str, Any], player: str, text: str, events: list[Event]) -> str:
        return apply_line(typed(state), player, text, events)

    def finish(self, plain_state: dict[str, Any], player: str, events: list[Event]) -> None:
        """Resolve a simultaneous step once every answer is in (after the whole message)."""
        state = typed(plain_state)
        if state["step"] == "discard" and all(p in state["pending"] for p in state["players"]):
            if resolve_discards(state, events):
                start_negation(state, events)
        elif state["step"] == "leader" and all(p in state["leader_pick"] for p in state["leader_ask"]):
            finish_leaders(state, events)
            start_negation(state, events)

    def earlier_forms(self, event: Event) -> tuple[Event, ...]:
        return earlier_forms(event)

    def standing(self, state: dict[str, Any], player: str) -> tuple[str, ...]:
        return tuple(standing_on_file(typed(state), player))

    def view(self, state: dict[str, Any], player: str | None) -> View:
        return make_view(self, typed(state), player)

    def result(self, plain_state: dict[str, Any]) -> Result | None:
        state = typed(plain_state)
        w = state["winner"]
        if not state["over"] or w is None:
            return None
        return Result(
            dict(state["won"]),
            (w,),
            f"{w} ({state['sides'][w]}) won the battle after {state['hand']} hands, with {state['won'][w]} hands won.",
            {"streaks": dict(state["streak"]), "sides": dict(state["sides"])},
        )


def _requests(state: State) -> list[Request]:
    n, step = state["hand"], state["step"]
    if step == "discard":
        return [_discard_request(state, p) for p in state["players"]]
    if step == "leader":
        return [
            Request(
                p,
                f"hand{n}.leader",
                "You deployed several Leaders: choose the one to keep (IW-R6).",
                tuple(legal_lines(state, p)),
                ("LEADER <card>",),
                (f"LEADER {default_leader(state, p)}",),
                p in state["leader_pick"],
                (f"LEADER {state['leader_pick'][p]}",) if p in state["leader_pick"] else (),
            )
            for p in state["leader_ask"]
        ]
    if step == "negate":
        p = negation(state)["turn"]
        return [
            Request(
                p,
                f"hand{n}.negate{negation(state)['actions']}",
                "Negation: use one Negate effect of your cards on an enemy card, or pass (IW-R11).",
                tuple(legal_lines(state, p)),
                ("NEGATE <own card> > <target card>", "PASS", "NEGATE-PLAN <own> > <target>; ..."),
                ("PASS",),
            )
        ]
    return []


def _discard_request(state: State, p: str) -> Request:
    on_file = [f"DISCARD {', '.join(state['pending'][p]) or 'NONE'}"] if p in state["pending"] else []
    on_file += standing_on_file(state, p)
    prompt = (
        f"Hand {state['hand']}: discard up to {max_discard(state, p)} cards face down to draw "
        "replacements (or DISCARD NONE)."
    )
    return Request(
        p,
        f"hand{state['hand']}.discard",
        prompt,
        tuple(legal_lines(state, p)),
        SYNTAX_DISCARD,
        ("DISCARD NONE",),
        p in state["pending"],
        tuple(on_file),
    )


__all__ = ["ItalianWars"]
