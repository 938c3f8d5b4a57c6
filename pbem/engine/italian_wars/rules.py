"""Italian Wars hand procedure: draws, discards, deployment and scoring (owns state changes).

One hand (IW-R2) runs: draws in IW-R5 order -> simultaneous secret discards ->
replacements -> reveal and deployment (IW-R6, maybe a Leader choice) ->
negation (see `negation.py`, IW-R11) -> Force count (IW-R9) -> hand result
(IW-R3, IW-R4) -> next hand.  This module never starts the negation: the
steps that end in it return True and the engine object (`engine.py`) calls
`negation.start_negation`, so the import runs one way (negation -> rules).  Every function works on a draft state and
appends `Event`s; randomness comes from ``Rng(state["rng"])`` only.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import MODERATOR, PUBLIC, Event
from pbem.engine.italian_wars.cards import BY_NAME, LEADERS, NAMES, SIDE_NAMES, matches
from pbem.engine.italian_wars.table import State
from pbem.engine.rng import Rng

WIN_TOTAL = 8
WIN_STREAK = 3


def other(state: State, player: str) -> str:
    a: str
    b: str
    a, b = state["players"]
    return b if player == a else a


def french(state: State) -> str:
    players: list[str] = state["players"]
    return next(p for p in players if state["sides"][p] == "French")


def draw_order(state: State) -> list[str]:
    """IW-R5: the previous winner first, or French first when there was none."""
    first = state["prev_winner"] or french(state)
    return [first, other(state, first)]


def reshuffle(state: State, events: list[Event]) -> None:
    """IW-R5: the whole discard pile becomes the new deck, shuffled."""
    pile = state["discard"]
    state["discard"] = []
    log: list[dict[str, Any]] = []
    Rng(state["rng"], log).shuffle(pile)
    state["deck"] = pile
    events.append(
        Event(
            "reshuffle",
            f"The deck ran out: the discard pile ({len(pile)} cards) was shuffled into a new deck.",
            PUBLIC,
            {"cards": len(pile)},
        )
    )
    events.append(
        Event(
            "deck-order", f"New deck order (top first): {', '.join(pile)}.", MODERATOR, {"deck": list(pile), "rng": log}
        )
    )


def draw(state: State, player: str, n: int, events: list[Event]) -> list[str]:
    got = []
    for _ in range(n):
        if not state["deck"]:
            reshuffle(state, events)
        card = state["deck"].pop(0)
        state["hands"][player].append(card)
        got.append(card)
    return got


def hand_size(state: State, player: str) -> int:
    return 9 if state["prev_winner"] == player else 8


def max_discard(state: State, player: str) -> int:
    return 5 if state["prev_loser"] == player else 4


def start_hand(state: State, events: list[Event]) -> None:
    """Open a new hand: draws in IW-R5 order, then the secret discard step."""
    state["hand"] += 1
    state["step"], state["pending"], state["prefs"], state["plans"] = "discard", {}, {}, {}
    state["leader_ask"], state["leader_pick"], state["neg"] = [], {}, None
    n = state["hand"]
    events.append(
        Event(
            "hand",
            f"Hand {n} begins. Previous winner: {state['prev_winner'] or 'none'}.",
            PUBLIC,
            {"hand": n, "prev_winner": state["prev_winner"]},
        )
    )
    for p in draw_order(state):
        got = draw(state, p, hand_size(state, p), events)
        events.append(Event("draw", f"{p} drew {len(got)} cards.", PUBLIC, {"player": p, "count": len(got)}))
        events.append(Event("draw-private", f"You drew: {', '.join(got)}.", (p,), {"player": p, "cards": got}))


def resolve_discards(state: State, events: list[Event]) -> bool:
    """Both discards are in: discard face down, announce counts, draw replacements, deploy.
    True if the negation starts now (no Leader choice is asked)."""
    order = draw_order(state)
    for p in order:
        cards = state["pending"][p]
        for c in cards:
            state["hands"][p].remove(c)
        state["discard"].extend(cards)
        state["secret_log"].append({"hand": state["hand"], "player": p, "cards": list(cards)})
        events.append(
            Event(
                "discard", f"{p} discarded {len(cards)} card(s) face down.", PUBLIC, {"player": p, "count": len(cards)}
            )
        )
        events.append(
            Event(
                "discard-private",
                f"{p} discarded: {', '.join(cards) or 'nothing'}.",
                MODERATOR,
                {"player": p, "cards": list(cards)},
            )
        )
    for p in order:
        got = draw(state, p, len(state["pending"][p]), events)
        if got:
            events.append(
                Event("replace", f"{p} drew {len(got)} replacement card(s).", PUBLIC, {"player": p, "count": len(got)})
            )
            events.append(
                Event(
                    "replace-private", f"You drew as replacements: {', '.join(got)}.", (p,), {"player": p, "cards": got}
                )
            )
    state["pending"] = {}
    return deploy(state, events)


def unusable_reason(state: State, player: str, name: str, check: int, who: str = "you") -> str:
    """Why `player` cannot deploy `name` under IW-R6 check number `check` (0-2), or "" if usable.  `who` names the
    player in the reason: "you" in their own view, their name in an event every player reads."""
    c = BY_NAME[name]
    if check == 0 and c["side"] and SIDE_NAMES[c["side"]] != state["sides"][player]:
        return f"{SIDE_NAMES[c['side']]} only"
    if check == 1 and c["cond"] == "WON" and state["prev_winner"] != player:
        return f"WON card, but {who} did not win the last hand"
    if check == 1 and c["cond"] == "LOST" and state["prev_loser"] != player:
        return f"LOST card, but {who} did not lose the last hand"
    if check == 2 and c["type"] == "D" and state["prev_winner"] == player:
        return "the previous winner cannot play Defense cards"
    return ""


def unusable_event(player: str, name: str, why: str) -> Event:
    """The public event of `player`'s card `name` discarded face up as unusable, for the reason `why`."""
    text = f"{player}'s {name} cannot be used ({why}) and is discarded."
    return Event("unusable", text, PUBLIC, {"player": player, "card": name, "reason": why})


