"""The HTML history page: one self-contained page (inline CSS and SVG, no network, no external assets).

`context(doc)` computes everything the page template (templates/export/)
needs from the export document alone; `render_html(doc)` renders it.
"""

from __future__ import annotations

import hashlib
from typing import Any

from pbem.engine.words import count
from pbem.history.plots import charts
from pbem.history.story import Doc, audience_note, holders, standings, step_word, turns, visibility_label, when
from pbem.trust.seeds import INSECURE_NOTE, check_lines


def context(doc: Doc) -> dict[str, Any]:
    """Everything the page template needs, computed from the document alone."""
    over = doc["game"]["over"]
    seed = doc.get("seed")
    secret = [e for e in doc["events"] if e["visibility"] != "public"]
    shown = [e for e in doc["events"] if e["visibility"] == "public"] if over else doc["events"]
    groups = turns(doc, shown)
    return {
        "doc": doc,
        "g": doc["game"],
        "over": over,
        "note": audience_note(doc),
        "word": step_word(doc),
        "standings": standings(doc),
        "charts": charts(doc),
        "groups": groups,
        "open_groups": len(groups) <= 14,
        "secret_rows": [(g.title, ev) for g in turns(doc, secret) for ev in g.events] if over else [],
        "secret_count": len(secret),
        "seed": seed,
        "check_lines": check_lines(seed) if seed else [],
        "insecure_note": INSECURE_NOTE if doc["game"].get("insecure_seed") else "",
        "seed_ok": bool(seed and hashlib.sha256(seed.encode("ascii")).hexdigest() == doc["seed_commitment"]),
        "vis": lambda v: visibility_label(v, doc["audience"]),
        "when": when,
        "rejected": sum(1 for m in doc["messages"] if m["outcome"] == "rejected"),
        "orders_count": orders_count(doc),
        "seats": [
            (h.line(), (doc["players"][h.seat] if h.seat < len(doc["players"]) else {}).get("address"))
            for h in holders(doc)
        ],
    }


def orders_count(doc: Doc) -> str:
    """The summary's count of accepted orders, as far as the page can know it: a running game's partial export lists
    only the deadlines' inputs to the public (and a player's own besides, to them), so its count is no count of the
    game's orders (walk8: a running game's public page read "0 accepted orders" after three turns of play)."""
    n = len(doc["orders"])
    if doc["version"] == 1:  # the whole record: every accepted order (a game over, abandoned, or the moderator's)
        return count(n, "accepted order")
    if doc["audience"] == "public":
        return "the players' orders kept secret until the end"
    return f"{count(n, 'accepted order')} of {doc['audience']}'s and the deadlines' (the others' kept secret until the end)"


def render_html(doc: Doc) -> str:
    """The self-contained HTML history page."""
    from pbem.render.templates import render

    return render("export/history.html.j2", **context(doc))
