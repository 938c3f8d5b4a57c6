"""Italian Wars drawn from a player's view: the two sides' progress toward victory (8 hands, or 3 in a row),
the field (each side's deployed cards with their Force, once revealed) and, while discarding, the reader's hand
with every card marked usable (green, +) or not (grey, x, with the reason) for the coming battle (IW-R6)."""

from __future__ import annotations

from typing import Any

from pbem.engine.italian_wars.cards import BY_NAME
from pbem.render.pictures import phone
from pbem.render.pictures.canvas import BLUE, GREEN, GREEN_TINT, GREY_TINT, MUTED, PAPER, RED, Canvas, card_rows, fit

W = 680


def code(name: str) -> str:
    c = BY_NAME[name]
    return f"{c['force']}{c['side'] or ''} {c['type']}" + (f", {c['cond']}" if c["cond"] else "")


def _layout(view: dict[str, Any], c: Canvas | None) -> float:
    d = view["data"]
    y = 10.0
    for p in view["players"]:
        colour = BLUE if d["sides"][p] == "French" else RED
        if c is not None:
            c.text(
                (10, y),
                f"{p} ({d['sides'][p]}): {d['hands_won'][p]} hands won, {d['streaks'][p]} in a row",
                14,
                fill=colour,
            )
            for k in range(8):  # the 8-hand track, filled squares = hands won
                box = (360 + k * 20, y, 374 + k * 20, y + 14)
                c.draw.rectangle(box, outline=colour, fill=colour if k < d["hands_won"][p] else PAPER)
            for k in range(3):
                box = (540 + k * 20, y, 554 + k * 20, y + 14)
                c.draw.ellipse(box, outline=colour, fill=colour if k < d["streaks"][p] else PAPER)
        y += 24
    if c is not None:
        c.text((360, y), "hands won (of 8)", 11, fill=MUTED)
        c.text((540, y), "in a row (of 3)", 11, fill=MUTED)
    y += 20
    if d["deployed"]:
        used = (d["negation"] or {}).get("used", [])
        for p in view["players"]:
            if c is not None:
                c.text((10, y), f"{p}'s field", 14)
            cards: list[dict[str, Any]] = [
                {
                    "lines": [
                        r["card"],
                        f"{code(r['card'])}  Force {r['force']}" + ("  used" if r["card"] in used else ""),
                    ]
                }
                for r in d["deployed"][p]
            ]
            y = card_rows(c, 10, y + 20, W - 20, cards, w=160, h=38)
    hand = d.get("your_hand") or []
    if hand:
        bad = d.get("your_unusable", {})
        if c is not None:
            c.text((10, y), "Your hand: + usable in the coming battle, x not usable", 14)
        cards = [
            {
                "lines": [("x " if n in bad else "+ ") + n, code(n) + (f" - {bad[n]}" if n in bad else "")],
                "fill": GREY_TINT if n in bad else GREEN_TINT,
                "outline": MUTED if n in bad else GREEN,
                "width": 1 if n in bad else 2,
            }
            for n in hand
        ]
        y = card_rows(c, 10, y + 20, W - 20, cards, w=212, h=38)
    return y + 4


def draw(view: dict[str, Any]) -> tuple[Canvas, str]:
    c = Canvas(W, int(_layout(view, None)))
    _layout(view, c)
    return c, alt(view)


def _narrow(view: dict[str, Any], c: Canvas | None) -> float:
    """Version 2 (`pbem.render.pictures.phone`): the same facts laid out 340 px wide, a card two to a row."""
    d = view["data"]
    y = 8.0
    for p in view["players"]:
        colour = BLUE if d["sides"][p] == "French" else RED
        if c is not None:
            line = f"{p} ({d['sides'][p]}): {d['hands_won'][p]} hands won, {d['streaks'][p]} in a row"
            c.text((10, y), fit(c, line, phone.W - 20, 14), 14, fill=colour)
            for k in range(8):  # the 8-hand track, filled squares = hands won
                box = (10 + k * 20, y + 24, 24 + k * 20, y + 38)
                c.draw.rectangle(box, outline=colour, fill=colour if k < d["hands_won"][p] else PAPER)
            for k in range(3):
                box = (200 + k * 20, y + 24, 214 + k * 20, y + 38)
                c.draw.ellipse(box, outline=colour, fill=colour if k < d["streaks"][p] else PAPER)
        y += 46
    if c is not None:
        c.text((10, y), "hands won (of 8)", 12, fill=MUTED)
        c.text((200, y), "in a row (of 3)", 12, fill=MUTED)
    y += 24
    if d["deployed"]:
        used = (d["negation"] or {}).get("used", [])
        for p in view["players"]:
            if c is not None:
                c.text((10, y), f"{p}'s field", 14)
            cards: list[dict[str, Any]] = [
                {
                    "lines": [
                        r["card"],
                        f"{code(r['card'])}  Force {r['force']}" + ("  used" if r["card"] in used else ""),
                    ]
                }
                for r in d["deployed"][p]
            ]
            y = phone.cards(c, 10, y + 22, phone.W - 20, cards)
    hand = d.get("your_hand") or []
    if hand:
        bad = d.get("your_unusable", {})
        if c is not None:
            c.text((10, y), "Your hand (+ usable, x not usable)", 14)
        cards = [
            {
                "lines": [("x " if n in bad else "+ ") + n, code(n), *([bad[n]] if n in bad else [])],
                "fill": GREY_TINT if n in bad else GREEN_TINT,
                "outline": MUTED if n in bad else GREEN,
                "width": 1 if n in bad else 2,
            }
            for n in hand
        ]
        y = phone.cards(c, 10, y + 22, phone.W - 20, cards)
    return y + 4


def draw_phone(view: dict[str, Any]) -> tuple[Canvas, str]:
    c = Canvas(phone.W, int(_narrow(view, None)))
    _narrow(view, c)
    return c, alt(view)


def alt(view: dict[str, Any]) -> str:
    d = view["data"]
    out = "; ".join(
        f"{p} ({d['sides'][p]}) {d['hands_won'][p]} hands won, {d['streaks'][p]} in a row" for p in view["players"]
    )
    if d["deployed"]:
        out += ". Field: " + "; ".join(
            f"{p}: " + ", ".join(f"{r['card']} {r['force']}" for r in d["deployed"][p]) for p in view["players"]
        )
    if d.get("your_hand"):
        bad = d.get("your_unusable", {})
        out += ". Your hand: " + ", ".join(n + (" (not usable)" if n in bad else " (usable)") for n in d["your_hand"])
    return out + "."
