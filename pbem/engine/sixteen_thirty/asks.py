"""Sixteen Thirty Something: who is asked what now (`requests`), with legal lines, syntax
and the deadline defaults of docs/rulings.md."""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import Final

from pbem.engine import choices
from pbem.engine.base import Request
from pbem.engine.sixteen_thirty import trade, votes
from pbem.engine.sixteen_thirty.shape import State
from pbem.engine.sixteen_thirty.specials import special_lines
from pbem.engine.sixteen_thirty.state import (
    active,
    influence,
    lose_of,
    own_removal_options,
    pile,
    trade_of,
    vote_of,
    voters,
)
from pbem.engine.sixteen_thirty.tables import (
    COUNTRIES,
    HAND_LIMIT,
    cheapest_key,
    country_of,
    is_open,
    is_special,
    sort_cards,
    value,
)
from pbem.engine.sixteen_thirty.turn import removal_options, start_required

#: set on a shallow copy of the state by `every_legal_line`: requests then list every legal line
EVERY_LINE: Final = "_every_legal_line"


def every_legal_line(st: State, p: str) -> list[str]:
    """Every legal line for p now, never reduced to examples (for the legal part of a rejection)."""
    probe: State = {**st, EVERY_LINE: True}
    return [ln for r in requests(probe) if r.player == p for ln in r.legal]


def requests(st: State) -> list[Request]:
    if st["over"]:
        return []
    ph = st["phase"]
    fn = {
        "start": ask_start,
        "remove": ask_remove,
        "trade": ask_trade,
        "offers": ask_offers,
        "accept": ask_accept,
        "specials": ask_specials,
        "call": ask_call,
        "place": ask_place,
        "ballot": ask_ballot,
        "lose": ask_lose,
        "discard": ask_discard,
    }[ph]
    return fn(st)


def req(
    st: State, p: str, prompt: str, legal: list[str], syntax: list[str], default: list[str], simultaneous: bool = False
) -> Request:
    ans = simultaneous and p in st["answers"]
    if st.get(EVERY_LINE):
        shown = tuple(dict.fromkeys(legal))
    else:
        prompt, shown = choices.offer(prompt, legal, default, syntax)  # large sets: count, grammar, examples
    return Request(
        p,
        st["step"],
        prompt,
        shown,
        tuple(syntax),
        tuple(default),
        ans,
        tuple(on_file(st, p)) if ans else (),
    )


def on_file(st: State, p: str) -> list[str]:
    a, ph = st["answers"][p], st["phase"]
    if ph == "start":
        return ["PLACE-START " + ", ".join(x if not is_open(x) else f"{x} ON {c}" for c, cards in a for x in cards)]
    if ph == "offers":
        if not a:
            return ["NO OFFER"]
        show = " SHOW" if a.get("show") else ""
        return [f"OFFER GIVE {', '.join(a['give']) or 'NOTHING'} FOR {trade.types_text(a['for'])}{show}"]
    if ph == "place":
        early = votes.locked(st, p)  # ST-R9: a ballot locked with the placement is on file too
        return [f"PLACE {', '.join(a) or 'NONE'}"] + ([f"VOTE {early} (locked)"] if early else [])
    if ph == "ballot":
        return [f"VOTE {a}"]
    return [f"LOSE {votes.lose_text(a, lose_of(st)['country'])}"]


# ---------------------------------------------------------------- start
def start_options(hand: list[str]) -> list[str]:
    """Every distinct PLACE-START line for this hand (up to 286; `req` shows examples and the count)."""
    return list(_start_options(tuple(sort_cards(hand))))


@lru_cache(maxsize=64)
def _start_options(hand: tuple[str, ...]) -> tuple[str, ...]:
    need = start_required(list(hand))
    pool = [x for x in sort_cards(list(hand)) if not is_special(x)]
    out: list[str] = []
    for combo in dict.fromkeys(combinations(pool, need)):
        named = [x for x in combo if not is_open(x)]
        if not named:
            continue
        home = country_of(named[0])
        out.append("PLACE-START " + ", ".join(x if not is_open(x) else f"{x} ON {home}" for x in combo))
    return tuple(out or ["PLACE-START NONE"])


def start_default(hand: list[str]) -> str:
    need = start_required(hand)
    named = sorted([x for x in hand if not is_special(x) and not is_open(x)], key=lambda x: (-value(x), x))
    chosen = named[:need]
    opens = sorted([x for x in hand if is_open(x)], key=lambda x: -value(x))[: need - len(chosen)]
    if not chosen:
        return "PLACE-START NONE"
    home = country_of(chosen[0])
    return "PLACE-START " + ", ".join(chosen + [f"{x} ON {home}" for x in opens])


