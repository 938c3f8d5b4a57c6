"""Sixteen Thirty Something: what one player may know (`view`). Public: the nine countries,
every display, VP totals, hand sizes, the discard pile, the turn, the step. Private: the
player's hand, counters, score breakdowns, answers on file, pre-submitted and standing orders.
Counters and breakdowns of everyone are shown only once the game is over."""

from __future__ import annotations

from typing import Any

from pbem.engine.sixteen_thirty import trade, votes
from pbem.engine.sixteen_thirty.shape import State
from pbem.engine.sixteen_thirty.state import influence, piles, vote_of
from pbem.engine.sixteen_thirty.tables import COUNTRIES
from pbem.engine.views import Named, Section, View, keyed, lines, make_view, ordered, seated, table
from pbem.engine.words import count


def turn_label(st: State) -> str:
    if st["over"]:
        return f"Game over after turn {st['turn']}"
    if st["phase"] == "start":
        return "Set-up: every player places three starting Influence cards"
    what = {
        "remove": "phase 1 removal",
        "trade": "phase 3 trade",
        "offers": "trade offers",
        "accept": "trade acceptance",
        "specials": "phase 4 specials",
        "call": "calling a vote",
        "place": "vote placements",
        "ballot": "secret ballot",
        "lose": "losers choose cards",
        "discard": "hand limit",
    }[st["phase"]]
    return f"Turn {st['turn']}, {st['active']} to play ({what})"


def country_rows(st: State) -> list[list[Any]]:
    rows = []
    for c in COUNTRIES:
        k = st["countries"][c]
        rows.append(
            [
                c,
                k["status"],
                k["army"],
                k["ability"],
                (k["faction"] or "neutral").title(),
                "yes" if k["leader"] else "",
                "yes" if k["unrest"] else "",
            ]
        )
    return rows


def display_rows(st: State) -> list[list[Any]]:
    rows = []
    for p in st["players"]:
        for c, pl in piles(st, p):
            rows.append(
                [p, c, ", ".join(pl["cards"]), influence(st, p, c), "descendant" if pl["desc"] else "ascendant"]
            )
    return rows


def step_lines(st: State) -> list[str]:
    out: list[str] = []
    v = st["vote"]
    if v:
        out.append(
            f"Vote {v['n']} called by {v['caller']} in {v['country']} on "
            f"{votes.issue_text(v['issue'], v['target'])} "
            f"({'Vote card' if v['origin'] == 'card' else 'mandatory'})."
        )
    if st["phase"] in ("start", "offers", "place", "ballot", "lose"):
        from pbem.engine.sixteen_thirty.asks import requests

        waiting = [r.player for r in requests(st) if not r.answered]
        out.append(f"Still awaited: {', '.join(waiting) or 'nobody'}.")
    tr = st.get("trade")
    if tr and st["phase"] in ("offers", "accept"):
        out.append(
            f"{st['active']} wants {trade.types_text(tr['want'])}"
            + (f", offering {trade.types_text(tr['offer'])}" if tr["offer"] else "")
            + "."
        )
        for q, o in seated(tr["offers"], st["players"]).items():
            out.append(f"Offer from {q}: gives {trade.types_text(trade.shown(o))} for {trade.types_text(o['for'])}.")
    return out


def public_trade(st: State) -> dict[str, Any] | None:
    tr = st.get("trade")
    if not tr:
        return None
    return {
        "want": tr["want"],
        "offer": tr["offer"],
        "offers": {
            q: {"give": trade.shown(o), "for": o["for"]} for q, o in seated(tr["offers"], st["players"]).items()
        },
    }


