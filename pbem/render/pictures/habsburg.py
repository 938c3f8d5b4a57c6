"""House of Habsburg's table drawn from a player's view: each player's score and melds as cards, and the
reader's own hand.  Another player's hand is drawn only as its size (the view holds nothing more)."""

from __future__ import annotations

from typing import Any

from pbem.engine.habsburg.cards import TYPE, TYPE_NAMES, VALUE
from pbem.render.pictures import phone
from pbem.render.pictures.canvas import BLUE_TINT, GOLD, GREEN_TINT, GREY_TINT, RED_TINT, Canvas, card_rows, fit

W = 680
#: Drawn from the view as it is (`pictures.board`): only lists are iterated, in order, and only strings and
#: whole numbers printed, so the view and its canonical JSON read back draw the same bytes (tests/test_pictures.py).
FROM_VIEW = True
FILL = {"P": BLUE_TINT, "H": GREEN_TINT, "C": RED_TINT, "S": GREY_TINT, "D": GREY_TINT}


def _card(name: str) -> dict[str, Any]:
    t = TYPE[name]
    return {"lines": [name, f"{TYPE_NAMES[t]} {t}{VALUE[name]}"], "fill": FILL.get(t, GREY_TINT)}


def _layout(view: dict[str, Any], c: Canvas | None) -> float:
    data = view["data"]
    y = 10.0
    for p in data["seats"]:
        head = (
            f"{p}: score {data['scores'][p]}, tokens {data['tokens'][p]}, holdings {data['holdings'][p]}, "
            f"{data['hand_sizes'][p]} cards in hand" + ("  (to play)" if data["active"] == p else "")
        )
        if c is not None:
            c.text((10, y), head, 14, fill=GOLD if data["active"] == p else (27, 27, 27))
        y += 22
        for m in (m for m in data["melds"] if m["owner"] == p):
            if c is not None:
                c.text((14, y + 18), m["id"], 14)
            cards = [_card(m["person"]), _card(m["holding"]), _card(m["claim"])]
            y = card_rows(c, 50, y, W - 60, cards, w=150, h=40)
        y += 6
    if "hand" in data:
        if c is not None:
            c.text((10, y), f"Your hand ({len(data['hand'])})", 14)
        y = card_rows(c, 10, y + 22, W - 20, [_card(h["card"]) for h in data["hand"]], w=150, h=40)
    return y + 4


def draw(view: dict[str, Any]) -> tuple[Canvas, str]:
    c = Canvas(W, int(_layout(view, None)))
    _layout(view, c)
    return c, alt(view)


def _narrow(view: dict[str, Any], c: Canvas | None) -> float:
    """Version 2 (`pbem.render.pictures.phone`): the same facts laid out 340 px wide, each player's line in two."""
    data = view["data"]
    y = 8.0
    for p in data["seats"]:
        active = data["active"] == p
        if c is not None:
            head = f"{p}: score {data['scores'][p]}" + ("  (to play)" if active else "")
            c.text((10, y), fit(c, head, phone.W - 20, 14), 14, fill=GOLD if active else (27, 27, 27))
            more = f"tokens {data['tokens'][p]}, holdings {data['holdings'][p]}, {data['hand_sizes'][p]} cards in hand"
            c.text((10, y + 20), more, 13)
        y += 44
        for m in (m for m in data["melds"] if m["owner"] == p):
            if c is not None:
                c.text((10, y), m["id"], 13)
            y = phone.cards(c, 10, y + 20, phone.W - 20, [_card(m["person"]), _card(m["holding"]), _card(m["claim"])])
        y += 4
    if "hand" in data:
        if c is not None:
            c.text((10, y), f"Your hand ({len(data['hand'])})", 14)
        y = phone.cards(c, 10, y + 22, phone.W - 20, [_card(h["card"]) for h in data["hand"]])
    return y + 4


def draw_phone(view: dict[str, Any]) -> tuple[Canvas, str]:
    c = Canvas(phone.W, int(_narrow(view, None)))
    _narrow(view, c)
    return c, alt(view)


def alt(view: dict[str, Any]) -> str:
    data = view["data"]
    melds = "; ".join(f"{m['id']} of {m['owner']}: {m['person']}, {m['holding']}, {m['claim']}" for m in data["melds"])
    out = "Scores: " + ", ".join(f"{p} {data['scores'][p]}" for p in data["seats"]) + f". Melds: {melds or 'none'}."
    if "hand" in data:
        out += " Your hand: " + (", ".join(h["card"] for h in data["hand"]) or "empty") + "."
    return out
