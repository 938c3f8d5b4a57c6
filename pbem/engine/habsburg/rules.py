"""House of Habsburg state transitions: set-up, turns, melds, events, discards, scoring, game end.

Every function works in place on a draft state (the caller clones) and appends
`Event`s to a list.  Rulings cited: HH-R1 .. HH-R11, and the turn of docs/rulings.md.

State layout (plain JSON):
  players   seat order (drawn at random, HH-R4)       rng     generator counter
  deck      face-down deck, deck[-1] is the top card   discard pile, discard[-1] is the top
  hands     {player: [cards]}                          tokens  {player: int} (permanent, HH-R1)
  melds     [{"id": "M3", "owner", "person", "holding", "claim"}] in creation order
  next_meld next meld number                           turn    turn number (1-based)
  active    seat index of the player to play           phase   "play" (melds+event) | "discard" | "over"
  idle      consecutive no-play turns that began with an empty deck (HH-R5c)
  played    a meld or event was made this turn         empty_start  this turn began with an empty deck
  standing  the active player's conditional discard: None, "LOWEST", "HIGHEST" or [cards]
"""

from __future__ import annotations

from typing import Any, Literal

from pbem.engine.base import MODERATOR, PUBLIC, Event, RuleError
from pbem.engine.habsburg.cards import CLAIM, HOLDING, NAMES, PERSON, TYPE, VALUE, label, labels
from pbem.engine.habsburg.table import Meld, State
from pbem.engine.rng import Rng, init_state

HAND_LIMIT = 5


def new_state(players: list[str], seed: str, ev: list[Event]) -> State:
    """Seat at random (HH-R4), shuffle, deal 3 each and start the first turn."""
    rng = init_state(seed)
    seat_log: list[dict[str, Any]] = []
    deck_log: list[dict[str, Any]] = []
    seats = list(players)
    Rng(rng, seat_log).shuffle(seats)
    deck = list(NAMES)
    Rng(rng, deck_log).shuffle(deck)
    st: State = {
        "kind": "habsburg",
        "rng": rng,
        "players": seats,
        "deck": deck,
        "discard": [],
        "hands": {p: [] for p in seats},
        "tokens": {p: 0 for p in seats},
        "melds": [],
        "next_meld": 1,
        "turn": 0,
        "active": len(seats) - 1,
        "phase": "play",
        "idle": 0,
        "played": False,
        "empty_start": False,
        "standing": None,
        "winners": None,
    }
    ev.append(
        Event(
            "seating",
            f"Seating drawn at random: {', '.join(seats)}; {seats[0]} plays first (HH-R4).",
            PUBLIC,
            {"seats": list(seats), "first": seats[0], "rng": seat_log},
        )
    )
    ev.append(
        Event(
            "shuffle",
            "Deck order after the shuffle (top card last): " + ", ".join(deck),
            MODERATOR,
            {"deck": list(deck), "rng": deck_log},
        )
    )
    for _ in range(3):
        for p in seats:
            st["hands"][p].append(st["deck"].pop())
    ev.append(
        Event(
            "deal",
            f"Each player was dealt 3 cards; {len(st['deck'])} cards remain in the deck.",
            PUBLIC,
            {"deck": len(st["deck"])},
        )
    )
    for p in seats:
        ev.append(
            Event(
                "dealt",
                f"{p}, you were dealt {labels(st['hands'][p])}.",
                (p,),
                {"player": p, "cards": list(st["hands"][p])},
            )
        )
    next_turn(st, ev)
    return st


def active(st: State) -> str:
    p: str = st["players"][st["active"]]
    return p


def draw(st: State, p: str, n: int, ev: list[Event], why: str) -> list[str]:
    """Draw up to n cards from the deck (never reshuffled, HH-R5a/b)."""
    got = [st["deck"].pop() for _ in range(min(n, len(st["deck"])))]
    st["hands"][p].extend(got)
    ev.append(
        Event(
            "draw",
            f"{p} draws {len(got)} card{'s' if len(got) != 1 else ''} ({why}); {len(st['deck'])} left in the deck.",
            PUBLIC,
            {"player": p, "n": len(got), "deck": len(st["deck"])},
        )
    )
    if got:
        ev.append(Event("drew", f"{p}, you drew {labels(got)}.", (p,), {"player": p, "cards": got}))
    return got


