"""Sixteen Thirty Something: votes (ST-R9 call, placement round, secret ballot, reveal,
losers' piles; ST-R10 legal issues; ST-R11 eligibility; ST-R13 losers' card choice)."""

from __future__ import annotations

from pbem.engine.base import Event, RuleError
from pbem.engine.sixteen_thirty.shape import State
from pbem.engine.sixteen_thirty.state import (
    add_to_pile,
    cards_text,
    check_placement,
    goto,
    influence,
    lose_of,
    own_removal_options,
    pile,
    pub,
    remove_card,
    take_from_hand,
    vote_of,
    voters,
)
from pbem.engine.sixteen_thirty.tables import COUNTRIES, country_of
from pbem.engine.sixteen_thirty.wars import can_attack, resolve_war


# ---------------------------------------------------------------- who may call what
def legal_issues(st: State, c: str) -> list[tuple[str, str | None]]:
    """ST-R10: (issue, target) pairs the caller may choose in country c."""
    k = st["countries"][c]
    if k["faction"] is None:
        return [("ALIGN", None)]
    out: list[tuple[str, str | None]] = [("SWITCH", None)]
    out += [("WAR", t) for t in COUNTRIES if can_attack(st, c, t)]
    if k["army"] == 0:
        out.append(("REARM", None))
    return out


def issue_text(issue: str, target: str | None) -> str:
    return f"WAR {target}" if issue == "WAR" else issue


def can_call_in(st: State, p: str, c: str) -> bool:
    return bool(pile(st, p, c)) or any(country_of(x) == c for x in st["hands"][p])


def callable_countries(st: State, p: str) -> list[str]:
    """ST-R11: countries where p has a pile or holds a named Influence card (`can_call_in` for each)."""
    held = {country_of(x) for x in st["hands"][p]}
    disp = st["displays"][p]
    return [c for c in COUNTRIES if disp.get(c) or c in held]


def placeable(st: State, p: str, c: str) -> list[str]:
    """Distinct hand cards p could add to a pile in c (Open only onto a pile that has or gets a named card)."""
    pl = pile(st, p, c)
    if pl and pl["desc"]:
        return []
    return sorted({x for x in st["hands"][p] if country_of(x) == c or (x.startswith("Open ") and pl)})


# ---------------------------------------------------------------- call
def call_vote(st: State, p: str, c: str, issue: str, target: str | None, cards: list[str], ev: list[Event]) -> str:
    if not can_call_in(st, p, c):
        raise RuleError(f"you have no {c} pile and no {c} Influence card", callable_countries(st, p))
    legal = legal_issues(st, c)
    if (issue, target) not in legal:
        raise RuleError(
            f"{issue_text(issue, target)} is not a legal issue in {c} now",
            [f"CALL {c} {issue_text(i, t)}" for i, t in legal],
        )
    check_placement(st, p, c, cards)
    take_from_hand(st, p, cards)
    if cards:
        add_to_pile(st, p, c, cards)
    if not pile(st, p, c):
        raise RuleError(f"you must place at least one {c} card to call a vote there")
    st["votes_called"] += 1
    origin = "card" if st["phase"] == "call" and st.get("call_origin") == "card" else "mandatory"
    st["vote"] = {
        "n": st["votes_called"],
        "country": c,
        "issue": issue,
        "target": target,
        "caller": p,
        "origin": origin,
        "early": {},
        "ballots": {},
        "placed": {},
    }
    placed = f", placing {cards_text(cards)}" if cards else ""
    pub(
        ev,
        "call",
        f"{p} calls a vote in {c} on {issue_text(issue, target)}{placed}; {c} pile now {influence(st, p, c)}.",
        player=p,
        country=c,
        issue=issue,
        target=target,
        cards=list(cards),
        vote=st["votes_called"],
        source=origin,
        pile=influence(st, p, c),
    )
    goto(st, "place", f"vote{st['votes_called']}.place")
    return f"CALL {c} {issue_text(issue, target)}" + (f" PLACE {', '.join(cards)}" if cards else "")


# ---------------------------------------------------------------- placement round
def place_asked(st: State) -> list[str]:
    """Every player but the caller is asked (ST-R9.2: asking reveals nothing)."""
    caller = vote_of(st)["caller"]
    return [q for q in st["players"] if q != caller]


