"""Sixteen Thirty Something: the state layout, set-up (ST-R1..R3, ST-R8, ST-R18)
and the small shared helpers on piles, hands, the deck and events.

State keys: players, rng, turn, first (seat index), order_idx (k-th player this turn),
active, phase, step, countries, deck, discard, hands, displays {p: {country: {cards, desc}}},
counters {p: [country]}, unused_counters, scores, history, answers (current simultaneous
step, secret), vote, lose, trade, specials_played, votes_called, queue, standing, log_seq.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.engine.base import MODERATOR, PUBLIC, Draft, Event, RuleError, clone, tree_copy
from pbem.engine.rng import Rng, init_state
from pbem.engine.sixteen_thirty.shape import Country, Lose, Pile, Standing, State, Trade, Vote, plain, typed
from pbem.engine.sixteen_thirty.tables import (
    COUNTRIES,
    SETUP,
    build_deck,
    cheapest_key,
    country_of,
    is_open,
    sort_cards,
    value,
)
from pbem.engine.views import kept_order


# ---------------------------------------------------------------- events
def pub(ev: list[Event], kind: str, text: str, **data: Any) -> None:
    ev.append(Event(kind, text, PUBLIC, data))


def priv(ev: list[Event], who: str | list[str], kind: str, text: str, **data: Any) -> None:
    vis = (who,) if isinstance(who, str) else tuple(who)
    ev.append(Event(kind, text, vis, data))


def mod(ev: list[Event], kind: str, text: str, **data: Any) -> None:
    ev.append(Event(kind, text, MODERATOR, data))


def cards_text(cards: list[str]) -> str:
    return ", ".join(cards) if cards else "nothing"


# ---------------------------------------------------------------- drafts
def _names(v: list[str]) -> list[str]:
    return list(v)  # a list of names (str): a copy is a deep copy


def _lists_by_player(v: dict[str, list[str]]) -> dict[str, list[str]]:
    return {p: list(x) for p, x in v.items()}


def _countries(v: dict[str, Country]) -> dict[str, Country]:
    return {c: k.copy() for c, k in v.items()}  # status, army, ability, faction, leader, unrest: all atomic


def _displays(v: dict[str, dict[str, Pile]]) -> dict[str, dict[str, Pile]]:
    return {p: {c: {"cards": list(pl["cards"]), "desc": pl["desc"]} for c, pl in disp.items()} for p, disp in v.items()}


def _standing(v: dict[str, Standing]) -> dict[str, Standing]:
    out: dict[str, Standing] = {}
    for p, s in v.items():
        t = out[p] = s.copy()  # place_none, except [countries], votes [[country, issue, color]], offer_none
        t["except"] = list(s["except"])
        votes = s["votes"]
        t["votes"] = [list(r) for r in votes] if votes else []
    return out


def _atomic_values(v: dict[str, Any]) -> dict[str, Any]:
    return dict(v)  # scores {player: int}, rng {seed, n}


# How `draft` copies each part of the state whose shape is fixed (see the module docstring);
# every other part (answers, vote, lose, trade, options, result) is deep-copied.
_DRAFT: dict[str, Callable[[Any], Any]] = {
    "players": _names,
    "deck": _names,
    "discard": _names,
    "unused_counters": _names,
    "hands": _lists_by_player,
    "counters": _lists_by_player,
    "queue": _lists_by_player,
    "countries": _countries,
    "displays": _displays,
    "history": _names,
    "standing": _standing,
    "scores": _atomic_values,
    "rng": _atomic_values,
}


def copy_part(key: str, v: Any) -> Any:
    """A deep copy of the state's part `key` (its value `v`), by shape where the shape is fixed (`_DRAFT`)."""
    how = _DRAFT.get(key)
    return how(v) if how else tree_copy(v)


def lazy_draft(st: State) -> Draft:
    """The working copy `apply` changes: a `Draft` that copies each part (by `copy_part`) when a line first
    reads it, so a message pays only for the parts it reads; the rest is shared with `st`."""
    return Draft(plain(st), copy_part)