def next_turn(st: State, ev: list[Event]) -> None:
    """Pass play to the next seat and run its automatic Draw Phase (HH-R5b)."""
    st["turn"] += 1
    st["active"] = (st["active"] + 1) % len(st["players"])
    st["phase"], st["played"], st["standing"], st["empty_start"] = "play", False, None, not st["deck"]
    p = active(st)
    if st["deck"]:
        ev.append(Event("turn", f"Turn {st['turn']}: {p} to play.", PUBLIC, {"turn": st["turn"], "player": p}))
        draw(st, p, 1, ev, "Draw Phase")
        return
    ev.append(
        Event(
            "turn",
            f"Turn {st['turn']}: {p} to play; the deck is empty, so there is no draw (HH-R5b).",
            PUBLIC,
            {"turn": st["turn"], "player": p},
        )
    )
    if not st["hands"][p]:
        ev.append(
            Event(
                "pass",
                f"{p} has no cards and the deck is empty: the turn passes without a play.",
                PUBLIC,
                {"player": p},
            )
        )
        end_turn(st, ev)


def meld_by_id(st: State, mid: str) -> Meld:
    for m in st["melds"]:
        if m["id"] == mid:
            return m
    raise RuleError(f"there is no meld {mid}", tuple(m["id"] for m in st["melds"]))


def top_holding(st: State) -> str | None:
    """The top card of the discard pile if it is a Holding (HH-R6), else None."""
    pile: list[str] = st["discard"]
    if pile and TYPE[pile[-1]] == HOLDING:
        return pile[-1]
    return None


def make_meld(st: State, p: str, person: str, holding: str, claim: str, ev: list[Event]) -> str:
    """Meld Person + Holding (from hand, or the discard top, HH-R6) + Claim; gain tokens (HH-R1)."""
    hand = st["hands"][p]
    from_top = holding not in hand
    if from_top and holding != top_holding(st):
        raise RuleError(f"{holding} is neither in your hand nor the top card of the discard pile")
    for c in (person, claim) + (() if from_top else (holding,)):
        hand.remove(c)
    if from_top:
        st["discard"].pop()
    mid = f"M{st['next_meld']}"
    st["next_meld"] += 1
    st["melds"].append({"id": mid, "owner": p, "person": person, "holding": holding, "claim": claim})
    st["tokens"][p] += VALUE[person]
    st["played"] = True
    src = " from the discard pile" if from_top else ""
    ev.append(
        Event(
            "meld",
            f"{p} melds {mid}: {label(person)} + {label(holding)}{src} + {label(claim)} and gains "
            f"{VALUE[person]} token{'s' if VALUE[person] != 1 else ''} (now {st['tokens'][p]}).",
            PUBLIC,
            {
                "player": p,
                "meld": mid,
                "person": person,
                "holding": holding,
                "claim": claim,
                "from_discard": from_top,
                "tokens": st["tokens"][p],
            },
        )
    )
    return mid


def _play_card(st: State, p: str, card: str) -> None:
    """An Event card leaves the hand and goes on the discard pile first (HH-R7)."""
    st["hands"][p].remove(card)
    st["discard"].append(card)
    st["played"] = True


def succession(st: State, p: str, card: str, mid: str, ev: list[Event]) -> None:
    """Steal another player's meld whose Claim value <= the card (HH-R8); no tokens move."""
    m = meld_by_id(st, mid)
    victim = m["owner"]
    _play_card(st, p, card)
    m["owner"] = p
    ev.append(
        Event(
            "succession",
            f"{p} plays Succession {label(card)} and takes meld {mid} "
            f"({m['person']}, {m['holding']}, {m['claim']}) from {victim}.",
            PUBLIC,
            {"player": p, "card": card, "meld": mid, "from": victim},
        )
    )


def disaster(st: State, p: str, card: str, mid: str, ev: list[Event]) -> None:
    """Discard another player's meld whose Person value <= the card: Claim, Person, Holding on top (HH-R7)."""
    m = meld_by_id(st, mid)
    _play_card(st, p, card)
    st["melds"].remove(m)
    st["discard"].extend([m["claim"], m["person"], m["holding"]])
    ev.append(
        Event(
            "disaster",
            f"{p} plays Disaster {label(card)} on {m['owner']}'s meld {mid}: {m['claim']}, "
            f"{m['person']} and {m['holding']} go to the discard pile ({m['holding']} on top).",
            PUBLIC,
            {"player": p, "card": card, "meld": mid, "owner": m["owner"]},
        )
    )


