"""Sixteen Thirty Something: the turn machine. `advance` runs every automatic step
(forced removals, the draw, skipped phases, standing orders, reveals once all answers
are in, end of turn with hidden scoring ST-R19, random end ST-R4, the end ST-R20) until
some player must answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.engine.base import Event
from pbem.engine.rng import Rng
from pbem.engine.sixteen_thirty import trade, votes
from pbem.engine.sixteen_thirty.shape import State
from pbem.engine.sixteen_thirty.specials import has_special_line
from pbem.engine.sixteen_thirty.state import (
    active,
    add_to_pile,
    cards_text,
    draw,
    goto,
    influence,
    lose_of,
    own_removal_options,
    piles,
    priv,
    pub,
    remove_card,
    take_from_hand,
    vote_of,
    voters,
)
from pbem.engine.sixteen_thirty.tables import HAND_LIMIT, LAST_TURN, RANDOM_END


def removal_options(st: State, p: str) -> list[tuple[str, str]]:
    """ST-R17: (country, card) choices for phase 1 from descendant piles."""
    return [(c, x) for c, pl in piles(st, p) if pl["desc"] for x in own_removal_options(pl)]


#: Uses the phasing player's next pre-submitted order if its phase has come (`orders.run_queue`).
QueueRunner = Callable[[State, list[Event]], bool]


def advance(st: State, ev: list[Event], run_queue: QueueRunner | None = None) -> None:
    """Take every automatic step until an answer is needed; with `run_queue`, orders kept on file
    for the phasing player are used as their phases come (the runner is passed in because it is
    the order language's, which itself advances the game)."""
    while not st["over"]:
        if step_once(st, ev):
            continue
        if run_queue and st["active"] and st["queue"][st["active"]] and run_queue(st, ev):
            continue
        return


def step_once(st: State, ev: list[Event]) -> bool:
    """One automatic transition; False when the current step waits for an answer."""
    step = _STEPS.get(st["phase"])
    return step(st, ev) if step else False


def _start(st: State, ev: list[Event]) -> bool:
    if not all(q in st["answers"] for q in st["players"]):
        return False
    reveal_start(st, ev)
    begin_player_turn(st, ev)
    return True


def _remove(st: State, ev: list[Event]) -> bool:
    p = active(st)
    opts = removal_options(st, p)
    if len(opts) > 1:
        return False
    if opts:
        remove_card(st, p, opts[0][0], opts[0][1], ev, "Phase 1 removal (only choice)")
    draw(st, p, 4, ev)
    goto(st, "trade")
    return True


def _offers(st: State, ev: list[Event]) -> bool:
    for q in trade.asked(st):
        if q not in st["answers"] and st["standing"][q]["offer_none"]:
            st["answers"][q] = None
    if not all(q in st["answers"] for q in trade.asked(st)):
        return False
    trade.reveal_offers(st, ev)
    return True


def _specials(st: State, ev: list[Event]) -> bool:
    if st["specials_played"] < 2 and has_special_line(st, active(st)):
        return False
    goto_call(st, ev)
    return True


def _call(st: State, ev: list[Event]) -> bool:
    p = active(st)
    if votes.callable_countries(st, p):
        return False
    pub(ev, "no-vote", f"{p} has no pile and no Influence card, so no vote is called (ST-R11).", player=p)
    goto(st, "specials" if st["call_origin"] == "card" else "discard")
    return True


def _place(st: State, ev: list[Event]) -> bool:
    for q in votes.place_asked(st):
        if q not in st["answers"] and votes.standing_none(st, q):
            st["answers"][q] = []
    if not all(q in st["answers"] for q in votes.place_asked(st)):
        return False
    votes.reveal_placements(st, ev)
    return True


def _ballot(st: State, ev: list[Event]) -> bool:
    votes.fill_ballots(st)
    if not all(q in st["answers"] for q in voters(st, vote_of(st)["country"])):
        return False
    votes.reveal_ballots(st, ev)
    return True


def _lose(st: State, ev: list[Event]) -> bool:
    if not all(q in st["answers"] for q in lose_of(st)["who"]):
        return False
    votes.resolve_lose(st, ev)
    return True


def _discard(st: State, ev: list[Event]) -> bool:
    if len(st["hands"][active(st)]) > HAND_LIMIT:
        return False
    end_player_turn(st, ev)
    return True


#: The automatic part of each phase (every phase after the start belongs to the active player's turn);
#: the phases not listed (trade, accept) always wait for the active player.
_STEPS: dict[str, Callable[[State, list[Event]], bool]] = {
    "start": _start,
    "remove": _remove,
    "offers": _offers,
    "specials": _specials,
    "call": _call,
    "place": _place,
    "ballot": _ballot,
    "lose": _lose,
    "discard": _discard,
}


def goto_call(st: State, ev: list[Event]) -> None:
    st["call_origin"] = "mandatory"
    goto(st, "call", f"vote{st['votes_called'] + 1}.call")


# ---------------------------------------------------------------- start
def start_required(hand: list[str]) -> int:
    named = [x for x in hand if not x.startswith("Open ") and x[-1].isdigit()]
    opens = [x for x in hand if x.startswith("Open ")]
    return min(3, len(named) + (len(opens) if named else 0))


def reveal_start(st: State, ev: list[Event]) -> None:
    parts = []
    for q in st["players"]:
        for c, cards in st["answers"][q]:
            take_from_hand(st, q, cards)
            add_to_pile(st, q, c, cards)
        shown = "; ".join(cards_text(pl["cards"]) for pl in st["displays"][q].values())
        parts.append(f"{q}: {shown or 'nothing'}")
    pub(
        ev,
        "start-placed",
        f"Starting Influence cards revealed. {' | '.join(parts)}.",
        displays={q: {c: list(pl["cards"]) for c, pl in st["displays"][q].items()} for q in st["players"]},
    )


# ---------------------------------------------------------------- player turns
def begin_player_turn(st: State, ev: list[Event]) -> None:
    n = len(st["players"])
    st["active"] = st["players"][(st["first"] + st["order_idx"]) % n]
    st["specials_played"] = st["votes_called"] = 0
    st["trade"] = st["vote"] = st["lose"] = st["call_origin"] = None
    goto(st, "remove")
    pub(
        ev,
        "player-turn",
        f"Turn {st['turn']}: {st['active']} is the phasing player.",
        turn=st["turn"],
        player=st["active"],
    )


def end_player_turn(st: State, ev: list[Event]) -> None:
    p = active(st)
    if st["queue"][p]:
        priv(
            ev,
            p,
            "dropped",
            f"Your turn ended; unused pre-submitted orders dropped: {'; '.join(st['queue'][p])}.",
            player=p,
            orders=list(st["queue"][p]),
        )
        st["queue"][p] = []
    st["order_idx"] += 1
    if st["order_idx"] < len(st["players"]):
        begin_player_turn(st, ev)
    else:
        end_turn(st, ev)


def end_turn(st: State, ev: list[Event]) -> None:
    score_turn(st, ev)
    n = len(st["players"])
    st["first"] = (st["first"] + 1) % n
    for k in st["countries"].values():
        k["leader"] = False
        k["unrest"] = False
    pub(
        ev,
        "end-turn",
        f"End of turn {st['turn']}: Military Leader and Unrest counters are removed; "
        f"{st['players'][st['first']]} now holds the First Player marker.",
        turn=st["turn"],
        first_player=st["players"][st["first"]],
    )
    t = st["turn"]
    if t >= LAST_TURN:
        return end_game(st, ev, f"Turn {LAST_TURN} is over, so the game ends.")
    if t in RANDOM_END:
        log: list[dict[str, Any]] = []
        roll = Rng(st["rng"], log).die()
        ends = roll <= RANDOM_END[t]
        pub(
            ev,
            "random-end",
            f"Random end roll after turn {t}: {roll} (the game ends on {RANDOM_END[t]} or less): "
            f"{'the game ends' if ends else 'play continues'}.",
            turn=t,
            roll=roll,
            ends=ends,
            ends_on=RANDOM_END[t],
            rng=log,
        )
        if ends:
            return end_game(st, ev, f"The random end roll ended the game after turn {t}.")
    st["turn"] += 1
    st["order_idx"] = 0
    begin_player_turn(st, ev)


def score_turn(st: State, ev: list[Event]) -> None:
    """ST-R19: min(status, influence) per counter; totals public, breakdown private."""
    gained: dict[str, int] = {}
    breakdown: dict[str, list[list[Any]]] = {}
    for q in st["players"]:
        rows: list[list[Any]] = []
        for c in st["counters"][q]:
            s, i = st["countries"][c]["status"], influence(st, q, c)
            rows.append([c, s, i, min(s, i)])
        breakdown[q] = rows
        gained[q] = sum(r[3] for r in rows)
        st["scores"][q] += gained[q]
    st["history"].append(
        {"turn": st["turn"], "gained": dict(gained), "totals": dict(st["scores"]), "breakdown": breakdown}
    )
    countries = {
        c: {"status": k["status"], "army": k["army"], "ability": k["ability"], "faction": k["faction"]}
        for c, k in st["countries"].items()
    }
    text = ", ".join(f"{q} {st['scores'][q]} (+{gained[q]})" for q in st["players"])
    pub(
        ev,
        "scores",
        f"Scores after turn {st['turn']}: {text}.",
        scores=dict(st["scores"]),
        turn=st["turn"],
        gained=dict(gained),
        countries=countries,
    )
    for q in st["players"]:
        detail = "; ".join(f"{c}: min(status {s}, influence {i}) = {v}" for c, s, i, v in breakdown[q])
        priv(
            ev,
            q,
            "score-breakdown",
            f"Your score this turn: {detail or 'no counters'}; total +{gained[q]}.",
            turn=st["turn"],
            rows=breakdown[q],
        )


def end_game(st: State, ev: list[Event], why: str) -> None:
    st["over"] = True
    st["phase"] = "over"
    st["step"] = f"t{st['turn']}.over"
    st["active"] = None
    for q in st["players"]:
        pub(
            ev,
            "reveal-counters",
            f"{q}'s victory counters: {', '.join(st['counters'][q])}.",
            player=q,
            counters=list(st["counters"][q]),
        )
    pub(
        ev,
        "reveal-unused",
        f"Counters never drawn: {', '.join(st['unused_counters']) or 'none'}.",
        unused=list(st["unused_counters"]),
    )
    for h in st["history"]:
        rows = " | ".join(f"{q}: " + ", ".join(f"{c} {v}" for c, s, i, v in h["breakdown"][q]) for q in st["players"])
        pub(ev, "reveal-history", f"Turn {h['turn']} scoring: {rows}.", **h)
    for q in st["players"]:
        pub(ev, "reveal-hand", f"{q}'s final hand: {cards_text(st['hands'][q])}.", player=q, cards=list(st["hands"][q]))
    pub(ev, "reveal-seed", f"The game seed was {st['rng']['seed']}.", seed=st["rng"]["seed"])
    top = max(st["scores"].values())
    winners = [q for q in st["players"] if st["scores"][q] == top]
    summary = f"{why} {' and '.join(winners)} {'share the win' if len(winners) > 1 else 'wins'} with {top} points."
    st["result"] = {"scores": dict(st["scores"]), "winners": winners, "summary": summary}
    pub(
        ev,
        "game-over",
        summary,
        scores=dict(st["scores"]),
        winners=winners,
        history=[{"turn": h["turn"], "totals": h["totals"]} for h in st["history"]],
    )