def draft(st: State) -> State:
    """The whole working copy at once: what `lazy_draft` holds once every part is read.

    Equal to a deep copy, and it shares no list or dict with `st` except the
    entries of ``history``: an entry is written once, at the end of a turn
    (`turn.score_turn`), and nothing changes it afterwards, so the draft gets a
    new list holding the same entries.  The parts with a fixed shape are
    copied by shape (`_DRAFT`), any other list or dict by `clone`.  Copying the
    whole state generically on every message was most of the cost of `apply`.
    """
    out: dict[str, Any] = dict(st)  # same keys in the same order; str/int/bool/None values are final
    for k, v in out.items():
        if v is None or type(v) in _SCALARS:
            continue
        how = _DRAFT.get(k)
        out[k] = how(v) if how else clone(v)
    return typed(out)


_SCALARS = frozenset({str, int, bool})


# ---------------------------------------------------------------- set-up
def setup(players: list[str], seed: str, options: dict[str, Any]) -> tuple[State, list[Event]]:
    st: State = {
        "players": list(players),
        "rng": init_state(seed),
        "options": dict(options),
        "turn": 1,
        "first": 0,
        "order_idx": 0,
        "active": None,
        "phase": "start",
        "step": "t1.start",
        "countries": {
            c: {"status": s, "army": a, "ability": m, "faction": None, "leader": False, "unrest": False}
            for c, (s, a, m) in SETUP.items()
        },
        "deck": build_deck(),
        "discard": [],
        "hands": {p: [] for p in players},
        "displays": {p: {} for p in players},
        "counters": {p: [] for p in players},
        "unused_counters": [],
        "scores": {p: 0 for p in players},
        "history": [],
        "answers": {},
        "vote": None,
        "lose": None,
        "trade": None,
        "specials_played": 0,
        "votes_called": 0,
        "call_origin": None,
        "queue": {p: [] for p in players},
        "standing": {p: {"place_none": False, "except": [], "votes": [], "offer_none": False} for p in players},
        "over": False,
        "result": None,
    }
    ev: list[Event] = []
    deck_log: list[dict[str, Any]] = []
    Rng(st["rng"], deck_log).shuffle(st["deck"])
    mod(ev, "shuffle", "The 110 player cards were shuffled.", deck=list(st["deck"]), rng=deck_log)
    bag = [c for c in COUNTRIES for _ in range(2)]
    bag_log: list[dict[str, Any]] = []
    Rng(st["rng"], bag_log).shuffle(bag)
    each = 4 if len(players) <= 4 else 3
    for i, p in enumerate(players):
        st["counters"][p] = sorted(bag[i * each : (i + 1) * each], key=COUNTRIES.index)
        priv(
            ev,
            p,
            "counters",
            f"Your secret victory point counters: {', '.join(st['counters'][p])}.",
            counters=list(st["counters"][p]),
        )
    st["unused_counters"] = sorted(bag[len(players) * each :], key=COUNTRIES.index)
    mod(
        ev,
        "counters",
        "Victory counters drawn.",
        counters={p: list(v) for p, v in st["counters"].items()},
        unused=list(st["unused_counters"]),
        each=each,
        rng=bag_log,
    )
    pub(ev, "counters-drawn", f"Each player drew {each} secret victory point counters.", each=each)
    for p in players:
        st["hands"][p] = sort_cards([st["deck"].pop() for _ in range(13)])
        priv(ev, p, "deal", f"You were dealt: {cards_text(st['hands'][p])}.", cards=list(st["hands"][p]))
    pub(ev, "deal", "Thirteen cards were dealt to each player.")
    roll_first_player(st, ev)
    pub(
        ev,
        "ask-start",
        "Every player now places three Influence cards secretly (PLACE-START); they are revealed together (ST-R8).",
    )
    return st, ev