def claim_steal(st: State, p: str, card: str, victim: str, ev: list[Event]) -> None:
    """Steal one random card from another player's hand (HH-R8)."""
    _play_card(st, p, card)
    vh = st["hands"][victim]
    log: list[dict[str, Any]] = []
    stolen = vh.pop(Rng(st["rng"], log).below(len(vh)))
    st["hands"][p].append(stolen)
    ev.append(
        Event(
            "claim",
            f"{p} plays Claim {label(card)} against {victim} and takes one random card from {victim}'s hand.",
            PUBLIC,
            {"player": p, "card": card, "victim": victim},
        )
    )
    ev.append(
        Event(
            "stolen",
            f"{p} took {label(stolen)} from {victim}'s hand.",
            (p, victim),
            {"player": p, "victim": victim, "stolen": stolen, "rng": log},
        )
    )


def person_event(st: State, p: str, card: str, ev: list[Event]) -> None:
    """Discard a Person to draw 2 (as many as remain, HH-R5b); they cannot be melded (HH-R9)."""
    _play_card(st, p, card)
    ev.append(
        Event(
            "person",
            f"{p} plays Person {label(card)} as an event to draw 2 cards.",
            PUBLIC,
            {"player": p, "card": card},
        )
    )
    draw(st, p, 2, ev, "Person event")


def auto_discard(hand: list[str], how: str, n: int) -> list[str]:
    """The n cards a LOWEST / HIGHEST rule discards; equal values go in hand order."""
    sign = 1 if how == "LOWEST" else -1
    order = sorted(range(len(hand)), key=lambda i: (sign * VALUE[hand[i]], i))
    return [hand[i] for i in order[:n]]


def discard(st: State, p: str, cards: list[str], ev: list[Event]) -> list[str]:
    """End-Phase discard in the listed order, last listed on top (HH-R7); stops at the limit (HH-R10)."""
    hand = st["hands"][p]
    done = []
    for c in cards:
        if len(hand) <= HAND_LIMIT:
            break
        hand.remove(c)
        st["discard"].append(c)
        done.append(c)
    if done:
        ev.append(
            Event(
                "discard",
                f"{p} discards {labels(done)} down to the hand limit ({labels(done[-1:])} on top of the pile).",
                PUBLIC,
                {"player": p, "cards": done},
            )
        )
    return done


def standing_cards(st: State, p: str) -> list[str]:
    """The cards the active player's conditional discard names now (in hand, in order)."""
    hand = st["hands"][p]
    excess = len(hand) - HAND_LIMIT
    how = st["standing"]
    if how is None or excess <= 0:
        return []
    if isinstance(how, str):
        return auto_discard(hand, how, excess)
    return [c for c in how if c in hand][:excess]


def enter_end_phase(st: State, ev: list[Event]) -> None:
    """End Phase: apply a standing discard; end the turn once the hand is within the limit."""
    p = active(st)
    st["phase"] = "discard"
    discard(st, p, standing_cards(st, p), ev)
    if len(st["hands"][p]) <= HAND_LIMIT:
        end_turn(st, ev)


def end_turn(st: State, ev: list[Event]) -> None:
    """Update the no-play count (HH-R5c), publish scores, check the end, pass play on."""
    if st["played"]:
        st["idle"] = 0
    elif st["empty_start"]:
        st["idle"] += 1
    st["standing"] = None
    ev.append(scores_event(st))
    if not check_over(st, ev):
        next_turn(st, ev)


def holdings(st: State, p: str) -> int:
    return sum(VALUE[m["holding"]] for m in st["melds"] if m["owner"] == p)


def holdings_by_player(st: State) -> dict[str, int]:
    """`holdings` of every player, in seat order, from one pass over the melds."""
    out = dict.fromkeys(st["players"], 0)
    for m in st["melds"]:
        if m["owner"] in out:
            out[m["owner"]] += VALUE[m["holding"]]
    return out


def scores(st: State) -> dict[str, int]:
    """HH-R2: tokens + printed values of the Holdings in melds controlled now."""
    tokens = st["tokens"]
    return {p: tokens[p] + h for p, h in holdings_by_player(st).items()}


def scores_event(st: State) -> Event:
    held = holdings_by_player(st)
    tokens = st["tokens"]
    sc = {p: tokens[p] + h for p, h in held.items()}
    text = f"Scores after turn {st['turn']}: " + ", ".join(
        f"{p} {sc[p]} ({tokens[p]} tokens + {held[p]} holdings)" for p in st["players"]
    )
    return Event(
        "scores",
        text + ".",
        PUBLIC,
        {
            "scores": sc,
            "tokens": dict(st["tokens"]),
            "holdings": held,
            "turn": st["turn"],
        },
    )


def ranking_key(st: State, p: str) -> tuple[int, int, int]:
    """HH-R3: score, then Holding total, then number of melds controlled."""
    return (scores(st)[p], holdings(st, p), sum(1 for m in st["melds"] if m["owner"] == p))


