"""The tables of a mail: a table block as plain text that fits a phone's 40 columns, or as HTML.

Every value a template prints passes `_shown` (control characters made visible).
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup, escape

from pbem.render.sanitize import visible

#: The widest line a table of a mail's text part is written in: a phone held upright shows about 40 columns.
NARROW = 40


def text_table(block: dict[str, Any]) -> str:
    """A table block as aligned plain text, or, when its aligned lines would be wider than `NARROW` columns (a
    phone's screen, where every row would wrap into a ragged pile), as one block per row: the row's first cell
    (of the table's first column not all numbers) with its column's name, then the other non-empty cells as `Column: value` pairs joined by `; `, wrapped at
    `NARROW` (a pair is cut only where it alone is wider; a single word wider than the line is left whole).
    The same table is written the same way for every reader: the choice depends on its cells only."""
    cols = [str(c) for c in block["columns"]]
    n = len(cols)
    rows = [[("" if v is None else str(v)) for v in row[:n]] for row in block["rows"]]  # cells past the columns: none
    rows = [r if len(r) == n else r + [""] * (n - len(r)) for r in rows]
    widths = [max(map(len, column)) for column in zip(cols, *rows)] if n else []

    def fmt(cells: list[str]) -> str:
        return "  " + "  ".join(map(str.ljust, cells, widths)).rstrip()

    # The rule under the heading is the widest aligned line when the last column has a width: a table known to be
    # wide by its widths alone is not written aligned first (most of a Sixteen Thirty report's tables).
    if not (n and widths[-1] and 2 + sum(widths) + 2 * (n - 1) > NARROW):
        lines = [fmt(cols), fmt(["-" * w for w in widths]), *map(fmt, rows)]
        if max(map(len, lines)) <= NARROW:
            return "\n".join(lines)
    if not rows:  # what it would hold, as the aligned form's heading says it
        return "\n".join(_filled([f"{c};" for c in cols[:-1]] + cols[-1:], "  "))
    key = next((i for i in range(n) if not all(r[i].isdigit() for r in rows)), 0)
    return "\n".join(line for row in rows for line in _row_block(cols, row, key))


def _row_block(cols: list[str], row: list[str], key: int) -> list[str]:
    """One row of a wide table as `text_table` writes it: `  Column: cell` of its `key` column (the table's first
    that is not all numbers: a seat number names no row), then `    Column: cell; ...` of the others in order."""
    named = [f"{c}: {v}" if c else v for c, v in zip(cols, row)]
    rest = [p for i, (p, v) in enumerate(zip(named, row)) if v and i != key]
    lines = _filled([named[key]] if row[key] else [], "  ")
    return lines + _filled([f"{p};" for p in rest[:-1]] + rest[-1:], "    ")


def _filled(units: list[str], indent: str) -> list[str]:
    """`units` on lines of at most `NARROW` columns after `indent`, in order, a space between two on a line; a
    unit wider than a line is cut between its words (a word wider than the line stays whole)."""
    room = NARROW - len(indent)
    lines: list[str] = []
    line = ""
    for unit in units:
        if line and len(line) + 1 + len(unit) <= room:
            line += " " + unit
            continue
        if line:
            lines.append(indent + line)
        if len(unit) <= room and unit[:1] != " ":  # the words below, put together again: the unit itself
            line = unit
            continue
        line = ""
        for word in unit.split(" "):
            if line and len(line) + 1 + len(word) > room:
                lines.append(indent + line)
                line = word
            else:
                line = f"{line} {word}" if line else word
    return [*lines, indent + line] if line else lines


def html_table(block: dict[str, Any]) -> Markup:
    """A table block as the HTML report's table: a row per line, each cell labelled by its column (narrow screens
    show the label beside the value).  Built here rather than in the template: a report's cells are most of its
    HTML, and a Jinja loop pays an attribute look-up and a test per cell (issue 27).  Every value is shown as
    the template would show it (`_shown`, then escaped)."""
    cols = [escape(_shown(str(c))) for c in block["columns"]]
    head = "".join(f'<th scope="col">{c}</th>' for c in cols)
    labels = [f'<td data-label="{c}">' for c in cols]
    # a row of one cell a column, in one `str.format` (the labels' braces doubled): as the f-strings below write it
    whole = "<tr>" + "".join(label.replace("{", "{{").replace("}", "}}") + "{}</td>" for label in labels) + "</tr>\n"
    rows = []
    for row in block["rows"]:
        shown = list(map(str, row))
        plain = "".join(shown)
        if not (
            plain.isascii()
            and plain.isprintable()
            and _PLAIN_HTML.search(plain) is None
            and _PLAIN_TYPES.issuperset(map(type, row))
        ):
            shown = [escape(_shown(v)) for v in row]  # (what `_shown` keeps and `escape` leaves is str(v) itself)
        if len(shown) == len(labels):
            rows.append(whole.format(*shown))
            continue
        cells = "".join(
            f"{labels[i]}{v}</td>" if i < len(labels) else f'<td data-label="">{v}</td>' for i, v in enumerate(shown)
        )
        rows.append(f"<tr>{cells}</tr>\n")
    return Markup(f'<table class="cards">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{"".join(rows)}</tbody>\n</table>')


#: What HTML escapes (markupsafe's five): a row whose cells hold none, and only printable ASCII, is shown as is.
_PLAIN_HTML = re.compile("[&<>\"']")
_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})  # shown as str(v) (no `__html__` of their own)


def _shown(value: Any) -> Any:
    """Every value a template prints, with control characters made visible (escape sequences in press, salts
    and names never reach a terminal or a mail reader as codes: `pbem.render.sanitize`)."""
    if type(value) is str and value.isprintable():  # most of what a report prints: nothing to show otherwise
        return value
    if isinstance(value, str) and not isinstance(value, Markup):
        return visible(value, keep_lines=True)
    return value
