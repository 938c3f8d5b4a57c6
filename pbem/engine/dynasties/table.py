"""Dynasties table mechanics shared by every phase: seats, gold movements and card draws.

Owns the payment rule (pay what you can, DY-R7), taking from the Stakes,
drawing with the Graveyard reshuffle (DY-R21) and burying cards.  Every gold
movement emits a public "payment" event with amounts and the reason.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict, cast

from pbem.engine.base import MODERATOR, PUBLIC, Event
from pbem.engine.dynasties import cards as C
from pbem.engine.rng import Rng

Events = list[Event]


class Turn(TypedDict):
    """A Turn of Raising the Family: its number, the seats in playing order, whose play is next,
    the [player, card] plays so far and the players a tie-break Turn is for."""

    n: int
    order: list[str]
    pos: int
    plays: list[list[str]]
    tied: list[str]


class Final(TypedDict):
    winners: list[str]
    legacy_share: str


class State(TypedDict):
    """The typed shape of the state (`gambit.setup` builds it; it stays a plain JSON dict)."""

    rng: dict[str, Any]
    legacy: int
    players: list[str]
    treasury: dict[str, int]
    stakes: int
    removed: int
    deck: list[str]
    grave: list[str]
    hands: dict[str, list[str]]
    families: dict[str, list[str]]
    zone: list[str]
    crown: str | None
    dynasty: str | None
    dynasty_card: str | None
    gambit: int
    first: str | None
    phase: str
    tributes: dict[str, str]
    asked: list[str]
    turn: Turn | None
    plans: dict[str, list[str]]
    conclave_pref: dict[str, dict[str, Any] | None]
    discards: dict[str, list[str]]
    need_discard: dict[str, int]
    winner_of_stakes: str | None
    broke: bool
    result: Final | None
    #: set when the first gambit starts (who took part in each power this gambit)
    conclaved: NotRequired[list[str]]
    purebloods: NotRequired[list[str]]
    crowned: NotRequired[list[str]]
    #: who chooses Conclave cards now (set in the conclave phase)
    conclave_for: NotRequired[str]


def typed(state: dict[str, Any]) -> State:
    """The engine contract's plain state seen with this game's shape (no copy, no check)."""
    return cast(State, state)


def plain(st: State) -> dict[str, Any]:
    """This game's state as the engine contract's plain JSON dict (no copy)."""
    return cast(dict[str, Any], st)


def turn_of(st: State) -> Turn:
    """The Turn being played (only asked for in the play and conclave phases)."""
    t = st["turn"]
    if t is None:
        raise AssertionError(f"no Turn under way in phase {st['phase']}")
    return t


def hand_sizes(st: State) -> dict[str, int]:
    return {p: len(st["hands"][p]) for p in st["players"]}


def seat_from(st: State, player: str | None, skip_self: bool = False) -> list[str]:
    seats = st["players"]
    i = seats.index(player if player in seats else seats[0]) + (1 if skip_self else 0)
    return [seats[(i + k) % len(seats)] for k in range(len(seats))]


# ---------------------------------------------------------------- gold


def pay(st: State, ev: Events, payer: str, owed: int, to: str | None, why: str) -> int:
    """Payer gives `owed` Gold to player `to` (None = the Stakes); pay what you can (DY-R7)."""
    paid: int = min(owed, st["treasury"][payer])
    st["treasury"][payer] -= paid
    if to is None:
        st["stakes"] += paid
    else:
        st["treasury"][to] += paid
    dest = "the Stakes" if to is None else to
    short = "" if paid == owed else f" (owed {owed}; pays all they have)"
    ev.append(
        Event(
            "payment",
            f"{payer} pays {paid} Gold to {dest}{short}: {why}.",
            PUBLIC,
            {
                "from": payer,
                "to": to or "stakes",
                "owed": owed,
                "paid": paid,
                "why": why,
                "treasury": st["treasury"][payer],
                "stakes": st["stakes"],
            },
        )
    )
    return paid


def take_stakes(st: State, ev: Events, player: str, amount: int, why: str) -> int:
    got: int = min(amount, st["stakes"])
    st["stakes"] -= got
    st["treasury"][player] += got
    ev.append(
        Event(
            "payment",
            f"{player} takes {got} Gold from the Stakes: {why}.",
            PUBLIC,
            {
                "from": "stakes",
                "to": player,
                "owed": amount,
                "paid": got,
                "why": why,
                "treasury": st["treasury"][player],
                "stakes": st["stakes"],
            },
        )
    )
    return got


# ---------------------------------------------------------------- cards


def top_card(st: State, ev: Events) -> str | None:
    """Pop the deck's top card, reshuffling the Graveyard first if the deck is empty (DY-R21)."""
    if not st["deck"] and st["grave"]:
        st["deck"], st["grave"] = st["grave"], []
        log: list[dict[str, Any]] = []
        Rng(st["rng"], log).shuffle(st["deck"])
        ev.append(
            Event(
                "reshuffle",
                f"The Noble Deck is empty: the Graveyard ({len(st['deck'])} cards) is "
                "shuffled to form a new Noble Deck.",
                PUBLIC,
                {"deck_size": len(st["deck"])},
            )
        )
        ev.append(
            Event(
                "shuffle",
                "Noble Deck order: " + ", ".join(st["deck"]),
                MODERATOR,
                {"deck": list(st["deck"]), "rng": log},
            )
        )
    return st["deck"].pop(0) if st["deck"] else None


def draw(st: State, ev: Events, player: str, n: int, why: str) -> list[str]:
    got = []
    for _ in range(n):
        card = top_card(st, ev)
        if card is None:
            break
        st["hands"][player].append(card)
        got.append(card)
    if got:
        ev.append(Event("draw", f"You draw {C.describe(got)} ({why}).", (player,), {"player": player, "cards": got}))
    return got


def bury(st: State, cards: list[str]) -> None:
    st["grave"].extend(cards)