def record_place(st: State, p: str, cards: list[str]) -> str:
    c = vote_of(st)["country"]
    check_placement(st, p, c, cards)
    probe = list(st["hands"][p])
    take_from_hand(st, p, cards)
    st["hands"][p] = probe
    st["answers"][p] = list(cards)
    return f"PLACE {', '.join(cards) if cards else 'NONE'} (secret until every placement is in)"


def standing_none(st: State, p: str) -> bool:
    s = st["standing"][p]
    return s["place_none"] and vote_of(st)["country"] not in s["except"]


def reveal_placements(st: State, ev: list[Event]) -> None:
    v = vote_of(st)
    c = v["country"]
    parts = []
    for q in place_asked(st):
        cards = st["answers"].get(q, [])
        if cards:
            take_from_hand(st, q, cards)
            add_to_pile(st, q, c, cards)
        v["placed"][q] = cards
        parts.append(f"{q} {cards_text(cards)}")
    pub(ev, "placements", f"Placements in {c} revealed: {'; '.join(parts)}.", country=c, placed=dict(v["placed"]))
    goto(st, "ballot", f"vote{v['n']}.ballot")


# ---------------------------------------------------------------- ballot
def record_early(st: State, p: str, color: str, legal: list[str]) -> str:
    """A VOTE sent in the placement round (with PLACE, or with CALL by the caller): it locks the ballot."""
    v = vote_of(st)
    refuse_if_locked(st, p, legal)
    if not pile(st, p, v["country"]) and not st["answers"].get(p):
        raise RuleError(f"you have no {v['country']} pile and no placement on file, so you do not vote", ["PLACE NONE"])
    v["early"][p] = color
    return f"VOTE {color} (locked for this vote; secret until every ballot is in)"


def locked(st: State, p: str) -> str | None:
    """The colour p locked for the current vote (ST-R9 speed option), or None."""
    v = vote_of(st)
    return v["early"].get(p) if v else None


def refuse_if_locked(st: State, p: str, legal: list[str]) -> None:
    """ST-R9: a locked ballot cannot be changed by any later VOTE, in the placement or the voting round."""
    color = locked(st, p)
    if color is None:
        return
    v = vote_of(st)
    more = "; you may still revise your placement" if legal else "; nothing more is asked of you in this vote"
    raise RuleError(
        f"your ballot in {v['country']} is locked: you already sent VOTE {color} with your "
        f"{'call' if p == v['caller'] else 'placement'}, and a locked vote cannot be changed (ST-R9){more}",
        legal,
    )


def record_ballot(st: State, p: str, color: str) -> str:
    """A VOTE in the voting round (refused if the ballot was locked in the placement round)."""
    refuse_if_locked(st, p, [])
    st["answers"][p] = color
    return f"VOTE {color} (secret until every ballot is in)"


def standing_vote(st: State, p: str) -> str | None:
    """The most specific matching STANDING VOTE rule (never used by the caller of the vote)."""
    v = vote_of(st)
    best = None
    for country, issue, color in st["standing"][p]["votes"]:
        if country not in ("ANY", v["country"]) or issue not in ("ANY", v["issue"]):
            continue
        rank = (country != "ANY") * 2 + (issue != "ANY")
        if best is None or rank > best[0]:
            best = (rank, color)
    return best[1] if best else None


def default_ballot(st: State) -> str:
    """NMR: the status quo (peace, no rearming, current faction; BLUE for ALIGN)."""
    v = vote_of(st)
    faction = st["countries"][v["country"]]["faction"]
    if v["issue"] == "SWITCH" and faction is not None:  # a country with no faction has no SWITCH vote
        return faction
    return "BLUE"


def fill_ballots(st: State) -> None:
    v = vote_of(st)
    for q in voters(st, v["country"]):
        if q in st["answers"]:
            continue
        if q in v["early"]:
            st["answers"][q] = v["early"][q]
        elif q != v["caller"] and standing_vote(st, q):
            st["answers"][q] = standing_vote(st, q)


