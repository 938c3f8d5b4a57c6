"""The Italian Wars deck: the rulebook's card list, parsed (owns card data).

`CARD_LIST` is the "COMMON DECK CARD LIST" copied verbatim from the seed
rulebook (tabs, trailing spaces and en dashes included).  `CARDS` parses it
into one record per card: Force, type code, side restriction (F/S),
WON/LOST condition, a bonus or penalty effect and a Negate class.
Ruling IW-R7 gives the class matching, IW-R8 reads "IS" as IK.
"""

from __future__ import annotations

import re
from typing import Any

CARD_LIST = """\
Card Name				Force	Type	Notes
Ditch					5	D 	Enemy Cavalry gets –3
Parapet					6	D	IM get +3
Goad Enemies to Attack			6	A	
Excellent Artillery			7F	A	
Brilliant General			8	L	Tactics get +3
Impetuous Commander			6	L	
Enfilading Fire				6	A	Artillery gets +3
Entrenchments				5	D	
Fire at Unprotected Cavalry		6	A	Negate Cavalry card
Uneven Terrain				3	D	Enemy Cavalry gets –3 
French Horsemen				7F	C
Countercharge				5	C	Cavalry gets +3
Crossbowmen				6	IM	
German Landsknecht			6	IK	
Drive Them Off				5	C	Negate Cavalry card
Call Forward Troops			5	T	
Scale the Parapet			4	IK	Negate Defense card
Cross thru Fire				4	IK	IK gets +3	
Pass Thru Gaps				4	C	Negate Defense card
Charge Thru Gap				5	C	Cavalry gets +3
Field Fortifications			7	D	Defenses get +3
Lie Prone				3	IT	Negate Artillery card
Fire at Massed Troops			7	A	Negate IK card
Spanish Heavy Cavalry			6S	C	
Arquebus Fire				5	IM	
Spanish Heavy Infantry			6S	IK	
Spanish Swordsmen			4S	IK	Negate an IS card
Close-Quarter Advantage			4	IK	IK gets +3
Tight Formation				4	IK	IK gets +3
Discipline & Drill			4	IK	IK gets +3
Resist Cavalry				6	IK	Negate Cavalry card
Swiss Pikemen				8	IK	
Swiss Halberdiers			7	IK	
Swiss Square				8	IK	Enemy Cavalry gets –3
Wooden Palisades			5	D
Pursuit					6	C	WON Cavalry get +3 
Hand Gunners				5	IM	
Hill					4	D	Artillery get +3
Good Position				5	D	Defenses get +3
Rolling Fire				6	IM	IM get +3
Attack Rear				8	C	Cavalry get +3
Ill-formed & Unready			5	T	Negate an IK card
Falcons & Sakers			5	A	
Use Captured Artillery			8	A	WON
Prolonged Fire				7	A	Artillery gets +3
All Around Defense			5	IK	Enemy Cavalry gets –3
Acute Adversary				8	L	Enemy Leader gets –3
Sunken Road				5	D	
Earthworks				7	D	
Light Cavalry				4	C	
Bastions				6	D	Artillery gets +3
Bronze Cannons				7	A	
Volley Fire				6	IM	IM get +3
Form Lines				6	IM	
Countermarch				5	IM	IM get +3
Line of Contravallation			6	D	Negate Tactics card
Hold the Field				6	IK
Rallying Point				5	IK	LOST Cavalry get +3
Take Refuge				3	IK	LOST IM get +3
Deep Formation				5	IK	IK get +3
Steady Fire				5	IM	IM get +3
Surrounded				5	T	Negate Leader card
Skirmishing				6	IM	IM get +3
Prestige				6	X	Leader gets +3
Confidence				7	X	Tactics get +3
Belligerent				7	X	WON
Stubborn				5	X	Defenses get +3
Hatreds					8	X	
Drummers				5	T	Morale gets +3
Great Ferocity				8	X
Wrought Iron Cannons			4	A	
Flank Attack				7	T	WON
Battlefield Mobility			6	T	
Hedges & Trees				2	D	IM get +4	
Courageous Commander			7	L	Morale gets +3
Matchlocks				5	IM	
Vigorous Captain			6	L	Negate Tactics Card
Capture Leader				4	T	Negate Leader Card
Enemies Allies Flee			4	X	Negate IK card
Rout Enemy Cavalry			5	X	Negate Cavalry card
Disordered				6	T	WON Enemy IK gets –3
Cross Stream				6	T	Negate Defense card
Trench					5	D	
Famous Captain				7	L	Negate Morale card
Men-at-Arms				6	C	
Vanguard				7	C	WON
Great Captain				8	L
Cavalry Charge				6	C	Cavalry get +3
Culverins 				6	A	
Rearguard				5	C	LOST	
Footsoldiers				6	IK	
War Wagons				6	D
Sortie					5	C	Cavalry get +3
Lancers					7	C	
Block of Infantry			7	IK 	
Careful Soldier				8	L	Defenses get +3
"""

