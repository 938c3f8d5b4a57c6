"""The export formats, registered in one place: name -> file suffix, renderer, one-line help.

`pbem export --format NAME` renders the export document with the format's
renderer; `pbem export --all DIR` writes every registered format of every
game as NAME.<suffix>.  A new format is one renderer and one line in `FORMATS`.
Renderers are named "module:function" and imported on first use, so that the
CLI can read this registry for its help without loading the history.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from typing import Any

Doc = dict[str, Any]


def to_json(doc: Doc) -> str:
    """The export document itself (format "pbem-history", see docs/export-format.md)."""
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Format:
    """One export format: its file suffix, its renderer and what it is, for the CLI help."""

    suffix: str
    renderer: str
    help: str

    def render(self, doc: Doc) -> str:
        module, function = self.renderer.split(":")
        out: str = getattr(importlib.import_module(module), function)(doc)
        return out


FORMATS: dict[str, Format] = {
    "json": Format("json", "pbem.history.formats:to_json", "the full record as JSON, for pbem verify"),
    "text": Format("txt", "pbem.history.text:text_record", "a readable game record"),
    "html": Format("html", "pbem.history.page:render_html", "a self-contained page with charts"),
}


def render(doc: Doc, fmt: str) -> str:
    """The document in the registered format `fmt`."""
    try:
        return FORMATS[fmt].render(doc)
    except KeyError:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}") from None


def names() -> str:
    """The format names for error text: "json, text or html"."""
    keys = list(FORMATS)
    return ", ".join(keys[:-1]) + " or " + keys[-1] if len(keys) > 1 else keys[0]


def help_text() -> str:
    """The formats with what each is, for the CLI help: "json (...), text (...) or html (...)"."""
    items = [f"{name} ({f.help})" for name, f in FORMATS.items()]
    return ", ".join(items[:-1]) + " or " + items[-1] if len(items) > 1 else items[0]
