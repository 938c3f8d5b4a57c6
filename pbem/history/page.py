"""The HTML history page: one self-contained page (inline CSS and SVG, no network, no external assets).

`context(doc)` computes everything the page template (templates/export/)
needs from the export document alone; `render_html(doc)` renders it.
"""

from __future__ import annotations

import hashlib
from typing import Any

from pbem.history.plots import charts
from pbem.history.story import Doc, audience_note, standings, step_word, turns, visibility_label, when
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
    }


def render_html(doc: Doc) -> str:
    """The self-contained HTML history page."""
    from pbem.render.templates import render

    return render("export/history.html.j2", **context(doc))