def earlier_forms(event: Event) -> tuple[Event, ...]:
    """The forms in which pbem recorded `event` before 2026-12-05: the reason of an `unusable` card said "you"
    of its owner in an event every player reads ("LOST card, but you did not lose the last hand" under Alice's
    card in Bob's report); games recorded then verify with their own texts (`Engine.earlier_forms`)."""
    player, reason = str(event.data.get("player", "")), str(event.data.get("reason", ""))
    if event.kind != "unusable" or f"but {player} did not" not in reason:
        return ()
    return (
        unusable_event(player, str(event.data["card"]), reason.replace(f"but {player} did not", "but you did not")),
    )


def deploy(state: State, events: list[Event]) -> bool:
    """IW-R6: reveal both hands, discard unusable cards face up, settle Leaders.
    True if the negation starts now; False while a Leader choice is asked."""
    for p in draw_order(state):
        hand = sorted(state["hands"][p], key=NAMES.index)
        events.append(
            Event(
                "reveal",
                f"{p} ({state['sides'][p]}) reveals: {', '.join(hand)}.",
                PUBLIC,
                {"player": p, "cards": list(hand)},
            )
        )
        state["hands"][p] = []
        state["field"][p] = hand
        for check, name in [(k, c) for k in range(3) for c in list(hand)]:
            why = unusable_reason(state, p, name, check, p) if name in state["field"][p] else ""
            if why:
                discard_from_field(state, p, name)
                events.append(unusable_event(p, name, why))
    for p in draw_order(state):
        leaders = field_leaders(state, p)
        if len(leaders) < 2:
            continue
        pref = [c for c in state["prefs"].get(p) or [] if c in leaders]
        if pref:
            keep_leader(state, p, pref[0], "standing preference", events)
        else:
            state["leader_ask"].append(p)
    if state["leader_ask"]:
        state["step"] = "leader"
        events.append(
            Event(
                "leader-ask",
                f"{' and '.join(state['leader_ask'])} must choose which Leader to keep.",
                PUBLIC,
                {"players": list(state["leader_ask"])},
            )
        )
        return False
    return True


def field_leaders(state: State, player: str) -> list[str]:
    return [c for c in state["field"][player] if c in LEADERS]


def default_leader(state: State, player: str) -> str:
    """NMR: the highest-Force Leader, ties to the card listed first."""
    return sorted(field_leaders(state, player), key=lambda c: (-BY_NAME[c]["force"], NAMES.index(c)))[0]


def keep_leader(state: State, player: str, keep: str, how: str, events: list[Event]) -> None:
    gone = [c for c in field_leaders(state, player) if c != keep]
    for c in gone:
        discard_from_field(state, player, c)
    events.append(
        Event(
            "leader",
            f"{player} keeps {keep} ({how}); extra Leader(s) discarded: {', '.join(gone)}.",
            PUBLIC,
            {"player": player, "kept": keep, "discarded": gone},
        )
    )


def finish_leaders(state: State, events: list[Event]) -> None:
    """Both Leader choices are in (IW-R6): apply them (the negation follows)."""
    for p in list(state["leader_ask"]):
        keep_leader(state, p, state["leader_pick"][p], "chosen", events)
    state["leader_ask"], state["leader_pick"] = [], {}


def discard_from_field(state: State, player: str, name: str) -> None:
    state["field"][player].remove(name)
    state["discard"].append(name)


