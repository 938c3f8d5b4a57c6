"""The House of Habsburg deck: the 90 cards of the rulebook's card list (docs/rulings.md).

Owns card names, types and values and the short labels used in reports.
"""

from __future__ import annotations

#: (name, type letter, value) in rulebook order; one copy of each card.
CARDS: list[tuple[str, str, int]] = [
    ("Holy Roman Empire", "H", 5),
    ("Austria", "H", 5),
    ("Spain", "H", 5),
    ("Hungary", "H", 5),
    ("Bohemia", "H", 4),
    ("Netherlands", "H", 4),
    ("Mexico", "H", 4),
    ("Peru", "H", 4),
    ("Portugal", "H", 3),
    ("Swabia", "H", 3),
    ("England & Ireland", "H", 3),
    ("Tuscany", "H", 3),
    ("Lorraine", "H", 2),
    ("Lombardy", "H", 2),
    ("Transylvania", "H", 2),
    ("Burgundy", "H", 2),
    ("Croatia", "H", 1),
    ("Slavonia", "H", 1),
    ("Dalmatia", "H", 1),
    ("Galicia", "H", 1),
    ("Maria Theresa", "P", 5),
    ("Maximilian", "P", 5),
    ("Otto", "P", 5),
    ("Charles", "P", 5),
    ("Francis", "P", 5),
    ("Rudolph", "P", 4),
    ("Leopold", "P", 4),
    ("Frederick", "P", 4),
    ("Phillip", "P", 4),
    ("Ferdinand", "P", 4),
    ("Albert", "P", 3),
    ("Franz", "P", 3),
    ("Karl", "P", 3),
    ("Sigismund", "P", 3),
    ("Josef", "P", 3),
    ("Heinrich", "P", 2),
    ("Ladislav", "P", 2),
    ("William", "P", 2),
    ("Ernest", "P", 2),
    ("Carlos", "P", 2),
    ("Balthasar", "P", 1),
    ("Matthias", "P", 1),
    ("Lorenz", "P", 1),
    ("Gottfried", "P", 1),
    ("Peter", "P", 1),
    ("Marriage", "C", 3),
    ("Marry Well", "C", 4),
    ("Intermarriage", "C", 3),
    ("Duke", "C", 4),
    ("Conquest", "C", 4),
    ("Wage War", "C", 2),
    ("Battle", "C", 2),
    ("Heiress", "C", 3),
    ("Archduke", "C", 5),
    ("Emperor", "C", 5),
    ("King", "C", 5),
    ("Occupation", "C", 1),
    ("Reconquered", "C", 2),
    ("Elected", "C", 1),
    ("Possessions", "C", 1),
    ("Inbreeding", "C", 1),
    ("Uncle & Niece", "C", 2),
    ("First Cousins", "C", 2),
    ("Grand Prince", "C", 5),
    ("Margrave", "C", 4),
    ("Happy Austria", "C", 5),
    ("Alliance", "C", 3),
    ("Royal Wedding", "C", 3),
    ("Grand Duke", "C", 4),
    ("Queen Consort", "C", 1),
    ("Ottoman Turks", "D", 5),
    ("War with France", "D", 2),
    ("War with Prussia", "D", 5),
    ("Extinction", "D", 4),
    ("Compromise", "D", 1),
    ("Dutch Revolt", "D", 3),
    ("Thirty Years War", "D", 3),
    ("Dethroned", "D", 1),
    ("War of Succession", "D", 2),
    ("Line Dies Out", "D", 4),
    ("Second", "S", 5),
    ("Third", "S", 4),
    ("Fourth", "S", 3),
    ("Fifth", "S", 2),
    ("Sixth", "S", 1),
    ("Lineage", "S", 1),
    ("Inheritance", "S", 3),
    ("Dynasty", "S", 4),
    ("Hereditary Lands", "S", 2),
    ("Branch Division", "S", 5),
]

NAMES: list[str] = [c[0] for c in CARDS]
TYPE: dict[str, str] = {c[0]: c[1] for c in CARDS}
VALUE: dict[str, int] = {c[0]: c[2] for c in CARDS}
TYPE_NAMES: dict[str, str] = {"P": "Person", "H": "Holding", "C": "Claim", "S": "Succession", "D": "Disaster"}
HOLDING, PERSON, CLAIM, SUCCESSION, DISASTER = "H", "P", "C", "S", "D"


def type_name(card: str) -> str:
    """'Person', 'Holding', ... for a card name."""
    return TYPE_NAMES[TYPE[card]]


def label(card: str) -> str:
    """A card with its type letter and value, e.g. 'Otto (P5)'."""
    return f"{card} ({TYPE[card]}{VALUE[card]})"


def labels(cards: list[str]) -> str:
    """Several labelled cards, comma-separated ('none' when empty)."""
    return ", ".join(label(c) for c in cards) or "none"