def reveal_ballots(st: State, ev: list[Event]) -> None:
    v = vote_of(st)
    c = v["country"]
    weights = {q: influence(st, q, c) for q in voters(st, c)}
    ballots = {q: st["answers"][q] for q in weights}
    red = sum(w for q, w in weights.items() if ballots[q] == "RED")
    blue = sum(w for q, w in weights.items() if ballots[q] == "BLUE")
    win = "RED" if red > blue else "BLUE" if blue > red else None
    v["ballots"], v["totals"], v["winner"] = ballots, {"RED": red, "BLUE": blue}, win
    btxt = "; ".join(f"{q} {ballots[q]} ({weights[q]})" for q in weights)
    res = f"{win} wins" if win else "a tie: no effect"
    pub(
        ev,
        "ballots",
        f"Vote in {c} on {issue_text(v['issue'], v['target'])}: {btxt}. RED {red}, BLUE {blue}: {res}.",
        country=c,
        issue=v["issue"],
        target=v["target"],
        ballots=ballots,
        weights=weights,
        totals={"RED": red, "BLUE": blue},
        winner=win,
    )
    losers = [q for q in weights if win and ballots[q] != win]
    choose = []
    for q in losers:
        pl = pile(st, q, c)
        if not pl["desc"]:
            pl["desc"] = True
            pub(
                ev,
                "descendant",
                f"{q} lost the vote: the {c} pile turns descendant ({weights[q]}).",
                player=q,
                country=c,
                reason="vote",
                vote=v["n"],
                influence=weights[q],
            )
        else:
            choose += start_loss(st, q, c, ev, f"{q} lost the vote with a descendant pile")
    open_lose(st, choose, c, "vote", f"vote{v['n']}.lose", ev)


def start_loss(st: State, q: str, c: str, ev: list[Event], why: str) -> list[str]:
    """A descendant pile loses one card: automatic when only one kind is eligible (ST-R13)."""
    opts = own_removal_options(pile(st, q, c))
    if len(opts) == 1:
        remove_card(st, q, c, opts[0], ev, why)
        return []
    return [q]


def open_lose(st: State, who: list[str], c: str, then: str, suffix: str, ev: list[Event]) -> None:
    if not who:
        after_lose(st, then, ev)
        return
    goto(st, "lose", suffix)
    st["lose"] = {"who": who, "country": c, "then": then}
    pub(
        ev,
        "ask-lose",
        f"{', '.join(who)} must choose a card to lose from the {c} pile (LOSE <card>).",
        players=who,
        country=c,
    )


def record_lose(st: State, p: str, card: str) -> str:
    c = lose_of(st)["country"]
    opts = own_removal_options(pile(st, p, c))
    if card not in opts:
        raise RuleError(f"you cannot lose {card} from your {c} pile", [f"LOSE {lose_text(x, c)}" for x in opts])
    st["answers"][p] = card
    return f"LOSE {lose_text(card, c)}"


def lose_text(card: str, c: str) -> str:
    return f"{card} FROM {c}" if card.startswith("Open ") else card


def resolve_lose(st: State, ev: list[Event]) -> None:
    lo = lose_of(st)
    for q in lo["who"]:
        why = "Lost the vote with a descendant pile" if lo["then"] == "vote" else "Unrest with a descendant pile"
        remove_card(st, q, lo["country"], st["answers"][q], ev, why)
    st["lose"] = None
    after_lose(st, lo["then"], ev)


def after_lose(st: State, then: str, ev: list[Event]) -> None:
    if then == "vote":
        apply_result(st, ev)
    else:
        goto(st, "specials")


# ---------------------------------------------------------------- result
def apply_result(st: State, ev: list[Event]) -> None:
    v = vote_of(st)
    c, win, k = v["country"], v["winner"], st["countries"][v["country"]]
    if win is None:
        pass
    elif v["issue"] in ("ALIGN", "SWITCH"):
        before = k["faction"]
        k["faction"] = win
        verb = "joins" if before is None else ("stays with" if before == win else "switches to")
        pub(ev, "faction", f"{c} {verb} the {win.title()} faction.", country=c, faction=win)
    elif v["issue"] == "WAR" and win == "RED":
        target = v["target"]
        assert target is not None, "a war vote names its target"
        resolve_war(st, c, target, ev)
    elif v["issue"] == "REARM" and win == "RED":
        k["army"] = 1
        pub(ev, "rearm", f"{c} re-arms: Army Size 1.", country=c)
    elif v["issue"] in ("WAR", "REARM"):
        pub(ev, "peace", f"The vote in {c} is for peace: nothing happens.", country=c)
    origin = v["origin"]
    st["vote"] = None
    if origin == "card":
        goto(st, "specials")
    else:
        goto(st, "discard")
