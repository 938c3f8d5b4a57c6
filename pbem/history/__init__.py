"""The history of a game: its story, charts, SVG drawing, HTML page, text record and export formats.

Every module here is a pure function of an export document (`pbem.history.export.build`)
and names no game: what differs between games (the word for a step, the
series to chart, their labels and colours) is the engine's `HistorySpec`,
looked up by the document's kind.

* `story`: events grouped by scoring point, standings, notes.
* `plots`: which charts the scores events support (`svg` draws them).
* `page`: the self-contained HTML page; `record`: the text record.
* `formats`: the export formats registry (name -> suffix, renderer).

The names below are loaded on first use, so that reading the formats
registry (the CLI's help) does not load the rest.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "Chart": "plots",
    "charts": "plots",
    "FORMATS": "formats",
    "Format": "formats",
    "render": "formats",
    "context": "page",
    "render_html": "page",
    "text_record": "record",
    "Group": "story",
    "audience_note": "story",
    "scores_events": "story",
    "standings": "story",
    "step_word": "story",
    "turns": "story",
    "visibility_label": "story",
    "when": "story",
    "category_strip": "svg",
    "heat_strip": "svg",
    "line_chart": "svg",
    "nice_ticks": "svg",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
