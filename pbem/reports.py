"""Jinja2 rendering of reports, acknowledgements and notices.

Templates receive only a player's view (`engine.view(state, player)`), the
events that player may see, and that player's requests: never the state.
The environment uses StrictUndefined so a template naming something it was
not given fails loudly in tests instead of printing blanks.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from .engine.words import count
from .resources import templates_dir


def text_table(block: dict[str, Any]) -> str:
    """A table block as aligned plain text."""
    cols = [str(c) for c in block["columns"]]
    rows = [[("" if v is None else str(v)) for v in row] for row in block["rows"]]
    widths = [max([len(c)] + [len(r[i]) for r in rows if i < len(r)]) for i, c in enumerate(cols)]

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    out = [fmt(cols), fmt(["-" * w for w in widths])]
    out += [fmt(r + [""] * (len(cols) - len(r))) for r in rows]
    return "\n".join("  " + line for line in out)


@lru_cache(maxsize=1)
def env() -> Environment:
    e = Environment(
        loader=FileSystemLoader(str(templates_dir())),
        undefined=StrictUndefined,
        autoescape=select_autoescape(["html", "html.j2"], default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    e.filters["text_table"] = text_table
    e.filters["count"] = count  # {{ n|count("card") }}: "1 card", "2 cards"
    return e


def render_pair(template: str, **ctx: Any) -> tuple[str, str]:
    """Render mail/NAME.txt.j2 and mail/NAME.html.j2 with the same context."""
    text = env().get_template(f"mail/{template}.txt.j2").render(**ctx)
    html = env().get_template(f"mail/{template}.html.j2").render(**ctx)
    return text, html


def render(template: str, **ctx: Any) -> str:
    return env().get_template(template).render(**ctx)