def sharing(st: State) -> list[str]:
    """The players a step answered by several at once asks now (the starting placement, offers, a vote's
    placements and ballots, losses), locked ballots included; [] in a step one player answers. As cheap as the
    phase: what `requests` would list, without making each player's legal lines."""
    ph = st["phase"]
    if ph == "start":
        return list(st["players"])
    if ph == "offers":
        return list(trade.asked(st))
    if ph == "place":
        return list(votes.place_asked(st))
    if ph == "ballot":
        return list(voters(st, vote_of(st)["country"]))
    if ph == "lose":
        return list(lose_of(st)["who"])
    return []


def ask_start(st: State) -> list[Request]:
    return [
        req(
            st,
            p,
            "Place your three starting Influence cards face up (secret until all have placed).",
            start_options(st["hands"][p]),
            ["PLACE-START <card>, <card>, <card> (Open cards: Open 1 ON <country>)"],
            [start_default(st["hands"][p])],
            True,
        )
        for p in st["players"]
    ]


# ---------------------------------------------------------------- phasing player
def removal_line(c: str, x: str) -> str:
    return f"REMOVE {x} FROM {c}" if is_open(x) else f"REMOVE {x}"


def ask_remove(st: State) -> list[Request]:
    p = active(st)
    opts = removal_options(st, p)
    low = min(opts, key=lambda cx: cheapest_key(cx[1]))
    return [
        req(
            st,
            p,
            "Phase 1: remove one card from a descendant pile. You may send your whole turn now.",
            [removal_line(c, x) for c, x in opts],
            ["REMOVE <card> [FROM <country>]"],
            [removal_line(*low)],
        )
    ]


def ask_trade(st: State) -> list[Request]:
    p = active(st)
    return [
        req(
            st,
            p,
            "Phase 3: ask for a trade, or NO TRADE. You may add, on the next lines, the Special cards you"
            " will play in phase 4 and the vote you will call in phase 5 (kept until then, used if still legal).",
            ["NO TRADE", "TRADE WANT ANY"],
            [
                "TRADE WANT <types> [OFFER <types>]",
                "NO TRADE",
                "PLAY <special> <country>   (later: phase 4)",
                "SPECIALS DONE   (later: no more specials)",
                "CALL <country> ALIGN|SWITCH|REARM [PLACE <cards>]   (later: phase 5)",
                "CALL <country> WAR <target> [PLACE <cards>]   (later: phase 5)",
            ],
            ["NO TRADE"],
        )
    ]


def ask_offers(st: State) -> list[Request]:
    tr = trade_of(st)
    want = trade.types_text(tr["want"])
    out = []
    for p in trade.asked(st):
        legal = ["NO OFFER"] + [f"OFFER GIVE {x} FOR ANY" for x in sorted(set(st["hands"][p]))]
        out.append(
            req(
                st,
                p,
                f"{st['active']} wants {want}. Make one offer or NO OFFER (secret until all are in).",
                legal,
                ["OFFER GIVE <cards|NOTHING> FOR <types|NOTHING>", "NO OFFER"],
                ["NO OFFER"],
                True,
            )
        )
    return out


def ask_accept(st: State) -> list[Request]:
    p = active(st)
    left = trade.revisions_left(st)
    syntax = ["ACCEPT <player> GIVING <cards|NOTHING>", "DECLINE ALL"]
    if left:
        syntax.append(f"TRADE WANT <types> (revise and ask again; {left} revision{'s' if left > 1 else ''} left)")
    return [
        req(
            st,
            p,
            "Accept one offer or decline them all"
            + ("." if left else " (you have used both revisions of your request, ST-R15)."),
            ["DECLINE ALL", *trade.accept_lines(st)],
            syntax,
            ["DECLINE ALL"],
        )
    ]


def ask_specials(st: State) -> list[Request]:
    p = active(st)
    return [
        req(
            st,
            p,
            f"Phase 4: play a Special card ({2 - st['specials_played']} left) or SPECIALS DONE.",
            ["SPECIALS DONE", *special_lines(st, p)],
            [
                "PLAY <special> <country>",
                "PLAY Assassin <player> <card> [FROM <country>]",
                "PLAY Vote",
                "SPECIALS DONE",
            ],
            ["SPECIALS DONE"],
        )
    ]


def call_lines(st: State, p: str) -> list[str]:
    out = []
    for c in votes.callable_countries(st, p):
        issues = [votes.issue_text(i, t) for i, t in votes.legal_issues(st, c)]
        cards = votes.placeable(st, p, c)
        held = pile(st, p, c)
        placed = cards if held else [x for x in cards if not is_open(x)]
        for it in issues:
            if held:
                out.append(f"CALL {c} {it}")
            out += [f"CALL {c} {it} PLACE {x}" for x in placed]
    return out


