"""Dynasties drawn from a player's view: every family's treasury (a bar) and cards, the Tribute Zone, the
stakes, and the reader's own hand.  Others' hands are drawn only as their size."""

from __future__ import annotations

from typing import Any

from pbem.render.pictures import phone
from pbem.render.pictures.canvas import EXTRA_FILLS, GOLD, GREY_TINT, PAPER, Canvas, card_rows, fit

W = 680
METAL = dict(zip(("Copper", "Silver", "Gold", "Platinum"), EXTRA_FILLS))


def _card(name: str) -> dict[str, Any]:
    metal = name.split(" ")[0]
    return {"lines": [name], "fill": METAL.get(metal, GREY_TINT)}


def _layout(view: dict[str, Any], c: Canvas | None) -> float:
    d = view["data"]
    y = 10.0
    head = f"Gambit {d['gambit']}: stakes {d['stakes']} Gold, legacy {d['legacy']}, dynasty {d['dynasty'] or 'none'}"
    if c is not None:
        c.text((10, y), head, 14)
    y += 24
    if d["tribute_zone"]:
        if c is not None:
            c.text((10, y + 7), "Tribute Zone", 13)
        y = card_rows(c, 120, y, W - 130, [_card(n) for n in d["tribute_zone"]], w=130, h=26)
    top = max([1, *d["treasury"].values()])
    for p in d["treasury"]:
        gold = d["treasury"][p]
        if c is not None:
            c.text((10, y), f"{p}: {gold} Gold, family {d['family_totals'][p]}, {d['hand_sizes'][p]} in hand", 13)
            c.draw.rectangle((10, y + 18, 10 + max(2, int(300 * gold / top)), y + 26), fill=GOLD)
        y += 32
        if d["families"][p]:
            y = card_rows(c, 24, y, W - 34, [_card(n) for n in d["families"][p]], w=130, h=26)
    if "hand" in d:
        if c is not None:
            c.text((10, y + 4), f"Your hand ({len(d['hand'])})", 14)
        y = card_rows(
            c, 10, y + 26, W - 20, [_card(n) for n in d["hand"]] or [{"lines": ["(empty)"], "fill": PAPER}], w=130, h=26
        )
    return y + 4


def draw(view: dict[str, Any]) -> tuple[Canvas, str]:
    c = Canvas(W, int(_layout(view, None)))
    _layout(view, c)
    return c, alt(view)


def _narrow(view: dict[str, Any], c: Canvas | None) -> float:
    """Version 2 (`pbem.render.pictures.phone`): the same facts laid out 340 px wide, the heading in two lines."""
    d = view["data"]
    y = 8.0
    if c is not None:
        c.text((10, y), f"Gambit {d['gambit']}: stakes {d['stakes']} Gold", 14)
        c.text((10, y + 20), f"legacy {d['legacy']}, dynasty {d['dynasty'] or 'none'}", 13)
    y += 44
    if d["tribute_zone"]:
        if c is not None:
            c.text((10, y), "Tribute Zone", 13)
        y = phone.cards(c, 10, y + 20, phone.W - 20, [_card(n) for n in d["tribute_zone"]])
    top = max([1, *d["treasury"].values()])
    for p in d["treasury"]:
        gold = d["treasury"][p]
        if c is not None:
            line = f"{p}: {gold} Gold, family {d['family_totals'][p]}, {d['hand_sizes'][p]} in hand"
            c.text((10, y), fit(c, line, phone.W - 20, 13), 13)
            c.draw.rectangle((10, y + 20, 10 + max(2, int(200 * gold / top)), y + 28), fill=GOLD)
        y += 34
        if d["families"][p]:
            y = phone.cards(c, 10, y, phone.W - 20, [_card(n) for n in d["families"][p]])
    if "hand" in d:
        if c is not None:
            c.text((10, y + 4), f"Your hand ({len(d['hand'])})", 14)
        hand = [_card(n) for n in d["hand"]] or [{"lines": ["(empty)"], "fill": PAPER}]
        y = phone.cards(c, 10, y + 26, phone.W - 20, hand)
    return y + 4


def draw_phone(view: dict[str, Any]) -> tuple[Canvas, str]:
    c = Canvas(phone.W, int(_narrow(view, None)))
    _narrow(view, c)
    return c, alt(view)


def alt(view: dict[str, Any]) -> str:
    d = view["data"]
    fam = "; ".join(
        f"{p} {d['treasury'][p]} Gold, family {', '.join(d['families'][p]) or 'none'}" for p in d["treasury"]
    )
    out = f"Stakes {d['stakes']} Gold. Tribute Zone: {', '.join(d['tribute_zone']) or 'empty'}. {fam}."
    if "hand" in d:
        out += " Your hand: " + (", ".join(d["hand"]) or "empty") + "."
    return out