def card_forces(state: State) -> dict[str, list[dict[str, Any]]]:
    """IW-R9 Force of every remaining card: printed + own others' bonuses + enemy penalties, floor 0."""
    out: dict[str, list[dict[str, Any]]] = {}
    for p in state["players"]:
        foe = other(state, p)
        rows = []
        for name in state["field"][p]:
            mods = []
            for src in state["field"][p]:
                eff = BY_NAME[src]["effect"]
                if src != name and eff and not eff["enemy"] and matches(eff["cls"], name):
                    mods.append([src, eff["delta"]])
            for src in state["field"][foe]:
                eff = BY_NAME[src]["effect"]
                if eff and eff["enemy"] and matches(eff["cls"], name):
                    mods.append([src, eff["delta"]])
            base = BY_NAME[name]["force"]
            force = max(0, base + sum(d for _, d in mods))
            rows.append({"card": name, "base": base, "mods": mods, "force": force})
        out[p] = rows
    return out


def arithmetic(row: dict[str, Any]) -> str:
    """ "Swiss Pikemen 8 +3 (Tight Formation) -3 (Disordered) = 8" """
    parts = [f"{row['card']} {row['base']}"] + [f"{d:+d} ({src})" for src, d in row["mods"]]
    floor = " (floor 0)" if row["base"] + sum(d for _, d in row["mods"]) < 0 else ""
    return " ".join(parts) + f" = {row['force']}{floor}"


def score_hand(state: State, events: list[Event]) -> None:
    """Battle count (IW-R9), hand result (IW-R3), victory (IW-R4), then the next hand."""
    forces = card_forces(state)
    totals = {p: sum(r["force"] for r in forces[p]) for p in state["players"]}
    for p in state["players"]:
        calc = "; ".join(arithmetic(r) for r in forces[p]) or "no cards"
        events.append(
            Event(
                "force",
                f"{p} ({state['sides'][p]}): {calc}. Total {totals[p]}.",
                PUBLIC,
                {"player": p, "cards": forces[p], "total": totals[p]},
            )
        )
    a, b = state["players"]
    winner = a if totals[a] > totals[b] else b if totals[b] > totals[a] else None
    record_result(state, winner, totals, forces, events)
    for p in state["players"]:
        state["discard"].extend(state["field"][p])
        state["field"][p] = []
    if winner and (state["won"][winner] >= WIN_TOTAL or state["streak"][winner] >= WIN_STREAK):
        end_game(state, winner, events)
    else:
        start_hand(state, events)


def record_result(
    state: State, winner: str | None, totals: dict[str, int], forces: dict[str, Any], events: list[Event]
) -> None:
    n = state["hand"]
    if winner is None:
        for p in state["players"]:
            state["streak"][p] = 0
        state["prev_winner"] = state["prev_loser"] = None
        text = f"Hand {n} is tied at {totals[state['players'][0]]}: nobody wins it and both streaks reset (IW-R3)."
    else:
        loser = other(state, winner)
        state["won"][winner] += 1
        state["streak"][winner] += 1
        state["streak"][loser] = 0
        state["prev_winner"], state["prev_loser"] = winner, loser
        text = (
            f"{winner} wins hand {n}, {totals[winner]} to {totals[loser]}; hands won "
            f"{winner} {state['won'][winner]}, {loser} {state['won'][loser]}; streak {state['streak'][winner]}."
        )
    state["last"] = {"hand": n, "winner": winner, "totals": totals, "forces": forces}
    events.append(Event("hand-result", text, PUBLIC, {"hand": n, "winner": winner, "totals": totals}))
    events.append(
        Event(
            "scores",
            f"After hand {n}: "
            + ", ".join(f"{p} {state['won'][p]} won (streak {state['streak'][p]})" for p in state["players"])
            + ".",
            PUBLIC,
            {"scores": dict(state["won"]), "streaks": dict(state["streak"]), "forces": totals, "hand": n, "turn": n},
        )
    )


def end_game(state: State, winner: str, events: list[Event]) -> None:
    """IW-R4: the battle is won; reveal the face-down Tactics discards."""
    state["step"], state["over"], state["winner"] = "over", True, winner
    how = "3 hands in a row" if state["streak"][winner] >= WIN_STREAK else f"{WIN_TOTAL} hands"
    for item in state["secret_log"]:
        events.append(
            Event(
                "reveal-discards",
                f"Hand {item['hand']}: {item['player']} had discarded face down: "
                f"{', '.join(item['cards']) or 'nothing'}.",
                PUBLIC,
                dict(item),
            )
        )
    events.append(
        Event(
            "game-over",
            f"{winner} ({state['sides'][winner]}) wins the battle with {how}.",
            PUBLIC,
            {"scores": dict(state["won"]), "winners": [winner], "streaks": dict(state["streak"])},
        )
    )
