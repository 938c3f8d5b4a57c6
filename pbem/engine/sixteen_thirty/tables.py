"""Sixteen Thirty Something: fixed data (ST-R1 set-up, ST-R2 adjacency, ST-R3 deck,
ST-R4 random end, ST-R7 caps) and small helpers on card names."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

KIND = "sixteen-thirty"
TITLE = "Sixteen Thirty Something"

COUNTRIES = [
    "Spain",
    "England",
    "France",
    "Denmark",
    "United Provinces",
    "Sweden",
    "German States",
    "Poland",
    "Hapsburg Empire",
]

# ST-R1: status, army size, military ability.
SETUP = {
    "Spain": (5, 2, 1),
    "England": (1, 1, 0),
    "France": (3, 2, 1),
    "Denmark": (1, 1, 0),
    "United Provinces": (2, 1, 1),
    "Sweden": (2, 1, 1),
    "German States": (5, 1, 0),
    "Poland": (2, 2, 0),
    "Hapsburg Empire": (5, 2, 1),
}

# ST-R2: the 18 adjacent pairs.
ADJACENT_PAIRS = [
    ("England", "France"),
    ("England", "Spain"),
    ("England", "United Provinces"),
    ("England", "Denmark"),
    ("France", "Spain"),
    ("France", "United Provinces"),
    ("France", "German States"),
    ("Spain", "United Provinces"),
    ("Spain", "Hapsburg Empire"),
    ("United Provinces", "German States"),
    ("United Provinces", "Denmark"),
    ("German States", "Denmark"),
    ("German States", "Poland"),
    ("German States", "Sweden"),
    ("German States", "Hapsburg Empire"),
    ("Denmark", "Sweden"),
    ("Poland", "Sweden"),
    ("Poland", "Hapsburg Empire"),
]


def adjacent(a: str, b: str) -> bool:
    return (a, b) in ADJACENT_PAIRS or (b, a) in ADJACENT_PAIRS


# ST-R3: the deck.
SPECIALS = [
    "Vote",
    "Unrest",
    "Assassin",
    "Military Leader",
    "Military Improvement",
    "Increase Army Size",
    "Increase Status",
]
SPECIAL_COPIES = {
    "Vote": 3,
    "Unrest": 3,
    "Assassin": 2,
    "Military Leader": 2,
    "Military Improvement": 2,
    "Increase Army Size": 2,
    "Increase Status": 2,
}
INFLUENCE_COPIES = {1: 3, 2: 4, 3: 3}
OPEN_COPIES = {1: 2, 2: 2}

# ST-R7 caps.
#: A country attribute that specials raise (ST-R7).
Raised = Literal["status", "army", "ability"]
CAP: dict[Raised, int] = {"status": 7, "army": 5, "ability": 3}

# ST-R4: end of turn -> the game ends on a d6 roll <= this.
RANDOM_END = {7: 1, 8: 2, 9: 3}
LAST_TURN = 10
HAND_LIMIT = 13
COLORS = ["RED", "BLUE"]
ISSUES = ["ALIGN", "SWITCH", "WAR", "REARM"]


def build_deck() -> list[str]:
    deck: list[str] = []
    for c in COUNTRIES:
        for v, n in INFLUENCE_COPIES.items():
            deck += [f"{c} {v}"] * n
    for v, n in OPEN_COPIES.items():
        deck += [f"Open {v}"] * n
    for s in SPECIALS:
        deck += [s] * SPECIAL_COPIES[s]
    return deck


ALL_CARD_NAMES = list(dict.fromkeys(build_deck()))


def is_special(card: str) -> bool:
    return card in SPECIALS


def is_open(card: str) -> bool:
    return card.startswith("Open ")


@lru_cache(maxsize=1024)  # pure function of a card name; called in every inner loop
def value(card: str) -> int:
    """Votes of an influence card; 0 for a special card."""
    if is_special(card):
        return 0
    return int(card.rsplit(" ", 1)[1])


@lru_cache(maxsize=1024)
def country_of(card: str) -> str | None:
    """The country named on an influence card (None for Open and special cards)."""
    if is_special(card) or is_open(card):
        return None
    return card.rsplit(" ", 1)[0]


@lru_cache(maxsize=1024)
def card_sort_key(card: str) -> tuple[int, int, int]:
    """Table order: countries in COUNTRIES order, then Open, then specials."""
    if is_special(card):
        return (2, SPECIALS.index(card), 0)
    if is_open(card):
        return (1, 0, value(card))
    return (0, COUNTRIES.index(country_of(card) or ""), value(card))


def sort_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=card_sort_key)


@lru_cache(maxsize=1024)
def cheapest_key(card: str) -> tuple[int, int, int, tuple[int, int, int]]:
    """NMR order for losing a card: lowest value first, Open before named, specials last."""
    return (1 if is_special(card) else 0, value(card), 0 if is_open(card) else 1, card_sort_key(card))