def roll_first_player(st: State, ev: list[Event]) -> None:
    """ST-R18: a d6 each, reroll ties for the highest."""
    contenders = list(st["players"])
    while True:
        log: list[dict[str, Any]] = []
        rng = Rng(st["rng"], log)
        rolls = {p: rng.die() for p in contenders}
        text = ", ".join(f"{p} {r}" for p, r in rolls.items())
        pub(ev, "first-roll", f"First-player roll: {text}.", rolls=rolls, rng=log)
        top = max(rolls.values())
        contenders = [p for p in contenders if rolls[p] == top]
        if len(contenders) == 1:
            break
    st["first"] = st["players"].index(contenders[0])
    pub(ev, "first-player", f"{contenders[0]} holds the First Player marker.", player=contenders[0])


# ---------------------------------------------------------------- the current step
def active(st: State) -> str:
    """The player whose turn it is (every step after the start and before the end has one)."""
    p = st["active"]
    if p is None:
        raise AssertionError(f"no active player at step {st['step']}")
    return p


def vote_of(st: State) -> Vote:
    """The vote being placed, balloted or resolved (only asked for while one is open)."""
    v = st["vote"]
    if v is None:
        raise AssertionError(f"no vote open at step {st['step']}")
    return v


def lose_of(st: State) -> Lose:
    """Who loses a card to Unrest now (only asked for in the lose step)."""
    lo = st["lose"]
    if lo is None:
        raise AssertionError(f"no Unrest loss open at step {st['step']}")
    return lo


def trade_of(st: State) -> Trade:
    """The trade offered now (only asked for in the offers and accept steps)."""
    tr = st["trade"]
    if tr is None:
        raise AssertionError(f"no trade open at step {st['step']}")
    return tr


# ---------------------------------------------------------------- piles
def pile(st: State, p: str, c: str) -> Any:
    """p's pile in country c: {"cards": [...], "desc": bool}, or None if p has none there."""
    return st["displays"][p].get(c)


def piles(st: State, p: str) -> list[tuple[str, Any]]:
    """p's piles as (country, pile), by the country's name: the order a state loaded from the record has (its JSON
    is written with sorted keys), so the legal lines, the defaults and the displays table are those a game recorded
    before had from its snapshots, and never the order a pile was placed in, which a state just applied in memory
    iterates (docs/architecture.md, "No order from a dict of the state")."""
    disp = st["displays"][p]
    return list(disp.items()) if kept_order() else [(c, disp[c]) for c in sorted(disp)]


def influence(st: State, p: str, c: str) -> int:
    pl = pile(st, p, c)
    return sum(value(x) for x in pl["cards"]) if pl else 0


def voters(st: State, c: str) -> list[str]:
    displays = st["displays"]  # `pile` for each player, read once (asked for every request and every ballot)
    return [p for p in st["players"] if displays[p].get(c)]


def add_to_pile(st: State, p: str, c: str, cards: list[str]) -> None:
    disp = st["displays"][p]
    if c not in disp:
        disp[c] = {"cards": [], "desc": False}
        st["displays"][p] = {k: disp[k] for k in COUNTRIES if k in disp}
    st["displays"][p][c]["cards"] = sort_cards(st["displays"][p][c]["cards"] + cards)


def check_placement(st: State, p: str, c: str, cards: list[str]) -> None:
    """Pile rules for placing `cards` (already taken from the hand list) on p's pile for c."""
    pl = pile(st, p, c)
    if pl and pl["desc"] and cards:
        raise RuleError(f"your {c} pile is in the descendant; no card can be added to it")
    for x in cards:
        if not is_open(x) and country_of(x) != c:
            raise RuleError(f"{x} is not a {c} or Open card")
    if not pl and not any(country_of(x) == c for x in cards) and cards:
        raise RuleError(f"an Open card needs a named {c} card in its pile")


def take_from_hand(st: State, p: str, cards: list[str]) -> None:
    hand = list(st["hands"][p])
    for x in cards:
        if x not in hand:
            raise RuleError(
                f"you do not hold {'another ' if x in st['hands'][p] else ''}{x}", sorted(set(st["hands"][p]))
            )
        hand.remove(x)
    st["hands"][p] = hand