def view(engine: Named, st: State, player: str | None) -> View:
    first = st["players"][st["first"]]
    sections = [
        table("Countries", ["Country", "Status", "Army", "Ability", "Faction", "Leader", "Unrest"], country_rows(st)),
        table("Displays (influence on the table)", ["Player", "Country", "Cards", "Votes", "State"], display_rows(st)),
        table(
            "Players",
            ["Player", "Victory points", "Cards in hand", "Marker"],
            [[p, st["scores"][p], len(st["hands"][p]), "First player" if p == first else ""] for p in st["players"]],
        ),
        lines(
            "Game",
            [
                f"Turn {st['turn']} of at most 10; first player {first}; phasing player {st['active'] or '-'}.",
                f"Deck: {count(len(st['deck']), 'card')}. "
                f"Discard pile ({len(st['discard'])}): {', '.join(st['discard']) or 'empty'}.",
                *step_lines(st),
            ],
        ),
    ]
    if st["history"]:
        sections.append(
            table(
                "Score history",
                ["Turn", *list(st["players"])],
                [[h["turn"]] + [h["totals"][p] for p in st["players"]] for h in st["history"]],
            )
        )
    data = {
        "countries": {c: keyed(st["countries"][c]) for c in COUNTRIES},
        "displays": {
            p: {
                c: {"cards": list(pl["cards"]), "desc": pl["desc"], "total": influence(st, p, c)}
                for c, pl in piles(st, p)
            }
            for p in st["players"]
        },
        "scores": seated(st["scores"], st["players"]),
        "hand_sizes": {p: len(st["hands"][p]) for p in st["players"]},
        "discard": list(st["discard"]),
        "deck_size": len(st["deck"]),
        "turn": st["turn"],
        "first": first,
        "active": st["active"],
        "phase": st["phase"],
        "step": st["step"],
        "vote": public_vote(st),
        "trade": public_trade(st),
        "history": [{"turn": h["turn"], "totals": seated(h["totals"], st["players"])} for h in st["history"]],
    }
    if st["over"]:
        sections.append(
            lines(
                "Revealed victory counters",
                [f"{p}: {', '.join(st['counters'][p])}" for p in st["players"]]
                + [f"Never drawn: {', '.join(st['unused_counters']) or 'none'}"],
            )
        )
        data["counters"] = {p: list(st["counters"][p]) for p in st["players"]}
        data["breakdowns"] = ordered(st["history"], st["players"])
    if player is not None and player in st["players"]:
        sections += private_sections(st, player)
        data.update(private_data(st, player))
    return make_view(engine, st["players"], player, turn=turn_label(st), over=st["over"], sections=sections, data=data)


def public_vote(st: State) -> dict[str, Any] | None:
    v = st["vote"]
    if not v:
        return None
    return {
        "n": v["n"],
        "country": v["country"],
        "issue": v["issue"],
        "target": v["target"],
        "caller": v["caller"],
        "origin": v["origin"],
        "placed": seated(v["placed"], st["players"]),
    }


def private_sections(st: State, p: str) -> list[Section]:
    out = [lines("Your hand", [", ".join(st["hands"][p]) or "(empty)"], private=True)]
    rows = [
        [c, st["countries"][c]["status"], influence(st, p, c), min(st["countries"][c]["status"], influence(st, p, c))]
        for c in st["counters"][p]
    ]
    out.append(
        table("Your victory counters (secret)", ["Counter", "Status", "Your influence", "Would score now"], rows, True)
    )
    if st["history"]:
        h = st["history"][-1]
        out.append(
            lines(
                f"Your score for turn {h['turn']}",
                [f"{c}: min(status {s}, influence {i}) = {v}" for c, s, i, v in h["breakdown"][p]]
                + [f"Total this turn: {h['gained'][p]}"],
                private=True,
            )
        )
    filed = []
    mine = own_answer(st, p)
    if mine:
        filed.append(f"On file for this step: {mine}")
    if st["vote"] and p in vote_of(st)["early"]:
        filed.append(f"Locked ballot for this vote: VOTE {st['vote']['early'][p]}")
    if st["queue"][p]:
        filed.append(f"Pre-submitted for later in your turn: {'; '.join(st['queue'][p])}")
    s = st["standing"][p]
    if s["place_none"]:
        filed.append("Standing: PLACE NONE" + (f" EXCEPT {', '.join(s['except'])}" if s["except"] else ""))
    if s["offer_none"]:
        filed.append("Standing: OFFER NONE")
    filed += [f"Standing: VOTE {c} {i} {col}" for c, i, col in s["votes"]]
    if filed:
        out.append(lines("Your orders on file", filed, private=True))
    return out


def own_answer(st: State, p: str) -> str | None:
    if p not in st["answers"]:
        return None
    from pbem.engine.sixteen_thirty.asks import on_file

    return "; ".join(on_file(st, p))


def private_data(st: State, p: str) -> dict[str, Any]:
    return {
        "hand": list(st["hands"][p]),
        "my_counters": list(st["counters"][p]),
        "my_breakdowns": [
            {"turn": h["turn"], "rows": h["breakdown"][p], "gained": h["gained"][p]} for h in st["history"]
        ],
        "on_file": own_answer(st, p),
        "early_vote": st["vote"]["early"].get(p) if st["vote"] else None,
        "queue": list(st["queue"][p]),
        "standing": keyed(st["standing"][p]),
    }
