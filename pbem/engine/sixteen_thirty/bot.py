"""Sixteen Thirty Something: a bot that answers like a thrifty e-mail player, composing a
whole turn (removal, trade, specials, call with placements, own ballot, discard) in one
message from its own view and request only, and `rounds_per_turn` to measure how many
request rounds a game turn needs."""

from __future__ import annotations

import statistics
from typing import Any

from pbem.engine.base import Request
from pbem.engine.rng import Rng, init_state
from pbem.engine.sixteen_thirty.tables import (
    CAP,
    COUNTRIES,
    HAND_LIMIT,
    Raised,
    adjacent,
    country_of,
    is_open,
    is_special,
)
from pbem.engine.views import View

RAISE: dict[str, Raised] = {
    "Military Improvement": "ability",
    "Increase Army Size": "army",
    "Increase Status": "status",
}


def message(view: View, request: Request, rng: Rng) -> list[str]:
    """The lines this bot sends in answer to `request`."""
    kind = request.step.rsplit(".", 1)[-1]
    if kind in ("remove", "trade", "specials", "call"):
        return whole_turn(view, request, rng, kind)
    if kind == "offers":
        lines = ["NO OFFER"] if rng.below(4) else [request.legal[rng.below(len(request.legal))]]
        if rng.below(3) == 0:
            lines.append("STANDING OFFER NONE")
        return lines
    if kind == "place":
        return place_and_vote(view, request, rng)
    if kind == "ballot":
        return [request.legal[rng.below(len(request.legal))]]
    return [request.legal[rng.below(len(request.legal))]] if request.legal else list(request.default)


def pick(items: list[Any], rng: Rng) -> Any:
    return items[rng.below(len(items))]


def place_and_vote(view: View, request: Request, rng: Rng) -> list[str]:
    d = view["data"]
    me, c = view["you"], d["vote"]["country"]
    line = pick(list(request.legal), rng) if rng.below(2) else "PLACE NONE"
    lines = [line]
    if c in d["displays"][me] or line != "PLACE NONE":
        lines.append(pick(["VOTE RED", "VOTE BLUE"], rng))
    if rng.below(4) == 0:
        lines += ["STANDING PLACE NONE", f"STANDING VOTE ANY ANY {pick(['RED', 'BLUE'], rng)}"]
    return lines


def issues(d: dict[str, Any], c: str) -> list[str]:
    """ST-R10 from the public country table."""
    k = d["countries"][c]
    if k["faction"] is None:
        return ["ALIGN"]
    out = ["SWITCH"]
    if k["army"] >= 1 and not k["unrest"]:
        for t in COUNTRIES:
            tk = d["countries"][t]
            if tk["faction"] not in (None, k["faction"]) and (tk["status"] >= 2 or adjacent(c, t)):
                out.append(f"WAR {t}")
    if k["army"] == 0:
        out.append("REARM")
    return out


def whole_turn(view: View, request: Request, rng: Rng, kind: str) -> list[str]:
    d = view["data"]
    me = request.player  # the view's reader
    hand = list(d["hand"])
    lines: list[str] = []
    if kind == "remove":
        lines.append(pick(list(request.legal), rng))
    if kind == "call":
        lines.append(pick(list(request.legal), rng))
        return lines + own_vote(rng)
    if kind in ("remove", "trade"):
        if rng.below(5) == 0:
            lines.append(f"TRADE WANT {pick(d['my_counters'], rng)}")
            return lines
        lines.append("NO TRADE")
    used = specials(d, me, hand, rng, lines)
    call = choose_call(d, me, hand, rng)
    if call is None:
        return lines or [request.legal[0]]
    lines.append(call[0])
    used += call[1]
    lines += own_vote(rng)
    extra = len(hand) + (4 if kind == "remove" else 0) - len(used) - HAND_LIMIT
    if extra > 0:
        left = list(hand)
        for x in used:
            left.remove(x)
        spare = sorted(left, key=lambda x: (0 if is_special(x) else 1, x))
        lines.append("DISCARD " + ", ".join(spare[:extra]))
    return lines


def own_vote(rng: Rng) -> list[str]:
    return [pick(["VOTE RED", "VOTE BLUE"], rng)]


def specials(d: dict[str, Any], me: str, hand: list[str], rng: Rng, lines: list[str]) -> list[str]:
    played: list[str] = []
    for card in sorted({x for x in hand if x in RAISE or x in ("Military Leader", "Unrest")}):
        if played or rng.below(2):
            continue
        if card in RAISE:
            ok = [c for c in COUNTRIES if d["countries"][c][RAISE[card]] < CAP[RAISE[card]]]
        else:
            key = "leader" if card == "Military Leader" else "unrest"
            ok = [c for c in COUNTRIES if not d["countries"][c][key]]
        if ok:
            c = pick(ok, rng)
            lines.append(f"PLAY {card} {c}")
            played.append(card)
            if card == "Unrest":
                d["countries"][c]["unrest"] = True
    return played


def choose_call(d: dict[str, Any], me: str, hand: list[str], rng: Rng) -> tuple[str, list[str]] | None:
    mine = d["displays"][me]
    options = [c for c in COUNTRIES if c in mine or any(country_of(x) == c for x in hand)]
    if not options:
        return None
    liked = [c for c in options if c in d["my_counters"]]
    c = pick(liked or options, rng)
    issue = pick(issues(d, c), rng)
    cards: list[str] = []
    if not (c in mine and mine[c]["desc"]):
        named = [x for x in hand if country_of(x) == c]
        cards = named[:2]
        if cards or c in mine:
            cards += [x for x in hand if is_open(x)][:1]
    if c not in mine and not cards:
        return None
    text = f"CALL {c} {issue}" + (f" PLACE {', '.join(cards)}" if cards else "")
    return text, cards


# ---------------------------------------------------------------- measuring rounds
def play_game(players: list[str], seed: str, bot_seed: str = "bot") -> tuple[dict[str, Any], dict[int, int]]:
    """Play one game with this bot; returns (final state, rounds by game turn)."""
    from pbem.engine.sixteen_thirty import ENGINE

    state, _ = ENGINE.setup(list(players), seed, {})
    rng = Rng(init_state(bot_seed))
    rounds: dict[int, int] = {}
    guard = 0
    while ENGINE.result(state) is None:
        guard += 1
        if guard > 20000:
            raise AssertionError("bot game did not end")
        reqs = [r for r in ENGINE.requests(state) if not r.answered]
        step = reqs[0].step
        turn = int(step.split(".")[0][1:])
        rounds[turn] = rounds.get(turn, 0) + 1
        for r in reqs:
            now = [x for x in ENGINE.requests(state) if x.player == r.player and x.step == step and not x.answered]
            if not now:
                continue
            lines = message(ENGINE.view(state, r.player), now[0], rng)
            out = ENGINE.apply(state, r.player, lines)
            if not out.accepted:
                out = ENGINE.apply(state, r.player, [now[0].legal[0]] if now[0].legal else list(now[0].default))
                assert out.accepted, out.lines
            state = out.state
    return state, rounds


def rounds_per_turn(players: int, games: int, seed: Any) -> list[int]:
    """Request rounds per game turn over `games` bot games (one entry per game turn played)."""
    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"][:players]
    out: list[int] = []
    for g in range(games):
        _, rounds = play_game(names, f"{seed}-{g}", f"bot-{seed}-{g}")
        out += [rounds[t] for t in sorted(rounds)]
    return out


def median_rounds(players: int, games: int, seed: Any) -> float:
    return statistics.median(rounds_per_turn(players, games, seed))
