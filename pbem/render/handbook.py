"""A game's handbook and rulings laid out for a phone: 40 columns of text, or HTML that fits 360 px.

The engines hold their handbook (`Engine.handbook()`) and `pbem.engine.rulings` their rulings as plain text in a
small layout language, so that one text serves `pbem rules KIND`, the HELP mail's text part and its HTML part:

* blank lines separate blocks, and are kept;
* a line of capitals at the margin after a blank line, perhaps ended by a remark in brackets, is a heading (a
  line of ``=`` or ``-`` under it is its rule);
* ``1. ``, ``* `` or ``- `` starts a list item; deeper-indented lines after it continue it;
* any other line is prose: it continues the paragraph above it when indented at least as deep, else starts one;
* ```ORDER``` (in backticks) is an order to copy: never cut.  Order spans at the start of a line are each a line
  of their own, and the rest of the line (with the deeper-indented lines after it) is their explanation, a
  paragraph indented under them: the two-column "order, then what it does" of a handbook, one column at a time;
* ``| a | b |`` lines (with a ``|---|`` line under the first) are a table, written as `text_table` writes one.

`narrow` writes it at `NARROW` columns, every line within them but an order wider than a line (one word wider
than a line stays whole too); `as_html` writes the same blocks as HTML.  Pure and deterministic: the layout
depends on the text only, the same for every reader.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache

from markupsafe import Markup, escape

from pbem.render.tables import NARROW, html_table, text_table

_ITEM = re.compile(r"\A((?<!\d)\d++\.|\*|-) ++(?=\S)")  # a number starts only where a run of digits does: linear
_RULE = re.compile(r"\A[=-]{3,}")
_SPAN = re.compile(r"`([^`]+)`")
_LEADING_SPAN = re.compile(r"`([^`]+)`\s*")
_NOTE = re.compile(r"(?<! ) {2,}+(?=\()")  # the gap before a "(note)", from where its run of spaces starts
_KEEP = "\x00"  # a space inside an order while wrapping: never a break


@dataclass
class Block:
    kind: str  # "heading", "rule", "para", "item", "order", "table", "blank"
    indent: int = 0
    text: str = ""
    marker: str = ""
    rows: tuple[tuple[str, ...], ...] = ()
    under: bool = False  # the explanation of the orders above it: indented under them
    more: list[str] = field(default_factory=list)  # the lines that continue its text, joined once at the end


def blocks(source: str) -> list[Block]:
    """The blocks of a text in the handbook's layout language (see the module's docstring)."""
    out: list[Block] = []
    open_: Block | None = None  # the paragraph or item a prose line may continue
    open_at = 0  # the source indent a continuation must reach
    table: list[tuple[str, ...]] = []
    for raw in source.rstrip("\n").split("\n"):
        line = raw.rstrip()
        body = line.lstrip(" ")
        at = len(line) - len(body)
        if table and not (body.startswith("|") and body.endswith("|")):
            out.append(Block("table", rows=tuple(table)))
            table = []
        if not body:
            out.append(Block("blank"))
            open_ = None
            continue
        if body.startswith("|") and body.endswith("|") and len(body) > 1:
            cells = tuple(c.strip() for c in body[1:-1].split("|"))
            if not all(re.fullmatch(r"\A:?-+:?", c) for c in cells):
                table.append(cells)
            open_ = None
            continue
        if _RULE.fullmatch(body) and out and out[-1].kind == "heading":
            out.append(Block("rule", text=body[0]))
            continue
        if open_ is not None and at > open_at and not _ITEM.match(body) and not body.startswith("`"):
            open_.more.append(body)  # (a text grown line by line costs the square of its length)
            continue
        item = _ITEM.match(body)
        if item:
            open_ = Block("item", at, body[item.end() :], item[1])
            open_at = at
            out.append(open_)
        elif body.startswith("`"):
            end = 0
            while (m := _LEADING_SPAN.match(body, end)) is not None:  # (not the rest cut off after each: square)
                out.append(Block("order", at, m[1]))
                end = m.end()
            rest = body[end:]
            open_ = None
            if rest:
                open_ = Block("para", at, rest, under=True)
                out.append(open_)
            open_at = at
        elif at == 0 and _heading(body) and (not out or out[-1].kind == "blank"):
            out.append(Block("heading", 0, body))
            open_ = None
        elif open_ is not None and open_.kind == "para" and at == open_at and open_.indent == at:
            open_.more.append(body)
        else:
            open_ = Block("para", at, body)
            open_at = at
            out.append(open_)
    if table:
        out.append(Block("table", rows=tuple(table)))
    return _joined(out)


def _joined(out: list[Block]) -> list[Block]:
    """The blocks with the lines that continue each joined to its text, once."""
    for b in out:
        if b.more:
            b.text, b.more = " ".join([b.text, *b.more]), []
    return out


def _heading(body: str) -> bool:
    """A line of capitals, perhaps ended by a remark in brackets ("VOTES (every vote, ...)"): a heading, when
    a blank line or nothing comes before it."""
    cut = body.find(" (") if body.endswith(")") else -1  # (a pattern " \(.*\)$" tried every " (": square)
    words = body[:cut] if cut >= 0 else body
    return re.search("[A-Z]", words) is not None and re.search("[a-z`]", words) is None


def _indent(b: Block) -> str:
    """A block's indent on a phone: its source indent up to 4 columns (deeper only wastes a narrow screen), and
    2 more for the explanation of an order."""
    return " " * (min(b.indent, 4) + (2 if b.under else 0))


def _wrap(text: str, first: str, rest: str, width: int) -> list[str]:
    """`text` filled to `width` columns after its indents, an order span (in backticks) never cut."""
    kept = _SPAN.sub(lambda m: m[1].replace(" ", _KEEP), " ".join(text.split()))
    lines = textwrap.wrap(
        kept, width, initial_indent=first, subsequent_indent=rest, break_long_words=False, break_on_hyphens=False
    )
    return [line.replace(_KEEP, " ") for line in lines]


@lru_cache(maxsize=32)  # a game's handbook and rulings are constants: a HELP mail lays them out once a process
def narrow(source: str, width: int = NARROW) -> str:
    """The text laid out at `width` columns (see the module's docstring), with no blank line at either end."""
    out: list[str] = []
    for b in blocks(source):
        pad = _indent(b)
        if b.kind == "blank":
            out.append("")
        elif b.kind == "rule":
            out.append(b.text * min(width, len(out[-1]) if out else width))
        elif b.kind == "heading":
            out += _wrap(b.text, "", "", width)
        elif b.kind == "order":
            out.append(pad + b.text)
        elif b.kind == "item":
            first = pad + b.marker + " "
            out += _wrap(b.text, first, " " * len(first), width)
        elif b.kind == "table":
            header, *rows = b.rows
            out += text_table({"columns": list(header), "rows": [list(r) for r in rows]}).split("\n")
        else:
            out += _wrap(b.text, pad, pad, width)
    return "\n".join(out).strip("\n")


def _inline(text: str) -> str:
    """Prose as HTML: escaped, each order span in <code>."""
    parts = _SPAN.split(text)
    return "".join(f"<code>{escape(p)}</code>" if i % 2 else str(escape(p)) for i, p in enumerate(parts))


@lru_cache(maxsize=32)
def as_html(source: str) -> Markup:
    """The same blocks as HTML: headings, paragraphs, orders in <code> on lines of their own, tables as a
    report's tables (a card per row on a narrow screen).  Nothing is laid out by spaces, so nothing needs more
    width than the screen has."""
    out: list[str] = []
    for b in blocks(source):
        style = f' style="margin-left:{len(_indent(b)) / 2:g}em"' if _indent(b) else ""
        if b.kind == "heading":
            out.append(f'<h3 class="hb">{escape(b.text)}</h3>')
        elif b.kind == "order":
            out.append(f'<p class="order"{style}><code>{escape(b.text)}</code></p>')
        elif b.kind == "item":
            out.append(f'<p class="item"{style}>{escape(b.marker)} {_inline(b.text)}</p>')
        elif b.kind == "para":
            out.append(f'<p class="hb"{style}>{_inline(b.text)}</p>')
        elif b.kind == "table":
            header, *rows = b.rows
            out.append(str(html_table({"columns": list(header), "rows": [list(r) for r in rows]})))
    return Markup("\n".join(out))


def noted(line: str, indent: str = "  ") -> str:
    """A syntax line of a request, "ORDER   (a note)", at `indent`: as it is when it fits `NARROW` columns, else
    the order alone and its note on the next line, indented under it (the two columns one at a time, as in the
    handbook).  The order is never cut."""
    parts = _NOTE.split(line, maxsplit=1)
    if len(indent) + len(line) <= NARROW or len(parts) < 2:
        return indent + line
    return f"{indent}{parts[0]}\n{indent}    {parts[1]}"
