"""Sixteen Thirty Something's board drawn from a player's view: the rulebook's nine countries as a schematic map.

Each country is a box in its faction's colour *and* named faction (RED, BLUE, neutral), with its status, army
size, military ability, leader and unrest; a line joins two countries adjacent in the rulebook's Adjacent
Countries Table (ST-R2, `tables.ADJACENT_PAIRS`).  Under the map, every player's victory points as a bar.
Below them, for a player's own report, their hand and their secret victory counters (theirs alone: the view
holds nobody else's).  Everything comes from `view["data"]`.
"""

from __future__ import annotations

import json
from typing import Any

from pbem.engine.sixteen_thirty.tables import ADJACENT_PAIRS, COUNTRIES
from pbem.render.pictures import phone
from pbem.render.pictures.canvas import (
    BLUE,
    BLUE_TINT,
    GOLD,
    GREY_TINT,
    INK,
    LINE,
    MUTED,
    RED,
    RED_TINT,
    Canvas,
    card_rows,
    fit,
)

W, MAP_H = 680, 540
BOX_W, BOX_H = 156, 74
#: Box centres, roughly where the countries lie; placed so that no adjacency line crosses a third box.
AT: dict[str, tuple[int, int]] = {
    "England": (86, 70),
    "Denmark": (340, 56),
    "Sweden": (584, 70),
    "United Provinces": (232, 190),
    "German States": (410, 262),
    "Poland": (592, 262),
    "France": (92, 330),
    "Spain": (250, 462),
    "Hapsburg Empire": (510, 430),
}
FILL = {"RED": RED_TINT, "BLUE": BLUE_TINT, None: GREY_TINT}
EDGE = {"RED": RED, "BLUE": BLUE, None: MUTED}


def country_words(name: str, k: dict[str, Any]) -> list[str]:
    """The lines drawn in a country's box (the same words the alt text uses)."""
    marks = [w for w, on in (("LEADER", k["leader"]), ("UNREST", k["unrest"])) if on]
    return [
        name,
        f"{(k['faction'] or 'neutral')}",
        f"status {k['status']}  army {k['army']}  ability {k['ability']}",
        " ".join(marks),
    ]


def public_key(view: dict[str, Any]) -> str:
    """What the map shows, the same for every reader at one moment: its picture is drawn and encoded once."""
    data = view["data"]
    return json.dumps([list(view["players"]), data["countries"], data["scores"]], sort_keys=True)


def draw_public(key: str) -> tuple[Canvas, str]:
    players, countries, scores = json.loads(key)
    return _map(key), public_alt(players, countries, scores)


def draw(view: dict[str, Any]) -> tuple[Canvas, str] | None:
    """The reader's own part: their hand and secret counters (None for a public view)."""
    data = view["data"]
    if "hand" not in data:
        return None
    c = Canvas(W, int(_private(data, None, 6)))
    _private(data, c, 6)
    return c, private_alt(data)


def _map(key: str) -> Canvas:
    """The nine countries and the victory point track (public facts only)."""
    players, countries, scores = json.loads(key)
    bar_h = 22
    c = Canvas(W, MAP_H + 40 + bar_h * len(players))
    for a, b in ADJACENT_PAIRS:
        c.draw.line([AT[a], AT[b]], fill=LINE, width=3)
    for name in COUNTRIES:
        k = countries[name]
        x, y = AT[name]
        x0, y0 = x - BOX_W // 2, y - BOX_H // 2
        thick = 3 if k["faction"] else 1
        c.box((x0, y0, x0 + BOX_W, y0 + BOX_H), FILL[k["faction"]], outline=EDGE[k["faction"]], width=thick)
        words = country_words(name, k)
        c.text((x0 + 7, y0 + 5), words[0], 14)
        c.text((x0 + BOX_W - 7, y0 + 7), words[1], 11, fill=EDGE[k["faction"]], anchor="ra")
        c.text((x0 + 7, y0 + 27), words[2], 12)
        if words[3]:
            c.text((x0 + 7, y0 + 47), words[3], 12, fill=GOLD if k["leader"] else INK)
        # the status as pips, so it reads at a glance without the number
        for i in range(min(int(k["status"]), 8)):
            c.draw.rectangle(
                (x0 + BOX_W - 12 - i * 9, y0 + BOX_H - 12, x0 + BOX_W - 6 - i * 9, y0 + BOX_H - 6), fill=INK
            )
    y = MAP_H + 8
    c.text((10, y), "Victory points", 14)
    top = max([1, *scores.values()])
    for i, p in enumerate(players):
        yy = y + 24 + i * bar_h
        c.text((10, yy), p, 13)
        length = int(440 * scores[p] / top)
        c.draw.rectangle((150, yy + 2, 150 + max(length, 2), yy + 14), fill=INK)
        c.text((160 + length, yy), str(scores[p]), 13)
    return c