def decided(st: State) -> str:
    """Which rule decided the result when the top score is shared (HH-R3), in words ("" when one player scored
    most): the result line named the winner of a tie without saying why (walk8: "Alice wins ... with 12 points
    (Alice 12, Bob 12, Carol 5)")."""
    sc = scores(st)
    top = max(sc[p] for p in st["players"])
    tied = [p for p in st["players"] if sc[p] == top]
    if len(tied) < 2:
        return ""
    keys = {p: ranking_key(st, p) for p in tied}
    best = max(keys.values())
    won = [p for p in tied if keys[p] == best]
    lost = [p for p in tied if keys[p] != best]
    names = f"{' and '.join(tied)} tied at {top} points"
    if not lost:
        return f"{names}, the same Holding total and as many melds: a shared win (HH-R3)."
    if any(keys[p][1] != best[1] for p in lost):  # decided by the Holding total
        others = ", ".join(f"{p} {keys[p][1]}" for p in lost)
        return f"{names}; the higher Holding total decided it: {' and '.join(won)} {best[1]}, {others} (HH-R3)."
    others = ", ".join(f"{p} {keys[p][2]}" for p in lost)
    return (
        f"{names} and the same Holding total ({best[1]}); more melds decided it: {' and '.join(won)} {best[2]}, "
        f"{others} (HH-R3)."
    )


def winners(st: State) -> list[str]:
    best = max(ranking_key(st, p) for p in st["players"])
    return [p for p in st["players"] if ranking_key(st, p) == best]


def check_over(st: State, ev: list[Event], mid_turn: bool = False) -> bool:
    """HH-R5c: empty deck and empty hands, or N consecutive no-play turns with an empty deck."""
    if st["phase"] == "over":
        return True
    if st["deck"]:
        return False
    n = len(st["players"])
    if all(not st["hands"][p] for p in st["players"]):
        why = "the deck and every hand are empty"
    elif st["idle"] >= n:
        why = f"the deck is empty and {n} consecutive turns passed without a meld or event"
    else:
        return False
    if mid_turn:
        ev.append(scores_event(st))
    finish(st, why, ev)
    return True


def finish(st: State, why: str, ev: list[Event]) -> None:
    """Reveal the hands and announce the result (HH-R2, HH-R3)."""
    st["phase"] = "over"
    st["winners"] = winners(st)
    for p in st["players"]:
        ev.append(
            Event(
                "reveal",
                f"{p}'s hand at the end: {labels(st['hands'][p])}.",
                PUBLIC,
                {"player": p, "hand": list(st["hands"][p])},
            )
        )
    sc = scores(st)
    won = st["winners"] or []
    ev.append(
        Event(
            "game-over",
            f"The game is over ({why}). Final scores: "
            + ", ".join(f"{p} {sc[p]}" for p in st["players"])
            + f". Winner: {' and '.join(won)}."
            + (f" {tie}" if (tie := decided(st)) else ""),
            PUBLIC,
            {"scores": sc, "winners": list(won), "reason": why},
        )
    )


def meld_targets(st: State, p: str, card: str) -> list[Meld]:
    """Other players' melds a Succession/Disaster card may target (HH-R8)."""
    key: Literal["claim", "person"] = "claim" if TYPE[card] == "S" else "person"
    return [m for m in st["melds"] if m["owner"] != p and VALUE[m[key]] <= VALUE[card]]


def claim_targets(st: State, p: str) -> list[str]:
    """Other players holding at least one card (HH-R8)."""
    return [q for q in st["players"] if q != p and st["hands"][q]]


def meld_options(st: State, p: str) -> list[tuple[str, str, str]]:
    """Every single meld possible now: (person, holding-or-TOP, claim)."""
    hand = st["hands"][p]
    hs = [c for c in hand if TYPE[c] == HOLDING] + (["TOP"] if top_holding(st) else [])
    return [(a, h, c) for a in hand if TYPE[a] == PERSON for h in hs for c in hand if TYPE[c] == CLAIM]


def earlier_forms(event: Event) -> tuple[Event, ...]:
    """The forms in which pbem recorded `event` before walk8: the end of a game decided by HH-R3's tie-break did not
    name the rule (`decided`); games recorded then verify with their own texts (`Engine.earlier_forms`)."""
    won = " and ".join(str(p) for p in event.data.get("winners") or ())
    cut = event.text.find(f". Winner: {won}. ")
    if event.kind != "game-over" or cut < 0 or not event.text.endswith(" (HH-R3)."):
        return ()
    return (Event(event.kind, event.text[: cut + len(f". Winner: {won}.")], event.visibility, event.data),)