def own_removal_options(pl: Pile) -> list[str]:
    """ST-R13: distinct cards the owner may remove (never the last named card under an Open)."""
    named = [x for x in pl["cards"] if not is_open(x)]
    opens = [x for x in pl["cards"] if is_open(x)]
    pool = opens if (len(named) == 1 and opens) else pl["cards"]
    return sorted(set(pool), key=cheapest_key)


def remove_card(st: State, p: str, c: str, card: str, ev: list[Event], why: str) -> None:
    """Remove one card from p's pile for c to the discard pile (Open cards go if no named card is left)."""
    pl = pile(st, p, c)
    pl["cards"].remove(card)
    st["discard"].append(card)
    gone = [card]
    if pl["cards"] and not any(not is_open(x) for x in pl["cards"]):
        st["discard"].extend(pl["cards"])
        gone += pl["cards"]
        pl["cards"] = []
    if not pl["cards"]:
        del st["displays"][p][c]
    left = influence(st, p, c)
    pub(
        ev,
        "remove",
        f"{why}: {p} loses {cards_text(gone)} from the {c} pile (now {left}).",
        player=p,
        country=c,
        cards=list(gone),
        left=left,
        reason=removal_reason(why),
        because=why,
    )


#: Why a card leaves a pile (the `reason` of a "remove" event), from the sentence that opens its text.
REMOVAL_REASONS = (
    ("Phase 1 removal (only choice)", "phase-1-only-choice"),
    ("Phase 1 removal", "phase-1"),
    ("Assassin", "assassin"),
    ("Unrest", "unrest-descendant"),
)


def removal_reason(why: str) -> str:
    """The code of a removal's cause: phase-1, phase-1-only-choice, assassin, vote-descendant, unrest-descendant."""
    return next((code for text, code in REMOVAL_REASONS if why.startswith(text)), "vote-descendant")


def draw(st: State, p: str, n: int, ev: list[Event]) -> list[str]:
    """ST-R21: reshuffle the discard pile the moment a draw needs it; with the deck and the
    discard pile both empty, draw what there is (the report says why fewer were drawn)."""
    got: list[str] = []
    for _ in range(n):
        if not st["deck"]:
            if not st["discard"]:
                break
            st["deck"] = st["discard"]
            st["discard"] = []
            log: list[dict[str, Any]] = []
            Rng(st["rng"], log).shuffle(st["deck"])
            pub(
                ev,
                "reshuffle",
                f"The deck ran out; the discard pile ({len(st['deck'])} cards) was shuffled to form a new deck.",
                size=len(st["deck"]),
            )
            mod(ev, "shuffle", "New deck order.", deck=list(st["deck"]), rng=log)
        got.append(st["deck"].pop())
    st["hands"][p] = sort_cards(st["hands"][p] + got)
    if len(got) < n:
        short = (
            f"{p} draws {len(got)} card{'' if len(got) == 1 else 's'} instead of {n}: the deck and the discard "
            "pile are both empty, so only what there is is drawn and the shortfall is not made up later (ST-R21)."
        )
        pub(ev, "draw", short, player=p, count=len(got), wanted=n)
    else:
        pub(ev, "draw", f"{p} draws {len(got)} cards.", player=p, count=len(got))
    priv(ev, p, "drew", f"You drew: {cards_text(sort_cards(got))}.", cards=sort_cards(got))
    return got


def all_cards(st: State) -> list[str]:
    """Every card somewhere in the game (for the 110-card property)."""
    out = list(st["deck"]) + list(st["discard"])
    for p in st["players"]:
        out += st["hands"][p]
        for pl in st["displays"][p].values():
            out += pl["cards"]
    return out


def goto(st: State, phase: str, suffix: str | None = None) -> None:
    """Open the next step: clears the secret answers of the previous simultaneous step."""
    st["phase"] = phase
    st["answers"] = {}
    st["step"] = f"t{st['turn']}.{st['active']}.{suffix or phase}"