def _private(data: dict[str, Any], c: Canvas | None, y: float) -> float:
    """The reader's hand and secret counters as cards under the track; returns the y under them."""
    for title, cards in (("Your hand", data.get("hand")), ("Your secret victory counters", data.get("my_counters"))):
        if cards is None:
            continue
        if c is not None:
            c.text((10, y), f"{title} ({len(cards)})", 14)
        shown = [{"lines": [x], "fill": GREY_TINT} for x in cards] or [{"lines": ["(none)"]}]
        y = card_rows(c, 10, y + 22, W - 20, shown, w=126, h=24)
    return y + 4


PHONE_BOX = ((phone.W - 28) // 2, 84)  # a country's box in version 2


def phone_place(i: int) -> tuple[int, int]:
    """The top left corner of the `i`th country's box (in `AT`'s order) in version 2, in the layout's pixels."""
    return 10 + (i % 2) * (PHONE_BOX[0] + 8), 8 + (i // 2) * (PHONE_BOX[1] + 8)


def draw_public_phone(key: str) -> tuple[Canvas, str]:
    """Version 2 (`pbem.render.pictures.phone`): the nine countries two to a row, 340 px wide, in the map's order
    from north-west to south-east (a line for each adjacency does not fit a phone's width: the rules list them),
    then the victory points."""
    players, countries, scores = json.loads(key)
    (box_w, box_h), bar_h = PHONE_BOX, 22
    rows = (len(AT) + 1) // 2
    c = Canvas(phone.W, 8 + rows * (box_h + 8) + 32 + bar_h * len(players) + 4)
    for i, name in enumerate(AT):  # (the map's places, north-west first)
        k = countries[name]
        x0, y0 = phone_place(i)
        c.box(
            (x0, y0, x0 + box_w, y0 + box_h),
            FILL[k["faction"]],
            outline=EDGE[k["faction"]],
            width=2 if k["faction"] else 1,
        )
        words = country_words(name, k)
        c.text((x0 + 7, y0 + 5), fit(c, words[0], box_w - 14, 14), 14)
        c.text((x0 + 7, y0 + 24), words[1], 12, fill=EDGE[k["faction"]])
        c.text((x0 + 7, y0 + 42), f"status {k['status']}, army {k['army']}", 12)
        c.text((x0 + 7, y0 + 60), f"ability {k['ability']}" + (f"  {words[3]}" if words[3] else ""), 12,
               fill=GOLD if k["leader"] else INK)  # fmt: skip
        for j in range(min(int(k["status"]), 8)):  # the status as pips, so it reads at a glance without the number
            right = x0 + box_w - 8 - j * 9
            c.draw.rectangle((right - 6, y0 + box_h - 12, right, y0 + box_h - 6), fill=INK)
    y = 8 + rows * (box_h + 8) + 4
    c.text((10, y), "Victory points", 14)
    top = max([1, *scores.values()])
    for i, p in enumerate(players):
        yy = y + 24 + i * bar_h
        c.text((10, yy), fit(c, p, 90, 13), 13)
        length = int(180 * scores[p] / top)
        c.draw.rectangle((110, yy + 3, 110 + max(length, 2), yy + 15), fill=INK)
        c.text((118 + length, yy), str(scores[p]), 13)
    return c, public_alt(players, countries, scores)


def draw_phone(view: dict[str, Any]) -> tuple[Canvas, str] | None:
    """Version 2 of the reader's own part: their hand and secret counters, 340 px wide."""
    data = view["data"]
    if "hand" not in data:
        return None
    c = Canvas(phone.W, int(_private_narrow(data, None, 6)))
    _private_narrow(data, c, 6)
    return c, private_alt(data)


def _private_narrow(data: dict[str, Any], c: Canvas | None, y: float) -> float:
    for title, cards in (("Your hand", data.get("hand")), ("Your secret victory counters", data.get("my_counters"))):
        if cards is None:
            continue
        if c is not None:
            c.text((10, y), f"{title} ({len(cards)})", 14)
        shown = [{"lines": [x], "fill": GREY_TINT} for x in cards] or [{"lines": ["(none)"]}]
        y = phone.cards(c, 10, y + 22, phone.W - 20, shown)
    return y + 4


def public_alt(players: list[str], countries: dict[str, Any], scores: dict[str, int]) -> str:
    parts = []
    for name in COUNTRIES:
        w = country_words(name, countries[name])
        parts.append(f"{w[0]} ({w[1]}, {w[2]}{', ' + w[3].lower() if w[3] else ''})")
    vp = ", ".join(f"{p} {scores[p]}" for p in players)
    return "Map of the nine countries: " + "; ".join(parts) + f". Victory points: {vp}."


def private_alt(data: dict[str, Any]) -> str:
    return (
        "Your hand: "
        + (", ".join(data["hand"]) or "empty")
        + ". Your secret victory counters: "
        + ", ".join(data["my_counters"])
        + "."
    )
