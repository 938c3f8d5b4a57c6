"""Sixteen Thirty Something: war resolution (ST-R5 combat total, ST-R6 unrest,
ST-R12 results) and the legal-target test of ST-R10."""

from __future__ import annotations

from typing import Any

from pbem.engine.base import Event
from pbem.engine.rng import Rng
from pbem.engine.sixteen_thirty.shape import State
from pbem.engine.sixteen_thirty.state import pub
from pbem.engine.sixteen_thirty.tables import CAP, adjacent


def can_attack(st: State, c: str, t: str) -> bool:
    """ST-R10: c in a faction, army >= 1, no unrest; t in the other faction, status >= 2 or adjacent."""
    cc, tt = st["countries"][c], st["countries"][t]
    if c == t or cc["faction"] is None or tt["faction"] is None or cc["faction"] == tt["faction"]:
        return False
    if cc["army"] < 1 or cc["unrest"]:
        return False
    return tt["status"] >= 2 or adjacent(c, t)


def modifiers(st: State, c: str, defender: bool) -> list[tuple[str, int]]:
    """ST-R5: the named modifiers for one side (military ability always listed)."""
    k = st["countries"][c]
    mods = [("military ability", k["ability"])]
    if k["leader"]:
        mods.append(("leader", 2))
    if k["army"] == 0:
        mods.append(("army size 0", -1))
    if k["unrest"]:
        mods.append(("unrest", -1))
    if defender and c in ("England", "Sweden") and k["status"] <= 1:
        mods.append(("defence across water", 1))
    return mods


def resolve_war(st: State, attacker: str, defender: str, ev: list[Event]) -> None:
    log: list[dict[str, Any]] = []
    rng = Rng(st["rng"], log)
    sides: dict[str, dict[str, Any]] = {}
    for c, is_def in ((attacker, False), (defender, True)):
        mods = modifiers(st, c, is_def)
        dice = [rng.die(), rng.die()]
        total = sum(v for _, v in mods) + abs(dice[0] - dice[1])
        sides[c] = {"mods": mods, "dice": dice, "total": total}
    parts = []
    for c in (attacker, defender):
        s = sides[c]
        mtxt = " ".join(f"{v:+d} {n}" for n, v in s["mods"])
        parts.append(
            f"{c} rolls {s['dice'][0]} and {s['dice'][1]} (difference {abs(s['dice'][0] - s['dice'][1])})"
            f" {mtxt} = {s['total']}"
        )
    before = {c: st["countries"][c]["status"] for c in (attacker, defender)}
    a, d = sides[attacker]["total"], sides[defender]["total"]
    if a == d:
        for c in (attacker, defender):
            st["countries"][c]["army"] = max(0, st["countries"][c]["army"] - 1)
        outcome = "a tie: both armies lose 1"
        winner = loser = None
    else:
        winner, loser = (attacker, defender) if a > d else (defender, attacker)
        outcome = apply_defeat(st, winner, loser)
    data = {
        "attacker": attacker,
        "defender": defender,
        "winner": winner,
        "loser": loser,
        "sides": {
            c: {"dice": s["dice"], "mods": [[n, v] for n, v in s["mods"]], "total": s["total"]}
            for c, s in sides.items()
        },
        "after": {c: dict(st["countries"][c]) for c in (attacker, defender)},
        "status_change": {c: st["countries"][c]["status"] - before[c] for c in (attacker, defender)},
        "outcome": outcome,
        "rng": log,
    }
    pub(ev, "war", f"War: {attacker} attacks {defender}. {'; '.join(parts)}. Result: {outcome}.", **data)


def apply_defeat(st: State, winner: str, loser: str) -> str:
    """ST-R12 for a decided war; returns a sentence."""
    w, l_ = st["countries"][winner], st["countries"][loser]
    gain = l_["status"] >= 1 and w["status"] < CAP["status"]
    army_was_zero = l_["army"] == 0
    if gain:
        w["status"] += 1
    l_["status"] = max(0, l_["status"] - 1)
    l_["army"] = max(0, l_["army"] - 1)
    text = f"{winner} wins" + (f" and rises to status {w['status']}" if gain else " (no status gained)")
    text += f"; {loser} falls to status {l_['status']}, army {l_['army']}"
    if army_was_zero:
        l_["ability"] = max(0, l_["ability"] - 1)
        text += f", and having no army loses 1 military ability (now {l_['ability']})"
    return text