#: class words used in card notes -> the type code they name (IW-R7, IW-R8)
CLASS_WORDS = {
    "cavalry": "C",
    "artillery": "A",
    "defense": "D",
    "defenses": "D",
    "tactics": "T",
    "leader": "L",
    "morale": "X",
    "ik": "IK",
    "im": "IM",
    "is": "IK",
}
#: readable class names for texts
CLASS_NAMES = {
    "C": "Cavalry",
    "A": "Artillery",
    "D": "Defense",
    "T": "Tactics",
    "L": "Leader",
    "X": "Morale",
    "IK": "IK",
    "IM": "IM",
}
SIDE_NAMES = {"F": "French", "S": "Spanish"}

_NEGATE = re.compile(r"^negate (?:an? )?(\w+) card$")
_EFFECT = re.compile(r"^(enemy )?(\w+) gets? ([+-])(\d+)$")


def _parse_notes(notes: str) -> dict[str, Any]:
    """WON/LOST tag, bonus/penalty effect and Negate class of one card's notes."""
    text = " ".join(notes.replace("\u2013", "-").split()).lower()
    out: dict[str, Any] = {"cond": None, "effect": None, "negate": None}
    word = text.split(" ")[0] if text else ""
    if word in ("won", "lost"):
        out["cond"] = word.upper()
        text = text[len(word) :].strip()
    if not text:
        return out
    neg = _NEGATE.match(text)
    eff = _EFFECT.match(text)
    if neg:
        out["negate"] = CLASS_WORDS[neg.group(1)]
    elif eff:
        delta = int(eff.group(4)) * (-1 if eff.group(3) == "-" else 1)
        out["effect"] = {"cls": CLASS_WORDS[eff.group(2)], "delta": delta, "enemy": bool(eff.group(1))}
    else:  # pragma: no cover - the card list is fixed
        raise ValueError(f"unreadable card note: {notes!r}")
    return out


def _parse(text: str) -> list[dict[str, Any]]:
    cards: list[dict[str, Any]] = []
    for line in text.splitlines()[1:]:
        if not line.strip():
            continue
        parts = [p.strip() for p in re.split(r"\t+", line.rstrip("\n"))]
        name, force, ctype = parts[0], parts[1], parts[2]
        notes = parts[3] if len(parts) > 3 else ""
        side = force[-1] if force[-1] in "FS" else None
        card = {
            "name": name,
            "force": int(force.rstrip("FS")),
            "type": ctype,
            "side": side,
            "index": len(cards),
            "notes": " ".join(notes.split()),
        }
        card.update(_parse_notes(notes))
        cards.append(card)
    return cards


CARDS: list[dict[str, Any]] = _parse(CARD_LIST)
BY_NAME: dict[str, dict[str, Any]] = {c["name"]: c for c in CARDS}
NAMES: list[str] = [c["name"] for c in CARDS]
LEADERS: list[str] = [c["name"] for c in CARDS if c["type"] == "L"]
NEGATORS: list[str] = [c["name"] for c in CARDS if c["negate"]]


def matches(cls: str, name: str) -> bool:
    """True if card `name` belongs to class `cls` (IW-R7: Tactics = T and IT)."""
    ctype: str = BY_NAME[name]["type"]
    if cls == "T":
        return ctype in ("T", "IT")
    return ctype == cls


def describe(name: str) -> str:
    """A short card label: "Swiss Square (8 IK, Enemy Cavalry gets -3)"."""
    c = BY_NAME[name]
    bits = [f"{c['force']}{c['side'] or ''} {c['type']}"]
    if c["notes"]:
        bits.append(c["notes"].replace("\u2013", "-"))
    return f"{name} ({', '.join(bits)})"


def effect_text(name: str) -> str:
    """The card's bonus/penalty as words, e.g. "Enemy Cavalry -3", or ""."""
    eff = BY_NAME[name]["effect"]
    if not eff:
        return ""
    who = "Enemy " if eff["enemy"] else ""
    return f"{who}{CLASS_NAMES[eff['cls']]} {eff['delta']:+d}"