def call_default(st: State, p: str) -> str:
    piles = [c for c in COUNTRIES if pile(st, p, c)]
    if piles:
        c = max(piles, key=lambda k: (influence(st, p, k), -COUNTRIES.index(k)))
        place = ""
    else:
        named = [x for x in st["hands"][p] if country_of(x)] or ["Spain 1"]
        best = max(named, key=lambda x: (value(x), -COUNTRIES.index(country_of(x) or "")))
        c, place = country_of(best) or "", f" PLACE {best}"
    issue = "ALIGN" if st["countries"][c]["faction"] is None else "SWITCH"
    return f"CALL {c} {issue}{place}"


def ask_call(st: State) -> list[Request]:
    p = active(st)
    what = "your extra vote (Vote card)" if st["call_origin"] == "card" else "your mandatory vote (phase 5)"
    return [
        req(
            st,
            p,
            f"Call {what}: country, issue, and any cards you place first.",
            call_lines(st, p),
            ["CALL <country> ALIGN|SWITCH|REARM [PLACE <cards>]", "CALL <country> WAR <target> [PLACE <cards>]"],
            [call_default(st, p)],
        )
    ]


def ask_discard(st: State) -> list[Request]:
    p = active(st)
    excess = len(st["hands"][p]) - HAND_LIMIT
    low = sorted(st["hands"][p], key=cheapest_key)[:excess]
    return [
        req(
            st,
            p,
            f"Hand limit: discard {excess} card(s) down to {HAND_LIMIT}.",
            [f"DISCARD {x}" for x in sorted(set(st["hands"][p]))],
            ["DISCARD <cards>"],
            [f"DISCARD {', '.join(low)}"],
        )
    ]


# ---------------------------------------------------------------- votes
def ask_place(st: State) -> list[Request]:
    v = vote_of(st)
    c = v["country"]
    out = []
    for p in votes.place_asked(st):
        cards = votes.placeable(st, p, c)
        legal = ["PLACE NONE"] + [f"PLACE {x}" for x in cards]
        syntax = ["PLACE <cards>|NONE"]
        called = f"{v['caller']} called a vote in {c} on {votes.issue_text(v['issue'], v['target'])}. "
        if pile(st, p, c):  # ST-R9: only a voter may lock a ballot early
            ask = "Place cards for it or NONE (secret until all are in); you may add your VOTE now."
            syntax.append("VOTE RED|BLUE (optional, on its own line: locks your ballot)")
        elif cards:
            ask = (
                f"Place cards for it or NONE (secret until all are in). You have no {c} pile: a card placed now"
                " gives you one, and only then may you add your VOTE now."
            )
            syntax.append("VOTE RED|BLUE (optional, only with a PLACE of at least one card: locks your ballot)")
        else:
            ask = f"You have no {c} pile and no card to place there, so you do not vote: answer PLACE NONE."
        out.append(req(st, p, called + ask, legal, syntax, ["PLACE NONE"], True))
    return out


def ask_ballot(st: State) -> list[Request]:
    v = vote_of(st)
    meaning = {
        "ALIGN": "RED = join Red, BLUE = join Blue",
        "SWITCH": "RED = Red faction, BLUE = Blue faction",
        "WAR": "RED = war, BLUE = peace",
        "REARM": "RED = re-arm, BLUE = no change",
    }[v["issue"]]
    prompt = f"Secret ballot in {v['country']} on {votes.issue_text(v['issue'], v['target'])} ({meaning})."
    out = []
    for p in voters(st, v["country"]):
        early = votes.locked(st, p)
        if early is None:
            out.append(
                req(
                    st,
                    p,
                    prompt,
                    ["VOTE RED", "VOTE BLUE"],
                    ["VOTE RED|BLUE"],
                    [f"VOTE {votes.default_ballot(st)}"],
                    True,
                )
            )
        else:  # ST-R9: a locked ballot is not asked again, but its voter takes part: answered, on file
            out.append(Request(p, st["step"], prompt, (), ("VOTE RED|BLUE",), (), True, (f"VOTE {early} (locked)",)))
    return out


def ask_lose(st: State) -> list[Request]:
    c = lose_of(st)["country"]
    out = []
    for p in lose_of(st)["who"]:
        opts = own_removal_options(pile(st, p, c))
        out.append(
            req(
                st,
                p,
                f"Choose the card you lose from your descendant {c} pile.",
                [f"LOSE {votes.lose_text(x, c)}" for x in opts],
                ["LOSE <card> [FROM <country>]"],
                [f"LOSE {votes.lose_text(min(opts, key=cheapest_key), c)}"],
                True,
            )
        )
    return out
